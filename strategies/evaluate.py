"""The shared one-ply evaluator: price every legal move with a weight row, pick the best.

Every scripted strategy is this evaluator with its own weight row (``WEIGHT_NAMES``; a
style module's ``DEFAULTS`` overrides ``BASE``).  A move's value is the change of a linear
evaluation of the acting seat's position, in points:

* stock: each action tile / resource is worth ``tile`` / ``res`` (yellow, gold more), by
  type (``tv_*``), plus the NEED features of ``features`` (what held tasks still lack);
  near the end (``late`` -> 0, see ``horizon``) everything falls to its leftover value 0.5;
* payments and discards (the payer's choice, ``rules.pay_choice``) are priced by the
  stock they leave: a tile of a type no action can use any more (6 paths, 6 gnomes, 7
  tasks) or beyond what one action of its type can pay (``TILE_CAP``) is surplus, worth
  ``SURPLUS`` early and its leftover value late; a move's cost is its cheapest payment;
* progress: a new task is worth its points x colour weight x the chance to finish it in
  the turns left, minus ``task_dist`` per missing action; paths, guardians, portals and
  specialists have investment values that fade with ``late``; elders score their points;
* points: igniting (``ignite`` + printed points), guardians onto bonfires (printed points),
  council "1 point", Great Bonfire "2 points", passing.

The delta is computed per move kind without applying the move (fate placements read the
area sizes from a labelling of the grid), so one decision costs microseconds.  Follow-up
decisions (which task after sailing, which guardian where, which council bonus) are
priced with the same functions.  Passing in the countdown: pass when the points for
passing exceed the best move now plus ``future_turn`` for each further turn.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from bonfire_sim.rules import components as C
from bonfire_sim.rules import fate as F
from bonfire_sim.rules import fate_masks as FM
from bonfire_sim.rules import layout as L
from bonfire_sim.rules import tables as T
from bonfire_sim.rules import tasks as TK
from bonfire_sim.rules.gnomes import elder_points, gnome_resource
from bonfire_sim.rules.great_bonfire import gen_rewards, next_notch, notch_for
from bonfire_sim.rules.islands import (
    can_take_guardian,
    n_guardians,
    offering_resource,
    task_tile_cost,
)
from bonfire_sim.rules.pay_choice import PAY_TILES, code_count
from bonfire_sim.rules.payment import (
    can_pay_resources,
    can_pay_tiles,
    has_spec,
    pay_tiles_sparing,
)
from bonfire_sim.rules.procession import STAY, bonfire_open, path_open
from bonfire_sim.rules.stackbuf import stack_ints, stack_moves
from bonfire_sim.rules.turns import pass_points
from strategies import features as FE

# ---- the weight row --------------------------------------------------------------------
# name: (default, meaning).  The order fixes the index in the seat's weight row.
WEIGHTS: dict[str, tuple[float, str]] = {
    "tile": (0.7, "points per plain action tile held"),
    "yellow": (1.0, "points per yellow action tile"),
    "res": (0.9, "points per plain resource"),
    "gold": (1.1, "points per gold"),
    "tv_ship": (1.0, "multiplier on the value of ship tiles"),
    "tv_path": (1.0, "multiplier on the value of path tiles"),
    "tv_task": (1.1, "multiplier on the value of task tiles"),
    "tv_fire": (1.0, "multiplier on the value of Great Bonfire tiles"),
    "tv_guard": (1.0, "multiplier on the value of guardian tiles"),
    "tv_gnome": (1.0, "multiplier on the value of gnome tiles"),
    "need": (1.5, "scale of the NEED features (what held tasks lack)"),
    "common": (0.6, "weight of the common tasks in the NEED features"),
    "task_pts": (1.3, "multiplier on a new task's printed points"),
    "task_blue": (1.0, "colour multiplier: blue tasks"),
    "task_red": (1.0, "colour multiplier: red tasks"),
    "task_yellow": (1.0, "colour multiplier: yellow tasks"),
    "task_dist": (2.0, "penalty per action a new task still needs"),
    "max_open": (3.0, "take no new task while holding this many unlit ones"),
    "task_space": (1.0, "bonus for a task on a high bonfire space (x space/6)"),
    "synergy": (0.0, "bonus x overlap of a new task's needs with the current needs"),
    "ignite": (6.0, "value of igniting on top of the bonfire's points"),
    "bonus": (5.0, "value of a bonus action (neutral novice to the council)"),
    "path": (1.6, "investment value of a path tile"),
    "crystal_match": (1.5, "a path crystal matching the task beside it"),
    "guard": (1.5, "investment value of a new guardian"),
    "guard_bonfire": (1.0, "multiplier on guardian points when entering a bonfire"),
    "advance": (0.25, "value per path step a guardian advances"),
    "portal": (1.0, "investment value of a portal"),
    "spec": (1.0, "multiplier on specialist ability values"),
    "elder": (1.3, "multiplier on an elder's points"),
    "elder_wait": (3.0, "penalty on elders early in the game (x late)"),
    "fate_cost": (3.0, "cost of using a fate tile (3 points if kept)"),
    "fate_low": (1.0, "bonus for option I when holding at most 1 action tile"),
    "horizon": (10.0, "turns left below which investments lose value"),
    "tpn": (6.0, "turns per remaining council novice (divided by players)"),
    "future_turn": (2.0, "points a further countdown turn is worth (pass rule)"),
    "council_point": (1.0, "value of the council's 1-point alternative"),
    "proc_res": (0.8, "multiplier on resources gained in processions"),
    "fire_points": (0.4, "multiplier on the Great Bonfire's 2 points"),
    "refresh": (-0.5, "value of refreshing a one-colour path display"),
    "ship_follow": (1.0, "multiplier on the best action at the island sailed to"),
    "discard": (2.5, "multiplier on the value of tiles discarded for option I"),
    "novice": (3.0, "value of a novice sent to the council (ignite, bonus, new task) x pressure"),
    "fire_cap": (6.0, "Great Bonfire '2 points' uses after which their value has faded out"),
    "fate_geo": (1.5, "penalty per fate cell left that no tile can cover (room for the column)"),
    "stock_press": (0.7, "how far stall pressure lowers unneeded stock to its leftover value"),
    # appended 2026-11-23 (issue 13): default 0 leaves every older style's play unchanged
    "task_ignite": (0.0, "points a new task promises for its later ignite (x chance to finish)"),
    "task_idle": (0.0, "bonus for a new task while the seat holds no unlit task"),
    "fire_plain": (0.0, "penalty on a paid Great Bonfire turn that brings no portal"),
    "ignite_hold": (0.0, "penalty on igniting before the countdown (x 1 - stall pressure)"),
}
WEIGHT_NAMES = tuple(WEIGHTS)
BASE = {k: v for k, (v, _) in WEIGHTS.items()}
(W_TILE, W_YELLOW, W_RES, W_GOLD, W_TV0, _W_TV1, _W_TV2, _W_TV3, _W_TV4, _W_TV5, W_NEED,
 W_COMMON, W_TASK_PTS, W_TASK_COL0, _W_TASK_COL1, _W_TASK_COL2, W_TASK_DIST, W_MAX_OPEN,
 W_TASK_SPACE, W_SYNERGY, W_IGNITE, W_BONUS, W_PATH, W_CRYSTAL, W_GUARD, W_GUARD_BONFIRE,
 W_ADVANCE, W_PORTAL, W_SPEC, W_ELDER, W_ELDER_WAIT, W_FATE_COST, W_FATE_LOW, W_HORIZON,
 W_TPN, W_FUTURE, W_COUNCIL_POINT, W_PROC_RES, W_FIRE_POINTS, W_REFRESH, W_SHIP_FOLLOW,
 W_DISCARD, W_NOVICE, W_FIRE_CAP, W_FATE_GEO, W_STOCK_PRESS, W_TASK_IGNITE, W_TASK_IDLE,
 W_FIRE_PLAIN, W_IGNITE_HOLD) = range(len(WEIGHT_NAMES))

# Specialist abilities 1..27 in points (index = ability); see rulebook Appendix III.
SPEC_VALUE = (0.0, 0.5, 1.5, 1.5, 0.8, 1.5, 1.0, 1.5, 1.0, 0.5, 1.0, 1.0, 1.0, 1.0, 2.0,
              1.2, 1.0, 0.5, 1.5, 1.0, 0.5, 1.0, 1.0, 2.0, 0.5, 1.5, 1.0, 0.3)
SP_GOLD, SP_PATH, SP_GUARD, SP_FIRE, SP_SPEC, SP_MOVE, SP_SHIP, SP_FATE = range(8)
R_TILE, R_RES, R_PTS, R_PORTAL = 1, 2, 4, 8
NEG = -1.0e9
GOLD, YELLOW = C.GOLD, C.YELLOW
SURPLUS = 7  # tv[SURPLUS]: value of a surplus action tile (see stock_values)
PAYV = 8  # tv[PAYV + k]: value of a held tile of type k up to TILE_CAP (surplus if dead)
SURPLUS_EARLY = 0.3  # ... while the game is far from its end: spare change for pairs
TILE_CAP = (3, 2, 3, 3, 3, 2)  # most tiles one action of each type pays (ship..gnome)
# context slots (per decision); the later ones memoise what several moves of one decision
# share: the discarded tiles' value and covered-cell mask of every fate move (-1 = not yet),
# and, under a key of the last move that computed it (-1 = none), the dead cells of a
# placement (both column ends), a new task's distance (every pile and space) and a
# gnome's value (both ways to pay); CX_DOVER: 1 if option I must discard, 0 if not (-1 =
# not yet known), the same for every fate move
(CX_TURNS, CX_LATE, CX_OPEN, CX_SEAT, CX_PRESS, CX_DLOSS, CX_OCC, CX_DKEY, CX_DEAD,
 CX_EMPTY, CX_TKEY, CX_TDIST, CX_GKEY, CX_GVAL, CX_PKNOWN, CX_DOVER) = range(16)
CX_PORTAL = 16  # 7 slots: a portal's value by shape, known where bit shape of CX_PKNOWN is set
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
CX_NEEDS = CX_IRCOST + 6  # NN scratch slots (a new task's own needs)
NCX = CX_NEEDS + FE.NN


# numba reference-counts every array argument of a compiled call (two calls into its
# runtime per array, not optimised away across our branchy functions): with ten arrays per
# priced move that was most of a decision's time.  So the pricing runs without the runtime
# (``NO_RT``: no allocation possible there, callees inherit it) and the few functions that
# allocate a scratch array say ``WITH_RT`` explicitly.  Numbers are unchanged: the flag only
# drops the reference counting.
NO_RT = {"cache": True, "_nrt": False}
WITH_RT = {"cache": True, "_nrt": True}


# ---- per-decision context ----------------------------------------------------------------
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
def stock_values(s, pb, w, late, nd, tv, rv):
    """Values of one action tile of each type (tv) and one resource (rv)."""
    for k in range(6):
        tv[k] = 0.5 * (1.0 - late) + late * w[W_TILE] * w[W_TV0 + k]
    tv[YELLOW] = 0.5 * (1.0 - late) + late * w[W_YELLOW]
    tv[SURPLUS] = 0.5 * (1.0 - late) + late * SURPLUS_EARLY
    dead = dead_tiles(s, pb)
    for k in range(6):
        tv[PAYV + k] = tv[SURPLUS] if (dead >> k) & 1 else tv[k]
    held = 0
    for r in range(6):
        held += s[pb + L.P_RES + r]
    scarce = 0.4 if held < 4 else 0.0  # tasks cost 2 resources: keep a few
    for r in range(5):
        rv[r] = 0.5 * (1.0 - late) + late * (w[W_RES] + scarce) + nd[FE.N_RES + r]
    rv[GOLD] = 0.5 * (1.0 - late) + late * w[W_GOLD] + nd[FE.N_RES + GOLD]


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


@njit(cache=True)
def unit_tile(k, c, tv):
    """Value of the c-th held tile of type k (c >= 1): surplus when its type is dead or c
    exceeds what one action of the type pays; yellow keeps its joker value."""
    if k == YELLOW:
        return tv[YELLOW]
    if c > TILE_CAP[k]:
        return tv[SURPLUS]
    return tv[PAYV + k]


@njit(cache=True)
def tiles_loss(s, pb, code, tv):
    """Value of the tiles a packed removal takes (each type from its top count down)."""
    loss = 0.0
    for k in range(7):
        h = s[pb + L.P_TILES + k]
        for j in range(code_count(code, k)):
            loss += unit_tile(k, h - j, tv)
    return loss


@njit(**NO_RT)
def _cheapest_units(s, pb, t, m, tv):
    """Value of the m cheapest non-yellow tiles of types other than t (>= 1e9 if short)."""
    # counted down on the state itself (type t hidden) and restored: no scratch array
    b = pb + L.P_TILES
    h0, h1, h2, h3, h4, h5 = s[b], s[b + 1], s[b + 2], s[b + 3], s[b + 4], s[b + 5]
    s[b + t] = 0
    loss = _sum_cheapest(s[b:b + 6], m, tv)
    s[b], s[b + 1], s[b + 2], s[b + 3], s[b + 4], s[b + 5] = h0, h1, h2, h3, h4, h5
    return loss


@njit(**NO_RT)
def _sum_cheapest(cnt, m, tv):
    """Value of m tiles taken one by one, each the cheapest unit of the stock ``cnt``
    (tile types in order; consumed); >= 1e9 if the stock is short."""
    loss = 0.0
    for _ in range(m):
        best = -1
        bv = 0.0
        for k in range(cnt.shape[0]):
            if cnt[k] > 0:
                v = unit_tile(k, cnt[k], tv)
                if best < 0 or v < bv:
                    best, bv = k, v
        if best < 0:
            return 1.0e9
        cnt[best] -= 1
        loss += bv
    return loss


@njit(cache=True)
def tile_cost(s, pb, t, n, tv):
    """Value lost by the cheapest way to pay n tiles of type t (own, yellow, pairs)."""
    have = s[pb + L.P_TILES + t]
    yel = s[pb + L.P_TILES + YELLOW]
    per = 2 if has_spec(s, pb, 5) else 1
    lacking = max(0, n - have)
    best = 1.0e9
    for u in range(min(have, n), -1, -1):
        own = 0.0
        for j in range(u):
            own += unit_tile(t, have - j, tv)
        rest = n - u
        for y in range(min(yel, (rest + per - 1) // per) + 1):
            q = max(0, rest - per * y)
            if q > lacking:
                continue
            c = own + y * tv[YELLOW]
            if q > 0:
                c += _cheapest_units(s, pb, t, 2 * q, tv)
            best = min(best, c)
    return best


@njit(**NO_RT)
def _res_cost_any(s, pb, n, rv):
    """``res_cost`` of n resources of the payer's choice."""
    cnt = stack_ints(6)
    for k in range(6):
        cnt[k] = s[pb + L.P_RES + k]
    c = 0.0
    for _ in range(n):
        best = -1
        for k in range(6):
            if cnt[k] > 0 and (best < 0 or rv[k] < rv[best]):
                best = k
        if best < 0:
            return c + 1.0e9
        cnt[best] -= 1
        c += rv[best]
    return c


