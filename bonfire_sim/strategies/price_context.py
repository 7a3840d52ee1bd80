"""Per-decision context of the evaluator: the scratch layout (``CX_*`` slots) and what
fills it once per decision (turns left, stall pressure, the stock's unit values).

Every move of one decision is priced against this context, so whatever several moves
share is computed here or memoised in its slots.
"""

from __future__ import annotations

from collections import namedtuple

from numba import njit

from bonfire_sim.rules import components as C
from bonfire_sim.rules import layout as L
from bonfire_sim.rules import tables as T
from bonfire_sim.rules import tasks as TK
from bonfire_sim.rules.islands import (
    n_guardians,
)
from bonfire_sim.rules.turns import pass_points
from bonfire_sim.strategies import features as FE
from bonfire_sim.strategies.weights import (
    W_GOLD,
    W_RES,
    W_SET_KEEP,
    W_TILE,
    W_TPN,
    W_TV0,
    W_YELLOW,
    W_YELLOW_FLOOR,
)

NEG = -1.0e9
GOLD, YELLOW = C.GOLD, C.YELLOW
SURPLUS = 7  # tv[SURPLUS]: value of a surplus action tile (see stock_values)
PAYV = 8  # tv[PAYV + k]: value of a held tile of type k up to TILE_CAP (surplus if dead)
SURPLUS_EARLY = 0.3  # ... while the game is far from its end: spare change for pairs
TILE_CAP = (3, 2, 3, 3, 3, 2)  # most tiles one action of each type pays (ship..gnome)
# context slots (per decision); the later ones memoise what several moves of one decision
# share: the discarded tiles' value and covered-cell mask of every fate move (-1 = not yet;
# the dead cells of a placement are kept per seat: ``price_fate.GEO_AREA``), and, under a
# key of the last move that computed it (-1 = none), a new task's distance (every pile and
# space) and a gnome's value (both ways to pay); CX_DOVER: 1 if option I must discard, 0
# if not (-1 = not yet known), the same for every fate move
(CX_TURNS, CX_LATE, CX_OPEN, CX_SEAT, CX_PRESS, CX_DLOSS, CX_OCC, CX_TKEY, CX_TDIST,
 CX_GKEY, CX_GVAL, CX_PKNOWN, CX_DOVER) = range(13)
CX_PORTAL = 13  # 7 slots: a portal's value by shape, known where bit shape of CX_PKNOWN is set
# Memo slots (NaN = not yet computed) of prices many moves of one decision share: the
# cheapest payment of n < MEMO_N tiles of type t (on the decision's own stock), of n < 4
# resources r (r = -1: any; the ship payment never changes the resources), and the
# distance of the task in slot j of island i (``features.task_distance`` when taking it).
MEMO_N = 8
# 1 once the fate area is labelled (the first fate move), then CX_FTOP: the two largest
# area sizes per symbol (``features.fate_labels_tops``) for FATE_GROUPS task distances
CX_FOK = CX_PORTAL + 7
CX_FTOP = CX_FOK + 1
CX_TCOST = CX_FTOP + 14
CX_RCOST = CX_TCOST + 6 * MEMO_N
CX_TDIST_AT = CX_RCOST + 7 * 4
CX_SYN = CX_TDIST_AT + 3 * C.N_ISLANDS  # T.NT memo slots: a task's synergy with the needs
CX_IRCOST = CX_SYN + T.NT  # 6 memo slots: a task's resources at an island of resource r
# 24 memo slots: the cheapest payment of n < 4 task (t = 2) or guardian (t = 4) tiles
# from the stock a ship payment of 1-3 tiles leaves (``price_tasks.paid_tile_cost``)
CX_PAIDCOST = CX_IRCOST + 6
CX_NEEDS = CX_PAIDCOST + 24  # NN scratch slots (a new task's own needs; zero between uses)
CX_NDFIN = CX_NEEDS + FE.NN  # 1 if every need is finite, -1 if not, 0 = not yet known
NCX = CX_NDFIN + 1

# What pricing a move reads besides the state, the parameters and the seat, made once per
# decision by ``evaluate.choose_in``: the seat's weight row ``w``, the decision's context
# ``cx`` (``CX_*``), the NEED vector ``nd`` and the tile and resource values ``tv``/``rv``
# (``stock_values``).  One argument instead of five: numba passes a tuple of arrays as
# its arrays, so a call costs the same and inlined callers read the same loads.
Prices = namedtuple("Prices", ("w", "cx", "nd", "tv", "rv"))
# A decision's ``Prices`` and the fate area's scratch: its labelling ``lab``/``size`` (made
# at the first fate move), free lines ``fl`` and the seat's kept placement geometry
# ``area``/``lines`` (``price_fate.GEO_AREA``).
Scratch = namedtuple("Scratch", ("pr", "lab", "size", "fl", "area", "lines"))


# numba reference-counts every array argument of a compiled call (two calls into its
# runtime per array, not optimised away across our branchy functions): with ten arrays per
# priced move that was most of a decision's time.  So the pricing runs without the runtime
# (``NO_RT``: no allocation possible there, callees inherit it) and the few functions that
# allocate a scratch array say ``WITH_RT`` explicitly.  Numbers are unchanged: the flag only
# drops the reference counting.
NO_RT = {"cache": True, "_nrt": False}
WITH_RT = {"cache": True, "_nrt": True}


