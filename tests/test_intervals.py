"""The statistics module: textbook values of each interval, and one home for all of them."""

from __future__ import annotations

import ast
from pathlib import Path

import numpy as np
import pytest

from bonfire_sim.analysis import intervals as I

PACKAGE = Path(I.__file__).resolve().parents[1]


def test_wilson_matches_the_textbook_intervals():
    lo, hi = I.wilson(5, 10)
    assert lo == pytest.approx(0.2366, abs=1e-4) and hi == pytest.approx(0.7634, abs=1e-4)
    lo, hi = I.wilson(8, 10)
    assert lo == pytest.approx(0.4902, abs=1e-3) and hi == pytest.approx(0.9433, abs=1e-3)


def test_wilson_stays_inside_zero_and_one_at_the_extremes():
    n = np.array([21.0, 37.0, 16.0, 40.0])  # sizes where rounding overshoots unclipped
    lo, _ = I.wilson(0 * n, n)
    _, hi = I.wilson(n, n)
    assert (lo >= 0).all() and (hi <= 1).all()


def test_mean_ci_is_the_student_t_interval():
    m, lo, hi = I.mean_ci([1.0, 2.0, 3.0, 4.0])
    assert m == 2.5
    assert hi - m == pytest.approx(3.182446 * np.std([1, 2, 3, 4], ddof=1) / 2, rel=1e-5)
    assert I.t95(3) == pytest.approx(3.182446, rel=1e-6)


def test_halving_an_interval_takes_four_times_the_games():
    assert I.games_needed(1000, 0.04, 0.02) == 4000
    assert I.games_needed(500, 0.5, 1.0) == 125  # a narrow row needs fewer
    assert I.n_for_rate(0.5, 0.01) == 9604
    assert I.n_for_mean(10.0, 1.0) == 385


def test_games_needed_takes_columns_and_leaves_what_it_cannot_tell_missing():
    """The report's precision table and the card table's forks_needed give it columns:
    one number a row, NaN for a row with no interval or a zero target (not 0 games)."""
    need = I.games_needed(np.array([500, 100, 40, 10, 7]),
                          np.array([2.0, 0.55, np.nan, 1.0, 0.0]), np.array([1, 1, 1, 0, 1]))
    assert list(need[:2]) == [2000, 31] and np.isnan(need[2:4]).all() and need[4] == 0
    assert isinstance(I.games_needed(10, 1.0, 0.5), float)


def test_newcombe_interval_of_a_rate_difference_matches_the_published_example():
    # Newcombe (1998), example (a): 56/70 vs 48/80 -> difference 0.2, CI 0.0524 .. 0.3339
    pa, pb, d, lo, hi = I.rate_difference(48, 80, 56, 70)
    assert d == pytest.approx(0.2)
    assert lo == pytest.approx(0.0524, abs=1e-3) and hi == pytest.approx(0.3339, abs=1e-3)


def test_welch_interval_covers_a_planted_mean_difference():
    rng = np.random.default_rng(8)
    ma, mb, d, se, lo, hi = I.welch(rng.normal(10, 3, 4000), rng.normal(11, 5, 3000))
    assert lo <= 1.0 <= hi and hi - lo < 0.5
    assert se == pytest.approx(np.sqrt(9 / 4000 + 25 / 3000), rel=0.05)


def test_welch_of_a_sample_too_small_has_no_interval():
    ma, mb, d, se, lo, hi = I.welch([1.0], [2.0, 3.0])
    assert ma == 1.0 and mb == 2.5 and np.isnan([d, se, lo, hi]).all()


def test_se_from_interval_inverts_a_normal_interval():
    assert I.se_from_interval(-I.Z95 * 2, I.Z95 * 2) == pytest.approx(2.0)
    assert np.isnan(I.se_from_interval(np.nan, 1.0))


def test_clustered_mean_widens_the_error_of_correlated_observations():
    x = np.repeat([0.0, 1.0, 0.0, 1.0], 10)  # four clusters of ten identical values
    _, se_plain, _, _ = I.clustered_mean(x, np.arange(len(x)))
    _, se_clust, n, k = I.clustered_mean(x, np.repeat(np.arange(4), 10))
    assert (n, k) == (40, 4) and se_clust > 2 * se_plain


# Names that make a statistics helper: defining one outside intervals.py is a second copy.
STAT_NAMES = {"Z95", "wilson", "welch", "_welch", "mean_ci", "t_half", "t95",
              "rate_difference", "mean_difference", "clustered_mean", "games_needed",
              "n_for_rate", "n_for_mean", "se_from_interval", "pool_inverse_variance"}


def test_statistics_are_defined_in_one_module():
    home = PACKAGE / "analysis" / "intervals.py"
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if path == home:
            continue
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            names = []
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                names = [node.name]
            elif isinstance(node, ast.Assign):
                names = [t.id for t in node.targets if isinstance(t, ast.Name)]
            found += [f"{path.relative_to(PACKAGE)}:{node.lineno} {n}"
                      for n in names if n in STAT_NAMES]
            if (isinstance(node, ast.Constant) and isinstance(node.value, float)
                    and abs(node.value - 1.959964) < 1e-5):
                found.append(f"{path.relative_to(PACKAGE)}:{node.lineno} 1.96")
    assert not found, f"statistics outside analysis/intervals.py: {found}"


def test_pooling_weights_by_inverse_variance_and_tests_heterogeneity():
    est, se, p = I.pool_inverse_variance([1.0, 2.0], [1.0, 2.0])
    assert est == pytest.approx((1 + 2 / 4) / (1 + 1 / 4)) and se == pytest.approx(0.8 ** 0.5)
    assert p > 0.5
    assert I.pool_inverse_variance([0.0, 10.0], [0.1, 0.1])[2] < 1e-6
