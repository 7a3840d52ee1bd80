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

import numpy as np
from scipy import optimize

from bonfire_sim.analysis.intervals import Z95


def _win_shares_int(scores: np.ndarray, bonfires: np.ndarray, offs: np.ndarray) -> np.ndarray:
    """(G, n) win shares with integer offsets (score, then bonfires; ties share), in the
    scores' own integer type (int32 from ``values``: a million games' matrices are half
    the bytes of int64)."""
    adj = scores + offs.astype(scores.dtype)[None, :]
    top = adj.max(axis=1, keepdims=True)
    lead = adj == top
    bf = np.where(lead, bonfires, -1)
    win = lead & (bf == bf.max(axis=1, keepdims=True))
    return win / win.sum(axis=1, keepdims=True)


def win_shares(scores: np.ndarray, bonfires: np.ndarray, c: np.ndarray,
               per_game: bool = False) -> np.ndarray:
    """Mean win share per seat (or the (G, n) matrix) with real offsets ``c``, multilinearly
    interpolated between whole-point offsets."""
    c = np.asarray(c, dtype=float)
    base = np.floor(c)
    frac = c - base
    free = [s for s in range(len(c)) if frac[s] > 1e-12]
    acc = np.zeros(scores.shape if per_game else scores.shape[1])
    for corner in itertools.product((0, 1), repeat=len(free)):
        offs = base.copy()
        weight = 1.0
        for s, bit in zip(free, corner, strict=True):
            offs[s] += bit
            weight *= frac[s] if bit else 1.0 - frac[s]
        w = _win_shares_int(scores, bonfires, offs.astype(np.int64))
        acc += weight * (w if per_game else w.mean(axis=0))
    return acc


def _integers(a: np.ndarray) -> np.ndarray:
    """``a`` as it is if it holds integers (int32 or wider), else as int64."""
    a = np.asarray(a)
    return a if a.dtype.kind == "i" and a.dtype.itemsize >= 4 else a.astype(np.int64)


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
    win shares (95% sandwich interval).  ``scores``/``bonfires`` are (games, seats)."""
    scores, bonfires = _integers(scores), _integers(bonfires)
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
    per_game = win_shares(scores, bonfires, c, per_game=True)[:, 1:]
    if clusters is None:
        clusters = np.arange(g)
    _, inv = np.unique(clusters, return_inverse=True)
    k = int(inv.max()) + 1
    sums = np.zeros((k, n - 1))
    np.add.at(sums, inv, per_game - per_game.mean(axis=0))
    cov_w = sums.T @ sums / g ** 2 * (k / max(k - 1, 1))
    try:
        jinv = np.linalg.inv(jac)
    except np.linalg.LinAlgError:
        return c, nan, nan
    cov_c = jinv @ cov_w @ jinv.T
    se = np.concatenate([[0.0], np.sqrt(np.clip(np.diag(cov_c), 0, None))])
    return c, c - Z95 * se, c + Z95 * se


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
        dev = float(np.max(np.abs(_win_shares_int(scores, bonfires, extra).mean(axis=0)
                                  - 1.0 / n)))
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
    compensation (a per-deal lottery), so they may leave a seat off its share."""
    from bonfire_sim.analysis.intervals import clustered_wilson

    n = scores.shape[1]
    per_game = _win_shares_int(scores, bonfires, np.asarray(points, dtype=np.int64))
    shares, lo, hi = [], [], []
    for seat in range(n):
        m, a, b = clustered_wilson(per_game[:, seat], clusters)
        shares.append(round(m, 4))
        lo.append(round(a, 4))
        hi.append(round(b, 4))
    fair = all(a <= 1.0 / n <= b for a, b in zip(lo, hi, strict=True))
    return {"points": list(points), "shares": shares, "lo": lo, "hi": hi, "fair": fair,
            "max_dev": round(max(abs(s - 1.0 / n) for s in shares), 4)}