@njit(cache=True)
def res_cost(s, pb, r, n, rv):
    """Value lost by the cheapest way to pay n of resource r (r < 0: any resources):
    own, gold, or (for what the payer lacks) pairs of the cheapest other plain ones."""
    if r < 0:
        return _res_cost_any(s, pb, n, rv)
    have = s[pb + L.P_RES + r]
    gold = s[pb + L.P_RES + GOLD] if r != GOLD else 0
    pair = 0.0  # the two cheapest other plain resources (one pair is all one unit needs)
    a = -1
    b = -1
    for k in range(5):
        if k == r:
            continue
        for _ in range(min(2, s[pb + L.P_RES + k])):
            if a < 0 or rv[k] < rv[a]:
                a, b = k, a
            elif b < 0 or rv[k] < rv[b]:
                b = k
    pair = rv[a] + rv[b] if b >= 0 else 1.0e9
    best = 1.0e9
    for o in range(min(have, n), -1, -1):
        for g in range(min(gold, n - o) + 1):
            q = n - o - g
            if q > max(0, n - have):
                continue
            best = min(best, o * rv[r] + g * rv[GOLD] + q * pair)
    return best


@njit(cache=True, inline="always")
def tile_cost_memo(s, pb, t, n, tv, cx):
    """``tile_cost`` of the decision's own stock, computed once per (t, n) and decision
    (never on a stock changed for pricing: the ship payment in ``island_value``)."""
    if n < 0 or n >= MEMO_N:
        return tile_cost(s, pb, t, n, tv)
    j = CX_TCOST + t * MEMO_N + n
    v = cx[j]
    if v != v:
        v = tile_cost(s, pb, t, n, tv)
        cx[j] = v
    return v


