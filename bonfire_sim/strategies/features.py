"""State features of one seat, shared by every scripted strategy.

Two compiled helpers read a player's city and say what it still lacks:

* ``task_distance(s, p, seat, t, isl, taking)`` - a rough count of the actions still
  needed to fulfil task ``t`` (0 = fulfilled now, ``FAR`` = impossible: no room left, the
  component is gone).  ``isl >= 0`` counts an extra own offering on island ``isl`` (the one
  receiving the task would leave there); ``taking`` counts ``t`` itself as held.
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
from bonfire_sim.rules.payment import has_spec
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

FAR = 99.0  # distance of a task that can no longer be fulfilled
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


# ---- task distance ----------------------------------------------------------------------
@njit(cache=True)
def task_distance(s, p, seat, t, isl, taking):
    """Rough number of actions still needed to fulfil task t (0 = done, FAR = impossible)."""
    pb = TK.pbase(seat)
    kind = p[T.T_KIND + t]
    a = p[T.T_A + t]
    b = p[T.T_B + t]
    c = p[T.T_C + t]
    room_paths = C.MAX_PATHS - s[pb + L.P_NPATH]
    if kind == K_PATH_RESOURCE:
        if TK._has_path_resource(s, p, pb, a):
            return 0.0
        return 1.0 if room_paths > 0 else FAR
    if kind == K_GUARDIANS or kind == K_GUARDIAN_COUNT:
        miss = 0
        for g in range(1, 5):
            if kind == K_GUARDIANS and (a >> g) & 1 and s[pb + L.P_GUARD + g] == L.GP_NONE:
                if s[L.ISLAND_GUARDS + g] == 0:
                    return FAR
                miss += 1
        if kind == K_GUARDIAN_COUNT:
            miss = max(0, a - TK.n_guardians(s, pb))
        if TK.n_guardians(s, pb) + miss > C.MAX_GUARDIANS:
            return FAR
        return 2.0 * miss
    if kind == K_OFFER_ON_RESOURCE or kind == K_OFFER_BOTH:
        # an island without an own offering needs a task still lying there
        miss = 0
        have = 0
        open_islands = 0
        for i in range(NI):
            if p[T.ISL_KIND + i] == 0 and p[T.ISL_VAL + i] == a:
                if offers(s, pb, i, isl) >= 1:
                    have += 1
                elif tasks_left_on(s, i, isl) > 0:
                    miss += 1
                    open_islands += 1
                else:
                    miss += 1
        if kind == K_OFFER_ON_RESOURCE:
            if have > 0:
                return 0.0
            return 2.0 if open_islands > 0 else FAR
        if open_islands < miss:
            return FAR
        if TK.n_tasks(s, pb) + (1 if taking else 0) + miss > C.MAX_TASKS:
            return FAR
        return 2.5 * miss
    if kind == K_OFFER_ISLANDS:
        # per island: the offerings still missing there, if its tasks suffice; the k-th
        # own offering on an island costs k task tiles
        # the a cheapest islands, picked one by one (no arrays on this hot path; equal
        # costs mean equal offerings, so ties do not change the sums)
        d = 0.0
        miss = 0
        used = 0
        for _ in range(a):
            best = -1
            best_cost = FAR
            best_need = 0
            for i in range(NI):
                if p[T.ISL_KIND + i] != 0 or (used >> i) & 1:
                    continue
                o = offers(s, pb, i, isl)
                m = max(0, b - o)
                if m > tasks_left_on(s, i, isl):
                    continue
                c_i = 0.0
                for k in range(o + 1, b + 1):
                    c_i += 1.5 + 0.5 * k
                if best < 0 or c_i < best_cost:
                    best = i
                    best_cost = c_i
                    best_need = m
            if best < 0:
                return FAR
            used |= 1 << best
            d += best_cost
            miss += best_need
        if TK.n_tasks(s, pb) + (1 if taking else 0) + miss > C.MAX_TASKS:
            return FAR  # every offering comes with a task
        return d
    if kind == K_GNOME_RESOURCE:
        if TK._gnome_shows(s, p, pb, a):
            return 0.0
        if s[pb + L.P_NGNOME] >= C.MAX_GNOMES:
            return FAR
        for j in range(C.SPECIALIST_DISPLAY):
            gid = s[L.SPEC_DISP + j]
            if gid >= 0 and p[T.SPEC_RES + gid] == a:
                return 1.5
        for e in range(C.N_ELDERS):
            if s[L.ELDER_AVAIL + e] == 1 and p[T.ELDER_RES + e] == a:
                return 1.5
        return 4.0  # wait for the display to bring one
    if kind == K_BONFIRE_COLOURS:
        miss = 0
        for col in range(3):
            if (a >> col) & 1 and not TK.has_bonfire_colour(s, p, pb, col):
                miss += 1
        return 2.5 * miss
    if kind == K_RESOURCE_SETS:
        # the a largest of the 5 plain resource counts, largest first (no array copy)
        miss = 0
        used = 0
        for _ in range(a):
            best = -1
            for r in range(5):
                if (used >> r) & 1:
                    continue
                if best < 0 or s[pb + L.P_RES + r] > s[pb + L.P_RES + best]:
                    best = r
            used |= 1 << best
            miss += max(0, b - s[pb + L.P_RES + best])
        return 0.7 * miss
    if kind == K_FATE_GROUPS:
        if TK._fate_groups(s, pb, a, b, c):
            return 0.0
        # a placement adds one cell of each symbol its tile shows: a group grows by at
        # most one cell per placement of a column tile showing its symbol
        room = placeable(s, p, pb)
        miss_a = max(0, c - max_area(s, pb, a))
        if miss_a > min(room, column_with(s, p, pb, a)):
            return FAR
        miss = miss_a
        if b != TK.ONE_GROUP:
            miss_b = max(0, c - (max_area(s, pb, b) if b != a else 1))
            if miss_b > min(room, column_with(s, p, pb, b)):
                return FAR
            miss += miss_b
        return 1.5 * miss
    if kind == K_ADJACENT_PATH_SAME:
        if TK._adjacent_path_same(s, p, pb):
            return 0.0
        return 1.5 if room_paths > 0 else FAR
    if kind == K_GNOMES:
        if a > C.MAX_GNOMES:
            return FAR
        return 1.2 * max(0, a - s[pb + L.P_NGNOME])
    if kind == K_ELDERS:
        miss = max(0, a - s[pb + L.P_NELDER])
        avail = 0
        for e in range(C.N_ELDERS):
            avail += s[L.ELDER_AVAIL + e]
        if miss > avail or s[pb + L.P_NGNOME] + miss > C.MAX_GNOMES:
            return FAR
        return 2.0 * miss
    if kind == K_GOLD:
        return 0.6 * max(0, a - s[pb + L.P_RES + C.GOLD])
    if kind == K_PORTALS:
        return 1.3 * max(0, a - s[pb + L.P_NPORTAL])
    if kind == K_COMMON:
        best = FAR
        for cc in range(C.COMMON_TASKS):
            best = min(best, common_distance(s, p, pb, cc))
        return best
    if kind == K_RESOURCE:
        return 0.6 * max(0, b - s[pb + L.P_RES + a])
    if kind == K_COLOUR_TASKS:
        n = TK.n_colour_tasks(s, p, pb, a) + (1 if taking else 0)
        miss = max(0, b - n)
        if TK.n_tasks(s, pb) + (1 if taking else 0) + miss > C.MAX_TASKS:
            return FAR
        return 3.5 * miss
    if kind == K_DEPLETED_PILE:
        taken = max(s[pb + L.P_OFF_TAKEN], s[pb + L.P_OFF_TAKEN + 1])
        miss = max(0, C.OFFERING_PILE - taken - (1 if isl >= 0 else 0))
        if TK.n_tasks(s, pb) + (1 if taking else 0) + miss > C.MAX_TASKS:
            return FAR
        return 2.0 * miss
    if kind == K_CRYSTALS:
        miss = max(0, b - TK.n_crystals(s, p, pb, a))
        return 1.2 * miss if miss <= room_paths else FAR
    if kind == K_FATE_CELLS:
        need = placements_for_cells(s, p, pb, a)
        if need > placeable(s, p, pb):
            return FAR
        # every placement must also join the tiles already placed: far cells need more
        return 2.0 * need + (1.0 if need >= 3 else 0.0)
    if kind == K_GUARDIANS_ON_BONFIRES:
        return 5.0 * max(0, a - TK.n_guardians_on_bonfires(s, pb))
    if kind == K_TILES_IN_SUPPLY:
        miss = 0
        for k in range(6):
            if (a >> k) & 1 and s[pb + L.P_TILES + k] < 1:
                miss += 1
        return 2.0 * miss + 2.0  # the whole set must be held at once
    if kind == K_BONFIRES:
        return 2.5 * max(0, a - TK.n_bonfires(s, pb))
    return FAR


# ---- the NEED vector ----------------------------------------------------------------------
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
    pb = TK.pbase(seat)
    nd[:] = 0.0
    open_tasks = 0
    for k in range(C.MAX_TASKS):
        t = s[pb + L.P_TASK + k]
        if t < 0 or s[pb + L.P_LIT + k] == 1:
            continue
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


@njit(cache=True)
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
