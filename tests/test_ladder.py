"""The ladder: schedule and seat rotation, Wilson intervals, Bradley-Terry fit."""

from __future__ import annotations

import math
from collections import Counter

import numpy as np
import pytest

from bonfire_sim.studies.ladder import (
    ELO,
    GameResult,
    bradley_terry,
    lineups,
    pairwise,
    play_ladder,
    schedule,
    summarize,
)


@pytest.mark.parametrize("players, names", [
    (2, ["a", "b", "c"]),
    (3, ["a", "b", "c", "d"]),
    (4, ["a", "b", "c", "d", "e", "f"]),
    (4, ["a", "b"]),  # fewer strategies than seats: seats are filled
])
def test_every_strategy_sits_in_every_seat_equally_often(players, names):
    plan = schedule(names, players, games=2)
    seat_counts = Counter((seat, name) for _, order in plan for seat, name in enumerate(order))
    for name in names:
        counts = {seat_counts[(seat, name)] for seat in range(players)}
        assert len(counts) == 1 and counts.pop() > 0
    # identical deals: every seat order of a lineup is played on the same deal
    per_deal = Counter(deal for deal, _ in plan)
    assert len(set(per_deal.values())) == 1


def test_lineups_are_the_n_subsets():
    assert len(lineups(["a", "b", "c", "d", "e", "f"], 4)) == 15
    assert lineups(["a", "b"], 2) == [("a", "b")]
    with pytest.raises(ValueError):
        lineups(["a"], 2)


def test_bradley_terry_recovers_known_strengths_from_synthetic_games():
    rng = np.random.default_rng(1)
    true = np.array([1.0, 0.0, -0.5, -0.5])
    k = len(true)
    wins = np.zeros((k, k))
    games = np.zeros((k, k))
    for i in range(k):
        for j in range(i + 1, k):
            n = 4000
            p = 1 / (1 + math.exp(-(true[i] - true[j])))
            w = rng.binomial(n, p)
            wins[i, j], wins[j, i] = w, n - w
            games[i, j] = games[j, i] = n
    theta, se = bradley_terry(wins, games)
    centred = true - true.mean()
    assert np.allclose(theta, centred, atol=0.06)
    assert np.all(np.abs(theta - centred) < 4 * se)
    assert np.all(se > 0) and np.all(se < 0.05)


def test_bradley_terry_exact_answer_for_a_two_player_record():
    wins = np.array([[0.0, 75.0], [25.0, 0.0]])
    games = np.array([[0.0, 100.0], [100.0, 0.0]])
    theta, se = bradley_terry(wins, games, prior=0.0)
    assert theta[0] - theta[1] == pytest.approx(math.log(3.0), abs=1e-4)
    # Fisher information of the difference: n p (1-p) = 100 * 0.75 * 0.25
    assert 2 * se[0] == pytest.approx(1 / math.sqrt(18.75), rel=1e-3)


def test_pairwise_counts_ties_as_half_wins_and_summarize_ranks_by_rating():
    results = [
        GameResult(0, 1, ("a", "b", "c"), (50, 40, 40), (1, 2, 2), (True, False, False),
                   "countdown"),
        GameResult(0, 1, ("b", "c", "a"), (30, 20, 60), (2, 3, 1), (False, False, True),
                   "stalled"),
    ]
    wins, games = pairwise(results, ["a", "b", "c"])
    assert wins[1, 2] == 1.5 and wins[2, 1] == 0.5 and games[0, 1] == 2
    rows = summarize(results, ["a", "b", "c"])
    assert rows[0]["strategy"] == "a" and rows[0]["win_rate"] == 1.0
    assert rows[0]["stalled"] == 0.5 and rows[0]["rating_lo"] < rows[0]["rating"]
    assert ELO > 170


def test_a_small_ladder_plays_every_seating_on_identical_deals():
    results = play_ladder(["greedy", "random"], 2, 2, seed=3)
    assert len(results) == 4
    assert {r.seed for r in results[:2]} == {results[0].seed}
    assert [r.strategies for r in results[:2]] == [("greedy", "random"), ("random", "greedy")]