@njit(cache=True, inline="always")
def res_cost_memo(s, pb, r, n, rv, cx):
    """``res_cost``, computed once per (r, n) and decision (resources are never changed
    for pricing)."""
    if n < 0 or n >= 4:
        return res_cost(s, pb, r, n, rv)
    j = CX_RCOST + (r + 1) * 4 + n
    v = cx[j]
    if v != v:
        v = res_cost(s, pb, r, n, rv)
        cx[j] = v
    return v


@njit(cache=True, inline="always")
def task_distance_at(s, p, seat, i, j, cx):
    """``features.task_distance`` of the task in slot j of island i when taking it there,
    computed once per decision; a task that counts held action tiles (which the pricing of
    a ship payment changes) is computed afresh every time."""
    t = s[L.ISLAND_TASKS + i * 3 + j]
    if p[T.T_KIND + t] == TK.K_TILES_IN_SUPPLY:
        return FE.task_distance(s, p, seat, t, i, True)
    k = CX_TDIST_AT + i * 3 + j
    d = cx[k]
    if d != d:
        if (p[T.T_KIND + t] == TK.K_FATE_GROUPS and cx[CX_FOK] > 0.0
                and p[T.T_C + t] >= 0):
            # from the decision's own labelling: no flood fills of its own
            d = FE.fate_groups_distance(s, p, TK.pbase(seat), t, cx[CX_FTOP:CX_FTOP + 14])
        else:
            d = FE.task_distance(s, p, seat, t, i, True)
        cx[k] = d
    return d


# ---- component values ------------------------------------------------------------------
@njit(cache=True)
def best_free_space(s, pb):
    """Highest empty bonfire space (-1 if none)."""
    for k in range(6, -1, -1):
        if s[pb + L.P_TASK + k] < 0:
            return k
    return -1


@njit(cache=True)
def take_value(s, p, pb, seat, t, isl, space, w, cx, nd):
    """Value of receiving task t from island isl onto bonfire space (costs excluded).

    At ``max_open`` held tasks a new one is still worth taking when it is done at once or
    advances a held task (a task of a colour, an offering on an island, that one needs):
    otherwise tasks that only progress by taking tasks would block themselves.
    """
    return take_value_at(s, p, pb, seat, t, isl, space, w, cx, nd,
                         FE.task_distance(s, p, seat, t, isl, True))


