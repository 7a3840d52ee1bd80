"""Start-player compensation: the starting points per seat that equalise win rates.

Method: re-rank every recorded game with seat offsets c (score + c[seat], ties broken by
bonfires as in the rules, remaining ties share the win) and solve for the offsets that give
every seat a win share of 1/n.  Offsets are whole points in the game; between whole values
the win shares are interpolated linearly (multilinearly over the seats), which makes them
continuous so the equations have a well-defined root.  The interval comes from the sandwich
(delta-method) formula: the per-deal covariance of the seats' win shares at the solution,
mapped through the inverse Jacobian of the win shares with respect to the offsets.  Games of
one deal (its seat rotations) are one cluster.

This assumes players would not change their play because of a head start (the built-in
strategies never look at the score), which ``seat_points`` runs can test directly.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterator

import numpy as np
from scipy import optimize

from bonfire_sim.analysis.intervals import (
    TOTALS_ROWS,
    Z95,
    Block,
    cluster_cuts,
    clustered_totals,
    dense_codes,
    unique_codes,
)

_dense = dense_codes  # the name the seat tests hold it by

# Games re-ranked at a time: every (games, n) temporary of the re-ranking is at most this
# many rows, so its memory does not grow with the run (a million games' matrices and
# their temporaries were about 0.3 GB).
BLOCK = 16_384  # about 2.5 MB of temporaries a block at 4 players


def _blocks(g: int) -> list[slice]:
    """Consecutive row blocks of ``BLOCK`` games covering ``g`` games (one when g is 0)."""
    return [slice(s, min(s + BLOCK, g)) for s in range(0, max(g, 1), BLOCK)]


def _win_shares_int(scores: np.ndarray, bonfires: np.ndarray, offs: np.ndarray) -> np.ndarray:
    """(G, n) win shares with integer offsets (score, then bonfires; ties share), in the
    scores' own integer type (widened to int32 at least: see ``_integers``).  Row by row,
    so a block of rows gives the same numbers as the whole."""
    scores, bonfires = _integers(scores), _integers(bonfires)
    adj = scores + offs.astype(scores.dtype)[None, :]
    top = adj.max(axis=1, keepdims=True)
    lead = adj == top
    bf = np.where(lead, bonfires, -1)
    win = lead & (bf == bf.max(axis=1, keepdims=True))
    return win / win.sum(axis=1, keepdims=True)


class _RowSum:
    """The column sums of row blocks fed in order, bit for bit ``a.sum(axis=0)`` of the
    whole (G, k) matrix: numpy sums the rows of a C-ordered matrix one after another
    along axis 0, so each block is summed behind the running total as its first row
    (``tests/test_report_flat.py`` holds it to the unblocked figures)."""

    def __init__(self) -> None:
        self.total: np.ndarray | None = None

    def add(self, block: np.ndarray) -> None:
        if self.total is None:
            self.total = block.sum(axis=0)
            return
        buf = np.empty((len(block) + 1, block.shape[1]), self.total.dtype)
        buf[0] = self.total
        buf[1:] = block
        self.total = buf.sum(axis=0)


def _mean_shares(scores: np.ndarray, bonfires: np.ndarray, offs: np.ndarray) -> np.ndarray:
    """``_win_shares_int(scores, bonfires, offs).mean(axis=0)``, re-ranked block by block."""
    total = _RowSum()
    for b in _blocks(len(scores)):
        total.add(_win_shares_int(scores[b], bonfires[b], offs))
    assert total.total is not None
    return total.total / len(scores)


def _corners(c: np.ndarray) -> list[tuple[float, np.ndarray]]:
    """(weight, whole offsets) of the multilinear interpolation at real offsets ``c``."""
    c = np.asarray(c, dtype=float)
    base = np.floor(c)
    frac = c - base
    free = [s for s in range(len(c)) if frac[s] > 1e-12]
    out = []
    for corner in itertools.product((0, 1), repeat=len(free)):
        offs = base.copy()
        weight = 1.0
        for s, bit in zip(free, corner, strict=True):
            offs[s] += bit
            weight *= frac[s] if bit else 1.0 - frac[s]
        out.append((weight, offs.astype(np.int64)))
    return out


def _per_game(scores: np.ndarray, bonfires: np.ndarray,
              corners: list[tuple[float, np.ndarray]]) -> np.ndarray:
    """(rows, n) interpolated win shares of these rows (a block of games)."""
    acc = np.zeros(scores.shape)
    for weight, offs in corners:
        acc += weight * _win_shares_int(scores, bonfires, offs)
    return acc


def win_shares(scores: np.ndarray, bonfires: np.ndarray, c: np.ndarray,
               per_game: bool = False) -> np.ndarray:
    """Mean win share per seat (or the (G, n) matrix) with real offsets ``c``, multilinearly
    interpolated between whole-point offsets.  The mean re-ranks ``BLOCK`` games at a
    time; the (G, n) matrix is what a caller asked to hold."""
    corners = _corners(c)
    if per_game:
        return _per_game(scores, bonfires, corners)
    acc = np.zeros(scores.shape[1])
    for weight, offs in corners:
        acc += weight * _mean_shares(scores, bonfires, offs)
    return acc


def _integers(a: np.ndarray) -> np.ndarray:
    """``a`` as it is if it holds integers of 32 bits or more, else as int32 (a narrow
    type would overflow once offset; the same integers in any wider type)."""
    a = np.asarray(a)
    if a.dtype.kind == "i" and a.dtype.itemsize >= 4:
        return a
    return a.astype(np.int32 if a.dtype.kind in "iub" and a.dtype.itemsize < 4 else np.int64)


def _jacobian(scores: np.ndarray, bonfires: np.ndarray, c: np.ndarray) -> np.ndarray:
    """d(win share of seats 1..n-1) / d(offset of seats 1..n-1), central differences."""
    n = len(c)
    jac = np.zeros((n - 1, n - 1))
    for t in range(1, n):
        up, dn = c.copy(), c.copy()
        up[t] += 0.5
        dn[t] -= 0.5
        jac[:, t - 1] = (win_shares(scores, bonfires, up)[1:]
                         - win_shares(scores, bonfires, dn)[1:])
    return jac


def compensation(scores: np.ndarray, bonfires: np.ndarray, clusters: np.ndarray | None = None,
                 ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(offsets, lo, hi) per seat, seat 0 fixed at 0: the starting points that equalise
    win shares (95% sandwich interval).  ``scores``/``bonfires`` are (games, seats), of
    any integer type (narrow ones are widened a block at a time, not copied whole)."""
    scores, bonfires = np.asarray(scores), np.asarray(bonfires)
    g, n = scores.shape
    nan = np.full(n, np.nan)
    if n < 2 or g < 2:
        return nan, nan, nan
    fair = 1.0 / n

    def f(x: np.ndarray) -> np.ndarray:
        return win_shares(scores, bonfires, np.concatenate([[0.0], x]))[1:] - fair

    # Start from the mean score gap to seat 0, then solve the piecewise-linear system.
    x0 = scores[:, 0].mean() - scores[:, 1:].mean(axis=0)
    sol = optimize.root(f, x0, method="hybr")
    x = sol.x
    if not sol.success or np.max(np.abs(f(x))) > 1e-3:
        x = _damped(f, x0, scores, bonfires)
    c = np.concatenate([[0.0], x])
    if np.max(np.abs(f(x))) > 5e-3:
        return nan, nan, nan
    jac = _jacobian(scores, bonfires, c)
    if clusters is None:
        clusters = np.arange(g)
    cross, k = _cluster_cross(scores, bonfires, c, np.asarray(clusters))
    cov_w = cross / g ** 2 * (k / max(k - 1, 1))
    try:
        jinv = np.linalg.inv(jac)
    except np.linalg.LinAlgError:
        return c, nan, nan
    cov_c = jinv @ cov_w @ jinv.T
    se = np.concatenate([[0.0], np.sqrt(np.clip(np.diag(cov_c), 0, None))])
    return c, c - Z95 * se, c + Z95 * se


