"""``bonfire-sim ladder``: round-robin of built-in strategies with ratings."""

from __future__ import annotations

import click

from bonfire_sim.cli.options import (
    emit_rows,
    format_csv,
    format_option,
    progress_callback,
    quiet_option,
    seed_option,
)


@click.command()
@click.option("--players", type=click.IntRange(2, 4), default=2, show_default=True,
              help="Seats per game.")
@click.option("--games", type=click.IntRange(1), default=20, show_default=True,
              help="Deals; each deal is played by every lineup in every seat order.")
@seed_option
@click.option("--strategies", "names", default=None,
              help="Comma-separated built-in strategies (default: all).")
@click.option("--csv", "csv_path", default=None, metavar="FILE",
              help="Also write the table as CSV to this file.")
@click.option("--jobs", type=int, default=1, show_default=True,
              help="Worker processes, -1 = every core (the results do not depend on it).")
@format_option
@quiet_option
def ladder(players: int, games: int, seed: int, names: str | None, csv_path: str | None,
           jobs: int, fmt: str, quiet: bool) -> None:
    """Round-robin ladder: win rates (Wilson 95%), scores, Bradley-Terry ratings.

    Every N-subset of the strategies plays each deal in every seat order, so each
    strategy sits in each seat equally often on identical deals.

    Example:

    \b
        bonfire-sim ladder --players 4 --games 10 --seed 1 --csv ladder.csv
    """
    from bonfire_sim import fileio
    from bonfire_sim.ladder import play_ladder, summarize
    from bonfire_sim.progress import Progress
    from bonfire_sim.sim.runner import resolve_jobs
    from strategies import STRATEGY_IDS

    jobs = resolve_jobs(jobs)
    if csv_path:
        fileio.check_output_file(csv_path)

    chosen = ([x.strip() for x in names.split(",") if x.strip()] if names
              else sorted(STRATEGY_IDS))
    with Progress(None, "ladder games", "game", quiet=quiet) as bar:
        results = play_ladder(chosen, players, games, seed, progress=progress_callback(bar),
                              jobs=jobs, status=bar.write)
    rows = summarize(results, chosen)
    if csv_path:  # before printing: a failed write leaves one error line, no table
        fileio.write_text(csv_path, format_csv(rows) + "\n")
    emit_rows(rows, fmt)
