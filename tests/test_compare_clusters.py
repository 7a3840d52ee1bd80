"""``compare``'s differences are clustered by deal: the seat rotations of one deal share its
cards (and the players of one game share its course), so copies of a deal add no
information and must not narrow an interval.  Each test plants that: the same rows
repeated four times within their deal give (nearly) the interval of one copy, where an
interval over rows would shrink by half."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from bonfire_sim.analysis.intervals import clustered_total
from bonfire_sim.analysis.paired import value_differences
from bonfire_sim.analysis.values import list_totals
from bonfire_sim.report import compare as CMP
from bonfire_sim.report import stats as S


def _lists(rng: np.random.Generator, rows: int, rate: float) -> list[list[str]]:
    return [[t for t in ("B1", "R3") if rng.random() < rate] for _ in range(rows)]


def test_list_totals_are_the_clustered_totals_of_the_indicators():
    rng = np.random.default_rng(5)
    lists = _lists(rng, 300, 0.4)
    deals = rng.integers(0, 40, 300)
    got = list_totals(pd.Series(lists, dtype=object), deals, ("B1", "R3", "Y7"))
    for task, t in zip(("B1", "R3", "Y7"), got, strict=True):
        want = clustered_total(np.array([task in x for x in lists], float), deals)
        assert (t.n, t.k) == (want.n, want.k)
        assert t.mean == pytest.approx(want.mean)
        assert t.squares == pytest.approx(want.squares, abs=1e-9)


def _players(lists: list[list[str]], copies: int) -> pd.DataFrame:
    rows = len(lists)
    return pd.DataFrame({"bonfire_task_ids": [x for x in lists for _ in range(copies)],
                         "deal": np.repeat(np.arange(rows), copies),
                         "game_id": np.arange(rows * copies)})


def test_copies_of_a_deal_do_not_narrow_the_lighting_rate_interval():
    rng = np.random.default_rng(7)
    a, b = _lists(rng, 400, 0.3), _lists(rng, 400, 0.45)
    one = CMP.compare_tasks(_players(a, 1), _players(b, 1)).set_index("item")
    four = CMP.compare_tasks(_players(a, 4), _players(b, 4)).set_index("item")
    w1 = one.loc["B1", "hi"] - one.loc["B1", "lo"]
    w4 = four.loc["B1", "hi"] - four.loc["B1", "lo"]
    assert four.loc["B1", "diff"] == pytest.approx(one.loc["B1", "diff"])
    assert w4 == pytest.approx(w1, rel=0.02), (w1, w4)  # rows alone: w1 / 2
    assert set(S.TASK_IDS) == set(four.index)


def test_copies_of_a_deal_do_not_narrow_a_paired_value_difference():
    rng = np.random.default_rng(9)
    deals = 200

    def tab(shift: float, copies: int) -> pd.DataFrame:
        x = np.random.default_rng(3).normal(0, 4, deals) + shift
        g = np.arange(deals * copies)
        return pd.DataFrame({"players": 2, "kind": "light", "item": "B1",
                             "game_id": g, "deal": g // copies,
                             "score_a": np.repeat(x, copies), "score_b": 0.0,
                             "win_a": 0.0, "win_b": 0.0, "has_a": 1.0, "has_b": 0.0,
                             "kept_b": 1.0})

    noise = rng.normal(0, 1, deals)
    rows = {}
    for copies in (1, 4):
        b = tab(1.0, copies)
        b["score_a"] += np.repeat(noise, copies)
        rows[copies] = value_differences(tab(0.0, copies), b, "light").iloc[0]
    w1, w4 = (rows[c]["hi"] - rows[c]["lo"] for c in (1, 4))
    assert rows[4]["paired"] and rows[4]["deals"] == deals and rows[4]["n"] == 4 * deals
    assert w4 == pytest.approx(w1, rel=0.02), (w1, w4)


def test_copies_of_a_deal_do_not_narrow_a_fork_estimate():
    """``fork_estimates`` (one run's fork values, and the ratio per printed point) reads
    the forks of one deal as one observation, like the card table."""
    from bonfire_sim.analysis.cards.views import fork_estimates

    deals = 150
    x = np.random.default_rng(11).normal(1.0, 4, deals)
    h = (np.random.default_rng(12).random(deals) < 0.6).astype(float)

    def tab(copies: int) -> pd.DataFrame:
        g = np.arange(deals * copies)
        return pd.DataFrame({"players": 2, "kind": "light", "item": "B1", "game_id": g,
                             "deal": g // copies, "score_a": np.repeat(x * h, copies),
                             "score_b": 0.0, "win_a": np.repeat(h, copies), "win_b": 0.0,
                             "has_a": np.repeat(h, copies), "has_b": 0.0, "kept_b": 1.0})

    one, four = (fork_estimates(tab(c), "light").iloc[0] for c in (1, 4))
    assert four["n"] == 4 * deals and four["value"] == pytest.approx(one["value"])
    for lo, hi in (("lo", "hi"), ("win_lo", "win_hi")):
        w1, w4 = one[hi] - one[lo], four[hi] - four[lo]
        assert w4 == pytest.approx(w1, rel=0.02), (lo, w1, w4)  # rows alone: w1 / 2
    assert four["ratio_se"] == pytest.approx(one["ratio_se"], rel=0.02)
