"""HTML balance reports: ``stats`` (pure, tested) -> ``figures`` -> ``html`` (assembly).

``build.build_report(run_dirs, out)`` writes one self-contained page; ``compare`` reports
the differences between two runs.
"""
