"""State features of one seat, shared by every scripted strategy.

Two compiled helpers read a player's city and say what it still lacks:

* ``task_distance(s, p, seat, t, isl, taking)`` (``strategies.task_distance``, re-exported
  here with the small counters of ``strategies.counters``) - a rough count of the actions
  still needed to fulfil task ``t`` (0 = fulfilled now, ``FAR`` = impossible).
* ``seat_needs(s, p, seat, nd)`` - the NEED vector: for each kind of progress (a resource,
  a path tile showing a resource, a guardian colour, a portal, a fate symbol area, ...) the
  urgency of the held, unlit tasks and of the common tasks that it would advance.  A task
  of ``pts`` points that is ``d`` actions away adds ``(pts + IGNITE_EXTRA) / (1 + d)`` to
  each need it has (``IGNITE_EXTRA``: the council bonus and the bonfire's later bonuses).

``evaluate`` prices moves with these features (see there for the weights).

NEED layout (float64, ``NN`` entries)::

    N_RES+r        resource r held (r = 0..5; sets, "3 shells", "4 gold")
    N_TILE+k       action tile type k held in supply (Y15-Y17)
    N_PATHRES+r    a path tile showing resource r (B1-B4, R1 adjacent pair)
    N_CRYSTAL+c    a path tile showing crystal c (Y6, Y10)
    N_GUARD+g      guardian colour g (B5-B8, R4-R6)
    N_GUARDS       one more guardian of any colour (R22, common "5 guardians")
    N_OFFER+i      an own offering on island i (B9-B11, R9-R11, B12, B13, Y3, Y19)
    N_GNOMERES+r   a gnome showing resource r (B14-B16)
    N_GNOMES       one more gnome (R2, Y4, common "6 gnomes")
    N_ELDERS       one more elder (Y5)
    N_PORTALS      one more portal (R7, Y8, common "7 portals")
    N_FATESYM+k    a bigger area of fate symbol k (B19-B22, R13-R17, Y20)
    N_FATECELL+j   covering a cell of fate cell set j (Y9, Y21, Y22)
    N_TASKCOL+c    one more task of colour c (R21, Y7, Y11, common "7 tasks")
    N_PATHS        one more path tile (common "7 path tiles")
    N_ONBONFIRE    a guardian onto a bonfire (Y12)
    N_BONFIRES     one more lit bonfire (Y18, B17, R12)
"""

from __future__ import annotations

import numpy as np
from numba import njit

from bonfire_sim.rules import components as C
from bonfire_sim.rules import fate as F
from bonfire_sim.rules import layout as L
from bonfire_sim.rules import tables as T
from bonfire_sim.rules import tasks as TK
from bonfire_sim.rules.stackbuf import stack_ints
from bonfire_sim.rules.tasks import (  # task-kind codes as numba-foldable module ints
    K_ADJACENT_PATH_SAME,
    K_BONFIRE_COLOURS,
    K_BONFIRES,
    K_COLOUR_TASKS,
    K_COMMON,
    K_CRYSTALS,
    K_DEPLETED_PILE,
    K_ELDERS,
    K_FATE_CELLS,
    K_FATE_GROUPS,
    K_GNOME_RESOURCE,
    K_GNOMES,
    K_GOLD,
    K_GUARDIAN_COUNT,
    K_GUARDIANS,
    K_GUARDIANS_ON_BONFIRES,
    K_OFFER_BOTH,
    K_OFFER_ISLANDS,
    K_OFFER_ON_RESOURCE,
    K_PATH_RESOURCE,
    K_PORTALS,
    K_RESOURCE,
    K_RESOURCE_SETS,
    K_TILES_IN_SUPPLY,
)
from bonfire_sim.strategies.counters import (  # re-exported: FE.placeable and the others
    FAR,
    NCELL,
    NI,
    column_with,
    common_distance,
    fate_left,
    max_area,
    offers,
    placeable,
    placements_for_cells,
    tasks_left_on,
    uncovered,
)
from bonfire_sim.strategies.task_distance import task_distance