@njit(**NO_RT)
def turns_left(s, p, seat, w):
    """Own turns left: exact in the countdown, else estimated from the council."""
    if s[L.G_CD_ACTIVE] == 1:
        return float(max(1, pass_points(s, seat)))
    rem = max(0, p[T.CD_TRIGGER + s[L.G_HUMANS]] - s[L.G_COUNCIL_N])
    council = 5.0 + rem * w[W_TPN] / max(1, s[L.G_HUMANS])
    # ... but no more turns than the own fuel lasts: tiles held and fate tiles that still
    # fit (about 4.5 tiles each; see features.placeable), ~1.6 tiles per turn
    pb = TK.pbase(seat)
    tiles = 0
    for k in range(7):
        tiles += s[pb + L.P_TILES + k]
    fuel = 2.0 + (tiles + 4.5 * FE.placeable(s, p, pb)) / 1.6
    return min(council, fuel)


@njit(**NO_RT)
def stall_pressure(s, p):
    """0..1: how far the council lags behind the fuel left for lighting bonfires.

    Novices still needed to trigger the countdown against the fate tiles the players can
    still place (each brings about half a novice): near 1 the game is heading for a stall (every
    player out before the countdown), so novices (ignites, bonus actions, new tasks) are
    worth more and the Great Bonfire's points less.  0 in the countdown and in solo games.
    """
    if s[L.G_CD_ACTIVE] == 1 or s[L.G_SOLO] == 1:
        return 0.0
    rem = p[T.CD_TRIGGER + s[L.G_HUMANS]] - s[L.G_COUNCIL_N]
    if rem <= 0:
        return 0.0
    fuel = 0.0
    for seat in range(s[L.G_HUMANS]):
        pb = TK.pbase(seat)
        if s[pb + L.P_OUT] == 0 and s[pb + L.P_PASSED] == 0:
            fuel += FE.placeable(s, p, pb) + 0.5
    return min(1.0, max(0.0, rem / (0.5 * fuel + 1.0) - 0.25))


@njit(**NO_RT)
def stock_values(s, p, pb, w, late, nd, tv, rv):
    """Values of one action tile of each type (tv) and one resource (rv)."""
    for k in range(6):
        tv[k] = 0.5 * (1.0 - late) + late * w[W_TILE] * w[W_TV0 + k]
    tv[YELLOW] = 0.5 * (1.0 - late) + late * w[W_YELLOW]
    tv[SURPLUS] = 0.5 * (1.0 - late) + late * SURPLUS_EARLY
    dead = dead_tiles(s, pb)
    for k in range(6):
        tv[PAYV + k] = tv[SURPLUS] if (dead >> k) & 1 else tv[k]
    # The joker stands for any live tile, so keeping it is worth at least the dearest one
    # it could replace: below that the payment prices favour paying yellow while holding
    # the tile asked (legal, almost always worse).  0 in the older rows: unchanged play.
    floor = w[W_YELLOW_FLOOR]
    if floor > 0.0:
        dear = 0.0
        for k in range(6):
            dear = max(dear, tv[PAYV + k])
        tv[YELLOW] = max(tv[YELLOW], floor * dear)
    if w[W_SET_KEEP] > 0.0:
        keep_tile_sets(s, p, pb, w[W_SET_KEEP], tv)
    held = 0
    for r in range(6):
        held += s[pb + L.P_RES + r]
    scarce = 0.4 if held < 4 else 0.0  # tasks cost 2 resources: keep a few
    for r in range(5):
        rv[r] = 0.5 * (1.0 - late) + late * (w[W_RES] + scarce) + nd[FE.N_RES + r]
    rv[GOLD] = 0.5 * (1.0 - late) + late * w[W_GOLD] + nd[FE.N_RES + GOLD]


@njit(**NO_RT)
def keep_tile_sets(s, p, pb, keep, tv):
    """Raise the last held tile of each type that a held, unlit tile-set task (Y15-Y17:
    "action tiles ... in supply") asks for: paying it breaks the set the task needs when it
    is ignited, and late in the game every tile falls to its leftover value, so without
    this the set is spent before the countdown ignite."""
    for j in range(C.MAX_TASKS):
        t = s[pb + L.P_TASK + j]
        if t < 0 or s[pb + L.P_LIT + j] == 1 or p[T.T_KIND + t] != TK.K_TILES_IN_SUPPLY:
            continue
        a = p[T.T_A + t]
        miss = 0
        for k in range(6):
            if (a >> k) & 1 and s[pb + L.P_TILES + k] < 1:
                miss += 1
        bonus = keep * (p[T.T_POINTS + t] + FE.IGNITE_EXTRA) / (1.0 + miss)
        for k in range(6):
            if (a >> k) & 1 and s[pb + L.P_TILES + k] == 1:
                tv[PAYV + k] += bonus


@njit(**NO_RT)
def dead_tiles(s, pb):
    """Bit mask of the tile types no action can use any more (6 paths, 6 gnomes, 7 tasks,
    every guardian on a bonfire with none left to retrieve)."""
    m = 0
    if s[pb + L.P_NPATH] >= C.MAX_PATHS:
        m |= 1 << 1
    if TK.n_tasks(s, pb) >= C.MAX_TASKS:
        m |= 1 << 2
    if s[pb + L.P_NGNOME] >= C.MAX_GNOMES:
        m |= 1 << 5
    walk = n_guardians(s, pb) < C.MAX_GUARDIANS
    for g in range(5):
        pos = s[pb + L.P_GUARD + g]
        if pos != L.GP_NONE and pos < L.GP_BONFIRE:
            walk = True
    if not walk:
        m |= 1 << 4
    return m
