"""Head to head: one player against another (or one seat against the rest), seat-rotated,
its win share with an interval clustered by deal.

``head_to_head(a, b, players, deals, seed)`` plays every deal with ``a`` in each seat once
and ``b`` in all the other seats (2 players: both seatings; 4 players: ``a`` against three
``b``), so every deal is played ``players`` times.  The games of one deal share its
cards, so the interval of ``a``'s win share is cluster-robust over deals
(``analysis.intervals.clustered_mean``; a tie counts as a win for every tied seat, as in
``ladder``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from scipy import stats

from bonfire_sim.analysis.intervals import clustered_mean
from bonfire_sim.errors import ConfigError
from bonfire_sim.studies.ladder import play_plan


@dataclass(frozen=True)
class HeadToHead:
    """``a``'s win share against ``b`` at ``players`` seats, with its 95% interval."""

    a: str
    b: str
    players: int
    games: int
    deals: int
    share: float
    lo: float
    hi: float
    margin: float  # a's mean score minus the best other seat's

    def line(self) -> str:
        """One readable line."""
        return (f"{self.a} vs {self.b} ({self.players} players, {self.games} games on "
                f"{self.deals} deals): {self.a} wins {100 * self.share:.1f}% "
                f"({100 * self.lo:.1f}-{100 * self.hi:.1f}, clustered by deal), "
                f"margin {self.margin:+.1f}")


def head_to_head(a: str, b: str, players: int, deals: int, seed: int, jobs: int = 1,
                 progress: Callable[[int, int], None] | None = None) -> HeadToHead:
    """Play ``deals`` deals x ``players`` seatings of ``a`` in one seat, ``b`` in the
    others; ``a``'s win share with its interval clustered by deal."""
    if a == b:
        raise ConfigError(f"head to head needs two different players, got {a!r} twice")
    plan = []
    for d in range(deals):
        for seat in range(players):
            lineup = tuple(a if i == seat else b for i in range(players))
            plan.append((d, lineup))
    results = play_plan([a, b], players, seed, plan, progress=progress, jobs=jobs)
    wins, margins, clusters = [], [], []
    for (_, lineup), r in zip(plan, results, strict=True):
        seat = lineup.index(a)
        wins.append(1.0 if r.won[seat] else 0.0)
        margins.append(r.scores[seat] - max(s for i, s in enumerate(r.scores) if i != seat))
        clusters.append(r.deal)
    m, se, n, k = clustered_mean(wins, clusters)
    t = float(stats.t.ppf(0.975, max(1, k - 1)))
    return HeadToHead(a, b, players, n, k, m, max(0.0, m - t * se), min(1.0, m + t * se),
                      float(np.mean(margins)))

