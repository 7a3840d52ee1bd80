"""How far a seat is from fulfilling a task: a rough count of the actions still needed.

``task_distance(s, p, seat, t, isl, taking)``: 0 = fulfilled now, ``FAR`` = impossible (no
room left, the component is gone).  ``isl >= 0`` counts an extra own offering on island
``isl`` (the one receiving the task would leave there); ``taking`` counts ``t`` itself as
held.

Most task kinds count one thing against a target ("4 gold", "3 portals", "2 lit
bonfires"): their distance is a table, ``PER_MISS[kind]`` actions per missing item, with the
count read by ``_have``.  The kinds with their own logic (room on the paths, islands with
tasks left, fate areas, ...) each have a function, and ``task_distance`` dispatches to them.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from bonfire_sim.rules import components as C
from bonfire_sim.rules import layout as L
from bonfire_sim.rules import tables as T
from bonfire_sim.rules import tasks as TK
from bonfire_sim.rules.stackbuf import stack_floats, stack_ints
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
from bonfire_sim.strategies.counters import (
    FAR,
    NI,
    column_with,
    common_distance,
    max_area,
    offers,
    placeable,
    placements_for_cells,
    tasks_left_on,
)

# Actions per missing item of the kinds that count one thing against a target (-1: the
# kind has its own function).  K_RESOURCE's target is its b ("b of resource a").
_KINDS = max(K_ADJACENT_PATH_SAME, K_BONFIRE_COLOURS, K_BONFIRES, K_COLOUR_TASKS, K_COMMON,
             K_CRYSTALS, K_DEPLETED_PILE, K_ELDERS, K_FATE_CELLS, K_FATE_GROUPS,
             K_GNOME_RESOURCE, K_GNOMES, K_GOLD, K_GUARDIAN_COUNT, K_GUARDIANS,
             K_GUARDIANS_ON_BONFIRES, K_OFFER_BOTH, K_OFFER_ISLANDS, K_OFFER_ON_RESOURCE,
             K_PATH_RESOURCE, K_PORTALS, K_RESOURCE, K_RESOURCE_SETS, K_TILES_IN_SUPPLY) + 1
PER_MISS = np.full(_KINDS, -1.0)
PER_MISS[K_GNOMES] = 1.2
PER_MISS[K_GOLD] = 0.6
PER_MISS[K_PORTALS] = 1.3
PER_MISS[K_RESOURCE] = 0.6
PER_MISS[K_GUARDIANS_ON_BONFIRES] = 5.0
PER_MISS[K_BONFIRES] = 2.5
PER_MISS.setflags(write=False)  # a compile-time constant of the kernels


@njit(cache=True, inline="always")
def _have(s, pb, kind, a):
    """The count a table kind compares with its target."""
    if kind == K_GNOMES:
        return s[pb + L.P_NGNOME]
    if kind == K_GOLD:
        return s[pb + L.P_RES + C.GOLD]
    if kind == K_PORTALS:
        return s[pb + L.P_NPORTAL]
    if kind == K_RESOURCE:
        return s[pb + L.P_RES + a]
    if kind == K_GUARDIANS_ON_BONFIRES:
        return TK.n_guardians_on_bonfires(s, pb)
    return TK.n_bonfires(s, pb)  # K_BONFIRES


# Long: one branch per task kind (components.TASKS), each a few lines.
@njit(cache=True)
def task_distance(s, p, seat, t, isl, taking):
    """Rough number of actions still needed to fulfil task t (0 = done, FAR = impossible)."""
    pb = TK.pbase(seat)
    kind = p[T.T_KIND + t]
    a = p[T.T_A + t]
    b = p[T.T_B + t]
    per = PER_MISS[kind]
    if per >= 0.0:
        if kind == K_GNOMES and a > C.MAX_GNOMES:
            return FAR
        return per * max(0, (b if kind == K_RESOURCE else a) - _have(s, pb, kind, a))
    if kind == K_PATH_RESOURCE:
        if TK._has_path_resource(s, p, pb, a):
            return 0.0
        return 1.0 if C.MAX_PATHS - s[pb + L.P_NPATH] > 0 else FAR
    if kind == K_GUARDIANS or kind == K_GUARDIAN_COUNT:
        return _guardians(s, pb, kind, a)
    if kind == K_OFFER_ON_RESOURCE or kind == K_OFFER_BOTH:
        return _offer_on_resource(s, p, pb, kind, a, isl, taking)
    if kind == K_OFFER_ISLANDS:
        return _offer_islands(s, p, pb, a, b, isl, taking)
    if kind == K_GNOME_RESOURCE:
        return _gnome_resource(s, p, pb, a)
    if kind == K_BONFIRE_COLOURS:
        miss = 0
        for col in range(3):
            if (a >> col) & 1 and not TK.has_bonfire_colour(s, p, pb, col):
                miss += 1
        return 2.5 * miss
    if kind == K_RESOURCE_SETS:
        return _resource_sets(s, pb, a, b)
    if kind == K_FATE_GROUPS:
        return _fate_groups(s, p, pb, a, b, p[T.T_C + t])
    if kind == K_ADJACENT_PATH_SAME:
        if TK._adjacent_path_same(s, p, pb):
            return 0.0
        return 1.5 if C.MAX_PATHS - s[pb + L.P_NPATH] > 0 else FAR
    if kind == K_ELDERS:
        return _elders(s, pb, a)
    if kind == K_COMMON:
        best = FAR
        for cc in range(C.COMMON_TASKS):
            best = min(best, common_distance(s, p, pb, cc))
        return best
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
        return 1.2 * miss if miss <= C.MAX_PATHS - s[pb + L.P_NPATH] else FAR
    if kind == K_FATE_CELLS:
        need = placements_for_cells(s, p, pb, a)
        if need > placeable(s, p, pb):
            return FAR
        # every placement must also join the tiles already placed: far cells need more
        return 2.0 * need + (1.0 if need >= 3 else 0.0)
    if kind == K_TILES_IN_SUPPLY:
        miss = 0
        for k in range(6):
            if (a >> k) & 1 and s[pb + L.P_TILES + k] < 1:
                miss += 1
        return 2.0 * miss + 2.0  # the whole set must be held at once
    return FAR


@njit(cache=True)
def _guardians(s, pb, kind, a):
    """GUARDIANS (the colours in mask a) and GUARDIAN_COUNT (a guardians)."""
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


@njit(cache=True)
def _offer_on_resource(s, p, pb, kind, a, isl, taking):
    """OFFER_ON_RESOURCE (one island of resource a) and OFFER_BOTH (every one): an island
    without an own offering needs a task still lying there."""
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


@njit(cache=True, _nrt=False)  # no reference counting (stack buffers): see price_context.NO_RT
def _offer_islands(s, p, pb, a, b, isl, taking):
    """OFFER_ISLANDS: b own offerings on each of a islands.  Per island: the offerings
    still missing there, if its tasks suffice; the k-th own offering on an island costs k
    task tiles.  The a cheapest islands, picked one by one (the first of equal costs;
    equal costs mean equal offerings, so ties do not change the sums).  Each island's
    cost is found once, before the picks: asked again for every pick it was most of the
    distance's work for the tasks of 3 and 5 islands."""
    cost = stack_floats(NI)  # the island's cost, FAR if it cannot count
    need = stack_ints(NI)
    for i in range(NI):
        cost[i] = FAR
        if p[T.ISL_KIND + i] != 0:
            continue
        o = offers(s, pb, i, isl)
        m = max(0, b - o)
        if m > tasks_left_on(s, i, isl):
            continue
        c_i = 0.0
        for k in range(o + 1, b + 1):
            c_i += 1.5 + 0.5 * k
        cost[i] = c_i
        need[i] = m
    d = 0.0
    miss = 0
    used = 0
    for _ in range(a):
        best = -1
        for i in range(NI):
            if cost[i] >= FAR or (used >> i) & 1:
                continue
            if best < 0 or cost[i] < cost[best]:
                best = i
        if best < 0:
            return FAR
        used |= 1 << best
        d += cost[best]
        miss += need[best]
    if TK.n_tasks(s, pb) + (1 if taking else 0) + miss > C.MAX_TASKS:
        return FAR  # every offering comes with a task
    return d


@njit(cache=True)
def _gnome_resource(s, p, pb, a):
    """GNOME_RESOURCE: a gnome showing resource a (on display, or waited for)."""
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


@njit(cache=True)
def _resource_sets(s, pb, a, b):
    """RESOURCE_SETS: b of each of a plain resources; the a largest counts, largest first
    (no array copy)."""
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


@njit(cache=True)
def _fate_groups(s, p, pb, a, b, c):
    """FATE_GROUPS: areas of c cells of symbols a and b.  A placement adds one cell of each
    symbol its tile shows: a group grows by at most one cell per placement of a column tile
    showing its symbol."""
    if TK._fate_groups(s, pb, a, b, c):
        return 0.0
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


@njit(cache=True)
def _elders(s, pb, a):
    """ELDERS: a elders, if enough are left and there is room among the gnomes."""
    miss = max(0, a - s[pb + L.P_NELDER])
    avail = 0
    for e in range(C.N_ELDERS):
        avail += s[L.ELDER_AVAIL + e]
    if miss > avail or s[pb + L.P_NGNOME] + miss > C.MAX_GNOMES:
        return FAR
    return 2.0 * miss
