"""Flags a designer can trust: a practical margin, false-discovery-rate control, and a
precision warning for every row that cannot resolve the margin.

A row is flagged only when its estimate is shown to lie more than ``margin`` away from its
reference: the one-sided test of H0 ``|estimate - reference| <= margin`` (normal
approximation) gives a p value per row, and Benjamini-Hochberg (``scipy.stats.
false_discovery_control``) turns the p values of one family (e.g. all tasks of one player
count) into q values; rows with q < alpha are flagged.  So among the flagged rows the
expected share of false flags is at most alpha, and a difference smaller than the margin is
never flagged however many games are played.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from scipy import stats as sps

MARGIN = 1.0  # points
ALPHA = 0.05  # false discovery rate


def margin_pvalues(est: Any, se: Any, ref: Any = 0.0, margin: float = MARGIN) -> np.ndarray:
    """One-sided p values of H0: |est - ref| <= margin (NaN where se is missing)."""
    est, se, ref = (np.asarray(v, dtype=float) for v in (est, se, ref))
    with np.errstate(invalid="ignore", divide="ignore"):
        z = (np.abs(est - ref) - margin) / se
    return np.where(np.isfinite(z), sps.norm.sf(z), np.nan)


def bh_qvalues(p: Any) -> np.ndarray:
    """Benjamini-Hochberg adjusted p values (NaN entries stay NaN and are not counted)."""
    p = np.asarray(p, dtype=float)
    q = np.full(p.shape, np.nan)
    ok = np.isfinite(p)
    if ok.any():
        q[ok] = sps.false_discovery_control(p[ok], method="bh")
    return q


def flag(est: Any, se: Any, ref: Any = 0.0, margin: float = MARGIN, alpha: float = ALPHA,
         labels: tuple[str, str] = ("high", "low")) -> tuple[np.ndarray, np.ndarray]:
    """(q values, flags): flag = labels[0] / labels[1] where q < alpha and the estimate is
    above / below its reference, else ""."""
    est = np.asarray(est, dtype=float)
    q = bh_qvalues(margin_pvalues(est, se, ref, margin))
    hit = np.nan_to_num(q, nan=1.0) < alpha
    up = est > np.asarray(ref, dtype=float)
    return q, np.where(hit, np.where(up, labels[0], labels[1]), "")


def imprecise(lo: Any, hi: Any, margin: float = MARGIN) -> np.ndarray:
    """True where the 95% interval's half-width exceeds the margin (or is missing): such a
    row cannot tell a difference of ``margin`` from none."""
    lo, hi = np.asarray(lo, dtype=float), np.asarray(hi, dtype=float)
    half = (hi - lo) / 2
    return ~(half <= margin)


def games_for_margin(n: Any, lo: Any, hi: Any, margin: float = MARGIN) -> np.ndarray:
    """Observations a row would need for a half-width of ``margin`` (width ~ 1/sqrt(n))."""
    n, lo, hi = (np.asarray(v, dtype=float) for v in (n, lo, hi))
    with np.errstate(invalid="ignore", divide="ignore"):
        need = np.ceil(n * ((hi - lo) / 2 / margin) ** 2)
    return np.where(np.isfinite(need), need, np.nan)
