"""Move your ship, receive a task, retrieve a guardian (rulebook pp.8-9, RULINGS 5)."""

from __future__ import annotations

from numba import njit

from bonfire_sim.rules import components as C
from bonfire_sim.rules import layout as L
from bonfire_sim.rules import tables as T
from bonfire_sim.rules.movebuf import add
from bonfire_sim.rules.payment import can_pay_resources, can_pay_tiles, has_spec, note
from bonfire_sim.rules.procession import start_procession

SHIP, TASK, GUARD = 0, 2, 4
NI = C.N_ISLANDS


@njit(cache=True)
def routes(a, b):
    """Ship routes between islands a and b on the ring (0 = same island)."""
    d = abs(a - b)
    return min(d, NI - d)


@njit(cache=True)
def ship_cost(s, pb, dest):
    """Cheapest tile payment to sail to ``dest``.

    First trip: 1 tile to any island.  Later: 1 tile per route up to 2 routes, 3 tiles
    anywhere; specialist 21 adds one free route to any paid move.  Returning to the island
    the ship left takes 2 routes (out and back) [ruling in docs/rules-notes.md].
    """
    if s[pb + L.P_SHIP_USED] == 0:
        return 1
    r = routes(s[pb + L.P_SHIP], dest)
    if r == 0:
        r = 2
    if has_spec(s, pb, 21):
        r -= 1
    if r <= 1:
        return 1
    if r == 2:
        return 2
    return 3


@njit(cache=True)
def gen_ship(s, p, pb, out, n):
    """Ship moves: every island at its cheapest affordable cost."""
    for i in range(NI):
        c = ship_cost(s, pb, i)
        if can_pay_tiles(s, pb, SHIP, c):
            n = add(out, n, L.M_SHIP, i, c, 0, 0)
    return n


@njit(cache=True)
def do_ship(s, pb, dest, cost):
    """Sail after paying ``cost`` ship tiles (pay_choice); the island's action may follow."""
    if has_spec(s, pb, 21) and s[pb + L.P_SHIP_USED] == 1 and cost < 3:
        r = routes(s[pb + L.P_SHIP], dest)
        if r == 0 or r == cost + 1:  # reached only thanks to the extra route
            note(s, pb, 21)
    sail(s, pb, dest)


@njit(cache=True)
def sail(s, pb, dest):
    """Put the ship at ``dest`` and offer the island's action."""
    s[pb + L.P_SHIP] = dest
    s[pb + L.P_SHIP_USED] = 1
    s[L.G_PHASE] = L.PH_SHIP_ACTION


@njit(cache=True)
def n_tasks_held(s, pb):
    """Tasks and bonfires on the player's board."""
    n = 0
    for k in range(7):
        if s[pb + L.P_TASK + k] >= 0:
            n += 1
    return n


@njit(cache=True)
def task_tile_cost(s, p, pb, island):
    """1 / 2 / 3 task tiles for the 1st / 2nd / 3rd own offering there (spec 26: always 1)."""
    if has_spec(s, pb, 26):
        return 1
    k = min(s[pb + L.P_OFF_ISLAND + island], 2)
    return p[T.TASK_COST + k]


@njit(cache=True)
def offering_resource(s, pb, pile):
    """Resource on the face-up tile of offering pile 0/1, -1 if the pile is depleted."""
    taken = s[pb + L.P_OFF_TAKEN + pile]
    if taken >= C.OFFERING_PILE:
        return -1
    return s[pb + L.P_OFF_PILE + pile * C.OFFERING_PILE + taken]


@njit(cache=True)
def task_resources(s, p, pb, island, pile):
    """(r1, r2) to pay: the offering's and the island's resource; -1 = any (spec 3)."""
    if has_spec(s, pb, 3):
        return -1, -1
    return offering_resource(s, pb, pile), p[T.ISL_VAL + island]


@njit(cache=True, _nrt=False)  # no reference counting: see bonfire_sim.strategies.evaluate.NO_RT
def gen_task(s, p, pb, out, n):
    """Receive-task moves at the ship's island: task slot x offering pile x bonfire space."""
    i = s[pb + L.P_SHIP]
    if i < 0 or p[T.ISL_KIND + i] != 0 or n_tasks_held(s, pb) >= C.MAX_TASKS:
        return n
    if not can_pay_tiles(s, pb, TASK, task_tile_cost(s, p, pb, i)):
        return n
    for pile in range(2):
        if offering_resource(s, pb, pile) < 0:
            continue
        r1, r2 = task_resources(s, p, pb, i, pile)
        if not can_pay_resources(s, pb, r1, 1, r2, 1):
            continue
        for j in range(3):
            if s[L.ISLAND_TASKS + i * 3 + j] < 0:
                continue
            for k in range(7):
                if s[pb + L.P_TASK + k] < 0:
                    n = add(out, n, L.M_TASK, j, pile, k, 0)
    return n


@njit(cache=True)
def do_task(s, p, pb, slot, pile, space):
    """After paying tiles and 2 resources: leave the offering, put the task on the space."""
    i = s[pb + L.P_SHIP]
    if has_spec(s, pb, 26) and s[pb + L.P_OFF_ISLAND + i] > 0:
        note(s, pb, 26)
    if has_spec(s, pb, 3):
        note(s, pb, 3)
    s[pb + L.P_TASK + space] = s[L.ISLAND_TASKS + i * 3 + slot]
    s[pb + L.P_TASK_AT + space] = s[L.G_TURN]
    s[L.ISLAND_TASKS + i * 3 + slot] = -1
    s[pb + L.P_OFF_ISLAND + i] += 1
    s[pb + L.P_OFF_TAKEN + pile] += 1


@njit(cache=True)
def n_guardians(s, pb):
    """Guardians the player owns (the own guardian included)."""
    n = 0
    for k in range(5):
        if s[pb + L.P_GUARD + k] != L.GP_NONE:
            n += 1
    return n


@njit(cache=True)
def can_take_guardian(s, pb, colour):
    """A guardian of ``colour`` (1..4) is on her island, new to the player, and room is left."""
    return (s[pb + L.P_GUARD + colour] == L.GP_NONE and s[L.ISLAND_GUARDS + colour] > 0
            and n_guardians(s, pb) < C.MAX_GUARDIANS)


@njit(cache=True, _nrt=False)  # no reference counting: see bonfire_sim.strategies.evaluate.NO_RT
def gen_guard(s, p, pb, out, n):
    """Retrieve-guardian move at the ship's guardian island."""
    i = s[pb + L.P_SHIP]
    if i < 0 or p[T.ISL_KIND + i] != 1:
        return n
    g = p[T.ISL_VAL + i]
    if can_take_guardian(s, pb, g) and can_pay_tiles(s, pb, GUARD, 1):
        n = add(out, n, L.M_GUARD, g, 0, 0, 0)
    return n


@njit(cache=True)
def take_guardian(s, pb, colour):
    """Move a guardian from her island to the waiting area (spec 17: 1-step procession).

    Returns True if a procession decision is now pending.
    """
    s[L.ISLAND_GUARDS + colour] -= 1
    s[pb + L.P_GUARD + colour] = L.GP_WAIT
    if has_spec(s, pb, 17):
        note(s, pb, 17)
        return start_procession(s, pb, 1, True)
    return False

