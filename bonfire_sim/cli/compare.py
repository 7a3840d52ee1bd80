"""``bonfire-sim compare``: an HTML report of the differences between two runs."""

from __future__ import annotations

import click


@click.command()
@click.argument("run_a")
@click.argument("run_b")
@click.option("--out", "out", default="reports/compare.html", show_default=True,
              help="HTML file to write.")
def compare(run_a: str, run_b: str, out: str) -> None:
    """Compare two runs: mean score and win rate by strategy, task lighting rates and
    end reasons, each difference (B - A) with a 95% interval.

    Example:

    \b
        bonfire-sim compare runs/base runs/b1-three-points --out reports/b1.html
    """
    from bonfire_sim.report.compare import build_compare

    path = build_compare(run_a, run_b, out)
    click.echo(f"wrote {path}")
