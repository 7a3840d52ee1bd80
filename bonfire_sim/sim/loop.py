"""The compiled game loop: ask the seat's strategy, apply, repeat until the game is over."""

from __future__ import annotations

import numpy as np
from numba import njit

from bonfire_sim.rules import layout as L
from bonfire_sim.rules.invariants import check
from bonfire_sim.rules.moves import apply_move, legal_moves
from strategies import random_player


@njit(cache=True)
def choose(s, p, moves, n, sid):
    """Dispatch to built-in strategy ``sid``."""
    if n == 1:
        return 0
    return random_player.choose(s, p, moves, n)


@njit(cache=True)
def play_out(s, p, seat_strategy, moves):
    """Play the game in ``s`` to its end; ``seat_strategy[seat]`` = strategy id."""
    while s[L.G_OVER] == 0:
        n = legal_moves(s, p, moves)
        i = choose(s, p, moves, n, seat_strategy[s[L.G_CUR]])
        apply_move(s, p, moves[i])
    return s[L.G_DECISIONS]


def new_buffer() -> np.ndarray:
    return np.zeros((L.MAX_MOVES, L.MOVE_W), dtype=np.int64)


@njit(cache=True)
def play_checked(s, p, seat_strategy, moves):
    """``play_out`` that checks every invariant after every decision.

    Returns 0, or the invariant code of the first violation (the state is left there).
    """
    code = check(s, p)
    while code == 0 and s[L.G_OVER] == 0:
        n = legal_moves(s, p, moves)
        if n == 0:
            return 99  # a pending decision without any legal move: a flow bug
        i = choose(s, p, moves, n, seat_strategy[s[L.G_CUR]])
        apply_move(s, p, moves[i])
        code = check(s, p)
    return code
