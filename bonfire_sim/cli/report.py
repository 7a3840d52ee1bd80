"""``bonfire-sim report``: one self-contained HTML balance report from run directories."""

from __future__ import annotations

import sys

import click


@click.command()
@click.argument("run_dirs", nargs=-1, required=True, metavar="RUN_DIR [RUN_DIR ...]")
@click.option("--out", "out", default="reports/report.html", show_default=True,
              help="HTML file to write (figures and CSS inline; no network needed).")
@click.option("--title", default="Bonfire balance report", show_default=True,
              help="Page title.")
@click.option("--probe-games", type=click.IntRange(min=1), default=2000, show_default=True,
              help="Games per run whose decisions are forked for the task and gnome values "
              "(cached in the run directory).")
@click.option("--margin", type=click.FloatRange(min=0), default=1.0, show_default=True,
              help="Practical margin in points: smaller differences are never flagged.")
@click.option("--jobs", type=click.IntRange(min=1), default=1, show_default=True,
              help="Worker processes for the forks.")
def report(run_dirs: tuple[str, ...], out: str, title: str, probe_games: int, margin: float,
           jobs: int) -> None:
    """Build an HTML balance report from finished runs' Parquet tables.

    Sections: overview, start-player advantage and compensation, task values and gnome
    strength (engine forks, per player count), Tom difficulty (from solo runs) and
    method/caveats; a section without data says so.

    Example:

    \b
        bonfire-sim report runs/p4 runs/solo --out reports/p4.html
    """
    from bonfire_sim.report.build import build_report

    command = " ".join(["bonfire-sim", *sys.argv[1:]]) if sys.argv else None
    path = build_report(run_dirs, out, title=title, probes=probe_games, margin=margin,
                        command=command, jobs=jobs, quiet=False)
    click.echo(f"wrote {path}")
