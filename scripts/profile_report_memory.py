#!/usr/bin/env python3
"""Peak resident memory of ``bonfire-sim report`` step by step (Linux).

Usage: scripts/profile_report_memory.py RUN_DIR [RUN_DIR...] --out report.html [--jobs 2]
       [--probe-games 2000]

Builds the report in this process; a thread samples the resident set every 20 ms, and
each step the report announces (its ``status`` lines: loading, each section, writing)
closes the previous step's line: its peak, its end and its seconds.  Where
``scripts/bench_memory.py`` gives each process's overall peak, this says which step
holds the memory (docs/findings/2026-11-26-million-games.md).
"""

from __future__ import annotations

import argparse
import threading
import time


def _rss_mb() -> float:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS"):
                return int(line.split()[1]) / 1024
    return float("nan")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("runs", nargs="+")
    ap.add_argument("--out", required=True)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--probe-games", dest="probes", type=int, default=2000)
    a = ap.parse_args()
    from bonfire_sim.report.build import build_report

    step = {"name": "imports", "peak": _rss_mb(), "t": time.perf_counter()}

    def sample() -> None:
        while True:
            step["peak"] = max(step["peak"], _rss_mb())
            time.sleep(0.02)

    def status(text: str) -> None:
        now = _rss_mb()
        print(f"{step['name'][:64]:64s} peak {max(step['peak'], now):7.0f} MB  end "
              f"{now:7.0f} MB  {time.perf_counter() - step['t']:6.1f} s", flush=True)
        step.update(name=text, peak=now, t=time.perf_counter())

    threading.Thread(target=sample, daemon=True).start()
    build_report(a.runs, a.out, jobs=a.jobs, status=status, probes=a.probes)
    status("done")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
