"""Solo play against Tom and the handicap challenge (rulebook p.12, "Challenge 1").

Handicap H shifts the start: H > 0 gives Tom a lead of H points, H < 0 gives you -H.  You
win a game when ``your score - Tom's score > H``; lose when it is below, tie when equal.
Start at -10; a win adds 5, a loss subtracts 2, a tie changes nothing.  The series drifts
to where 5 P(win) = 2 P(loss); ignoring ties that is P(win) = 2/7, so the handicap settles
near the (1 - 2/7) quantile of your winning margin over Tom.

Strategies do not look at the handicap, so a game's margin does not depend on it: a
series is the same seeded games read with the handicap arithmetic.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

import numpy as np

from bonfire_sim.rules import components as C
from bonfire_sim.sim.chunk import ChunkJob
from bonfire_sim.sim.runconfig import RunConfig
from bonfire_sim.sim.runner import play_chunks, resolve_jobs
from bonfire_sim.sim.warm import ensure_warm

SETTLE_WIN_RATE = 2 / 7


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
    equilibrium: float  # handicap where the win rate would be 2/7 (margin quantile)
    equilibrium_ci: tuple[float, float]  # 95% bootstrap interval of ``equilibrium``


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


def equilibrium_handicap(margin: np.ndarray) -> float:
    """Handicap at which P(margin > H) = 2/7: the (1 - 2/7) quantile of the margins."""
    return float(np.quantile(margin, 1 - SETTLE_WIN_RATE))


def handicap_series(games: SoloGames, start: int = C.HANDICAP_START, n_boot: int = 500,
                    seed: int = 0) -> HandicapSeries:
    """The challenge over the games in order, with where it settles."""
    margin = games.margin
    path, out = handicap_path(margin, start)
    rng = np.random.default_rng(seed)
    boots = [equilibrium_handicap(rng.choice(margin, len(margin))) for _ in range(n_boot)]
    lo, hi = np.quantile(boots, [0.025, 0.975]) if len(margin) > 1 else (np.nan, np.nan)
    half = path[len(path) // 2:]
    return HandicapSeries(start, path, out, float(half.mean()), equilibrium_handicap(margin),
                          (float(lo), float(hi)))
