"""``bonfire-sim ladder``: round-robin of players with ratings."""

from __future__ import annotations

import click

from bonfire_sim.cli.options import (
    backend_options,
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
@click.option("--strategies", "names", default=None, metavar="A,B,...",
              help="Comma-separated player specs: built-in names, name@weights.toml, "
                   "search:N, package.module:Class (default: every scripted built-in; add "
                   "search:N for the strength reference).")
@click.option("--csv", "csv_path", default=None, metavar="FILE",
              help="Also write the table as CSV to this file.")
@click.option("--jobs", type=int, default=1, show_default=True,
              help="Worker processes, -1 = every core (the results do not depend on it).")
@click.option("--tom-games", type=click.IntRange(0), default=0, show_default=True,
              help="Also play this many solo games of the top-rated player against Tom: "
                   "Tom's win rate and the handicap equilibrium against the strongest.")
@click.option("--move-timeout", type=float, default=None, metavar="SECONDS",
              help="Stop with an error when a plug-in seat takes longer than this per move "
                   "(default: no limit).")
@format_option
@backend_options
@quiet_option
def ladder(players: int, games: int, seed: int, names: str | None, csv_path: str | None,
           jobs: int, tom_games: int, move_timeout: float | None, fmt: str,
           quiet: bool) -> None:
    """Round-robin ladder of players: win rates (Wilson 95%), scores, Bradley-Terry ratings.

    Every N-subset of the players plays each deal in every seat order, so each player
    sits in each seat equally often on identical deals.  Players are specs: built-in
    names, name@weights.toml, search:N (the strength reference), package.module:Class.
    With --tom-games the top-rated player also meets Tom (rulebook solo) and the line
    below the table gives Tom's win rate and the handicap where the challenge settles.

    Example:

    \b
        bonfire-sim ladder --players 4 --games 10 --seed 1 --csv ladder.csv

    \b
        bonfire-sim ladder --players 2 --games 4 --strategies tuned,portal,search:16
    """
    from bonfire_sim import fileio
    from bonfire_sim.ladder import play_ladder, summarize
    from bonfire_sim.progress import Progress
    from bonfire_sim.sim.runner import resolve_jobs
    from strategies import SEARCH_ID, STRATEGY_IDS
    from strategies.specs import split_specs

    jobs = resolve_jobs(jobs)
    if csv_path:
        fileio.check_output_file(csv_path)
    chosen = (split_specs(names) if names
              else sorted(n for n, i in STRATEGY_IDS.items() if i != SEARCH_ID))
    with Progress(None, "ladder games", "game", quiet=quiet) as bar:
        results = play_ladder(chosen, players, games, seed, progress=progress_callback(bar),
                              jobs=jobs, status=bar.write, move_timeout=move_timeout)
    rows = summarize(results, chosen)
    if csv_path:  # before printing: a failed write leaves one error line, no table
        fileio.write_text(csv_path, format_csv(rows) + "\n")
    emit_rows(rows, fmt)
    if tom_games:
        _tom_line(rows[0]["strategy"], tom_games, seed, jobs)


def _tom_line(best: str, games: int, seed: int, jobs: int) -> None:
    """Tom's difficulty against the ladder's top-rated player."""
    import numpy as np

    from bonfire_sim.solo import handicap_series, play_solo

    g = play_solo(best, games, seed, jobs)
    series = handicap_series(g, seed=seed)
    lo, hi = series.equilibrium_ci
    click.echo(f"Tom vs the top-rated player {best} ({games} solo games): Tom wins "
               f"{np.mean(g.margin < 0):.1%} (ties {np.mean(g.margin == 0):.1%}), mean "
               f"scores {g.human.mean():.1f} vs Tom {g.tom.mean():.1f}; handicap equilibrium "
               f"{series.equilibrium:+.1f} (95% CI {lo:+.1f} .. {hi:+.1f})", err=True)