@njit(cache=True, inline="always")
def take_value_at(s, p, pb, seat, t, isl, space, w, cx, nd, d):
    """``take_value`` with the task's distance ``d`` (``features.task_distance``) given."""
    tl = cx[CX_TURNS]
    if d >= FE.FAR or d > tl - 1.0:
        return -20.0
    col = p[T.T_COLOUR + t]
    if (cx[CX_OPEN] >= w[W_MAX_OPEN] and d > 0.0
            and nd[FE.N_TASKCOL + col] + nd[FE.N_OFFER + isl] <= 0.0):
        return -20.0
    pts = (p[T.T_POINTS + t] + FE.IGNITE_EXTRA) * w[W_TASK_COL0 + col]
    frac = 1.0 - d / max(tl, 1.0)
    v = w[W_TASK_PTS] * pts * frac - w[W_TASK_DIST] * d
    v += w[W_NOVICE] * cx[CX_PRESS] * frac
    v += task_promise(w, cx, frac)
    v += w[W_TASK_SPACE] * space / 6.0
    if 1 <= space <= s[pb + L.P_NPATH]:
        if p[T.PATH_CRYSTAL + s[pb + L.P_PATH + space]] == col:
            v += w[W_CRYSTAL]
    v += nd[FE.N_TASKCOL + col] + nd[FE.N_OFFER + isl]
    if w[W_SYNERGY] != 0.0:
        v += w[W_SYNERGY] * synergy_memo(s, p, seat, t, nd, cx)
    return v


@njit(cache=True, inline="always")
def synergy_memo(s, p, seat, t, nd, cx):
    """``_synergy`` of task t, computed once per decision (afresh for a task whose needs
    count held action tiles, which the pricing of a payment changes)."""
    if p[T.T_KIND + t] == TK.K_TILES_IN_SUPPLY:
        return _synergy(s, p, seat, t, nd, cx[CX_NEEDS:CX_NEEDS + FE.NN])
    v = cx[CX_SYN + t]
    if v != v:
        v = _synergy(s, p, seat, t, nd, cx[CX_NEEDS:CX_NEEDS + FE.NN])
        cx[CX_SYN + t] = v
    return v


@njit(cache=True, inline="always")
def task_promise(w, cx, frac):
    """What a new task is worth beyond its printed points: the ignite it leads to (the
    council bonus, the novice towards the countdown; ``task_ignite`` x the chance to finish
    it) and, for a seat holding no unlit task, having work in hand at all (``task_idle``):
    without these a seat that has lit its tasks spent turns turning the Great Bonfire."""
    v = w[W_TASK_IGNITE] * frac
    if cx[CX_OPEN] == 0:
        v += w[W_TASK_IDLE]
    return v


@njit(cache=True)
def _synergy(s, p, seat, t, nd, tmp):
    """Overlap of task t's needs with the current needs nd (``tmp``: NN scratch floats)."""
    tmp[:] = 0.0
    FE.add_task_needs(s, p, seat, t, 1.0, tmp)
    dot = 0.0
    for j in range(FE.NN):
        x = tmp[j]
        # a zero term (finite need) leaves the sum as it is: the sum starts at +0.0 and
        # so is never -0.0; skipping it keeps the result bit for bit
        if x != 0.0 or nd[j] - nd[j] != 0.0:
            dot += x * nd[j]
    return dot


@njit(cache=True)
def island_value(s, p, pb, seat, i, ship_paid, w, cx, nd, tv, rv):
    """Best action at island i after paying ship_paid ship tiles (costs included).

    The island action is priced on the stock the engine's own ship payment leaves (pairs
    spare task and guardian tiles), so a trip is never valued for an action that the
    payment then makes dearer or unaffordable.
    """
    if ship_paid <= 0:
        return _island_action(s, p, pb, seat, i, w, cx, nd, tv, rv)
    # Pay on the state itself and restore it afterwards: copying the whole state for
    # every ship move cost more than the rest of the evaluation.
    base = pb + L.P_TILES
    t0, t1, t2, t3, t4, t5, t6 = (s[base], s[base + 1], s[base + 2], s[base + 3],
                                  s[base + 4], s[base + 5], s[base + 6])
    noted = s[pb + L.P_ABIL + 5]
    v = NEG
    if pay_tiles_sparing(s, pb, 0, ship_paid, 2, 4):
        v = _island_action(s, p, pb, seat, i, w, cx, nd, tv, rv)
    s[base], s[base + 1], s[base + 2], s[base + 3] = t0, t1, t2, t3
    s[base + 4], s[base + 5], s[base + 6] = t4, t5, t6
    s[pb + L.P_ABIL + 5] = noted
    return v


@njit(cache=True)
def _island_action(s, p, pb, seat, i, w, cx, nd, tv, rv):
    """``island_value`` on the stock as it is (the ship payment already made)."""
    if p[T.ISL_KIND + i] == 1:
        g = p[T.ISL_VAL + i]
        if not can_take_guardian(s, pb, g) or not can_pay_tiles(s, pb, 4, 1):
            return NEG
        return guard_value(s, pb, g, w, cx, nd) - tile_cost(s, pb, 4, 1, tv)
    if TK.n_tasks(s, pb) >= C.MAX_TASKS:
        return NEG
    tc = task_tile_cost(s, p, pb, i)
    if not can_pay_tiles(s, pb, 2, tc):
        return NEG
    rcost = island_res_cost(s, p, pb, i, rv, cx)
    if rcost >= 1.0e9:
        return NEG
    space = best_free_space(s, pb)
    best = NEG
    for j in range(3):
        t = s[L.ISLAND_TASKS + i * 3 + j]
        if t >= 0:
            best = max(best, take_value_at(s, p, pb, seat, t, i, space, w, cx, nd,
                                           task_distance_at(s, p, seat, i, j, cx)))
    return best - rcost - tile_cost(s, pb, 2, tc, tv)


@njit(cache=True, inline="always")
def island_res_cost(s, p, pb, i, rv, cx):
    """Value of the cheapest resources a task at task island i costs, over both offering
    piles (>= 1e9: none payable); computed once per island resource and decision (it
    depends on nothing else: resources are never changed for pricing)."""
    r = p[T.ISL_VAL + i]
    if 0 <= r < 6:
        v = cx[CX_IRCOST + r]
        if v == v:
            return v
    rcost = 1.0e9
    for pile in range(2):
        r1 = offering_resource(s, pb, pile)
        if r1 < 0:
            continue
        r2 = r
        if has_spec(s, pb, 3):
            r1 = -1
            r2 = -1
        if can_pay_resources(s, pb, r1, 1, r2, 1):
            rcost = min(rcost, res_cost_memo(s, pb, r1, 1, rv, cx)
                        + res_cost_memo(s, pb, r2, 1, rv, cx))
    if 0 <= r < 6:
        cx[CX_IRCOST + r] = rcost
    return rcost


