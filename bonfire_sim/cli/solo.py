"""``bonfire-sim solo``: players against Tom, and the handicap challenge."""

from __future__ import annotations

from typing import Any

import click

from bonfire_sim.cli.options import (
    FILE,
    backend_options,
    progress_callback,
    quiet_option,
    variant_option,
)
from bonfire_sim.lineup import RECOMMENDED_SOLO


@click.command()
@click.option("--strategy", "--strategies", "strategy", default=None, metavar="A,B,...",
              help=f"The human's player spec (default: {RECOMMENDED_SOLO}, the recommended solo "
                   "player); several (comma-separated) are each played on the same deals.")
@click.option("--games", type=int, default=1000, show_default=True, help="Solo games.")
@click.option("--seed", type=int, default=0, show_default=True, help="Master seed.")
@click.option("--handicap", type=click.IntRange(-1000, 1000), default=0, show_default=True,
              help="Fixed handicap for the win/loss/tie table (>0: Tom starts ahead).")
@click.option("--jobs", type=int, default=1, show_default=True,
              help="Worker processes (-1 = every core).")
@click.option("--path-csv", type=FILE, default=None,
              help="Write the simulated handicap path (game, handicap, outcome).")
@variant_option
@backend_options
@quiet_option
def solo(strategy: str | None, games: int, seed: int, handicap: int, jobs: int,
         path_csv: str | None, variants: dict[str, str], quiet: bool) -> None:
    """Play solo games against Tom and simulate the handicap challenge.

    Prints the win/tie/loss rates at --handicap, both players' mean scores, the challenge
    path from -10 (+5 per win, -2 per loss, a tie changes nothing) and the handicap where
    it settles: where the expected change per game, 5 P(win) - 2 P(loss), is zero,
    interpolated between whole handicaps, with a 95% bootstrap interval over games.  --variant plays
    a named reading of an uncertain fact, as `run` does (e.g. tom_deck=gnome).

    Example:

    \b
        bonfire-sim solo --strategy greedy --games 2000 --seed 1 --handicap 5

    \b
        bonfire-sim solo --strategies tuned,portal,search:16 --games 40 --seed 1

    \b
        bonfire-sim solo --strategy steady --variant tom_deck=gnome --games 500
    """
    from bonfire_sim.config import check_count, check_seed
    from bonfire_sim.errors import ConfigError
    from bonfire_sim.infra import fileio
    from bonfire_sim.sim.runner import resolve_jobs
    from bonfire_sim.strategies.specs import parse_players, split_specs

    check_count("--games", games)
    check_seed(seed, "--seed")
    jobs = resolve_jobs(jobs)
    specs = split_specs(strategy) if strategy is not None else [RECOMMENDED_SOLO]
    if not specs:
        raise ConfigError("--strategy: give at least one player")
    parse_players(specs)  # every spec is checked before any game is played
    if path_csv:
        fileio.check_output_file(path_csv)
    report: list[str] = []
    csv_rows: list[tuple[Any, ...]] = []
    for spec in specs:
        text, rows = _one(spec, games, seed, handicap, jobs, quiet, variants)
        report += text
        csv_rows += rows
    if path_csv:  # before printing: a failed write leaves one error line
        lines = [("strategy," if len(specs) > 1 else "") + "game,handicap,outcome"]
        lines += [(f"{spec}," if len(specs) > 1 else "") + f"{i},{h},{o}"
                  for spec, i, h, o in csv_rows]
        fileio.write_text(path_csv, "\n".join(lines) + "\n")
    click.echo("\n".join(report))


def _one(strategy: str, games: int, seed: int, handicap: int, jobs: int, quiet: bool,
         variants: dict[str, str]) -> tuple[list[str], list[tuple[Any, ...]]]:
    """Play one player's solo series: its printed summary and its handicap path rows."""
    import numpy as np

    from bonfire_sim.analysis.solo import (
        SETTLE_DEFINITION,
        handicap_series,
        outcomes_at,
        play_solo,
    )
    from bonfire_sim.infra.progress import Progress

    with Progress(games, f"solo games ({strategy})", "game", quiet=quiet) as bar:
        g = play_solo(strategy, games, seed, jobs, progress=progress_callback(bar),
                      status=bar.write, variants=variants)
    out = outcomes_at(g.margin, handicap)
    series = handicap_series(g, seed=seed)
    lo, hi = series.equilibrium_ci
    chosen = "".join(f", {fact}={name}" for fact, name in variants.items())
    text = [
        f"{games} solo games, {strategy} vs Tom (seed {seed}{chosen})",
        f"  mean score: {strategy} {g.human.mean():.1f}, Tom {g.tom.mean():.1f}",
        f"  at handicap {handicap:+d}: win {np.mean(out > 0):.1%}, "
        f"tie {np.mean(out == 0):.1%}, loss {np.mean(out < 0):.1%}",
        f"  challenge from {series.start:+d}: after {games} games "
        f"{int(series.path[-1]):+d}, mean over the second half {series.settled:+.1f}",
        f"  settles near {series.equilibrium:+.1f} (95% CI {lo:+.1f} .. {hi:+.1f}, "
        f"bootstrap over games): {SETTLE_DEFINITION}",
    ]
    rows = [(strategy, i, int(series.path[i]), int(o)) for i, o in enumerate(series.outcomes)]
    return text, rows
