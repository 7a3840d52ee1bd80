"""``bonfire-sim solo``: a strategy against Tom, and the handicap challenge."""

from __future__ import annotations

import click


@click.command()
@click.option("--strategy", "--strategies", "strategy", default="random", show_default=True,
              metavar="A,B,...",
              help="The human's player spec; several (comma-separated) are each played on "
                   "the same deals.")
@click.option("--games", type=int, default=1000, show_default=True, help="Solo games.")
@click.option("--seed", type=int, default=0, show_default=True, help="Master seed.")
@click.option("--handicap", type=int, default=0, show_default=True,
              help="Fixed handicap for the win/loss/tie table (>0: Tom starts ahead).")
@click.option("--jobs", type=int, default=1, show_default=True, help="Worker processes.")
@click.option("--path-csv", default=None, metavar="FILE",
              help="Write the simulated handicap path (game, handicap, outcome).")
def solo(strategy: str, games: int, seed: int, handicap: int, jobs: int,
         path_csv: str | None) -> None:
    """Play solo games against Tom and simulate the handicap challenge.

    Prints the win/tie/loss rates at --handicap, both players' mean scores, the challenge
    path from -10 (+5 per win, -2 per loss) and the handicap where it settles (the
    strategy's win rate is 2/7 there), with a 95% bootstrap interval.

    Example:

    \b
        bonfire-sim solo --strategy greedy --games 2000 --seed 1 --handicap 5

    \b
        bonfire-sim solo --strategies tuned,portal,search:16 --games 40 --seed 1
    """
    from strategies.specs import parse_players, split_specs

    if games < 1:
        raise ValueError(f"--games must be >= 1, got {games}")
    specs = split_specs(strategy)
    if not specs:
        raise ValueError("--strategy: give at least one player")
    parse_players(specs)  # every spec is checked before any game is played
    csv_rows = []
    for spec in specs:
        csv_rows += _one(spec, games, seed, handicap, jobs)
    if path_csv:
        with open(path_csv, "w") as f:
            f.write(("strategy," if len(specs) > 1 else "") + "game,handicap,outcome\n")
            for spec, i, h, o in csv_rows:
                f.write((f"{spec}," if len(specs) > 1 else "") + f"{i},{h},{o}\n")


def _one(strategy: str, games: int, seed: int, handicap: int, jobs: int) -> list[tuple]:
    """Play and print one player's solo series; its handicap path rows."""
    import numpy as np

    from bonfire_sim.solo import handicap_series, outcomes_at, play_solo

    g = play_solo(strategy, games, seed, jobs)
    out = outcomes_at(g.margin, handicap)
    series = handicap_series(g, seed=seed)
    click.echo(f"{games} solo games, {strategy} vs Tom (seed {seed})")
    click.echo(f"  mean score: {strategy} {g.human.mean():.1f}, Tom {g.tom.mean():.1f}")
    click.echo(f"  at handicap {handicap:+d}: win {np.mean(out > 0):.1%}, "
               f"tie {np.mean(out == 0):.1%}, loss {np.mean(out < 0):.1%}")
    click.echo(f"  challenge from {series.start:+d}: after {games} games "
               f"{int(series.path[-1]):+d}, mean over the second half {series.settled:+.1f}")
    lo, hi = series.equilibrium_ci
    click.echo(f"  settles near {series.equilibrium:+.1f} (95% CI {lo:+.1f} .. {hi:+.1f}), "
               f"where the win rate is 2/7")
    return [(strategy, i, int(series.path[i]), int(o)) for i, o in enumerate(series.outcomes)]