@njit(cache=True, inline="always")
def guard_value(s, pb, g, w, cx, nd):
    """Value of a new guardian of colour g."""
    return w[W_GUARD] * cx[CX_LATE] + nd[FE.N_GUARD + g] + nd[FE.N_GUARDS]


@njit(cache=True, inline="always")
def path_value(s, p, pb, tid, w, cx, nd, rv):
    """Value of path tile tid (-1: unknown deck tile) as the next path position."""
    late = cx[CX_LATE]
    v = w[W_PATH] * late + nd[FE.N_PATHS]
    if tid < 0:
        return v + 0.3
    pos = s[pb + L.P_NPATH] + 1
    res = p[T.PATH_RES + tid]
    cry = p[T.PATH_CRYSTAL + tid]
    v += nd[FE.N_PATHRES + res] + nd[FE.N_CRYSTAL + cry] + 0.3 * rv[res] * late
    t = s[pb + L.P_TASK + pos] if pos < 7 else -1
    if t >= 0 and p[T.T_COLOUR + t] == cry:
        v += w[W_CRYSTAL]
    return v


@njit(cache=True)
def guard_pos_value(s, p, pb, g, dest, choice, w, cx, nd, rv):
    """Value of guardian g standing on dest (path 0..6 with its resource gained, bonfire)."""
    if dest >= L.GP_BONFIRE:
        k = dest - L.GP_BONFIRE
        extra = 2 if has_spec(s, pb, 18) else 0
        return w[W_GUARD_BONFIRE] * (p[T.GUARD_PTS + k] + extra) + nd[FE.N_ONBONFIRE]
    if dest < 0:
        return 0.0
    return w[W_ADVANCE] * (dest + 1) * cx[CX_LATE]


@njit(cache=True)
def step_value(s, p, pb, g, dest, choice, gain, w, cx, nd, rv):
    """Value of moving guardian g from where she stands to dest (gaining the path resource)."""
    cur = s[pb + L.P_GUARD + g]
    v = (guard_pos_value(s, p, pb, g, dest, choice, w, cx, nd, rv)
         - guard_pos_value(s, p, pb, g, cur, -1, w, cx, nd, rv))
    if gain and 0 <= dest < L.GP_BONFIRE:
        r = choice if choice >= 0 else TK.path_resource(s, p, pb, dest)
        amount = 2 if g >= 1 and has_spec(s, pb, 9 + g) else 1
        v += w[W_PROC_RES] * rv[r] * amount
    return v


@njit(cache=True)
def procession_value(s, p, pb, steps, w, cx, nd, rv):
    """Rough value of a procession of ``steps``: each guardian's best reachable place."""
    total = 0.0
    npath = s[pb + L.P_NPATH]
    for g in range(5):
        pos = s[pb + L.P_GUARD + g]
        if pos == L.GP_NONE or pos >= L.GP_BONFIRE:
            continue
        best = 0.0
        for q in range(pos + 1, min(pos + steps, npath) + 1):
            if path_open(s, pb, q, g):
                best = max(best, step_value(s, p, pb, g, q, -1, True, w, cx, nd, rv))
        for j in range(max(pos, 0), npath + 1):
            if j - pos + 1 <= steps and bonfire_open(s, pb, j, g):
                best = max(best, step_value(s, p, pb, g, L.GP_BONFIRE + j, -1, False,
                                            w, cx, nd, rv))
        total += best
    return total


@njit(cache=True)
def portal_value(s, p, pb, shape, w, cx, nd):
    """Value of taking a portal of shape into its notch."""
    k = notch_for(s, p, pb, shape)
    if k < 0:
        k = next_notch(s, pb)
    v = w[W_PORTAL] * cx[CX_LATE] + nd[FE.N_PORTALS]
    if k >= 0 and s[pb + L.P_TASK + k] >= 0:
        v += 0.5 * p[T.PORTAL_PTS]
        if s[pb + L.P_LIT + k] == 1:
            v += 0.5 * p[T.PORTAL_PTS]
    return v


@njit(**NO_RT, inline="always")
def fire_value(s, p, pb, g, rset, shape, w, cx, nd, tv, rv):
    """Value of the Great Bonfire's reward set rset at space g (costs excluded)."""
    m = L.REWARD_SETS[rset]
    v = 0.0
    if m & R_TILE:
        v += tv[p[T.GB_TILE + g]]
    if m & R_RES:
        v += rv[p[T.GB_RES + g]]
    if m & R_PTS:
        uses = s[pb + L.P_PTS_FIRE] / max(1, p[T.FIRE_PTS])
        fade = max(0.0, 1.0 - uses / max(w[W_FIRE_CAP], 0.5))
        v += w[W_FIRE_POINTS] * p[T.FIRE_PTS] * fade * (1.0 - 0.5 * cx[CX_PRESS])
    if m & R_PORTAL:
        known = np.int64(cx[CX_PKNOWN])
        if not (known >> shape) & 1:
            cx[CX_PORTAL + shape] = portal_value(s, p, pb, shape, w, cx, nd)
            cx[CX_PKNOWN] = known | (1 << shape)
        v += cx[CX_PORTAL + shape]
    return v


@njit(cache=True, inline="always")
def ignite_hold_penalty(s, w, cx):
    """``ignite_hold`` before the countdown, fading with the stall pressure: a fulfilled
    task keeps its points until the countdown, while every novice placed before it brings
    the end nearer (the council trigger is shared by all seats), so holding lit-able tasks
    and igniting them in the countdown turns can light more of them.  0 in solo games."""
    if s[L.G_CD_ACTIVE] == 1 or s[L.G_SOLO] == 1:
        return 0.0
    return w[W_IGNITE_HOLD] * (1.0 - cx[CX_PRESS])


@njit(cache=True, inline="always")
def fire_plain_penalty(rset, w):
    """``fire_plain`` for a paid Great Bonfire turn whose reward set ``rset`` takes no
    portal: such turns only convert stock (a tile and a resource for tiles) and, repeated,
    delay the countdown without progress."""
    return 0.0 if L.REWARD_SETS[rset] & R_PORTAL else w[W_FIRE_PLAIN]