def _cluster_cross(scores: np.ndarray, bonfires: np.ndarray, c: np.ndarray,
                   clusters: np.ndarray) -> tuple[np.ndarray, int]:
    """(S'S, k): S the (k, n - 1) sums per cluster over its games of each seat's (1..n-1)
    interpolated win share at ``c`` minus that seat's mean, and k the clusters.  Two
    passes of blocks of about ``BLOCK`` games cut between clusters (``cluster_cuts``: a
    cluster's games in one block), never the (games, n) matrix nor S: each block's
    cluster sums (added in row order, as over the whole) and their S'S are added to a
    running total, so only the last bits differ from S'S of the whole S."""
    corners = _corners(c)
    cuts = cluster_cuts(clusters, BLOCK)
    total = _RowSum()
    for b in cuts:  # the mean: bit for bit the whole sum (``_RowSum``) in any blocks
        total.add(_per_game(scores[b], bonfires[b], corners)[:, 1:])
    assert total.total is not None
    mean = total.total / len(scores)
    cross = np.zeros((scores.shape[1] - 1, scores.shape[1] - 1))
    k = 0
    for b in cuts:
        inv = unique_codes(clusters[b])[1]  # the block's clusters numbered 0, 1, ...
        sums = np.zeros((int(inv.max(initial=-1)) + 1, scores.shape[1] - 1))
        np.add.at(sums, inv, _per_game(scores[b], bonfires[b], corners)[:, 1:] - mean)
        cross += sums.T @ sums
        k += len(sums)
    return cross, k


