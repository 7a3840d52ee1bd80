"""The one home of the package's statistics: 95% intervals for rates (Wilson) and means
(Student t, plain and clustered by game or deal), differences (Welch, Newcombe), z and t
values, and how many observations a target interval width needs.

The analysis, studies and report layers all import from here (it sits in ``analysis``,
below both), so an interval means the same thing in every table; add a new method here
rather than beside its caller."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy import stats as sps

from bonfire_sim.infra.memory import row_slices

Z95 = 1.959963984540054  # the normal 0.975 quantile: half-width of a normal 95% interval


def t95(df: Any) -> Any:
    """The Student t 0.975 quantile for ``df`` degrees of freedom (vectorised): the
    multiplier of a standard error in a two-sided 95% t interval."""
    return sps.t.ppf(0.975, df)


def se_from_interval(lo: Any, hi: Any) -> Any:
    """Standard error behind a normal 95% interval ``(lo, hi)`` (vectorised; NaN where an
    end is not finite): used to combine intervals of independent estimates."""
    lo, hi = np.asarray(lo, dtype=float), np.asarray(hi, dtype=float)
    with np.errstate(invalid="ignore"):
        se = np.where(np.isfinite(lo) & np.isfinite(hi), (hi - lo) / (2 * Z95), np.nan)
    return float(se) if se.ndim == 0 else se


def wilson(k: Any, n: Any, z: float = Z95) -> tuple[np.ndarray, np.ndarray]:
    """Wilson score interval of a rate k/n (vectorised; k may be fractional; NaN where
    n is 0).  Clipped to [0, 1]: rounding can put an end 1e-16 outside."""
    k = np.asarray(k, dtype=float)
    n = np.asarray(n, dtype=float)
    with np.errstate(invalid="ignore", divide="ignore"):
        p = k / n
        den = 1 + z * z / n
        mid = (p + z * z / (2 * n)) / den
        half = z * np.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / den
    return np.clip(mid - half, 0.0, 1.0), np.clip(mid + half, 0.0, 1.0)


def mean_ci(x: Any) -> tuple[float, float, float]:
    """(mean, lo, hi): Student t 95% interval of the mean."""
    x = np.asarray(x, dtype=float)
    n = len(x)
    if n == 0:
        return (math.nan, math.nan, math.nan)
    return t_interval(float(x.mean()), float(x.std(ddof=1)) if n > 1 else math.nan, n)


def t_interval(m: float, sd: float, n: int) -> tuple[float, float, float]:
    """(mean, lo, hi): the Student t 95% interval of a mean ``m`` of ``n`` observations
    with sample standard deviation ``sd`` (NaN ends below 2 observations)."""
    if n < 2:
        return (m, math.nan, math.nan)
    half = float(t95(n - 1) * sd / math.sqrt(n))
    return (m, m - half, m + half)


class IntegerSummary:
    """Count, mean, sample sd (ddof 1) and quartiles of integers (a score, a length),
    from how often each value occurs: a few hundred counts instead of a float64 copy of
    every value (and numpy's second one for the deviations; a million 4-player games:
    64 MB a group).  The mean is the float64 mean of every value bit for bit (integer
    sums are exact); the quartiles are ``np.quantile``'s linear ones exactly (integer
    ends, fractions of a quarter); the sd sums the squared deviations per value, not
    value by value, so its last bits may differ (``tests/test_report_held.py``)."""

    def __init__(self, values: np.ndarray, block: int = 1 << 20) -> None:
        values = np.asarray(values)
        self.n = len(values)
        if self.n == 0:
            self.lo, self.counts = 0, np.zeros(0, np.int64)
            return
        self.lo = int(values.min())
        size = int(values.max()) - self.lo + 1
        counts = np.zeros(size, np.int64)
        for s in range(0, self.n, block):  # a block's intp copy at a time
            counts += np.bincount(values[s:s + block].astype(np.int64) - self.lo,
                                  minlength=size)
        self.counts = counts

    @property
    def values(self) -> np.ndarray:
        return np.arange(self.lo, self.lo + len(self.counts), dtype=np.float64)

    @property
    def mean(self) -> float:
        if self.n == 0:
            return math.nan
        total = int(np.dot(self.counts, np.arange(len(self.counts), dtype=np.int64)))
        return float(np.float64(total + self.lo * self.n) / np.float64(self.n))

    @property
    def sd(self) -> float:
        """Sample standard deviation (ddof 1; NaN below 2 values)."""
        if self.n < 2:
            return math.nan
        dev = self.values - self.mean
        return math.sqrt(float(np.sum(self.counts * (dev * dev))) / (self.n - 1))

    def quantile(self, q: float) -> float:
        """``np.quantile(values, q)`` (linear): the values at the two sorted positions
        around (n - 1) q, interpolated as numpy does."""
        if self.n == 0:
            return math.nan
        h = (self.n - 1) * q
        j = int(math.floor(h))
        t = h - j
        ends = np.cumsum(self.counts)
        a, b = (float(self.lo + int(np.searchsorted(ends, i, side="right")))
                for i in (j, min(j + 1, self.n - 1)))
        return b - (b - a) * (1 - t) if t >= 0.5 else a + (b - a) * t

    def mean_ci(self) -> tuple[float, float, float]:
        """(mean, lo, hi): ``mean_ci`` of the values."""
        if self.n == 0:
            return (math.nan, math.nan, math.nan)
        return t_interval(self.mean, self.sd, self.n)


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
        q = t95(np.maximum(n - 1, 1))
    return np.where(n >= 2, q * se, np.nan)


def clustered_mean(x: Any, clusters: Any) -> tuple[float, float, int, int]:
    """(mean, standard error, n, clusters) of a sample whose observations are correlated
    within clusters (the games of one deal under seat rotation share its cards, so their
    forks are not independent): the cluster-robust (CR1) variance of the mean,
    k/(k-1) * sum over clusters of (sum of x - mean)^2 / n^2.  The interval is then
    ``mean ± t(k-1) * se``; with one observation per cluster it is the plain one."""
    t = clustered_total(x, clusters)
    return (t.mean, t.se, t.n, t.k)


def clustered_total(x: Any, clusters: Any) -> ClusteredTotal:
    """A sample's ``ClusteredTotal`` (mean, CR1 squares over its clusters): its
    ``mean``/``se``/``mean_ci()``/``wilson()`` read from one pass over the sample."""
    x = np.asarray(x, dtype=float)
    n = len(x)
    if n == 0:
        return ClusteredTotal(0, 0, math.nan, math.nan)
    m = float(x.mean())
    squares, k = cluster_squares(x, m, clusters)
    return ClusteredTotal(n, k, m, squares)


@dataclass(frozen=True)
class ClusteredTotal:
    """What a clustered mean's interval needs of a sample: ``n`` observations in ``k``
    clusters, their ``mean`` and ``squares``, the sum over clusters of (sum of x - mean)^2
    (``cluster_squares``): from the sample (``clustered_mean``) or summed a block of rows
    at a time (``clustered_totals``)."""

    n: int
    k: int
    mean: float
    squares: float
    total: float = math.nan  # the values' sum (``clustered_totals``)

    @property
    def se(self) -> float:
        """The cluster-robust (CR1) standard error of the mean (NaN below 2 clusters)."""
        if self.n == 0 or self.k < 2:
            return math.nan
        var = self.k / (self.k - 1) * self.squares / self.n ** 2
        return math.sqrt(var)

    def wilson(self, z: float = Z95) -> tuple[float, float, float]:
        """``clustered_wilson`` of the sample: (rate, lo, hi)."""
        m, n, se = self.mean, self.n, self.se
        if n == 0:
            return (math.nan, math.nan, math.nan)
        n_eff = float(n)
        if self.k < n and 0 < m < 1 and se > 0:
            n_eff = m * (1 - m) / se ** 2
        lo, hi = wilson(m * n_eff, n_eff, z)
        return (m, float(lo), float(hi))

    def mean_ci(self) -> tuple[float, float, float]:
        """``clustered_mean_ci`` of the sample: (mean, lo, hi)."""
        m, se, k = self.mean, self.se, self.k
        if not (k >= 2 and math.isfinite(se)):
            return (m, math.nan, math.nan)
        half = float(sps.t.ppf(0.975, k - 1) * se)
        return (m, m - half, m + half)


# A block of rows for ``clustered_totals``: each row's group (-1: in none), its cluster
# and its values (one array per value).
Block = tuple[np.ndarray, np.ndarray, Sequence[np.ndarray]]


def clustered_totals(blocks: Callable[[], Iterable[Block]], groups: int, values: int,
                     ) -> list[list[ClusteredTotal]]:
    """``[group][value]``: the ``ClusteredTotal`` of each group's values, from rows fed a
    block at a time (``blocks()`` gives them, and is called twice: the means, then the
    cluster sums), so no group's rows are copied and no array of every cluster is held.
    A cluster's rows must lie in one block (``cluster_cuts``).

    The same numbers as ``clustered_mean`` of each group's values: the counts and means
    (sums added in row order: exact for integers; for fractions the last bits of the
    mean may differ from numpy's pairwise sum), each cluster's deviations summed in row
    order as there; the clusters' squares are added a block at a time, so the last bits
    of their sum may differ (``tests/test_seat_blocks.py``)."""
    n = np.zeros(groups, np.int64)
    sums = np.zeros((values, groups))
    for group, _, vals in blocks():
        at = group >= 0
        g = group[at]
        n += np.bincount(g, minlength=groups)
        for j, v in enumerate(vals):
            sums[j] += np.bincount(g, weights=v[at], minlength=groups)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = sums / n
    k = np.zeros(groups, np.int64)
    squares = np.zeros((values, groups))
    for group, cluster, vals in blocks():
        at = group >= 0
        if not at.any():
            continue
        g, c = group[at].astype(np.int64), cluster[at]
        lo = int(c.min())
        span = int(c.max()) - lo + 1
        key = (c - lo).astype(np.int64) * groups + g  # one per (cluster, group)
        seen: np.ndarray | None = None
        if span * groups <= 4 * len(c):  # the block's clusters about dense: count them
            seen = np.bincount(key, minlength=span * groups) > 0
            of = np.flatnonzero(seen) % groups
        else:
            uniq, key = np.unique(key, return_inverse=True)
            key, of = key.ravel(), uniq % groups
        k += np.bincount(of, minlength=groups)
        for j, v in enumerate(vals):
            # each (cluster, group)'s deviations added in row order, as clustered_mean's
            dev = np.bincount(key, weights=v[at] - mean[j][g])
            if seen is not None:
                dev = dev[seen[:len(dev)]]
            squares[j] += np.bincount(of, weights=dev * dev, minlength=groups)
    return [[ClusteredTotal(int(n[i]), int(k[i]), float(mean[j, i]) if n[i] else math.nan,
                            float(squares[j, i]), float(sums[j, i])) for j in range(values)]
            for i in range(groups)]


# Rows a block of ``clustered_totals`` holds about: its temporaries are some 100 bytes a
# row (6 MB), whatever the rows in all.
TOTALS_ROWS = 1 << 16


def cluster_cuts(clusters: np.ndarray, size: int | None = None) -> list[slice]:
    """Consecutive row blocks of about ``size`` rows covering ``clusters``, each cut where
    the cluster changes, so every cluster lies in one block: where the clusters are in
    order (a run's deals are written in order, each deal's games one after another).
    Clusters out of order: one block of every row.  ``size``: ``TOTALS_ROWS``."""
    n = len(clusters)
    size = size or TOTALS_ROWS
    if not ordered(clusters):
        return [slice(0, n)]
    cuts, at = [0], size
    while at < n:
        at = int(np.searchsorted(clusters, clusters[at - 1], side="right"))
        if at >= n:
            break
        cuts.append(at)
        at += size
    cuts.append(n)
    return [slice(a, b) for a, b in zip(cuts, cuts[1:], strict=False)]


def ordered(values: np.ndarray) -> bool:
    """Whether ``values`` never decrease, checked a block at a time (``row_slices``: one
    block's bools, not a mask of every value)."""
    for b in row_slices(len(values)):
        part = values[max(b.start - 1, 0):b.stop]
        if len(part) > 1 and not bool(np.all(part[1:] >= part[:-1])):
            return False
    return True


def cluster_squares(x: np.ndarray, m: float, clusters: Any) -> tuple[float, int]:
    """(sum over clusters of (sum of x - m)^2, number of clusters): the core of
    ``clustered_mean``.  Each observation its own cluster, in order (0, 1, 2, ...: every
    game its own deal), the cluster sums are the deviations themselves, squared in place:
    the same values and sum as through ``np.bincount``, without its intp codes and sums
    (24 MB a seat at a million games)."""
    clusters = np.asarray(clusters)
    inv = dense_codes(clusters)
    k = int(inv.max()) + 1
    if k == len(x) and inv is clusters:
        squares: np.ndarray = x - m
        np.multiply(squares, squares, out=squares)
    else:
        squares = np.bincount(inv, weights=x - m, minlength=k) ** 2
    return float(np.sum(squares)), k


def unique_codes(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``np.unique(values, return_inverse=True)`` (the inverse flat): the distinct values
    and each value's rank among them.  Integers already in order (a run's rows are written
    game by game, its deals in order) are ranked where they change, without the sort, which
    copies a million games' rows twice and holds 8-byte indices of each."""
    if len(values) and values.dtype.kind in "iu" and bool(np.all(values[1:] >= values[:-1])):
        first = np.empty(len(values), bool)
        first[0] = True
        np.not_equal(values[1:], values[:-1], out=first[1:])
        codes: np.ndarray = np.cumsum(first, dtype=np.int32 if len(first) < 2**31
                                      else np.int64)
        return values[first], np.subtract(codes, 1, out=codes)
    distinct, inverse = np.unique(values, return_inverse=True)
    return distinct, inverse.ravel()


def dense_codes(clusters: np.ndarray) -> np.ndarray:
    """``unique_codes(clusters)[1]``; clusters that are 0, 1, 2, ... in order already (the
    seat analysis's) are their own codes, returned as they are (no copy)."""
    if len(clusters) and clusters.dtype.kind in "iu" and clusters[0] == 0:
        step = np.diff(clusters)
        if step.min(initial=0) >= 0 and step.max(initial=0) <= 1:
            return clusters
    return unique_codes(clusters)[1]


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
    return clustered_total(x, clusters).wilson(z)


def clustered_mean_ci(x: Any, clusters: Any) -> tuple[float, float, float]:
    """(mean, lo, hi): the 95% t interval of a mean whose observations are correlated
    within ``clusters`` (``clustered_mean``: mean ± t(k-1) se over k clusters)."""
    return clustered_total(x, clusters).mean_ci()


# ---- differences between two samples ---------------------------------------------------
def welch(a: Any, b: Any, clusters_a: Any = None, clusters_b: Any = None,
          ) -> tuple[float, float, float, float, float, float]:
    """(mean a, mean b, b - a, se, lo, hi): Welch's unpaired t interval of the difference
    of two means (unequal variances; Welch-Satterthwaite degrees of freedom).  The
    difference and its interval are NaN when a sample has fewer than two values.

    ``clusters_a`` / ``clusters_b``: each sample's observations correlated within clusters
    (the seat rotations of one deal): each mean's variance is then ``clustered_mean``'s
    (CR1) on its k clusters, its degrees of freedom k - 1.  One observation a cluster
    gives the plain Welch interval exactly."""
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    ma = float(np.mean(a)) if len(a) else math.nan
    mb = float(np.mean(b)) if len(b) else math.nan
    if len(a) < 2 or len(b) < 2:
        return (ma, mb, math.nan, math.nan, math.nan, math.nan)
    if clusters_a is None and clusters_b is None:
        va, vb = a.var(ddof=1) / len(a), b.var(ddof=1) / len(b)
        fa, fb = len(a) - 1, len(b) - 1
    else:
        ta = clustered_total(a, np.arange(len(a)) if clusters_a is None else clusters_a)
        tb = clustered_total(b, np.arange(len(b)) if clusters_b is None else clusters_b)
        if ta.k < 2 or tb.k < 2:
            return (ma, mb, math.nan, math.nan, math.nan, math.nan)
        va, vb, fa, fb = ta.se ** 2, tb.se ** 2, ta.k - 1, tb.k - 1
    se = math.sqrt(va + vb)
    df = (va + vb) ** 2 / (va ** 2 / fa + vb ** 2 / fb) if se > 0 else 1.0
    d = float(b.mean() - a.mean())
    half = float(t95(df) * se)
    return ma, mb, d, se, d - half, d + half


def rate_difference(k_a: Any, n_a: Any, k_b: Any, n_b: Any) -> tuple[np.ndarray, ...]:
    """(p_a, p_b, p_b - p_a, lo, hi): Newcombe's hybrid Wilson interval of the difference
    of two rates (vectorised)."""
    n_a, n_b = np.asarray(n_a, float), np.asarray(n_b, float)
    with np.errstate(invalid="ignore", divide="ignore"):
        pa, pb = np.asarray(k_a, float) / n_a, np.asarray(k_b, float) / n_b
    la, ua = wilson(k_a, n_a)
    lb, ub = wilson(k_b, n_b)
    d = pb - pa
    return (pa, pb, d, d - np.sqrt((pb - lb) ** 2 + (ua - pa) ** 2),
            d + np.sqrt((ub - pb) ** 2 + (pa - la) ** 2))


def clustered_rate_difference(a: ClusteredTotal, b: ClusteredTotal,
                              ) -> tuple[float, float, float, float, float]:
    """(p_a, p_b, p_b - p_a, lo, hi): ``rate_difference``'s Newcombe hybrid interval for
    two rates whose observations are correlated within clusters (the seat rotations of one
    deal, the players of one game): each rate's Wilson bounds on its effective number of
    observations (``ClusteredTotal.wilson``), combined as there.  Plain Newcombe when
    every cluster holds one observation."""
    pa, la, ua = a.wilson()
    pb, lb, ub = b.wilson()
    d = pb - pa
    return (pa, pb, d, d - math.sqrt((pb - lb) ** 2 + (ua - pa) ** 2),
            d + math.sqrt((ub - pb) ** 2 + (pa - la) ** 2))


def pool_inverse_variance(values: Any, se: Any) -> tuple[float, float, float]:
    """(estimate, standard error, p): the inverse-variance weighted mean of independent
    estimates with standard errors ``se``, and the p value of Cochran's Q test that they
    are equal (pool only where it does not reject)."""
    v, w = np.asarray(values, dtype=float), 1.0 / np.asarray(se, dtype=float) ** 2
    est = float((w * v).sum() / w.sum())
    q = float((w * (v - est) ** 2).sum())
    return est, float(np.sqrt(1.0 / w.sum())), float(sps.chi2.sf(q, len(v) - 1))


# ---- sample sizes -----------------------------------------------------------------------
def games_needed(n: Any, half_width: Any, target: Any) -> Any:
    """Observations (games, forks) for a 95% half-width of ``target``, given that ``n``
    gave ``half_width``: a half-width shrinks as 1/sqrt(n), so ceil(n (half_width /
    target)^2).  Vectorised (an array, or a float for scalars); NaN where that is not a
    number (a missing width, a zero target).  The one copy: the report's precision
    warnings and tables, the card table's ``forks_needed`` and the errata variants'."""
    n, hw, target = (np.asarray(v, dtype=float) for v in (n, half_width, target))
    with np.errstate(invalid="ignore", divide="ignore"):
        need = np.ceil(n * (hw / target) ** 2)
    need = np.where(np.isfinite(need), need, np.nan)
    return float(need) if need.ndim == 0 else need


def n_for_rate(p: float, target: float, z: float = Z95) -> int:
    """Observations for a rate near ``p`` to have a 95% half-width of ``target``."""
    return int(math.ceil(z * z * p * (1 - p) / target ** 2))


def n_for_mean(sd: float, target: float, z: float = Z95) -> int:
    """Observations for a mean with spread ``sd`` to have a 95% half-width of ``target``."""
    return int(math.ceil((z * sd / target) ** 2))
