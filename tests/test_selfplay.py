"""Random self-play over thousands of seeds: termination and invariants after every move."""

from __future__ import annotations

import numpy as np
import pytest
from numba import config as numba_config

from bonfire_sim.rules import layout as L
from bonfire_sim.rules import tables as T
from bonfire_sim.rules.invariants import MESSAGES
from bonfire_sim.rules.scoring import NLINES, final_result
from bonfire_sim.rules.setup import new_game
from bonfire_sim.sim.loop import new_buffer, no_weights, play_checked

# Un-jitted, a game takes ~0.1 s; the full 2,000 seeds run in the jitted suite.
N_SEEDS = 40 if numba_config.DISABLE_JIT else 2000
P = T.DEFAULT_PARAMS
ALLOWED_END = {
    1: {L.END_COUNTDOWN, L.END_TOM_DECK},
    2: {L.END_COUNTDOWN, L.END_STALLED},
    3: {L.END_COUNTDOWN, L.END_STALLED},
    4: {L.END_COUNTDOWN, L.END_STALLED},
}


@pytest.mark.parametrize("players", [1, 2, 3, 4])
def test_random_games_terminate_with_all_invariants_holding_after_every_move(players):
    buf = new_buffer()
    strat = np.zeros(L.NP, np.int64)
    ends = {}
    for seed in range(N_SEEDS):
        s = new_game(seed, players)
        code = play_checked(s, P, strat, no_weights(), buf)
        assert code == 0, (
            f"seed {seed}, {players}p, decision {int(s[L.G_DECISIONS])}: "
            f"{MESSAGES[code] if code < len(MESSAGES) else 'no legal move'}"
        )
        assert s[L.G_OVER] == 1
        assert int(s[L.G_END]) in ALLOWED_END[players], f"seed {seed}: end {int(s[L.G_END])}"
        ends[int(s[L.G_END])] = ends.get(int(s[L.G_END]), 0) + 1
        nseats = int(s[L.G_NSEATS])
        scores = np.zeros(nseats, np.int64)
        lines = np.zeros((nseats, NLINES), np.int64)
        ranks = np.zeros(nseats, np.int64)
        won = np.zeros(nseats, np.int64)
        final_result(s, P, scores, lines, ranks, won)
        assert (lines.sum(axis=1) == scores).all()
        assert ranks.min() == 1
    assert sum(ends.values()) == N_SEEDS


def test_the_same_seed_replays_the_same_game_bit_for_bit():
    buf = new_buffer()
    strat = np.zeros(L.NP, np.int64)
    a = new_game(123, 4)
    b = new_game(123, 4)
    play_checked(a, P, strat, no_weights(), buf)
    play_checked(b, P, strat, no_weights(), buf)
    assert np.array_equal(a, b)
    c = new_game(124, 4)
    play_checked(c, P, strat, no_weights(), buf)
    assert not np.array_equal(a, c)
