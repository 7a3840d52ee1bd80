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

The pricing is split by what it prices: ``weights`` (the row), ``price_context`` (the
per-decision scratch), ``price_stock`` (payments), ``price_tasks`` (tasks, islands),
``price_board`` (guardians, paths, portals, Great Bonfire, gnomes), ``price_fate`` (fate
placements); this module prices the council and payment rows, dispatches a move to its
price (``value_of``) and chooses.
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
from bonfire_sim.rules.gnomes import gnome_resource
from bonfire_sim.rules.great_bonfire import gen_rewards
from bonfire_sim.rules.islands import (
    can_take_guardian,
    offering_resource,
    task_tile_cost,
)
from bonfire_sim.rules.pay_choice import PAY_TILES, code_count
from bonfire_sim.rules.payment import (
    has_spec,
)
from bonfire_sim.rules.procession import STAY, bonfire_open, path_open
from bonfire_sim.rules.stackbuf import stack_moves
from bonfire_sim.rules.turns import pass_points
from bonfire_sim.strategies import features as FE
from bonfire_sim.strategies.price_board import (
    fire_plain_penalty,
    fire_value,
    gnome_value,
    guard_value,
    ignite_hold_penalty,
    path_value,
    procession_value,
    step_value,
)
from bonfire_sim.strategies.price_context import (
    CX_DLOSS,
    CX_DOVER,
    CX_FOK,
    CX_FTOP,
    CX_GKEY,
    CX_GVAL,
    CX_LATE,
    CX_NDFIN,
    CX_NEEDS,
    CX_OCC,
    CX_OPEN,
    CX_PKNOWN,
    CX_PRESS,
    CX_SEAT,
    CX_TCOST,
    CX_TKEY,
    CX_TURNS,
    GOLD,
    NCX,
    NEG,
    NO_RT,
    PAYV,
    WITH_RT,
    YELLOW,
    Prices,
    Scratch,
    stall_pressure,
    stock_values,
    turns_left,
)
from bonfire_sim.strategies.price_fate import GEO_AREA, GEO_LINES, fate_value
from bonfire_sim.strategies.price_stock import (
    joker_for_held,
    res_cost_memo,
    tile_cost_memo,
    tiles_loss,
)
from bonfire_sim.strategies.price_tasks import (
    island_value,
    island_value_inl,
    take_value_at,
    task_distance_at,
)
from bonfire_sim.strategies.weights import (
    W_BONUS,
    W_COMMON,
    W_COUNCIL_POINT,
    W_FATE_COST,
    W_FUTURE,
    W_HORIZON,
    W_IGNITE,
    W_NEED,
    W_NOVICE,
    W_REFRESH,
    W_SHIP_FOLLOW,
    W_STOCK_PRESS,
)

SP_GOLD, SP_PATH, SP_GUARD, SP_FIRE, SP_SPEC, SP_MOVE, SP_SHIP, SP_FATE = range(8)


DOMINATED = 1.0e6  # below every payment that is not dominated (values are a few points)


@njit(cache=True)
def _spends_joker_for_held(s, pb, code):
    """``joker_for_held`` of the open tile demand (``G_PAY_TILE``) paid by ``code``."""
    t, n = s[L.G_PAY_TILE], s[L.G_PAY_TILE + 1]
    if n <= 0 or t < 0 or t >= 6:
        return False
    others = 0
    for k in range(6):
        if k != t:
            others += code_count(code, k)
    per = 2 if has_spec(s, pb, 5) else 1
    return joker_for_held(code_count(code, t), code_count(code, YELLOW), others // 2, n,
                          s[pb + L.P_TILES + t], per)


@njit(cache=True)
def payment_value(s, p, pb, seat, kind, code, b, pr):
    """Value of an M_PAY / M_DISCARD row: minus what it takes, plus (after sailing) the
    best island action the stock it leaves still pays for."""
    w, tv, rv = pr.w, pr.tv, pr.rv
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
    if _spends_joker_for_held(s, pb, code):
        v -= DOMINATED
    if s[L.G_PAY_MOVE] == L.M_SHIP:
        # priced on the state itself with the payment taken, then restored (no copy)
        for k in range(7):
            s[pb + L.P_TILES + k] -= code_count(code, k)
        isl = s[L.G_PAY_MOVE + 1]
        follow = island_value(s, p, pb, seat, isl, 0, pr)
        for k in range(7):
            s[pb + L.P_TILES + k] += code_count(code, k)
        v += w[W_SHIP_FOLLOW] * max(0.0, follow)
    return v