__all__ = ["FAR", "NCELL", "NI", "column_with", "common_distance", "fate_left", "max_area",
           "offers", "placeable", "placements_for_cells", "tasks_left_on", "task_distance",
           "uncovered"]

IGNITE_EXTRA = 3.0  # points an ignite brings beyond the printed ones (council, bonuses)

N_RES = 0
N_TILE = 6
N_PATHRES = 12
N_CRYSTAL = 18
N_GUARD = 21
N_GUARDS = 26
N_OFFER = 27
N_GNOMERES = 41
N_GNOMES = 47
N_ELDERS = 48
N_PORTALS = 49
N_FATESYM = 50
N_FATECELL = 56
N_TASKCOL = 59
N_PATHS = 62
N_ONBONFIRE = 63
N_BONFIRES = 64
NN = 65
NEED_NAMES = (
    *(f"res_{r}" for r in C.RESOURCES), *(f"tile_{k}" for k in C.ACTION_TILES[:6]),
    *(f"path_res_{r}" for r in C.RESOURCES), *(f"crystal_{c}" for c in C.CRYSTALS),
    *(f"guard_{g}" for g in C.GUARDIAN_COLOURS), "guards",
    *(f"offer_island_{i}" for i in range(C.N_ISLANDS)),
    *(f"gnome_res_{r}" for r in C.RESOURCES), "gnomes", "elders", "portals",
    *(f"fate_sym_{k}" for k in C.FATE_SYMBOLS), "fate_cells_highlighted",
    "fate_cells_outer", "fate_cells_gold", *(f"task_colour_{c}" for c in C.TASK_COLOURS),
    "paths", "on_bonfire", "bonfires",
)
assert len(NEED_NAMES) == NN



# ---- the NEED vector ----------------------------------------------------------------------
# The NEED entries ``add_task_needs`` can write for a task of each kind, as a span [lo, hi)
# (every entry for a kind not listed): ``price_tasks._synergy`` sums over the span only.
NEED_LO = np.zeros(max(K_ADJACENT_PATH_SAME, K_BONFIRE_COLOURS, K_BONFIRES, K_COLOUR_TASKS,
                       K_COMMON, K_CRYSTALS, K_DEPLETED_PILE, K_ELDERS, K_FATE_CELLS,
                       K_FATE_GROUPS, K_GNOME_RESOURCE, K_GNOMES, K_GOLD, K_GUARDIAN_COUNT,
                       K_GUARDIANS, K_GUARDIANS_ON_BONFIRES, K_OFFER_BOTH, K_OFFER_ISLANDS,
                       K_OFFER_ON_RESOURCE, K_PATH_RESOURCE, K_PORTALS, K_RESOURCE,
                       K_RESOURCE_SETS, K_TILES_IN_SUPPLY) + 1, np.int64)
NEED_HI = np.full(NEED_LO.shape[0], NN, np.int64)
for _kinds, _lo, _hi in (
        ((K_PATH_RESOURCE, K_ADJACENT_PATH_SAME), N_PATHRES, N_PATHRES + 6),
        ((K_GUARDIANS,), N_GUARD, N_GUARD + 5),
        ((K_GUARDIAN_COUNT,), N_GUARDS, N_GUARDS + 1),
        ((K_OFFER_ON_RESOURCE, K_OFFER_BOTH, K_OFFER_ISLANDS), N_OFFER, N_OFFER + NI),
        ((K_GNOME_RESOURCE,), N_GNOMERES, N_GNOMERES + 6),
        ((K_BONFIRE_COLOURS,), N_TASKCOL, N_BONFIRES + 1),
        ((K_RESOURCE_SETS, K_GOLD, K_RESOURCE), N_RES, N_RES + 6),
        ((K_FATE_GROUPS,), N_FATESYM, N_FATESYM + 6),
        ((K_GNOMES,), N_GNOMES, N_GNOMES + 1),
        ((K_ELDERS,), N_ELDERS, N_ELDERS + 1),
        ((K_PORTALS,), N_PORTALS, N_PORTALS + 1),
        ((K_COMMON,), N_GUARDS, N_PATHS + 1),
        ((K_COLOUR_TASKS, K_DEPLETED_PILE), N_TASKCOL, N_TASKCOL + 3),
        ((K_CRYSTALS,), N_CRYSTAL, N_CRYSTAL + 3),
        ((K_FATE_CELLS,), N_FATECELL, N_FATECELL + 3),
        ((K_GUARDIANS_ON_BONFIRES,), N_ONBONFIRE, N_ONBONFIRE + 1),
        ((K_TILES_IN_SUPPLY,), N_TILE, N_TILE + 6),
        ((K_BONFIRES,), N_BONFIRES, N_BONFIRES + 1)):
    for _k in _kinds:
        NEED_LO[_k], NEED_HI[_k] = _lo, _hi
