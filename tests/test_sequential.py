"""The sequential paired comparison (``bonfire-sim sequential``)."""

from __future__ import annotations

import numpy as np
import pytest

from bonfire_sim.analysis.sequential import llr_normal, sequential_compare
from bonfire_sim.errors import ConfigError
from bonfire_sim.sim.runner import RunConfig

BASE = RunConfig(games=2000, players=2, seed=41, seat_rotation=True, chunk_size=100)


def _with(**overrides) -> RunConfig:
    return RunConfig(games=2000, players=2, seed=41, seat_rotation=True, chunk_size=100,
                     overrides=overrides)


def test_llr_favours_the_hypothesis_the_data_sit_at():
    rng = np.random.default_rng(0)
    near_h1 = rng.normal(1.0, 3.0, 400)
    near_h0 = rng.normal(0.0, 3.0, 400)
    assert llr_normal(near_h1, 0.0, 1.0) > 2.94
    assert llr_normal(near_h0, 0.0, 1.0) < -2.94
    # Symmetric in the labels: swapping h0 and h1 flips the sign.
    assert llr_normal(near_h1, 1.0, 0.0) == pytest.approx(-llr_normal(near_h1, 0.0, 1.0))


def test_a_planted_head_start_is_decided_as_h1_and_nothing_as_h0():
    moved = sequential_compare(BASE, _with(seat_points=[0, 3]), metric="win", seat=0,
                               h1=-0.02)
    assert moved.decision == "H1" and moved.diff < 0 and moved.games < 2000
    same = sequential_compare(BASE, _with(task_points={"B13": 3}), metric="score", seat=0,
                              h1=1.0)  # B13 is printed 3: the same game
    assert same.decision == "H0" and same.diff == 0
    # A seat's score moves by exactly its starting points (the bots ignore the score).
    plus = sequential_compare(BASE, _with(seat_points=[0, 4]), metric="score", seat=1,
                              h1=1.0)
    assert plus.decision == "H1" and plus.diff == pytest.approx(4.0)


def test_the_decision_does_not_depend_on_the_workers():
    kw = dict(metric="score", seat=0, h1=1.0, budget=600)
    one = sequential_compare(BASE, _with(task_points={"B13": 8}), jobs=1, **kw)
    two = sequential_compare(BASE, _with(task_points={"B13": 8}), jobs=2, **kw)
    assert (one.decision, one.games, one.llr) == (two.decision, two.games, two.llr)
    assert one.trace.equals(two.trace)


def test_a_spent_budget_is_undecided_with_an_interval():
    r = sequential_compare(BASE, _with(task_points={"B13": 4}), metric="score", seat=0,
                           h0=0.0, h1=0.5, alpha=0.001, beta=0.001, budget=100)
    assert r.decision == "undecided" and r.games == 100
    assert r.lo <= r.diff <= r.hi


@pytest.mark.parametrize("other, message", [
    (RunConfig(games=2000, players=2, seed=42, seat_rotation=True), "seed"),
    (RunConfig(games=2001, players=3, seed=41, seat_rotation=True), "players"),
    (RunConfig(games=2000, players=2, seed=41), "seat_rotation"),
])
def test_configurations_that_do_not_share_their_deals_are_refused(other, message):
    with pytest.raises(ConfigError, match=message):
        sequential_compare(BASE, other)


def test_bad_test_settings_are_refused():
    for kw in (dict(h1=0.0), dict(alpha=0.7), dict(metric="rank"), dict(seat=5),
               dict(strategy="nobody", seat=None)):
        with pytest.raises(ConfigError):
            sequential_compare(BASE, BASE, **kw)