@njit(**NO_RT)
def _council_fire_value(s, p, pb, pr):
    """Best Great Bonfire space and reward set of the council's fire bonus."""
    best = NEG
    rows = stack_moves(64)  # the engine's own reward enumeration
    for g in range(7):
        k = gen_rewards(s, p, pb, g, 0, L.M_FIRE, rows, 0)
        for j in range(k):
            best = max(best, fire_value(s, p, pb, g, rows[j, 2], rows[j, 3], pr))
    return best


@njit(cache=True)
def council_value(s, p, pb, seat, space, pr):
    """Best value of taking the bonus of council space ``space``."""
    w, cx, nd, tv, rv = pr.w, pr.cx, pr.nd, pr.tv, pr.rv
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
        return _council_fire_value(s, p, pb, pr)
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
                    best = max(best, step_value(s, p, pb, g, q, -1, True, pr))
            for j in range(npath + 1):
                if bonfire_open(s, pb, j, g):
                    best = max(best, step_value(s, p, pb, g, L.GP_BONFIRE + j, -1, False, pr))
        return best
    if space == SP_SHIP:
        for i in range(C.N_ISLANDS):
            best = max(best, island_value(s, p, pb, seat, i, 0, pr))
        return max(best, 0.0)
    # SP_FATE: about 5 tiles for a fate tile, no discard
    return 5.0 * tv[0] - w[W_FATE_COST]


# ---- one move ------------------------------------------------------------------------------
# What pricing a move reads besides the state and the parameters is the decision's
# ``Scratch`` (``price_context``), made once per decision by ``choose_in``.


@njit(cache=True)
def move_value(s, p, mv, sc):
    """Value of move row mv for the seat to move (in points), with the decision's
    ``Scratch`` sc."""
    return value_of(s, p, (mv[0], mv[1], mv[2], mv[3], mv[4]), sc)


