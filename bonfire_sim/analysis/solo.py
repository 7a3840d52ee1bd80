"""Solo play against Tom and the handicap challenge (rulebook p.12, "Challenge 1").

Handicap H shifts the start: H > 0 gives Tom a lead of H points, H < 0 gives you -H.  You
win a game when ``your score - Tom's score > H``; lose when it is below, tie when equal.
Start at -10; a win adds 5, a loss subtracts 2, a tie changes nothing (rulebook: "in case
of a tie the Handicap doesn't change"; a solo game has no tiebreaker).  At handicap H the
expected change per game is the drift ``5 P(margin > H) - 2 P(margin < H)``: positive below
the settle point, negative above, so the series drifts to where it is zero.

**The settle point** (issue 39) is that zero: the drift at each whole handicap (ties count
as no change, as the rulebook says) and the crossing interpolated linearly between the two
whole handicaps around it.  Without ties it is the handicap where P(win) = 2/7.  Its 95%
interval is a bootstrap over games: the interpolated crossing moves with every game
resampled, where the earlier (1 - 2/7) quantile of integer margins gave a zero-width
interval ("95% CI -3.0 .. -3.0") and ignored ties.

Strategies do not look at the handicap, so a game's margin does not depend on it: a
series is the same seeded games read with the handicap arithmetic.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

import numpy as np

from bonfire_sim.analysis.intervals import bootstrap_ci
from bonfire_sim.rules import components as C
from bonfire_sim.sim.chunk import ChunkJob
from bonfire_sim.sim.runconfig import RunConfig
from bonfire_sim.sim.runner import play_chunks, resolve_jobs
from bonfire_sim.sim.warm import ensure_warm


@dataclass(frozen=True)
class SoloGames:
    """Per game: the human's and Tom's final scores (and bonfires, for reference)."""

    human: np.ndarray
    tom: np.ndarray

    @property
    def margin(self) -> np.ndarray:
        return self.human - self.tom


@dataclass(frozen=True)
class HandicapSeries:
    start: int
    path: np.ndarray  # handicap before each game, then after the last (len = games + 1)
    outcomes: np.ndarray  # +1 win, -1 loss, 0 tie
    settled: float  # mean handicap over the second half of the series
    equilibrium: float  # the settle point: where the drift is zero (``settle_point``)
    equilibrium_ci: tuple[float, float]  # 95% bootstrap interval (over games) of it


def play_solo(strategy: str, games: int, seed: int = 0, jobs: int = 1,
              chunk_size: int = 250,
              progress: Callable[[int, int], None] | None = None,
              status: Callable[[str], None] | None = None,
              variants: Mapping[str, str] | None = None) -> SoloGames:
    """Play ``games`` seeded solo games of ``strategy`` against Tom, under the named
    ``variants`` of uncertain facts (``{"tom_deck": "gnome"}``; default: none).

    ``progress(done, total)`` after every chunk; ``status(line)`` hears about compiling.
    """
    cfg = RunConfig(games=games, players=1, strategies=(strategy,), seed=seed,
                    chunk_size=chunk_size, variants=dict(variants or {}))
    human = np.zeros(games, np.int64)
    tom = np.zeros(games, np.int64)
    n_jobs = min(resolve_jobs(jobs), cfg.n_chunks)
    ensure_warm(status)
    done = 0
    for data in play_chunks([ChunkJob(cfg, i) for i in range(cfg.n_chunks)], n_jobs):
        pt = data.players.to_pandas()
        gid = pt["game_id"].to_numpy()
        is_tom = (pt["strategy"] == "tom").to_numpy()
        human[gid[~is_tom]] = pt["score"].to_numpy()[~is_tom]
        tom[gid[is_tom]] = pt["score"].to_numpy()[is_tom]
        done += data.games.num_rows
        if progress is not None:
            progress(done, games)
    return SoloGames(human, tom)


def outcomes_at(margin: np.ndarray, handicap: float) -> np.ndarray:
    """+1 win / -1 loss / 0 tie of each game at a fixed handicap."""
    return np.sign(margin - handicap).astype(np.int64)


def handicap_path(margin: np.ndarray, start: int = C.HANDICAP_START) -> tuple[np.ndarray,
                                                                             np.ndarray]:
    """Play the challenge over games in order: (handicap path, outcomes)."""
    path = np.empty(len(margin) + 1, np.int64)
    out = np.empty(len(margin), np.int64)
    h = start
    for i, m in enumerate(margin):
        path[i] = h
        o = int(np.sign(m - h))
        out[i] = o
        h += C.HANDICAP_WIN if o > 0 else (C.HANDICAP_LOSS if o < 0 else 0)
    path[-1] = h
    return path, out


SETTLE_DEFINITION = ("where the expected change per game, 5 P(win) - 2 P(loss), is zero "
                     "(a tie changes nothing), between whole handicaps interpolated")


def handicap_drift(margin: np.ndarray, handicaps: np.ndarray) -> np.ndarray:
    """Expected change of the handicap per game at each handicap: +5 P(margin > H)
    - 2 P(margin < H); a tie (margin == H) changes nothing."""
    m = np.sort(np.asarray(margin))
    h = np.asarray(handicaps)
    below = np.searchsorted(m, h, side="left") / len(m)  # P(margin < H): a loss
    above = 1.0 - np.searchsorted(m, h, side="right") / len(m)  # P(margin > H): a win
    return C.HANDICAP_WIN * above + C.HANDICAP_LOSS * below


def settle_point(margin: np.ndarray) -> float:
    """The handicap the challenge settles at: the zero of ``handicap_drift``, interpolated
    linearly between the last whole handicap with a drift >= 0 and the next one."""
    m = np.asarray(margin)
    if len(m) == 0:
        return float("nan")
    hs = np.arange(int(m.min()) - 1, int(m.max()) + 2)  # drift +5 at the low end, -2 at top
    d = handicap_drift(m, hs)
    k = int(np.nonzero(d >= 0)[0][-1])
    if d[k] == 0:
        return float(hs[k])
    return float(hs[k] + d[k] / (d[k] - d[k + 1]))


def equilibrium_handicap(margin: np.ndarray) -> float:
    """The settle point (``settle_point``; kept under its earlier name)."""
    return settle_point(margin)


def handicap_series(games: SoloGames, start: int = C.HANDICAP_START, n_boot: int = 500,
                    seed: int = 0) -> HandicapSeries:
    """The challenge over the games in order, with where it settles."""
    margin = games.margin
    path, out = handicap_path(margin, start)
    ci = bootstrap_ci(margin, settle_point, n_boot, seed)
    half = path[len(path) // 2:]
    return HandicapSeries(start, path, out, float(half.mean()), settle_point(margin), ci)
