"""The compiled game loop: ask the seat's strategy, apply, repeat until the game is over.

Strategies are dispatched by integer id (``strategies.STRATEGY_IDS``); each seat also gets a
row of float64 weights (``W`` values) that parameterises its strategy, so tuned or
user-loaded weights never need recompiling.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from bonfire_sim.rules import layout as L
from bonfire_sim.rules.invariants import check
from bonfire_sim.rules.moves import apply_move, legal_moves
from bonfire_sim.strategies import (
    LEARNED_ID,
    RANDOM_ID,
    SEARCH_ID,
    default_rows,
    evaluate,
    learned,
    random_player,
    search,
)

W = 64  # weights per seat
# Default weight row per built-in id: used when a seat's row is all zero (no weights given).
DEFAULT_ROWS = default_rows()


@njit(cache=True, _nrt=False)  # no reference counting: see bonfire_sim.strategies.evaluate.NO_RT
def choose(s, p, moves, n, sid, w):
    """Dispatch to built-in strategy ``sid`` with its weight row ``w``.

    ``random`` (id 0) ignores the weights; ``search`` looks ahead with its row (rollout
    policy weights + budget); every other id is the shared evaluator with the seat's row
    (an unset row, horizon 0, means the strategy's defaults).
    """
    if n == 1:
        return 0
    if sid == RANDOM_ID:
        return random_player.choose(s, p, moves, n)
    row = DEFAULT_ROWS[sid] if w[evaluate.W_HORIZON] <= 0.0 else w
    if sid == SEARCH_ID:
        return search.choose(s, p, moves, n, row)
    if sid == LEARNED_ID:
        return learned.choose(s, p, moves, n, row)
    return evaluate.choose(s, p, moves, n, row)


@njit(cache=True, _nrt=False)  # no reference counting: see bonfire_sim.strategies.evaluate.NO_RT
def choose_in(s, p, moves, n, sid, w, floats, ints):
    """``choose`` with the evaluator's scratch arrays given (``new_scratch``)."""
    if n == 1:
        return 0
    if sid == RANDOM_ID:
        return random_player.choose(s, p, moves, n)
    row = DEFAULT_ROWS[sid] if w[evaluate.W_HORIZON] <= 0.0 else w
    if sid == SEARCH_ID:
        return search.choose(s, p, moves, n, row)
    if sid == LEARNED_ID:
        return learned.choose_in(s, p, moves, n, row, floats, ints)
    return evaluate.choose_in(s, p, moves, n, row, floats, ints)


@njit(cache=True)
def new_scratch(p):
    """The evaluator's scratch arrays for ``choose_in`` (one pair per game loop)."""
    ints = np.empty(evaluate.scratch_ints(p), np.int64)
    evaluate.clear_labels(ints)  # no seat's fate labelling cached yet
    return np.empty(evaluate.N_FLOATS), ints


@njit(cache=True)
def play_out(s, p, seat_strategy, seat_weights, moves):
    """Play the game in ``s`` to its end; ``seat_strategy[seat]`` = strategy id."""
    floats, ints = new_scratch(p)
    while s[L.G_OVER] == 0:
        n = legal_moves(s, p, moves)
        seat = s[L.G_CUR]
        i = choose_in(s, p, moves, n, seat_strategy[seat], seat_weights[seat], floats, ints)
        apply_move(s, p, moves[i])
    return s[L.G_DECISIONS]


@njit(cache=True)
def play_checked(s, p, seat_strategy, seat_weights, moves):
    """``play_out`` that checks every invariant after every decision.

    Returns 0, or the invariant code of the first violation (the state is left there).
    """
    code = check(s, p)
    while code == 0 and s[L.G_OVER] == 0:
        n = legal_moves(s, p, moves)
        if n == 0:
            return 99  # a pending decision without any legal move: a flow bug
        seat = s[L.G_CUR]
        i = choose(s, p, moves, n, seat_strategy[seat], seat_weights[seat])
        apply_move(s, p, moves[i])
        code = check(s, p)
    return code


def new_buffer() -> np.ndarray:
    return np.zeros((L.MAX_MOVES, L.MOVE_W), dtype=np.int64)


def no_weights() -> np.ndarray:
    return np.zeros((L.NP, W), dtype=np.float64)
