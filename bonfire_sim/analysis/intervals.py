"""95% intervals shared by the analysis and the report: Wilson for rates, Student t for
means (plain and clustered by game or deal)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from scipy import stats as sps

Z95 = 1.959963984540054


def wilson(k: Any, n: Any, z: float = Z95) -> tuple[np.ndarray, np.ndarray]:
    """Wilson score interval of a rate k/n (vectorised; k may be fractional)."""
    k = np.asarray(k, dtype=float)
    n = np.asarray(n, dtype=float)
    with np.errstate(invalid="ignore", divide="ignore"):
        p = k / n
        den = 1 + z * z / n
        mid = (p + z * z / (2 * n)) / den
        half = z * np.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / den
    return mid - half, mid + half


def mean_ci(x: Any) -> tuple[float, float, float]:
    """(mean, lo, hi): Student t 95% interval of the mean."""
    x = np.asarray(x, dtype=float)
    n = len(x)
    if n == 0:
        return (math.nan, math.nan, math.nan)
    m = float(x.mean())
    if n < 2:
        return (m, math.nan, math.nan)
    half = float(sps.t.ppf(0.975, n - 1) * x.std(ddof=1) / math.sqrt(n))
    return (m, m - half, m + half)


def mean_se(x: Any) -> tuple[float, float, int]:
    """(mean, standard error, n) of a sample (se NaN below 2 values)."""
    x = np.asarray(x, dtype=float)
    n = len(x)
    if n == 0:
        return (math.nan, math.nan, 0)
    se = float(x.std(ddof=1) / math.sqrt(n)) if n > 1 else math.nan
    return (float(x.mean()), se, n)


def t_half(se: Any, n: Any) -> np.ndarray:
    """Half-width of a 95% t interval from a standard error and a sample size."""
    se, n = np.asarray(se, dtype=float), np.asarray(n, dtype=float)
    with np.errstate(invalid="ignore"):
        q = sps.t.ppf(0.975, np.maximum(n - 1, 1))
    return np.where(n >= 2, q * se, np.nan)


def clustered_mean(x: Any, clusters: Any) -> tuple[float, float, int, int]:
    """(mean, standard error, n, clusters) of a sample whose observations are correlated
    within clusters (the games of one deal under seat rotation share its cards, so their
    forks are not independent): the cluster-robust (CR1) variance of the mean,
    k/(k-1) * sum over clusters of (sum of x - mean)^2 / n^2.  The interval is then
    ``mean ± t(k-1) * se``; with one observation per cluster it is the plain one."""
    x = np.asarray(x, dtype=float)
    n = len(x)
    if n == 0:
        return (math.nan, math.nan, 0, 0)
    m = float(x.mean())
    _, inv = np.unique(np.asarray(clusters), return_inverse=True)
    k = int(inv.max()) + 1
    if k < 2:
        return (m, math.nan, n, k)
    sums = np.bincount(inv, weights=x - m, minlength=k)
    var = k / (k - 1) * float(np.sum(sums ** 2)) / n ** 2
    return (m, math.sqrt(var), n, k)