NEED_LO.setflags(write=False)  # compile-time constants of the kernels
NEED_HI.setflags(write=False)


# Long: one branch per task kind (components.TASKS), as ``task_distance``.
@njit(cache=True)
def add_task_needs(s, p, seat, t, u, nd):
    """Add urgency u to every need that would advance task t."""
    pb = TK.pbase(seat)
    kind = p[T.T_KIND + t]
    a = p[T.T_A + t]
    b = p[T.T_B + t]
    if kind == K_PATH_RESOURCE:
        nd[N_PATHRES + a] += u
    elif kind == K_GUARDIANS:
        for g in range(1, 5):
            if (a >> g) & 1 and s[pb + L.P_GUARD + g] == L.GP_NONE:
                nd[N_GUARD + g] += u
    elif kind == K_GUARDIAN_COUNT:
        nd[N_GUARDS] += u
    elif kind == K_OFFER_ON_RESOURCE or kind == K_OFFER_BOTH:
        for i in range(NI):
            if p[T.ISL_KIND + i] == 0 and p[T.ISL_VAL + i] == a and offers(s, pb, i, -1) == 0:
                nd[N_OFFER + i] += u
    elif kind == K_OFFER_ISLANDS:
        for i in range(NI):
            if p[T.ISL_KIND + i] == 0:
                o = offers(s, pb, i, -1)
                if b == 1 and o == 0:
                    nd[N_OFFER + i] += u
                elif b > 1 and 0 < o < b:
                    nd[N_OFFER + i] += u
    elif kind == K_GNOME_RESOURCE:
        nd[N_GNOMERES + a] += u
    elif kind == K_BONFIRE_COLOURS:
        nd[N_BONFIRES] += u
        for col in range(3):  # a bonfire of a missing colour starts as a task of it
            if (a >> col) & 1 and not TK.has_bonfire_colour(s, p, pb, col):
                nd[N_TASKCOL + col] += u
    elif kind == K_RESOURCE_SETS:
        for r in range(5):
            if s[pb + L.P_RES + r] < b:
                nd[N_RES + r] += u / a
    elif kind == K_FATE_GROUPS:
        if a >= 0:
            nd[N_FATESYM + a] += u
        if b >= 0:
            nd[N_FATESYM + b] += u
        if a < 0 or b == -1:
            for k in range(6):
                nd[N_FATESYM + k] += u / 3
    elif kind == K_ADJACENT_PATH_SAME:
        npath = s[pb + L.P_NPATH]
        nd[N_PATHRES + TK.path_resource(s, p, pb, npath)] += u
    elif kind == K_GNOMES:
        nd[N_GNOMES] += u
    elif kind == K_ELDERS:
        nd[N_ELDERS] += u
    elif kind == K_GOLD:
        nd[N_RES + C.GOLD] += u
    elif kind == K_PORTALS:
        nd[N_PORTALS] += u
    elif kind == K_COMMON:
        nd[N_PATHS] += u / 3
        nd[N_PORTALS] += u / 3
        nd[N_GUARDS] += u / 3
        nd[N_GNOMES] += u / 3
    elif kind == K_RESOURCE:
        nd[N_RES + a] += u
    elif kind == K_COLOUR_TASKS:
        nd[N_TASKCOL + a] += u
    elif kind == K_DEPLETED_PILE:
        for c in range(3):
            nd[N_TASKCOL + c] += u / 3
    elif kind == K_CRYSTALS:
        nd[N_CRYSTAL + a] += u
    elif kind == K_FATE_CELLS:
        nd[N_FATECELL + a] += u
    elif kind == K_GUARDIANS_ON_BONFIRES:
        nd[N_ONBONFIRE] += u
    elif kind == K_TILES_IN_SUPPLY:
        for k in range(6):
            if (a >> k) & 1 and s[pb + L.P_TILES + k] < 1:
                nd[N_TILE + k] += u
    elif kind == K_BONFIRES:
        nd[N_BONFIRES] += u


