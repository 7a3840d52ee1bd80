"""95% intervals shared by the analysis and the report: Wilson for rates, Student t for
means (plain and clustered by game or deal)."""

from __future__ import annotations

import math
from collections.abc import Callable
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


def bootstrap_ci(x: Any, statistic: Callable[[np.ndarray], float], n_boot: int = 500,
                 seed: int = 0) -> tuple[float, float]:
    """95% percentile bootstrap interval of ``statistic`` over the observations ``x``
    (resampled whole, with replacement; NaN below 2 observations).  Meant for a smooth
    statistic: a quantile of integer data resamples to a handful of values and gives a
    zero-width interval."""
    x = np.asarray(x)
    if len(x) < 2:
        return (math.nan, math.nan)
    rng = np.random.default_rng(seed)
    boots = [statistic(x[rng.integers(0, len(x), len(x))]) for _ in range(n_boot)]
    lo, hi = np.nanquantile(boots, [0.025, 0.975])
    return (float(lo), float(hi))


def clustered_wilson(x: Any, clusters: Any, z: float = Z95) -> tuple[float, float, float]:
    """(rate, lo, hi): a Wilson interval of the mean of per-game shares ``x`` (0..1, a
    shared win split) whose games are correlated within ``clusters`` (the seat rotations
    of one deal).  Wilson on the effective number of games, n_eff = p (1 - p) / se^2 with
    se the cluster-robust standard error (``clustered_mean``): the design effect widens
    (or narrows) the plain interval by what the deal shares; plain Wilson when the rate
    is 0 or 1 or every cluster holds one game."""
    x = np.asarray(x, dtype=float)
    m, se, n, k = clustered_mean(x, clusters)
    if n == 0:
        return (math.nan, math.nan, math.nan)
    n_eff = float(n)
    if k < n and 0 < m < 1 and se > 0:
        n_eff = m * (1 - m) / se ** 2
    lo, hi = wilson(m * n_eff, n_eff, z)
    return (m, float(lo), float(hi))


def clustered_mean_ci(x: Any, clusters: Any) -> tuple[float, float, float]:
    """(mean, lo, hi): the 95% t interval of a mean whose observations are correlated
    within ``clusters`` (``clustered_mean``: mean ± t(k-1) se over k clusters)."""
    m, se, _n, k = clustered_mean(x, clusters)
    if not (k >= 2 and math.isfinite(se)):
        return (m, math.nan, math.nan)
    half = float(sps.t.ppf(0.975, k - 1) * se)
    return (m, m - half, m + half)
