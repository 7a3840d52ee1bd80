"""Tasks and islands: what taking a task is worth (its points x the chance to finish it
in the turns left), and the best action at an island a ship could sail to.
"""

from __future__ import annotations

from numba import njit

from bonfire_sim.rules import components as C
from bonfire_sim.rules import layout as L
from bonfire_sim.rules import tables as T
from bonfire_sim.rules import tasks as TK
from bonfire_sim.rules.islands import (
    can_take_guardian,
    offering_resource,
    task_tile_cost,
)
from bonfire_sim.rules.payment import (
    can_pay_resources,
    can_pay_tiles,
    has_spec,
    pay_tiles_sparing,
)
from bonfire_sim.rules.stackbuf import stack_ints
from bonfire_sim.strategies import features as FE
from bonfire_sim.strategies.counters import NCELL
from bonfire_sim.strategies.price_board import guard_value
from bonfire_sim.strategies.price_context import (
    CX_FOK,
    CX_FTOP,
    CX_IRCOST,
    CX_NDFIN,
    CX_NEEDS,
    CX_OPEN,
    CX_PAIDCOST,
    CX_PRESS,
    CX_SYN,
    CX_TDIST_AT,
    CX_TURNS,
    NEG,
    NO_RT,
)
from bonfire_sim.strategies.price_stock import res_cost_memo, tile_cost
from bonfire_sim.strategies.weights import (
    W_CRYSTAL,
    W_MAX_OPEN,
    W_NOVICE,
    W_SET_TAKE,
    W_SYNERGY,
    W_TASK_COL0,
    W_TASK_DIST,
    W_TASK_IDLE,
    W_TASK_IGNITE,
    W_TASK_PTS,
    W_TASK_SPACE,
)


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
        if p[T.T_KIND + t] == TK.K_FATE_GROUPS and p[T.T_C + t] >= 0 and cx[CX_FOK] == 0.0:
            fate_tops(s, TK.pbase(seat), cx)  # no labelling yet in this decision
        if (p[T.T_KIND + t] == TK.K_FATE_GROUPS and cx[CX_FOK] > 0.0
                and p[T.T_C + t] >= 0):
            # from the decision's own labelling: no flood fills of its own
            d = FE.fate_groups_distance(s, p, TK.pbase(seat), t, cx[CX_FTOP:CX_FTOP + 14])
        else:
            d = FE.task_distance(s, p, seat, t, i, True)
        cx[k] = d
    return d


@njit(**NO_RT)
def fate_tops(s, pb, cx):
    """Label the fate area (stack buffers) for the area sizes CX_FTOP; CX_FOK: 1 if they
    can be used, -1 if not (``features.fate_labels_tops``)."""
    lab = stack_ints(NCELL)
    size = stack_ints(NCELL)
    stack = stack_ints(NCELL)
    ok = FE.fate_labels_tops(s, pb, lab, size, stack, cx[CX_FTOP:CX_FTOP + 14]) >= 0
    cx[CX_FOK] = 1.0 if ok else -1.0


@njit(cache=True)
def best_free_space(s, pb):
    """Highest empty bonfire space (-1 if none)."""
    for k in range(6, -1, -1):
        if s[pb + L.P_TASK + k] < 0:
            return k
    return -1


@njit(cache=True, inline="always")
def take_value_at(s, p, pb, seat, t, isl, space, pr, d):
    """Value of receiving task t from island isl onto bonfire space (costs excluded), the
    task's distance ``d`` (``features.task_distance``) given.

    At ``max_open`` held tasks a new one is still worth taking when it is done at once or
    advances a held task (a task of a colour, an offering on an island, that one needs):
    otherwise tasks that only progress by taking tasks would block themselves.
    """
    w, cx, nd = pr.w, pr.cx, pr.nd
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
    if p[T.T_KIND + t] == TK.K_TILES_IN_SUPPLY:
        v += w[W_SET_TAKE]  # a set of tiles held at once: priced far, so rarely taken
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
        return _synergy_of(s, p, seat, t, nd, cx)
    v = cx[CX_SYN + t]
    if v != v:
        v = _synergy_of(s, p, seat, t, nd, cx)
        cx[CX_SYN + t] = v
    return v


