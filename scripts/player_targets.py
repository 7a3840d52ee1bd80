"""Self-play figures of players (the README's "Where every player stands" targets).

    python scripts/player_targets.py --games 2000 --jobs 2 tuned steady portal

For each player: 4-player self-play mean winning score, lit bonfires per player and the
share of games that ended without the countdown; 2-player self-play stalled share.  Each
figure with its 95% interval (t for means, Wilson for shares), on fresh seeds.
"""

from __future__ import annotations

import argparse

import numpy as np

import bonfire_sim
from bonfire_sim.analysis.intervals import mean_ci, wilson


def _share(hits: int, n: int) -> str:
    lo, hi = wilson(hits, n)
    return f"{hits / n:.1%} ({float(lo):.1%}-{float(hi):.1%})"


def _mean(x: np.ndarray, digits: int = 1) -> str:
    m, lo, hi = mean_ci(np.asarray(x, float))
    return f"{m:.{digits}f} ({lo:.{digits}f}-{hi:.{digits}f})"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("players", nargs="+")
    ap.add_argument("--games", type=int, default=2000)
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--seed", type=int, default=4242)
    args = ap.parse_args()
    for name in args.players:
        d4 = bonfire_sim.run(games=args.games, players=4, strategies=[name], seed=args.seed,
                             jobs=args.jobs)
        d2 = bonfire_sim.run(games=args.games, players=2, strategies=[name],
                             seed=args.seed + 1, jobs=args.jobs)
        g4, p4, g2 = d4.games, d4.players, d2.games
        winners = p4[p4["won"].astype(bool)].groupby("game_id")["score"].max()
        not_cd = int((g4["end_reason"].astype(str) != "countdown").sum())
        stalled2 = int((g2["end_reason"].astype(str) == "stalled").sum())
        print(f"{name}: 4p mean winning score {_mean(winners.to_numpy())}, "
              f"lit bonfires per player {_mean(p4['n_bonfires'].to_numpy(), 2)}, "
              f"without the countdown {_share(not_cd, len(g4))}; "
              f"2p stalled {_share(stalled2, len(g2))}")


if __name__ == "__main__":
    main()
