"""Issue 27's bars for a seat mix in 4-player games (default: ``strategies.DEFAULT_MIX``).

    python scripts/population_check.py --games 2000 --jobs 2
    python scripts/population_check.py --games 2000 --jobs 2 portal,planner,tempo,gnome_engine

Plays the mix seat-rotated on fresh seeds and prints the mean winning score (bar: >= 75),
the share of games that ended without the countdown (bar: < 1%) and each style's share of
the wins (bar: none above 40%), each with its 95% interval (t for the mean, Wilson for
shares; a game won by a tie counts for every winner).
"""

from __future__ import annotations

import argparse

import numpy as np

import bonfire_sim
from bonfire_sim.analysis.intervals import mean_ci, wilson
from bonfire_sim.strategies import DEFAULT_MIX


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("mix", nargs="?", default=",".join(DEFAULT_MIX))
    ap.add_argument("--games", type=int, default=2000)
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--seed", type=int, default=2727)
    args = ap.parse_args()
    mix = [s.strip() for s in args.mix.split(",") if s.strip()]
    data = bonfire_sim.run(games=args.games, players=4, strategies=mix, seat_rotation=True,
                           seed=args.seed, jobs=args.jobs)
    g, pl = data.games, data.players
    won = pl[pl["won"].astype(bool)]
    m, lo, hi = mean_ci(won.groupby("game_id")["score"].max().to_numpy(float))
    stalled = int((g["end_reason"].astype(str) != "countdown").sum())
    s_lo, s_hi = wilson(stalled, len(g))
    print(f"{len(g)} games, mix {','.join(mix)}, seed {args.seed}")
    print(f"mean winning score {m:.1f} ({lo:.1f}-{hi:.1f}); without the countdown "
          f"{stalled / len(g):.2%} ({float(s_lo):.2%}-{float(s_hi):.2%})")
    wins = won.groupby("strategy").size()
    for name in mix:
        k = int(wins.get(name, 0))
        w_lo, w_hi = wilson(k, len(g))
        print(f"  {name:20s} wins {k / len(g):.1%} ({float(w_lo):.1%}-{float(w_hi):.1%}), "
              f"mean score {pl.loc[pl['strategy'] == name, 'score'].mean():.1f}")
    print(f"lit bonfires per player {np.mean(pl['n_bonfires']):.2f}")


if __name__ == "__main__":
    main()