# Inlined into its callers (numba IR inlining): a compiled call passes every array as
# seven machine words, so calling it once per priced move with its eight arrays cost more
# than many moves' pricing itself.  Inlining changes no arithmetic.  Long: one branch per
# move kind; being inlined, parts split off would be inlined back into it.
@njit(inline="always", **NO_RT)
def value_of(s, p, move, sc):
    """``move_value`` of ``move`` = (kind, a, b, c, d), one row of the move table (no row
    view per move), with the decision's ``Scratch`` sc."""
    kind, a, b, c, d = move
    pr = sc.pr
    w, cx, nd, tv, rv = pr.w, pr.cx, pr.nd, pr.tv, pr.rv
    seat = s[L.G_CUR]
    pb = TK.pbase(seat)
    ph = s[L.G_PHASE]
    if kind == L.M_FATE:
        return fate_value(s, p, pb, a, b, c, d, ph == L.PH_MAIN, sc)
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
    if kind == L.M_SHIP or kind == L.M_SHIP_TO:  # one site of the inlined island value
        paid = b if kind == L.M_SHIP else 0
        v = island_value_inl(s, p, pb, seat, a, paid, pr)
        if kind == L.M_SHIP_TO:
            return v
        return w[W_SHIP_FOLLOW] * v - tile_cost_memo(s, pb, 0, b, tv, cx)
    if kind == L.M_TASK:
        isl = s[pb + L.P_SHIP]
        t = s[L.ISLAND_TASKS + isl * 3 + a]
        v = take_value_at(s, p, pb, seat, t, isl, c, pr, task_distance_at(s, p, seat, isl, a, cx))
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
        return (procession_value(s, p, pb, steps, pr)
                - tile_cost_memo(s, pb, 4, a, tv, cx))
    if kind == L.M_MOVE_GUARD:
        if b == STAY:
            return 0.0
        gain = ph == L.PH_C_MOVE or s[L.G_PROC_NOGAIN] == 0
        return step_value(s, p, pb, a, b, c, gain, pr)
    if kind == L.M_FIRE:
        return (fire_value(s, p, pb, a, b, c, pr)
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
        return council_value(s, p, pb, seat, a, pr)
    if kind == L.M_PAY or kind == L.M_DISCARD:
        return payment_value(s, p, pb, seat, kind, a, b, pr)
    return 0.0  # M_END, M_SWAP (keep), M_SKIP, M_PASS (decided in choose)


# the scratch arrays of a decision (``choose_in``): floats, and ints (``scratch_ints``).
# The floats end with one value per legal move (``values_in``'s output, from V_OFF).
V_OFF = FE.NN + NCX + PAYV + 6 + 6
N_FLOATS = V_OFF + L.MAX_MOVES


# The int scratch starts with one fate-area labelling per seat (``_label``): a seat's
# grid changes only when it places a fate tile, so four in five labellings of a decision
# with fate moves would repeat the seat's last one.  Slot layout: 1 once filled, 1 if its
# tops are usable, the area's shape (rows * 1000 + cols: the kept geometry depends on
# it), the 14 tops (CX_FTOP, as ints: they are -1 or area sizes), the grid it labels, lab
# and size (``features.fate_labels_tops``), then the placement geometry kept with them
# (``price_fate.GEO_AREA``).
LC_VALID, LC_OK, LC_DIMS, LC_TOP = 0, 1, 2, 3
LC_GRID = LC_TOP + 14
LC_LAB = LC_GRID + F.NCELL
LC_SIZE = LC_LAB + F.NCELL
LC_AREA = LC_SIZE + F.NCELL
LC_LINES = LC_AREA + GEO_AREA
LC_N = LC_LINES + GEO_LINES
LC_ALL = L.NP * LC_N  # then the flood fill's stack and the free lines


@njit(cache=True)
def scratch_ints(p):
    """Length of the int scratch array ``choose_in`` needs with parameters p."""
    return LC_ALL + F.NCELL + FM.n_lines(p) + 1


@njit(cache=True)
def clear_labels(ints):
    """Mark every seat's cached labelling empty: the int scratch must start so."""
    for seat in range(L.NP):
        ints[seat * LC_N + LC_VALID] = 0


@njit(cache=True)
def has_fate_move(moves, n):
    """True if moves[:n] holds a fate placement."""
    for i in range(n):
        if moves[i, 0] == L.M_FATE:
            return True
    return False


@njit(cache=True)
def tiles_only(s, moves, n):
    """True if every move is a payment or discard of action tiles that is priced by the
    tile values ``tv`` alone (not a ship's payment, which prices the island action too):
    a fifth of all decisions, which then need no NEED vector (``seat_needs``)."""
    for i in range(n):
        kind = moves[i, 0]
        if kind == L.M_DISCARD:
            continue
        if kind != L.M_PAY or moves[i, 2] != PAY_TILES or s[L.G_PAY_MOVE] == L.M_SHIP:
            return False
    return True


@njit(**NO_RT)
def _label(s, p, pb, slot, stack, cx):
    """Label the fate area into the seat's cache ``slot`` (lab, size), its largest area
    sizes into CX_FTOP (CX_FOK: 1 if usable, -1 if not).  The labelling reads the grid
    only, so while the grid equals the slot's the slot's labelling is the same, entry for
    entry, and is reused, and so is the geometry kept with it (which also reads the
    area's shape); else that is cleared."""
    g = pb + L.P_FATE
    dims = p[T.FATE_ROWS] * 1000 + p[T.FATE_COLS]
    same = slot[LC_VALID] == 1 and slot[LC_DIMS] == dims
    if same:
        for j in range(F.NCELL):
            if slot[LC_GRID + j] != s[g + j]:
                same = False
                break
    if same:
        for j in range(14):
            cx[CX_FTOP + j] = slot[LC_TOP + j]
    else:
        ok = FE.fate_labels_tops(s, pb, slot[LC_LAB:LC_LAB + F.NCELL],
                                 slot[LC_SIZE:LC_SIZE + F.NCELL], stack,
                                 cx[CX_FTOP:CX_FTOP + 14]) >= 0
        for j in range(F.NCELL):
            slot[LC_GRID + j] = s[g + j]
        for j in range(14):
            slot[LC_TOP + j] = np.int64(cx[CX_FTOP + j])
        slot[LC_OK] = 1 if ok else 0
        slot[LC_DIMS] = dims
        slot[LC_VALID] = 1
        for j in range(LC_AREA, LC_LINES):
            slot[j] = 0
        for j in range(LC_LINES, LC_N):
            slot[j] = -1
    cx[CX_FOK] = 1.0 if slot[LC_OK] == 1 else -1.0


@njit(**WITH_RT)
def choose(s, p, moves, n, w):
    """Index of the best move among moves[:n] for the seat to move, with weight row w."""
    ints = np.empty(scratch_ints(p), np.int64)
    clear_labels(ints)
    return choose_in(s, p, moves, n, w, np.empty(N_FLOATS), ints)


@njit(**NO_RT)
def choose_in(s, p, moves, n, w, floats, fate):
    """``choose`` with its scratch arrays given (``N_FLOATS`` floats, ``scratch_ints(p)``
    ints), so a game loop allocates them once instead of every decision: the first of the
    best-valued moves (``values_in``), or passing when its points beat the best move now
    plus ``future_turn`` for each further turn."""
    vals = floats[V_OFF:V_OFF + n]
    tl = values_in(s, p, moves, n, w, floats, fate, vals)
    best = NEG
    bi = 0
    pass_i = -1
    for i in range(n):
        if moves[i, 0] == L.M_PASS:
            pass_i = i
        elif vals[i] > best:
            best = vals[i]
            bi = i
    if pass_i >= 0:
        pts = pass_points(s, s[L.G_CUR])
        if pts >= best + (tl - 1.0) * w[W_FUTURE]:
            return pass_i
    return bi


# Long: a decision's set-up (needs, context, stock values) and one loop over its moves;
# both share a dozen scratch arrays that a split would pass around again.
@njit(**NO_RT)
def values_in(s, p, moves, n, w, floats, fate, vals):
    """Price every move of moves[:n] into ``vals[:n]`` (passing gets ``NEG``: it is
    decided against the best move, see ``choose_in``) with the scratch arrays of
    ``choose_in``; returns the own turns left (``turns_left``)."""
    seat = s[L.G_CUR]
    pb = TK.pbase(seat)
    nd = floats[:FE.NN]
    cx = floats[FE.NN:FE.NN + NCX]
    tv = floats[FE.NN + NCX:FE.NN + NCX + PAYV + 6]  # 7 tile types, the surplus value,
    rv = floats[FE.NN + NCX + PAYV + 6:V_OFF]  # per-type payment values; resources
    # Reset only what is read before it is written (nd: seat_needs, tv/rv: stock_values,
    # the synergy scratch CX_NEEDS: at its first use), in plain loops: clearing the whole
    # scratch with slice assignments took a twentieth of a decision.
    for j in range(CX_TCOST):
        cx[j] = 0.0
    for j in range(CX_TCOST, CX_NEEDS):
        cx[j] = np.nan
    cx[CX_NDFIN] = 0.0
    cx[CX_DLOSS] = -1.0
    cx[CX_DOVER] = -1.0
    cx[CX_OCC] = -1.0
    cx[CX_TKEY] = -1.0
    cx[CX_GKEY] = -1.0
    cx[CX_PKNOWN] = 0.0
    # the fate area's labelling (the seat's cache slot), made at the first fate move (or
    # here, if a held task's distance can use it); the free lines at the first dead-cell
    # count (``price_fate.fate_value``)
    slot = fate[seat * LC_N:(seat + 1) * LC_N]
    lab = slot[LC_LAB:LC_LAB + F.NCELL]
    size = slot[LC_SIZE:LC_SIZE + F.NCELL]
    stack = fate[LC_ALL:LC_ALL + F.NCELL]
    fl = fate[LC_ALL + F.NCELL:]
    labelled = False
    n_open = 0
    # A payment of action tiles is priced by the tile values alone: no NEED vector (its
    # stale entries reach only the resource values rv, which such a decision never reads).
    if not tiles_only(s, moves, n):
        # the labelling serves a held FATE_GROUPS task's distance when the fate moves need
        # it anyway; else the task's own flood fills of one or two symbols cost less
        if FE.wants_tops(s, p, pb) and has_fate_move(moves, n):
            _label(s, p, pb, slot, stack, cx)
            labelled = True
        n_open = FE.seat_needs_top(s, p, seat, nd, w[W_COMMON], cx[CX_FTOP:CX_FTOP + 14],
                                   cx[CX_FOK] > 0.0)
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
    stock_values(s, p, pb, w, cx[CX_LATE] * (1.0 - w[W_STOCK_PRESS] * cx[CX_PRESS]), nd, tv, rv)
    sc = Scratch(Prices(w, cx, nd, tv, rv), lab, size, fl, slot[LC_AREA:LC_LINES],
                 slot[LC_LINES:LC_N])
    for i in range(n):
        kind = moves[i, 0]
        if kind == L.M_PASS:
            vals[i] = NEG
            continue
        if kind == L.M_FATE and not labelled:
            _label(s, p, pb, slot, stack, cx)
            labelled = True
        vals[i] = value_of(s, p, (kind, moves[i, 1], moves[i, 2], moves[i, 3], moves[i, 4]),
                           sc)
    return tl
