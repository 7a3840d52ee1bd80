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
@click.option("--csv", "csv_path", type=click.Path(dir_okay=False, writable=True),
              default=None, help="Also write the table as CSV to this file.")
@click.option("--jobs", type=click.IntRange(1), default=1, show_default=True,
              help="Worker processes (the results do not depend on it).")
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
    from bonfire_sim.ladder import play_ladder, summarize
    from bonfire_sim.progress import Progress
    from strategies import STRATEGY_IDS

    chosen = ([x.strip() for x in names.split(",") if x.strip()] if names
              else sorted(STRATEGY_IDS))
    with Progress(None, "ladder games", "game", quiet=quiet) as bar:
        results = play_ladder(chosen, players, games, seed, progress=progress_callback(bar),
                              jobs=jobs, status=bar.write)
    rows = summarize(results, chosen)
    emit_rows(rows, fmt)
    if csv_path:
        with open(csv_path, "w") as f:
            f.write(format_csv(rows) + "\n")
