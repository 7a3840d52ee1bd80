"""The random player: a uniform choice among move KINDS, then among moves of that kind.

Choosing the kind first keeps option I (often hundreds of fate placements) from drowning
the rarer options, so random self-play reaches every rule of the game.
"""

from __future__ import annotations

from numba import njit

from bonfire_sim.rules import layout as L
from bonfire_sim.rules.rng import randint

NAME = "random"
DESCRIPTION = "uniform over move kinds, then over moves of that kind (rule coverage)"


@njit(cache=True)
def choose(s, p, moves, n):
    """Index of the chosen move among ``moves[:n]``."""
    seen = 0
    for i in range(n):
        seen |= 1 << moves[i, 0]
    kinds = 0
    for k in range(32):
        if (seen >> k) & 1:
            kinds += 1
    pick = randint(s, L.G_RNG_STRAT, kinds)
    kind = -1
    for k in range(32):
        if (seen >> k) & 1:
            if pick == 0:
                kind = k
                break
            pick -= 1
    m = 0
    for i in range(n):
        if moves[i, 0] == kind:
            m += 1
    j = randint(s, L.G_RNG_STRAT, m)
    for i in range(n):
        if moves[i, 0] == kind:
            if j == 0:
                return i
            j -= 1
    return 0
