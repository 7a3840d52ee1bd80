"""Small counters of one seat's city that the task distances and the NEED vector read.

Moved out of ``features`` (issue 27: no module over ~600 lines); ``features`` re-exports
them, so ``FE.placeable`` and the others keep their names.
"""

from __future__ import annotations

from numba import njit

from bonfire_sim.rules import components as C
from bonfire_sim.rules import fate as F
from bonfire_sim.rules import layout as L
from bonfire_sim.rules import tables as T
from bonfire_sim.rules import tasks as TK
from bonfire_sim.rules.payment import has_spec
from bonfire_sim.rules.stackbuf import stack_ints

FAR = 99.0  # distance of a task that can no longer be fulfilled
NI = C.N_ISLANDS
NCELL = F.NCELL  # a bare module int: a compile-time size for stack_ints


# ---- small counters ---------------------------------------------------------------------
@njit(cache=True)
def offers(s, pb, i, isl):
    """Own offerings on island i, plus one if i is the hypothetical island ``isl``."""
    return s[pb + L.P_OFF_ISLAND + i] + (1 if i == isl else 0)


@njit(cache=True, _nrt=False)  # no reference counting: see price_context.NO_RT
def max_area(s, pb, sym):
    """Largest connected fate area of symbol sym (-1: any symbol)."""
    lab = stack_ints(NCELL)
    lab[:] = -1
    stack = stack_ints(NCELL)
    best = 0
    for gi in range(F.NCELL):
        v = s[pb + L.P_FATE + gi]
        if v < 0 or lab[gi] >= 0 or (sym >= 0 and v != sym):
            continue
        best = max(best, F.flood(s, pb, gi, lab, stack, 0))
    return best


@njit(cache=True)
def fate_left(s, pb):
    """Fate tiles still in the column."""
    return s[pb + L.P_FATE_HI] - s[pb + L.P_FATE_LO]


@njit(cache=True)
def placeable(s, p, pb):
    """Fate tiles the area can still take: the column's tiles, at most as many as still fit
    beside those placed from it (``T.FATE_CAP``, found by exhaustive search; with the
    default 5 x 5 area and its centred starting tile only 6 of the 7 column tiles fit,
    ``tests/test_features.py``); specialist 27 (tiles may protrude) lifts the limit."""
    left = fate_left(s, pb)
    if has_spec(s, pb, 27):
        return left
    return max(0, min(left, p[T.FATE_CAP] - (C.FATE_SUPPLY - left)))


@njit(cache=True)
def column_with(s, p, pb, sym):
    """Fate tiles left in the column that show symbol sym (every tile for sym < 0)."""
    n = 0
    for j in range(s[pb + L.P_FATE_LO], s[pb + L.P_FATE_HI]):
        tile = s[pb + L.P_FATE_SUP + j]
        for i in range(3):
            if sym < 0 or p[T.FATE_TILE + tile * 3 + i] == sym:
                n += 1
                break
    return n


@njit(cache=True)
def tasks_left_on(s, i, isl):
    """Tasks still lying on island i (less the one being taken there, if i == isl)."""
    n = 0
    for j in range(3):
        if s[L.ISLAND_TASKS + i * 3 + j] >= 0:
            n += 1
    return n - (1 if i == isl else 0)


@njit(cache=True)
def placements_for_cells(s, p, pb, set_id):
    """Lower bound on the fate placements that cover the uncovered cells of a cell set.

    The set is stored as straight runs (``T.FATE_RUN``).  Each stretch of uncovered cells
    of a run needs a tile per 3 cells; a run that spans the whole area along its line
    cannot be covered by a tile reaching past its ends, so there each leftover cell needs a
    tile of its own (laid across the run).
    """
    n = 0
    for k in range(p[T.FATE_RUN_N + set_id]):
        at = T.FATE_RUN + (set_id * T.MAX_RUNS + k) * 4
        gi, step, length, spans = p[at], p[at + 1], p[at + 2], p[at + 3]
        run = 0
        for i in range(length + 1):
            if i < length and s[pb + L.P_FATE + gi + i * step] < 0:
                run += 1
                continue
            n += run // 3 + run % 3 if spans == 1 else (run + 2) // 3
            run = 0
    return n


@njit(cache=True)
def uncovered(s, p, pb, set_id):
    """Cells of fate cell set set_id not yet covered."""
    n = 0
    for gi in range(F.NCELL):
        if p[T.FATE_SET + set_id * F.NCELL + gi] == 1 and s[pb + L.P_FATE + gi] < 0:
            n += 1
    return n


@njit(cache=True)
def common_distance(s, p, pb, c):
    """Actions still needed for common task c."""
    if c == TK.COMMON_TASKS7:
        return 1.5 * max(0, C.MAX_TASKS - TK.n_tasks(s, pb))
    if c == TK.COMMON_PORTALS7:
        return 1.5 * max(0, 7 - s[pb + L.P_NPORTAL])
    if c == TK.COMMON_PATHS7:
        return 1.0 * max(0, C.MAX_PATHS - s[pb + L.P_NPATH])
    if c == TK.COMMON_GUARDIANS5:
        return 1.5 * max(0, C.MAX_GUARDIANS - TK.n_guardians(s, pb))
    return 1.5 * max(0, C.MAX_GNOMES - s[pb + L.P_NGNOME])