@njit(cache=True, inline="always")
def _synergy_of(s, p, seat, t, nd, cx):
    """``_synergy`` with the decision's scratch: over the NEED entries task t's kind can
    touch only (``_synergy_span``), unless a need is not finite (then a zero term counts)."""
    tmp = cx[CX_NEEDS:CX_NEEDS + FE.NN]
    if cx[CX_NDFIN] == 0.0:  # the decision's first synergy: check nd, clear the scratch
        fin = 1.0
        for j in range(FE.NN):
            if nd[j] - nd[j] != 0.0:
                fin = -1.0
            tmp[j] = 0.0
        cx[CX_NDFIN] = fin
    if cx[CX_NDFIN] > 0.0:
        return _synergy_span(s, p, seat, t, nd, tmp)
    v = _synergy(s, p, seat, t, nd, tmp)
    tmp[:] = 0.0  # _synergy_span's precondition
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
def _synergy_span(s, p, seat, t, nd, tmp):
    """``_synergy`` for finite needs nd, with ``tmp`` all zero on entry and left so.

    Sums over the span ``FE.NEED_LO/HI`` of t's kind only: every entry outside it is a
    zero term, which ``_synergy`` skips for a finite need, so the sum is the same bit for
    bit (same terms, same order); zeroing and scanning all NN entries per task cost as
    much as the rest of a ship move's pricing (the tuned rows have synergy != 0)."""
    kind = p[T.T_KIND + t]
    FE.add_task_needs(s, p, seat, t, 1.0, tmp)
    dot = 0.0
    for j in range(FE.NEED_LO[kind], FE.NEED_HI[kind]):
        x = tmp[j]
        if x != 0.0:
            dot += x * nd[j]
            tmp[j] = 0.0
    return dot


@njit(cache=True)
def island_value(s, p, pb, seat, i, ship_paid, pr):
    """Best action at island i after paying ship_paid ship tiles (costs included)."""
    return island_value_inl(s, p, pb, seat, i, ship_paid, pr)


# Inlined into ``evaluate.value_of``'s one call site (ship moves; same arithmetic) and into
# ``island_value`` for the other callers.
@njit(cache=True, inline="always")
def island_value_inl(s, p, pb, seat, i, ship_paid, pr):
    """``island_value``: best action at island i after paying ship_paid ship tiles.

    The island action is priced on the stock the engine's own ship payment leaves (pairs
    spare task and guardian tiles), so a trip is never valued for an action that the
    payment then makes dearer or unaffordable.
    """
    # Pay on the state itself and restore it afterwards: copying the whole state for
    # every ship move cost more than the rest of the evaluation.  One call site of the
    # inlined _island_action (paid or not).
    base = pb + L.P_TILES
    t0, t1, t2, t3, t4, t5, t6 = (s[base], s[base + 1], s[base + 2], s[base + 3],
                                  s[base + 4], s[base + 5], s[base + 6])
    noted = s[pb + L.P_ABIL + 5]
    v = NEG
    if ship_paid <= 0 or pay_tiles_sparing(s, pb, 0, ship_paid, 2, 4):
        v = _island_action(s, p, pb, seat, i, pr, ship_paid)
    if ship_paid > 0:
        s[base], s[base + 1], s[base + 2], s[base + 3] = t0, t1, t2, t3
        s[base + 4], s[base + 5], s[base + 6] = t4, t5, t6
        s[pb + L.P_ABIL + 5] = noted
    return v


@njit(cache=True, inline="always")
def paid_tile_cost(s, pb, t, n, tv, cx, paid):
    """``tile_cost`` of n tiles of type t (2 or 4) on the stock as it is.  With paid > 0
    that stock is the decision's own less the engine's payment of paid ship tiles, the
    same for every ship move paying as many: computed once per (paid, t, n) and decision
    (most ship moves of a decision pay alike)."""
    if paid <= 0 or paid > 3 or n < 0 or n > 3:
        return tile_cost(s, pb, t, n, tv)
    j = CX_PAIDCOST + ((paid - 1) * 2 + (1 if t == 4 else 0)) * 4 + n
    v = cx[j]
    if v != v:
        v = tile_cost(s, pb, t, n, tv)
        cx[j] = v
    return v


# Inlined (numba IR inlining, same arithmetic): a call passes each of its seven arrays
# as seven machine words, once per ship move.
@njit(cache=True, inline="always")
def _island_action(s, p, pb, seat, i, pr, paid):
    """``island_value`` on the stock as it is (the ship payment already made)."""
    w, cx, nd, tv, rv = pr.w, pr.cx, pr.nd, pr.tv, pr.rv
    if p[T.ISL_KIND + i] == 1:
        g = p[T.ISL_VAL + i]
        if not can_take_guardian(s, pb, g) or not can_pay_tiles(s, pb, 4, 1):
            return NEG
        return guard_value(s, p, pb, g, w, cx, nd) - paid_tile_cost(s, pb, 4, 1, tv, cx, paid)
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
            best = max(best, take_value_at(s, p, pb, seat, t, i, space, pr,
                                           task_distance_at(s, p, seat, i, j, cx)))
    return best - rcost - paid_tile_cost(s, pb, 2, tc, tv, cx, paid)


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