@njit(cache=True, _nrt=False)  # no reference counting: see price_context.NO_RT
def seat_needs(s, p, seat, nd, common_w):
    """Fill the NEED vector nd from the held unlit tasks and (times common_w) common tasks.

    Returns the number of held unlit tasks that can still be fulfilled: a dead task (its
    component gone, no fate tile left that fits) must not stop a player taking new ones.
    """
    return seat_needs_top(s, p, seat, nd, common_w, nd, False)  # nd: a dummy ``top``


@njit(cache=True)
def wants_tops(s, p, pb):
    """True if the seat holds an unlit FATE_GROUPS task whose distance the area sizes
    of ``fate_labels_tops`` give (``seat_needs_top``)."""
    for k in range(C.MAX_TASKS):
        t = s[pb + L.P_TASK + k]
        if (t >= 0 and s[pb + L.P_LIT + k] == 0 and p[T.T_KIND + t] == K_FATE_GROUPS
                and p[T.T_C + t] >= 0):
            return True
    return False


@njit(cache=True, _nrt=False)  # no reference counting: see price_context.NO_RT
def seat_needs_top(s, p, seat, nd, common_w, top, ok):
    """``seat_needs``; with ``ok``, FATE_GROUPS distances come from the area sizes ``top``
    of ``fate_labels_tops`` (``fate_groups_distance``, equal to ``task_distance``'s flood
    fills, which cost more than the labelling itself)."""
    pb = TK.pbase(seat)
    nd[:] = 0.0
    open_tasks = 0
    for k in range(C.MAX_TASKS):
        t = s[pb + L.P_TASK + k]
        if t < 0 or s[pb + L.P_LIT + k] == 1:
            continue
        if ok and p[T.T_KIND + t] == K_FATE_GROUPS and p[T.T_C + t] >= 0:
            d = fate_groups_distance(s, p, pb, t, top)
        else:
            d = task_distance(s, p, seat, t, -1, False)
        if d >= FAR:
            continue
        open_tasks += 1
        if d <= 0.0:
            continue
        add_task_needs(s, p, seat, t, (p[T.T_POINTS + t] + IGNITE_EXTRA) / (1.0 + d), nd)
    if common_w > 0:
        for c in range(C.COMMON_TASKS):
            if TK.common_fulfilled(s, p, seat, c):
                continue
            u = common_w * p[T.COMMON_PTS] / (1.0 + common_distance(s, p, pb, c))
            if c == TK.COMMON_TASKS7:
                for col in range(3):
                    nd[N_TASKCOL + col] += u / 3
            elif c == TK.COMMON_PORTALS7:
                nd[N_PORTALS] += u
            elif c == TK.COMMON_PATHS7:
                nd[N_PATHS] += u
            elif c == TK.COMMON_GUARDIANS5:
                nd[N_GUARDS] += u
            else:
                nd[N_GNOMES] += u
    return open_tasks


# ---- fate areas without applying a placement ----------------------------------------------
@njit(cache=True, _nrt=False)  # no reference counting: see price_context.NO_RT
def fate_labels(s, pb, lab, size):
    """Label the connected same-symbol areas of the fate grid: lab[gi] = area id (-1 empty),
    size[id] = its cell count."""
    return fate_labels_with(s, pb, lab, size, stack_ints(NCELL))