@njit(cache=True, inline="always")
def gnome_value(s, p, pb, gid, w, cx, nd):
    """Value of recruiting gnome gid (costs excluded)."""
    v = nd[FE.N_GNOMES]
    if gid < C.N_SPECIALISTS:
        v += w[W_SPEC] * SPEC_VALUE[gid + 1] * cx[CX_LATE]
        v += nd[FE.N_GNOMERES + p[T.SPEC_RES + gid]]
    else:
        e = gid - C.N_SPECIALISTS
        pts = elder_points(s, pb, e) + (1 if e == 5 else 0) + (2 if has_spec(s, pb, 4) else 0)
        v += w[W_ELDER] * pts - w[W_ELDER_WAIT] * cx[CX_LATE]
        v += nd[FE.N_ELDERS] + nd[FE.N_GNOMERES + p[T.ELDER_RES + e]]
    return v


@njit(**NO_RT)
def discard_loss(s, pb, m, tv):
    """Value of the m tiles option I discards: the player's cheapest choice."""
    # counted down on the state itself and restored: no copy
    b = pb + L.P_TILES
    h0, h1, h2, h3, h4, h5 = s[b], s[b + 1], s[b + 2], s[b + 3], s[b + 4], s[b + 5]
    h6 = s[b + 6]
    loss = _sum_cheapest(s[b:b + 7], m, tv)
    s[b], s[b + 1], s[b + 2], s[b + 3], s[b + 4], s[b + 5] = h0, h1, h2, h3, h4, h5
    s[b + 6] = h6
    return loss


@njit(cache=True)
def payment_value(s, p, pb, seat, kind, code, b, w, cx, nd, tv, rv):
    """Value of an M_PAY / M_DISCARD row: minus what it takes, plus (after sailing) the
    best island action the stock it leaves still pays for."""
    if kind == L.M_DISCARD:
        removed = 0
        for k in range(7):
            removed |= (s[pb + L.P_TILES + k] - code_count(code, k)) << (5 * k)
        return -tiles_loss(s, pb, removed, tv)
    if b != PAY_TILES:
        v = 0.0
        for k in range(6):
            v -= code_count(code, k) * rv[k]
        return v
    v = -tiles_loss(s, pb, code, tv)
    if s[L.G_PAY_MOVE] == L.M_SHIP:
        # priced on the state itself with the payment taken, then restored (no copy)
        for k in range(7):
            s[pb + L.P_TILES + k] -= code_count(code, k)
        isl = s[L.G_PAY_MOVE + 1]
        follow = island_value(s, p, pb, seat, isl, 0, w, cx, nd, tv, rv)
        for k in range(7):
            s[pb + L.P_TILES + k] += code_count(code, k)
        v += w[W_SHIP_FOLLOW] * max(0.0, follow)
    return v


@njit(cache=True)
def dead_cells(s, p, pb, r, c, o, occ=-1):
    """Empty area cells that no 1x3 tile could cover after placing a tile at (r, c, o).

    ``occ``: the covered-cell mask of the area before placing (-1: read it from s).
    """
    if occ < 0:
        occ = FM.occupied(s, p, pb)
    cols = p[T.FATE_COLS]
    for i in range(3):
        rr, cc = F.tile_cell(r, c, o, i)
        if F.in_area(p, rr, cc):
            occ |= 1 << (rr * cols + cc)
    cover = 0
    for k in range(FM.n_lines(p)):
        line = FM.line_mask(p, k)
        if (line & occ) == 0:
            cover |= line
    free = ~occ & FM.full(p)
    return FM.popcount(free & ~cover), FM.popcount(free)


@njit(**NO_RT)
def free_lines(p, occ, fl):
    """Store in fl[1:] the straight triples of the area that no covered cell blocks
    (``occ``: the covered-cell mask), their number in fl[0]."""
    rows, cols = p[T.FATE_ROWS], p[T.FATE_COLS]
    m = 0
    for r in range(rows):
        for c in range(cols - 2):
            line = 7 << (r * cols + c)
            if (line & occ) == 0:
                m += 1
                fl[m] = line
    col = 1 | (1 << cols) | (1 << (2 * cols))
    for c in range(cols):
        for r in range(rows - 2):
            line = col << (r * cols + c)
            if (line & occ) == 0:
                m += 1
                fl[m] = line
    fl[0] = m


@njit(cache=True)
def dead_cells_free(p, occ, pm, fl):
    """``dead_cells`` of a placement covering the area cells ``pm``, from the free lines
    ``fl`` of the area before it (``free_lines``): a line stays free unless pm blocks it."""
    occ |= pm
    cover = 0
    for k in range(1, fl[0] + 1):
        line = fl[k]
        if (line & pm) == 0:
            cover |= line
    free = ~occ & FM.full(p)
    return FM.popcount(free & ~cover), FM.popcount(free)


@njit(cache=True)
def fate_value(s, p, pb, end, r, c, o, discard, w, cx, nd, tv, rv, lab, size, fl):
    """Value of option I / the council's fate bonus: gains from the area sizes, no apply.

    ``lab``/``size``: the area labelling (``features.fate_labels``); ``fl``: the free lines
    of the area (``free_lines``), both made once per decision.
    """
    lo = s[pb + L.P_FATE_LO]
    tile = s[pb + L.P_FATE_SUP + lo] if end == 0 else s[pb + L.P_FATE_SUP + s[pb + L.P_FATE_HI] - 1]
    mult = 2 if has_spec(s, pb, 16) else 1
    cols = p[T.FATE_COLS]
    pm = 0  # the area cells the tile covers
    v = -w[W_FATE_COST]
    for i in range(3):
        rr, cc = F.tile_cell(r, c, o, i)
        sym = p[T.FATE_TILE + tile * 3 + i]
        a = FE.placed_area(s, pb, lab, size, rr, cc, sym)
        v += a * tv[sym] + nd[FE.N_FATESYM + sym] * min(a - 1, 3) / 3.0
        if s[pb + L.P_TILES + sym] == 0:
            v += nd[FE.N_TILE + sym]  # Y15-Y17: a type the supply lacks
        if F.in_area(p, rr, cc):
            pm |= 1 << (rr * cols + cc)
            cell = F.grid_index(rr, cc)
            obj = p[T.FATE_PRINT + cell]
            if obj == 1:
                v += mult * rv[GOLD]
            elif obj == 2:
                v += mult * tv[YELLOW]
            for j in range(3):
                if p[T.FATE_SET + j * F.NCELL + cell] == 1:
                    v += nd[FE.N_FATECELL + j] / 3.0
    if w[W_FATE_GEO] > 0.0:
        # keep room for the tiles still in the column (each placement is ~4-5 tiles)
        key = (r + 2) * 1000 + (c + 2) * 10 + o
        if cx[CX_DKEY] != key:
            dd, ee = dead_cells_free(p, np.int64(cx[CX_OCC]), pm, fl)
            cx[CX_DEAD] = dd
            cx[CX_EMPTY] = ee
            cx[CX_DKEY] = key
        dead = np.int64(cx[CX_DEAD])
        empty = np.int64(cx[CX_EMPTY])
        left = s[pb + L.P_FATE_HI] - s[pb + L.P_FATE_LO] - 1
        slack = empty - 3 * left
        if dead > slack:
            v -= w[W_FATE_GEO] * (dead - slack)
    if discard:
        over = cx[CX_DOVER]  # the same for every placement: known after the first
        if over < 0.0:
            held = 0
            for k in range(7):
                held += s[pb + L.P_TILES + k]
            limit = 3 if has_spec(s, pb, 14) else p[T.TILE_LIMIT]
            over = 1.0 if held > limit else 0.0
            if held > limit:
                cx[CX_DLOSS] = discard_loss(s, pb, held - limit, tv)
            cx[CX_DOVER] = over
        if over > 0.0:
            v -= w[W_DISCARD] * cx[CX_DLOSS]
        else:
            v += w[W_FATE_LOW]
    return v


