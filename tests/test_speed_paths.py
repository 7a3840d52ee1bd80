"""The fast paths of the decision loop decide exactly like the plain ones.

The batch runner prices moves with ``loop.choose_in`` (the evaluator's scratch arrays
allocated once per game loop, reused with stale contents) and the engine keeps small
scratch on the stack (``rules.stackbuf``); neither may change a single decision.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from bonfire_sim.rules import layout as L
from bonfire_sim.rules import tables as T
from bonfire_sim.rules.moves import apply_move, legal_moves
from bonfire_sim.rules.setup import new_game
from bonfire_sim.rules.stackbuf import stack_ints, stack_moves
from bonfire_sim.sim.loop import choose, choose_in, new_buffer, new_scratch, no_weights
from bonfire_sim.strategies import DEFAULT_MIX, STRATEGY_IDS

P = T.DEFAULT_PARAMS
SIZE = 9


@njit(cache=False, _nrt=False)
def _stack_sums(x):
    a = stack_ints(SIZE)
    for i in range(SIZE):
        a[i] = i * x
    m = stack_moves(3)
    m[:] = 2
    m[1, L.MOVE_W - 1] = x
    return a.sum(), m.sum(), m.shape[0], m.shape[1]


def test_stack_arrays_have_their_shape_and_hold_what_is_written():
    assert _stack_sums(3) == (3 * 36, 2 * (3 * L.MOVE_W - 1) + 3, 3, L.MOVE_W)
    plain = getattr(_stack_sums, "py_func", _stack_sums)  # as plain Python too
    assert plain(3) == (3 * 36, 2 * (3 * L.MOVE_W - 1) + 3, 3, L.MOVE_W)
    assert stack_ints(4).shape == (4,)  # called as plain Python: a heap array
    assert stack_moves(2).shape == (2, L.MOVE_W)


def test_choose_in_with_reused_scratch_chooses_as_choose_in_every_decision():
    sids = [STRATEGY_IDS[DEFAULT_MIX[k % len(DEFAULT_MIX)]] for k in range(L.NP)]
    w = no_weights()
    buf = new_buffer()
    floats, ints = new_scratch(P)
    decisions = 0
    for seed in (3, 4):
        s = new_game(seed, 4)
        while s[L.G_OVER] == 0:
            n = legal_moves(s, P, buf)
            seat = s[L.G_CUR]
            before = s.copy()
            i = choose(s, P, buf, n, sids[seat], w[seat])
            assert choose_in(s, P, buf, n, sids[seat], w[seat], floats, ints) == i
            assert np.array_equal(s, before)  # pricing restores what it changes
            apply_move(s, P, buf[i])
            decisions += 1
    assert decisions > 200
