"""``bonfire-sim report``: one self-contained HTML balance report from run directories."""

from __future__ import annotations

import click

from bonfire_sim.cli.options import progress_callback, quiet_option


@click.command()
@click.argument("run_dirs", nargs=-1, required=True, metavar="RUN_DIR [RUN_DIR ...]")
@click.option("--out", "out", default="reports/report.html", show_default=True, metavar="FILE",
              help="HTML file to write (figures and CSS inline; no network needed).")
@click.option("--title", default="Bonfire balance report", show_default=True,
              help="Page title.")
@click.option("--sensitivity", "sensitivity", default=None, metavar="FILE.json",
              help="Show this `bonfire-sim sensitivity --json` table in the method section.")
@quiet_option
def report(run_dirs: tuple[str, ...], out: str, title: str, sensitivity: str | None,
           quiet: bool) -> None:
    """Build an HTML balance report from finished runs' Parquet tables.

    Sections: overview, start-player advantage, task values, gnome strength, Tom
    difficulty (from solo runs) and method/caveats (the assumptions in force and, with
    --sensitivity, how much the figures move under other readings); a section without
    data says so.

    Example:

    \b
        bonfire-sim report runs/p4 runs/solo --out reports/p4.html
    """
    from bonfire_sim.progress import Progress
    from bonfire_sim.report.build import STEPS, build_report

    with Progress(STEPS, "report", "step", quiet=quiet) as bar:
        path = build_report(run_dirs, out, title=title, sensitivity=sensitivity,
                            progress=progress_callback(bar))
    click.echo(f"wrote {path}")
