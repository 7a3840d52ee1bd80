"""Use the Great Bonfire (rulebook p.10, RULINGS 5): turn it, take 2 of its 3 rewards.

A space's second reward is what it depicts: its resource on spaces 0-5, 2 points only on
the one space that shows them (6); never both kinds, never points on a resource space.
Every path that grants the rewards (the action, council space 3, specialists 22 and 23)
takes them from ``gen_rewards``.
"""

from __future__ import annotations

from numba import njit

from bonfire_sim.rules import components as C
from bonfire_sim.rules import layout as L
from bonfire_sim.rules import tables as T
from bonfire_sim.rules.movebuf import add
from bonfire_sim.rules.payment import can_pay_tiles, has_spec, note

FIRE = C.ACTION_TILES.index("fire")
R_TILE, R_RES, R_PTS, R_PORTAL = 1, 2, 4, 8


@njit(cache=True)
def fire_cost(s, pb, target):
    """Cheapest payment to point the Great Bonfire at ``target``.

    First use in the game (by anyone): 1 tile, any space.  Later: 1 / 2 tiles turn it 1 / 2
    spaces clockwise, 3 tiles to any space; specialist 22 adds one space to a paid turn.
    """
    if s[L.G_GB_USED] == 0:
        return 1
    steps = (target - s[L.G_GB_POS]) % 7
    if steps == 0:
        return 3
    if has_spec(s, pb, 22):
        steps -= 1
    if steps <= 1:
        return 1
    if steps == 2:
        return 2
    return 3


@njit(cache=True)
def next_notch(s, pb):
    """Highest empty notch (portals fill 6, 5, ..., 0), -1 if full."""
    for k in range(6, -1, -1):
        if s[pb + L.P_PORTAL + k] == 0:
            return k
    return -1


@njit(cache=True)
def notch_for(s, p, pb, shape):
    """Notch a portal of ``shape`` would go into, -1 if it may not be taken.

    Without specialist 25 only the next notch, and only if its shape matches; with it any
    empty notch of that shape.
    """
    board = s[pb + L.P_BOARD]
    if has_spec(s, pb, 25):
        for k in range(7):
            if s[pb + L.P_PORTAL + k] == 0 and p[T.BOARD_NOTCH + board * 7 + k] == shape:
                return k
        return -1
    k = next_notch(s, pb)
    if k >= 0 and p[T.BOARD_NOTCH + board * 7 + k] == shape:
        return k
    return -1


@njit(cache=True)
def portal_shapes(s, p, pb):
    """Bit mask of the portal shapes for which ``notch_for`` finds a notch (bit k: shape k):
    asked once per space instead of once per shape and reward set."""
    board = s[pb + L.P_BOARD]
    m = 0
    if has_spec(s, pb, 25):
        for k in range(7):
            if s[pb + L.P_PORTAL + k] == 0:
                m |= 1 << p[T.BOARD_NOTCH + board * 7 + k]
        return m
    k = next_notch(s, pb)
    if k >= 0:
        m = 1 << p[T.BOARD_NOTCH + board * 7 + k]
    return m


@njit(cache=True, _nrt=False)  # no reference counting: see bonfire_sim.strategies.evaluate.NO_RT
def gen_rewards(s, p, pb, g, cost, kind, out, n):
    """Every reward set at space g: 2 of {tile, its resource or its 2 points, portal};
    specialist 23: all 3.  A space shows a resource or 2 points (GB_RES < 0), not both."""
    nsets = 7 if has_spec(s, pb, 23) else 5
    shows_points = p[T.GB_RES + g] < 0
    shapes = portal_shapes(s, p, pb)
    for i in range(nsets):
        m = L.REWARD_SETS[i]
        if m & R_RES and shows_points:
            continue
        if m & R_PTS and not shows_points:
            continue
        if m & R_PORTAL:
            for shape in range(7):
                if s[L.GB_PORTALS + g * 7 + shape] > 0 and (shapes >> shape) & 1:
                    n = add(out, n, kind, g, i, shape, cost)
        else:
            n = add(out, n, kind, g, i, -1, cost)
    return n


@njit(cache=True)
def gen_fire(s, p, pb, out, n):
    """Great Bonfire moves for every space at its cheapest affordable cost."""
    for g in range(7):
        c = fire_cost(s, pb, g)
        if can_pay_tiles(s, pb, FIRE, c):
            n = gen_rewards(s, p, pb, g, c, L.M_FIRE, out, n)
    return n


@njit(cache=True)
def take_rewards(s, p, pb, g, rset, shape):
    """Turn the Great Bonfire to g and collect reward set ``rset`` (portal ``shape``)."""
    s[L.G_GB_POS] = g
    s[L.G_GB_USED] = 1
    m = L.REWARD_SETS[rset]
    if rset >= 5:
        note(s, pb, 23)
    if m & R_TILE:
        s[pb + L.P_TILES + p[T.GB_TILE + g]] += 1
    if m & R_RES:
        s[pb + L.P_RES + p[T.GB_RES + g]] += 1
    if m & R_PTS:
        s[pb + L.P_SCORE] += p[T.FIRE_PTS]
        s[pb + L.P_PTS_FIRE] += p[T.FIRE_PTS]
    if m & R_PORTAL:
        k = notch_for(s, p, pb, shape)
        if k != next_notch(s, pb):
            note(s, pb, 25)
        s[L.GB_PORTALS + g * 7 + shape] -= 1
        s[pb + L.P_PORTAL + k] = 1
        s[pb + L.P_NPORTAL] += 1


@njit(cache=True)
def do_fire(s, p, pb, g, rset, shape, cost):
    """Turn and collect, after paying ``cost`` fire tiles (pay_choice)."""
    if has_spec(s, pb, 22) and s[L.G_GB_USED] == 1 and cost < 3:
        if (g - s[L.G_GB_POS]) % 7 == cost + 1:  # reached only thanks to the extra space
            note(s, pb, 22)
    take_rewards(s, p, pb, g, rset, shape)