def _damped(f, x0: np.ndarray, scores: np.ndarray, bonfires: np.ndarray) -> np.ndarray:
    """Fallback solver: damped Newton steps with a finite-difference Jacobian."""
    x = np.asarray(x0, dtype=float)
    for _ in range(60):
        r = f(x)
        if np.max(np.abs(r)) < 1e-4:
            break
        jac = _jacobian(scores, bonfires, np.concatenate([[0.0], x]))
        try:
            step = np.linalg.solve(jac, r)
        except np.linalg.LinAlgError:
            step = r / np.maximum(np.abs(np.diag(jac)), 1e-3)
        x = x - np.clip(step, -3, 3)
    return x


def as_seat_points(c: np.ndarray, scores: np.ndarray | None = None,
                   bonfires: np.ndarray | None = None,
                   printed: np.ndarray | None = None) -> list[int]:
    """Whole starting points for ``seat_points`` (the smallest 0).

    With the recorded ``scores``/``bonfires``, the floor/ceiling combination of ``c`` whose
    re-ranked win shares come closest to 1/n (largest deviation); rounding each seat on its
    own can overshoot for one seat at the expense of another.  Without them, rounded.
    ``printed``: seat points the recorded games already started with (their scores hold
    them); ``c`` is then the remaining compensation and the answer the whole points to
    print in all (printed + c, rounded the same way), as the errata loop steps.
    """
    c = np.asarray(c, dtype=float)
    if not np.all(np.isfinite(c)):
        return []
    base = np.zeros(len(c)) if printed is None else np.asarray(printed, dtype=float)
    c = base + c
    c = c - c.min()
    if scores is None or bonfires is None:
        return [int(math.floor(v + 0.5)) for v in c]
    n = len(c)
    best: np.ndarray | None = None
    best_dev = math.inf
    for corner in itertools.product((0, 1), repeat=n):
        offs = np.floor(c).astype(np.int64) + np.array(corner, dtype=np.int64)
        offs -= offs.min()
        # the recorded scores hold ``base`` already: re-rank with what changes
        extra = offs - np.round(base - base.min()).astype(np.int64)
        dev = float(np.max(np.abs(_mean_shares(scores, bonfires, extra) - 1.0 / n)))
        if dev < best_dev - 1e-12:
            best, best_dev = offs, dev
    assert best is not None  # 2**n >= 2 corners were tried
    return [int(v) for v in best]


def whole_points_check(scores: np.ndarray, bonfires: np.ndarray, points: list[int],
                       clusters: np.ndarray) -> dict[str, object]:
    """Whether whole ``points`` (``as_seat_points``) are fair at this player count,
    measured by re-ranking the recorded games under them: per seat the win share with its
    Wilson interval clustered by deal, ``fair`` = True when every seat's interval holds
    1/n, ``max_dev`` the largest |share - 1/n|.  Whole points are coarser than the exact
    compensation (a per-deal lottery), so they may leave a seat off its share.  Summed a
    block of games at a time (``clustered_totals``), not a column of every game."""

    n = scores.shape[1]
    offs = np.asarray(points, dtype=np.int64)
    clusters = np.asarray(clusters)

    def blocks() -> Iterator[Block]:  # every seat's shares, a block of games at a time
        for rows in cluster_cuts(clusters, TOTALS_ROWS // n):
            w = _win_shares_int(scores[rows], bonfires[rows], offs)
            yield np.tile(np.arange(n), len(w)), np.repeat(clusters[rows], n), (w.ravel(),)

    shares, lo, hi = [], [], []
    for (seat,) in clustered_totals(blocks, n, 1):
        m, a, b = seat.wilson()
        shares.append(round(m, 4))
        lo.append(round(a, 4))
        hi.append(round(b, 4))
    fair = all(a <= 1.0 / n <= b for a, b in zip(lo, hi, strict=True))
    return {"points": list(points), "shares": shares, "lo": lo, "hi": hi, "fair": fair,
            "max_dev": round(max(abs(s - 1.0 / n) for s in shares), 4)}
