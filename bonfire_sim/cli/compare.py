"""``bonfire-sim compare``: an HTML report of the differences between two runs."""

from __future__ import annotations

import click

from bonfire_sim.cli.options import DIR, FILE, Budget, FiniteFloat, backend_options, quiet_option
from bonfire_sim.config import MAX_GAMES, MAX_POINTS


@click.command()
@click.argument("run_a", type=DIR)
@click.argument("run_b", type=DIR)
@click.option("--out", "out", type=FILE, default="reports/compare.html", show_default=True,
              help="HTML file to write.")
@click.option("--probe-games", type=Budget(1, MAX_GAMES), default=1000, show_default=True,
              help="Games per run whose decisions are forked for task and gnome values.")
@click.option("--margin", type=FiniteFloat(0, MAX_POINTS), default=1.0,
              show_default=True,
              help="Practical margin in points: smaller differences are never flagged.")
@click.option("--jobs", type=click.IntRange(min=1), default=1, show_default=True,
              help="Worker processes for the forks.")
@backend_options
@quiet_option
def compare(run_a: str, run_b: str, out: str, probe_games: int, margin: float,
            jobs: int, quiet: bool) -> None:
    """Compare two runs of one player count: score and win share by strategy, win share by
    seat, task and gnome value differences, task lighting rates and end reasons, each
    B - A with a 95% interval, paired by game when the runs share their deals.  For
    runs that share their deals, flagged value changes are split into the direct effect
    (A's decisions forked under B's rules) and the situational one.

    Example:

    \b
        bonfire-sim compare runs/base runs/b1-three-points --out reports/b1.html
    """
    from bonfire_sim.report.compare import build_compare

    path = build_compare(run_a, run_b, out, probes=probe_games, margin=margin, jobs=jobs,
                         quiet=quiet)
    click.echo(f"wrote {path}")