@njit(**NO_RT)
def _council_fire_value(s, p, pb, w, cx, nd, tv, rv):
    """Best Great Bonfire space and reward set of the council's fire bonus."""
    best = NEG
    rows = stack_moves(64)  # the engine's own reward enumeration
    for g in range(7):
        k = gen_rewards(s, p, pb, g, 0, L.M_FIRE, rows, 0)
        for j in range(k):
            best = max(best, fire_value(s, p, pb, g, rows[j, 2], rows[j, 3], w, cx, nd,
                                        tv, rv))
    return best


@njit(cache=True)
def council_value(s, p, pb, seat, space, w, cx, nd, tv, rv):
    """Best value of taking the bonus of council space ``space``."""
    best = NEG
    if space == SP_GOLD:
        return 2 * rv[GOLD] + tv[YELLOW]
    if space == SP_PATH:
        for j in range(C.PATH_DISPLAY):
            t = s[L.PATH_DISP + j]
            if t >= 0:
                best = max(best, path_value(s, p, pb, t, w, cx, nd, rv))
        return max(best, path_value(s, p, pb, -1, w, cx, nd, rv) + 0.5)
    if space == SP_GUARD:
        for g in range(1, 5):
            if can_take_guardian(s, pb, g):
                best = max(best, guard_value(s, pb, g, w, cx, nd))
        return best
    if space == SP_FIRE:
        return _council_fire_value(s, p, pb, w, cx, nd, tv, rv)
    if space == SP_SPEC:
        for j in range(C.SPECIALIST_DISPLAY):
            gid = s[L.SPEC_DISP + j]
            if gid >= 0:
                best = max(best, gnome_value(s, p, pb, gid, w, cx, nd))
        return best
    if space == SP_MOVE:
        npath = s[pb + L.P_NPATH]
        for g in range(5):
            if s[pb + L.P_GUARD + g] == L.GP_NONE:
                continue
            for q in range(npath + 1):
                if q != s[pb + L.P_GUARD + g] and path_open(s, pb, q, g):
                    best = max(best, step_value(s, p, pb, g, q, -1, True, w, cx, nd, rv))
            for j in range(npath + 1):
                if bonfire_open(s, pb, j, g):
                    best = max(best, step_value(s, p, pb, g, L.GP_BONFIRE + j, -1, False,
                                                w, cx, nd, rv))
        return best
    if space == SP_SHIP:
        for i in range(C.N_ISLANDS):
            best = max(best, island_value(s, p, pb, seat, i, 0, w, cx, nd, tv, rv))
        return max(best, 0.0)
    # SP_FATE: about 5 tiles for a fate tile, no discard
    return 5.0 * tv[0] - w[W_FATE_COST]


# ---- one move ------------------------------------------------------------------------------
@njit(cache=True)
def move_value(s, p, mv, w, cx, nd, tv, rv, lab, size, fl):
    """Value of move row mv for the seat to move (in points)."""
    return value_of(s, p, mv[0], mv[1], mv[2], mv[3], mv[4], w, cx, nd, tv, rv, lab, size, fl)