@njit(cache=True, _nrt=False)  # no reference counting: see price_context.NO_RT
def fate_labels_with(s, pb, lab, size, stack):
    """``fate_labels`` with the flood fill's stack (``F.NCELL`` entries) given."""
    lab[:] = -1
    nid = 0
    for gi in range(F.NCELL):
        if s[pb + L.P_FATE + gi] < 0 or lab[gi] >= 0:
            continue
        size[nid] = F.flood(s, pb, gi, lab, stack, nid)
        nid += 1
    return nid


@njit(cache=True, _nrt=False)  # no reference counting: see price_context.NO_RT
def fate_labels_tops(s, pb, lab, size, stack, top):
    """``fate_labels_with``, also storing the two largest area sizes of each symbol in
    ``top`` (2 * (sym + 1) and the slot after it for sym = -1 (any), 0..5; -1.0: no such
    area), so FATE_GROUPS distances need no flood fill of their own
    (``fate_groups_distance``).  Returns the number of areas, -1 if a symbol had no slot
    in ``top`` (then ``top`` must not be used)."""
    top[:] = -1.0
    lab[:] = -1
    nid = 0
    ok = True
    for gi in range(F.NCELL):
        v = s[pb + L.P_FATE + gi]
        if v < 0 or lab[gi] >= 0:
            continue
        n = F.flood(s, pb, gi, lab, stack, nid)
        size[nid] = n
        nid += 1
        _push_top(top, 0, n)
        if 2 * (v + 1) + 1 < top.shape[0]:
            _push_top(top, 2 * (v + 1), n)
        else:
            ok = False
    return nid if ok else -1


@njit(cache=True)
def _push_top(top, j, n):
    """Insert area size n into the two largest top[j] >= top[j + 1]."""
    if n > top[j]:
        top[j + 1] = top[j]
        top[j] = n
    elif n > top[j + 1]:
        top[j + 1] = n


@njit(cache=True)
def fate_groups_distance(s, p, pb, t, top):
    """``task_distance`` of FATE_GROUPS task t from the area sizes ``top`` of
    ``fate_labels_tops`` (the same areas ``count_areas`` and ``max_area`` flood): an area
    count of >= 1 / >= 2 is the largest / second largest size reaching the minimum."""
    a = p[T.T_A + t]
    b = p[T.T_B + t]
    c = p[T.T_C + t]
    if b == TK.ONE_GROUP:
        done = top[2 * (a + 1)] >= c
    elif a == b:
        done = top[2 * (a + 1) + 1] >= c
    elif a == TK.ANY_SYMBOL or b == TK.ANY_SYMBOL:
        fixed = b if a == TK.ANY_SYMBOL else a
        done = top[2 * (fixed + 1)] >= c and top[1] >= c
    else:
        done = top[2 * (a + 1)] >= c and top[2 * (b + 1)] >= c
    if done:
        return 0.0
    room = placeable(s, p, pb)
    miss_a = max(0, c - max(0, np.int64(top[2 * (a + 1)])))
    if miss_a > min(room, column_with(s, p, pb, a)):
        return FAR
    miss = miss_a
    if b != TK.ONE_GROUP:
        miss_b = max(0, c - (max(0, np.int64(top[2 * (b + 1)])) if b != a else 1))
        if miss_b > min(room, column_with(s, p, pb, b)):
            return FAR
        miss += miss_b
    return 1.5 * miss


# Inlined (same arithmetic): called for each cell of each fate move, three arrays each
@njit(cache=True, inline="always")
def placed_area(s, pb, lab, size, rr, cc, sym):
    """Size of the area symbol sym would form if placed on empty area cell (rr, cc)."""
    total = 1
    ids0 = -1
    ids1 = -1
    ids2 = -1
    for d in range(4):
        nr = rr + F.DR[d]
        nc = cc + F.DC[d]
        if not F.in_grid(nr, nc):
            continue
        gi = F.grid_index(nr, nc)
        if s[pb + L.P_FATE + gi] != sym:
            continue
        a = lab[gi]
        if a == ids0 or a == ids1 or a == ids2:
            continue
        if ids0 < 0:
            ids0 = a
        elif ids1 < 0:
            ids1 = a
        else:
            ids2 = a
        total += size[a]
    return total
