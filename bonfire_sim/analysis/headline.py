"""A run's headline: games, the mean winning score and the start player's win share, in
one line (``bonfire-sim run`` ends with it).

The players table is read in batches of a few columns, so the memory stays flat however
many games the run holds.  The start player's share is clustered by deal: the seat
rotations of one deal share its cards, so they are not independent games.  Its interval
is the clustered Wilson one (``intervals.clustered_wilson``) the report's seat table and
``values.seat_advantage`` give seat 0, so the run's line and the report say the same.

When every seat plays the same player without chance, the rotations of a deal are the
same game played again (seat 0 starts every rotation, and a rotation only moves identical
players), so a seat-rotated run holds a quarter (at 4 players) of the distinct games its
count suggests.  The headline checks that from the scores and says it, with the fix: the
intervals were honest (clustered by deal), but three quarters of the time was spent on
replays.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from bonfire_sim.analysis.intervals import clustered_mean, clustered_wilson
from bonfire_sim.sim.runconfig import RunConfig

BATCH_ROWS = 1 << 18


@dataclass(frozen=True)
class Headline:
    """The headline figures of one run."""

    games: int
    players: int
    strategies: tuple[str, ...]
    win_score: float  # mean final score of the winners (each tied winner counts)
    start_share: float  # the start player's (seat 0) mean win share (ties split)
    start_lo: float
    start_hi: float
    deals: int = 0  # distinct deals (games / rotations)
    replayed: bool = False  # every deal's rotations gave the same scores seat by seat

    def replay_note(self) -> str:
        """A note for a seat-rotated run whose rotations replayed one game ('' if not)."""
        if not self.replayed:
            return ""
        rot = self.games // max(self.deals, 1)
        who = sorted(set(self.strategies))
        # distinct names that played identically (search:N:phases=none is tuned) are not
        # "every seat plays X": say they made the same moves
        why = (f"every seat plays {who[0]}" if len(who) == 1 else
               f"{' and '.join(who)} made the same moves in every deal")
        advice = (f"leave out --seat-rotation when every seat plays one player, for {rot}x "
                  f"as many distinct games at the same cost" if len(who) == 1 else
                  "these players play alike here, so no number of games tells them apart")
        return (f"note: the {rot} seat rotations of every deal replayed the same game "
                f"({why}): {self.deals:,} distinct games, not {self.games:,}; {advice}")

    def text(self) -> str:
        """The one line, saying who played."""
        who = ", ".join(self.strategies)
        if self.players == 1:
            return (f"{self.games:,} solo games ({who} against Tom): mean winning score "
                    f"{self.win_score:.1f}, the player won {100 * self.start_share:.1f}% "
                    f"(95% {100 * self.start_lo:.1f}-{100 * self.start_hi:.1f}%)")
        return (f"{self.games:,} games of {self.players} players ({who}): mean winning "
                f"score {self.win_score:.1f}, the start player won {100 * self.start_share:.1f}% "
                f"(95% {100 * self.start_lo:.1f}-{100 * self.start_hi:.1f}%; fair "
                f"{100 / self.players:.1f}%)")


# Seat-weighted score fingerprint of a game: equal for two games with the same scores
# seat by seat (odd multipliers below 2**31 keep distinct small score vectors apart).
_SEAT_MULT = np.array([1, 1_000_003, 2_000_000_011, 3_000_000_019], np.int64)


def _games(game_id: np.ndarray, seat: np.ndarray, score: np.ndarray, won: np.ndarray,
           ) -> tuple[np.ndarray, np.ndarray, np.ndarray, float, int]:
    """(game ids, seat 0's win share per game, score fingerprint per game, sum of winners'
    scores, winners) of rows holding whole games."""
    ids, inv = np.unique(game_id, return_inverse=True)
    winners = np.bincount(inv, weights=won, minlength=len(ids))
    share = np.where(won > 0, 1.0 / np.maximum(winners[inv], 1), 0.0)
    start = np.bincount(inv, weights=np.where(seat == 0, share, 0.0), minlength=len(ids))
    finger = np.zeros(len(ids), np.int64)
    np.add.at(finger, inv, score * _SEAT_MULT[np.clip(seat, 0, 3)])
    return ids, start, finger, float(score[won > 0].sum()), int((won > 0).sum())


def _replayed(ids: np.ndarray, finger: np.ndarray, rotations: int) -> bool:
    """Whether every deal's ``rotations`` games have one fingerprint (a replayed game)."""
    if rotations < 2 or len(ids) < rotations:
        return False
    order = np.argsort(ids, kind="stable")
    deal, f = ids[order] // rotations, finger[order]
    first = np.r_[True, deal[1:] != deal[:-1]]
    base = f[np.maximum.accumulate(np.where(first, np.arange(len(f)), 0))]
    return bool(np.all(f == base))


def headline(run_dir: str | Path, config: RunConfig) -> Headline:
    """The headline of the finished run of ``config`` in ``run_dir``."""
    import pyarrow.parquet as pq

    out = Path(run_dir)
    parts: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
    score_sum, n_win = 0.0, 0
    held: list[np.ndarray] | None = None  # rows of the last game, which may go on
    pf = pq.ParquetFile(out / "players.parquet")
    for batch in pf.iter_batches(BATCH_ROWS, columns=["game_id", "seat", "score", "won"]):
        cols = [batch.column(i).to_numpy(zero_copy_only=False).astype(np.int64)
                for i in range(4)]
        if held is not None:
            cols = [np.concatenate([h, c]) for h, c in zip(held, cols, strict=True)]
        whole = cols[0] != cols[0][-1]
        held = [c[~whole] for c in cols]
        if whole.any():
            ids, start, f, s, w = _games(*(c[whole] for c in cols))
            parts.append((ids, start, f))
            score_sum, n_win = score_sum + s, n_win + w
    if held is not None and len(held[0]):
        ids, start, f, s, w = _games(*held)
        parts.append((ids, start, f))
        score_sum, n_win = score_sum + s, n_win + w
    ids = np.concatenate([p[0] for p in parts]) if parts else np.zeros(0, np.int64)
    start = np.concatenate([p[1] for p in parts]) if parts else np.zeros(0)
    finger = np.concatenate([p[2] for p in parts]) if parts else np.zeros(0, np.int64)
    deals = ids // config.rotations
    k = clustered_mean(start, deals)[3]
    mean, lo, hi = clustered_wilson(start, deals)
    return Headline(len(ids), config.players, tuple(config.strategies),
                    score_sum / n_win if n_win else float("nan"), mean, lo, hi, deals=k,
                    replayed=_replayed(ids, finger, config.rotations))