# Inlined into its callers (numba IR inlining): a compiled call passes every array as
# seven machine words, so calling it once per priced move with its eight arrays cost more
# than many moves' pricing itself.  Inlining changes no arithmetic.
@njit(inline="always", **NO_RT)
def value_of(s, p, kind, a, b, c, d, w, cx, nd, tv, rv, lab, size, fl):
    """``move_value`` of the move [kind, a, b, c, d] (no row view per move)."""
    seat = s[L.G_CUR]
    pb = TK.pbase(seat)
    ph = s[L.G_PHASE]
    if kind == L.M_FATE:
        return fate_value(s, p, pb, a, b, c, d, ph == L.PH_MAIN, w, cx, nd, tv, rv, lab, size,
                          fl)
    if kind == L.M_IGNITE:
        t = s[pb + L.P_TASK + a]
        v = w[W_IGNITE] + w[W_NOVICE] * cx[CX_PRESS] + p[T.T_POINTS + t] + nd[FE.N_BONFIRES]
        v -= ignite_hold_penalty(s, w, cx)
        if s[pb + L.P_PORTAL + a] == 1:
            v += p[T.PORTAL_PTS]
        if 1 <= a <= s[pb + L.P_NPATH]:
            if p[T.PATH_CRYSTAL + s[pb + L.P_PATH + a]] == p[T.T_COLOUR + t]:
                v += p[T.PATH_PTS]
        return v
    if kind == L.M_BONUS:
        return w[W_BONUS] + w[W_NOVICE] * cx[CX_PRESS]
    if kind == L.M_SHIP:
        return (w[W_SHIP_FOLLOW] * island_value(s, p, pb, seat, a, b, w, cx, nd, tv, rv)
                - tile_cost_memo(s, pb, 0, b, tv, cx))
    if kind == L.M_SHIP_TO:
        return island_value(s, p, pb, seat, a, 0, w, cx, nd, tv, rv)
    if kind == L.M_TASK:
        isl = s[pb + L.P_SHIP]
        t = s[L.ISLAND_TASKS + isl * 3 + a]
        v = take_value_at(s, p, pb, seat, t, isl, c, w, cx, nd,
                          task_distance_at(s, p, seat, isl, a, cx))
        r1 = offering_resource(s, pb, b)
        r2 = p[T.ISL_VAL + isl]
        if has_spec(s, pb, 3):
            r1 = -1
            r2 = -1
        v -= res_cost_memo(s, pb, r1, 1, rv, cx) + res_cost_memo(s, pb, r2, 1, rv, cx)
        return v - tile_cost_memo(s, pb, 2, task_tile_cost(s, p, pb, isl), tv, cx)
    if kind == L.M_PATH:
        tid = s[L.PATH_DISP + a] if a < 4 else -1
        cost = p[T.PATH_COST + s[pb + L.P_NPATH]]
        return path_value(s, p, pb, tid, w, cx, nd, rv) - tile_cost_memo(s, pb, 1, cost, tv, cx)
    if kind == L.M_TAKE_PATH:
        tid = s[L.PATH_DISP + a] if a < 10 else a - 10
        return path_value(s, p, pb, tid, w, cx, nd, rv)
    if kind == L.M_PATH_REFRESH:
        return w[W_REFRESH]
    if kind == L.M_GUARD or kind == L.M_TAKE_GUARD:
        v = guard_value(s, pb, a, w, cx, nd)
        return v - tile_cost_memo(s, pb, 4, 1, tv, cx) if kind == L.M_GUARD else v
    if kind == L.M_PROCESSION:
        steps = a + (1 if has_spec(s, pb, 2) else 0)
        return (procession_value(s, p, pb, steps, w, cx, nd, rv)
                - tile_cost_memo(s, pb, 4, a, tv, cx))
    if kind == L.M_MOVE_GUARD:
        if b == STAY:
            return 0.0
        gain = ph == L.PH_C_MOVE or s[L.G_PROC_NOGAIN] == 0
        return step_value(s, p, pb, a, b, c, gain, w, cx, nd, rv)
    if kind == L.M_FIRE:
        return (fire_value(s, p, pb, a, b, c, w, cx, nd, tv, rv)
                - tile_cost_memo(s, pb, 3, d, tv, cx) - fire_plain_penalty(b, w))
    if kind == L.M_GNOME or kind == L.M_TAKE_SPEC:
        if cx[CX_GKEY] != a:
            cx[CX_GVAL] = gnome_value(s, p, pb, a, w, cx, nd)
            cx[CX_GKEY] = a
        v = cx[CX_GVAL]
        if kind == L.M_TAKE_SPEC:
            return v
        gr = gnome_resource(s, p, pb, a)
        return (v - tile_cost_memo(s, pb, 5, 2 - b, tv, cx)
                - res_cost_memo(s, pb, gr, 1 + b, rv, cx))
    if kind == L.M_COUNCIL:
        if b == 1:
            return w[W_COUNCIL_POINT] * p[T.COUNCIL_PT]
        return council_value(s, p, pb, seat, a, w, cx, nd, tv, rv)
    if kind == L.M_PAY or kind == L.M_DISCARD:
        return payment_value(s, p, pb, seat, kind, a, b, w, cx, nd, tv, rv)
    return 0.0  # M_END, M_SWAP (keep), M_SKIP, M_PASS (decided in choose)


# the scratch arrays of a decision (``choose_in``): floats, and ints (``scratch_ints``)
N_FLOATS = FE.NN + NCX + PAYV + 6 + 6


@njit(cache=True)
def scratch_ints(p):
    """Length of the int scratch array ``choose_in`` needs with parameters p."""
    return 3 * F.NCELL + FM.n_lines(p) + 1


@njit(**WITH_RT)
def choose(s, p, moves, n, w):
    """Index of the best move among moves[:n] for the seat to move, with weight row w."""
    return choose_in(s, p, moves, n, w, np.empty(N_FLOATS),
                     np.empty(scratch_ints(p), np.int64))


@njit(**NO_RT)
def choose_in(s, p, moves, n, w, floats, fate):
    """``choose`` with its scratch arrays given (``N_FLOATS`` floats, ``scratch_ints(p)``
    ints), so a game loop allocates them once instead of every decision."""
    seat = s[L.G_CUR]
    pb = TK.pbase(seat)
    floats[:] = 0.0
    nd = floats[:FE.NN]
    cx = floats[FE.NN:FE.NN + NCX]
    tv = floats[FE.NN + NCX:FE.NN + NCX + PAYV + 6]  # 7 tile types, the surplus value,
    rv = floats[FE.NN + NCX + PAYV + 6:]  # per-type payment values; resources
    cx[CX_DLOSS] = -1.0
    cx[CX_DOVER] = -1.0
    cx[CX_OCC] = -1.0
    cx[CX_DKEY] = -1.0
    cx[CX_TKEY] = -1.0
    cx[CX_GKEY] = -1.0
    cx[CX_PKNOWN] = 0.0
    cx[CX_TCOST:CX_NEEDS] = np.nan
    n_open = FE.seat_needs(s, p, seat, nd, w[W_COMMON])
    for j in range(FE.NN):
        nd[j] *= w[W_NEED]
    tl = turns_left(s, p, seat, w)
    cx[CX_TURNS] = tl
    cx[CX_LATE] = min(1.0, max(0.0, (tl - 1.0) / w[W_HORIZON]))
    cx[CX_OPEN] = n_open
    cx[CX_SEAT] = seat
    cx[CX_PRESS] = stall_pressure(s, p)
    # Under stall pressure stock that no held task needs falls towards its leftover value:
    # converting tiles at the Great Bonfire only delays a stall.
    stock_values(s, pb, w, cx[CX_LATE] * (1.0 - w[W_STOCK_PRESS] * cx[CX_PRESS]), nd, tv, rv)
    # the fate area's labelling and free lines, made at the first fate move
    lab = fate[:F.NCELL]
    size = fate[F.NCELL:2 * F.NCELL]
    stack = fate[2 * F.NCELL:3 * F.NCELL]
    fl = fate[3 * F.NCELL:]
    labelled = False
    best = NEG
    bi = 0
    pass_i = -1
    for i in range(n):
        kind = moves[i, 0]
        if kind == L.M_PASS:
            pass_i = i
            continue
        if kind == L.M_FATE and not labelled:
            if FE.fate_labels_tops(s, pb, lab, size, stack, cx[CX_FTOP:CX_FTOP + 14]) >= 0:
                cx[CX_FOK] = 1.0
            occ = FM.occupied(s, p, pb)
            cx[CX_OCC] = occ
            free_lines(p, occ, fl)
            labelled = True
        v = value_of(s, p, kind, moves[i, 1], moves[i, 2], moves[i, 3], moves[i, 4], w, cx,
                     nd, tv, rv, lab, size, fl)
        if v > best:
            best = v
            bi = i
    if pass_i >= 0:
        pts = pass_points(s, seat)
        if pts >= best + (tl - 1.0) * w[W_FUTURE]:
            return pass_i
    return bi
