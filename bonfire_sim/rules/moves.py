"""Legal moves and applying a move: the decision interface of the engine.

A decision point is ``s[G_PHASE]`` for seat ``s[G_CUR]``.  ``legal_moves`` fills a
(MAX_MOVES, 5) buffer with rows ``[kind, a, b, c, d]`` (encoding in ``layout``: M_*) and
returns how many; ``apply_move`` plays one row.  A turn is: (first turn only: the starting
fate tile) -> option I, II or III, with bonus actions before or after -> end.  Multi-part
choices (which guardian where, which council space, ...) are follow-up decisions in
sub-phases; decisions with a single forced outcome are taken automatically.  A paying move
first states its payment (``pay_choice.demand``); when the payer has more than one distinct
way to pay (or, for option I, to discard), ``PH_PAY`` asks for it before the move acts.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from bonfire_sim.rules import components as C
from bonfire_sim.rules import layout as L
from bonfire_sim.rules import tables as T
from bonfire_sim.rules.council import (
    any_bonus,
    do_bonus,
    do_council,
    do_council_fire,
    do_council_ship,
    do_council_spec,
    do_ignite,
    gen_bonus,
    gen_council,
    gen_council_guard,
    gen_council_ship,
    gen_ignite,
)
from bonfire_sim.rules.fate import has_legal_placement, place_start_tile
from bonfire_sim.rules.fate_option import do_fate, gen_fate, supply_size, tile_limit
from bonfire_sim.rules.gnomes import do_gnome, gen_council_spec, gen_gnome, gnome_resource
from bonfire_sim.rules.great_bonfire import do_fire, gen_fire, gen_rewards
from bonfire_sim.rules.islands import (
    do_ship,
    do_task,
    gen_guard,
    gen_ship,
    gen_task,
    take_guardian,
    task_resources,
    task_tile_cost,
)
from bonfire_sim.rules.movebuf import add
from bonfire_sim.rules.paths import (
    do_council_path,
    do_path,
    do_refresh,
    gen_council_path,
    gen_path,
    gen_pick,
)
from bonfire_sim.rules.pay_choice import apply_choice, clear_paid, demand, gen_pending, settle
from bonfire_sim.rules.payment import has_spec, note
from bonfire_sim.rules.procession import (
    do_procession_step,
    gen_free_move,
    gen_procession,
    gen_procession_step,
    move_guardian,
    start_procession,
)
from bonfire_sim.rules.stackbuf import stack_moves
from bonfire_sim.rules.tasks import common_fulfilled
from bonfire_sim.rules.tom import tom_turn
from bonfire_sim.rules.turns import (
    all_humans_done,
    do_pass,
    end_game,
    hand_on_tile,
    pass_points,
    pb_of,
)

GOLD, YELLOW, GUARD = C.GOLD, C.YELLOW, C.ACTION_TILES.index("guard")
SHIP, PATH, TASK, FIRE, GNOME = (C.ACTION_TILES.index(n)
                                 for n in ("ship", "path", "task", "fire", "gnome"))


def new_move_buffer() -> np.ndarray:
    """A buffer for ``legal_moves``."""
    return np.zeros((L.MAX_MOVES, L.MOVE_W), dtype=np.int64)


@njit(cache=True, _nrt=False)  # no reference counting: see bonfire_sim.strategies.evaluate.NO_RT
def gen_main_options(s, p, seat, pb, out, n):
    """Options I, II and III (without bonus actions or passing)."""
    n = gen_fate(s, p, pb, out, n, L.M_FATE)
    n = gen_ship(s, p, pb, out, n)
    n = gen_path(s, p, pb, out, n)
    n = gen_task(s, p, pb, out, n)
    n = gen_guard(s, p, pb, out, n)
    n = gen_procession(s, p, pb, out, n)
    n = gen_fire(s, p, pb, out, n)
    n = gen_gnome(s, p, pb, out, n)
    n = gen_ignite(s, p, seat, pb, out, n)
    return n


@njit(cache=True, _nrt=False)  # no reference counting of the arrays: see strategies.evaluate.NO_RT
def legal_moves(s, p, out):
    """Fill ``out`` with the legal moves of the pending decision; return their number."""
    ph = s[L.G_PHASE]
    seat = s[L.G_CUR]
    pb = pb_of(seat)
    n = 0
    if ph == L.PH_OVER:
        return 0
    if ph == L.PH_SWAP:
        n = add(out, n, L.M_SWAP, 0, 0, 0, 0)
        return add(out, n, L.M_SWAP, 1, 0, 0, 0)
    if ph == L.PH_MAIN:
        n = gen_main_options(s, p, seat, pb, out, 0)
        if n == 0:
            n = add(out, n, L.M_SKIP, 0, 0, 0, 0)
        n = gen_bonus(s, p, seat, out, n)
        # Passing is instead of a turn: not after a bonus action of this turn (G_RET is
        # PH_MAIN exactly while a bonus action's chain has returned to the main decision).
        if pass_points(s, seat) > 0 and s[L.G_RET] != L.PH_MAIN:
            n = add(out, n, L.M_PASS, 0, 0, 0, 0)
        return n
    if ph == L.PH_POST:
        n = gen_bonus(s, p, seat, out, 0)
        return add(out, n, L.M_END, 0, 0, 0, 0)
    if ph == L.PH_SHIP_ACTION:
        n = gen_task(s, p, pb, out, 0)
        n = gen_guard(s, p, pb, out, n)
        return add(out, n, L.M_END, 0, 0, 0, 0)
    if ph == L.PH_PROCESSION:
        return gen_procession_step(s, p, pb, out, 0)
    if ph == L.PH_PATH_PICK:
        return gen_pick(s, pb, out, 0, L.M_PATH)
    if ph == L.PH_COUNCIL:
        return gen_council(s, p, pb, out, 0)
    if ph == L.PH_C_PATH:
        return gen_council_path(s, p, pb, out, 0)
    if ph == L.PH_C_GUARD:
        return gen_council_guard(s, pb, out, 0)
    if ph == L.PH_C_FIRE:
        for g in range(7):
            n = gen_rewards(s, p, pb, g, 0, L.M_FIRE, out, n)
        return n
    if ph == L.PH_C_SPEC:
        return gen_council_spec(s, p, pb, out, 0)
    if ph == L.PH_C_MOVE:
        return gen_free_move(s, p, pb, out, 0)
    if ph == L.PH_C_SHIP:
        return gen_council_ship(s, out, 0)
    if ph == L.PH_C_FATE:
        return gen_fate(s, p, pb, out, 0, L.M_FATE)
    if ph == L.PH_PAY:
        return gen_pending(s, pb, out, 0)
    return 0


@njit(cache=True, _nrt=False)  # no reference counting: see bonfire_sim.strategies.evaluate.NO_RT
def has_main_option(s, p, seat):
    """The player can take option I, II or III (cheap checks first)."""
    pb = pb_of(seat)
    if supply_size(s, pb) > 0 and has_legal_placement(s, p, pb):
        return True
    buf = stack_moves(1)  # full-safe generators: one row tells "any"
    return gen_main_options(s, p, seat, pb, buf, 0) > 0


@njit(cache=True)
def check_common_rewards(s, p, seat):
    """Ability 19: the first time each common task is fulfilled, +1 gold +1 yellow."""
    pb = pb_of(seat)
    for c in range(5):
        if s[pb + L.P_COMMON_DONE + c] == 0 and common_fulfilled(s, p, seat, c):
            s[pb + L.P_COMMON_DONE + c] = 1
            if has_spec(s, pb, 19):
                note(s, pb, 19)
                s[pb + L.P_RES + GOLD] += p[T.ABIL_GOLD + 19]
                s[pb + L.P_TILES + YELLOW] += p[T.ABIL_YELLOW + 19]


@njit(cache=True, _nrt=False)  # no reference counting: see bonfire_sim.strategies.evaluate.NO_RT
def begin_turn(s, p):
    """Set up the decision that opens the current seat's turn; False if it has none."""
    seat = s[L.G_CUR]
    pb = pb_of(seat)
    if s[pb + L.P_STARTED] == 0:
        s[L.G_PHASE] = L.PH_SWAP
        return True
    s[L.G_RET] = L.PH_POST
    if has_main_option(s, p, seat):
        s[L.G_PHASE] = L.PH_MAIN
        return True
    return False


@njit(cache=True, _nrt=False)  # no reference counting: see bonfire_sim.strategies.evaluate.NO_RT
def finish_turn(s, p):
    """End the current turn and run automatic turns until a decision is pending or over."""
    seat = s[L.G_CUR]
    if s[pb_of(seat) + L.P_PASSED] == 0:  # passing is instead of a turn: not counted
        s[pb_of(seat) + L.P_TURNS] += 1
    while True:
        if s[L.G_OVER] == 1:
            return
        if hand_on_tile(s, seat):
            end_game(s, L.END_COUNTDOWN)
            return
        if s[L.G_SOLO] == 0 and s[L.G_CD_ACTIVE] == 0 and all_humans_done(s):
            end_game(s, L.END_STALLED)
            return
        seat = (seat + 1) % s[L.G_NSEATS]
        if seat == 0:
            s[L.G_ROUND] += 1
        s[L.G_TURN] += 1
        s[L.G_CUR] = seat
        pb = pb_of(seat)
        if s[L.G_SOLO] == 1 and seat == 1:
            tom_turn(s, p)
            continue
        if s[pb + L.P_PASSED] == 1:
            continue
        if s[pb + L.P_OUT] == 0 and begin_turn(s, p):
            return
        # Nothing to do: out for good; passing in the countdown is still free points.
        s[pb + L.P_OUT] = 1
        if pass_points(s, seat) > 0:
            do_pass(s, seat)


@njit(cache=True, _nrt=False)  # no reference counting: see bonfire_sim.strategies.evaluate.NO_RT
def resume(s, p):
    """A sub-decision chain is complete: back to the main decision or to the turn's end."""
    if s[L.G_RET] == L.PH_MAIN:
        s[L.G_PHASE] = L.PH_MAIN
        return
    s[L.G_PHASE] = L.PH_POST
    seat = s[L.G_CUR]
    if not any_bonus(s, p, seat):
        finish_turn(s, p)


@njit(cache=True, _nrt=False)  # no reference counting: see bonfire_sim.strategies.evaluate.NO_RT
def enter_ship_action(s, p, pb):
    """After sailing: offer the island's action, or carry on if there is none."""
    buf = stack_moves(1)  # full-safe generators: one row tells "any"
    n = gen_task(s, p, pb, buf, 0)
    n = gen_guard(s, p, pb, buf, n)
    if n == 0:
        resume(s, p)


@njit(cache=True)
def do_swap(s, p, pb, swap):
    """Choose the starting fate tile (maybe the middle of the column); take 5 tiles."""
    if swap == 1:
        t = s[pb + L.P_FATE_SUP]
        s[pb + L.P_FATE_SUP] = s[pb + L.P_FATE_SUP + 4]
        s[pb + L.P_FATE_SUP + 4] = t
    tile = s[pb + L.P_FATE_SUP]
    place_start_tile(s, p, pb, tile)
    s[pb + L.P_TILES + YELLOW] += 2
    for i in range(3):
        s[pb + L.P_TILES + p[T.FATE_TILE + tile * 3 + i]] += 1
    s[pb + L.P_STARTED] = 1


@njit(cache=True)
def is_paying(kind, in_main):
    """Moves that pay tiles / resources, or discard (option I), before they act."""
    return (kind == L.M_SHIP or kind == L.M_PATH or kind == L.M_TASK or kind == L.M_GUARD
            or kind == L.M_PROCESSION or kind == L.M_GNOME
            or (in_main and (kind == L.M_FIRE or kind == L.M_FATE)))


@njit(cache=True, _nrt=False)  # no reference counting: see bonfire_sim.strategies.evaluate.NO_RT
def demand_payment(s, p, pb, mv, in_main):
    """State move mv's payment and pay what has one way; True if PH_PAY now asks."""
    kind, a, b = mv[0], mv[1], mv[2]
    t, n, r1, n1, r2, n2, keep = 0, 0, -1, 0, -1, 0, -1
    if kind == L.M_SHIP:
        t, n = SHIP, b
    elif kind == L.M_PATH:
        t, n = PATH, p[T.PATH_COST + s[pb + L.P_NPATH]]
    elif kind == L.M_TASK:
        isl = s[pb + L.P_SHIP]
        t, n = TASK, task_tile_cost(s, p, pb, isl)
        r1, r2 = task_resources(s, p, pb, isl, b)
        n1, n2 = 1, 1
    elif kind == L.M_GUARD:
        t, n = GUARD, 1
    elif kind == L.M_PROCESSION:
        t, n = GUARD, a
    elif kind == L.M_FIRE:
        t, n = FIRE, mv[4]
    elif kind == L.M_GNOME:
        t, n = GNOME, 2 - b
        r1, n1 = gnome_resource(s, p, pb, a), 1 + b
    else:  # option I: discard down to the tile limit first
        keep = tile_limit(s, p, pb)
        held = 0
        for k in range(7):
            held += s[pb + L.P_TILES + k]
        if keep > 1 and held > 1:
            note(s, pb, 14)  # keeps more than one tile
    demand(s, mv, in_main, t, n, r1, n1, r2, n2, keep)
    return settle(s, pb)


@njit(cache=True, _nrt=False)  # no reference counting: see bonfire_sim.strategies.evaluate.NO_RT
def complete_move(s, p, pb, mv, main):
    """Carry out a paying move once it is paid, and continue the turn."""
    kind, a, b, c, d = mv[0], mv[1], mv[2], mv[3], mv[4]
    if kind == L.M_SHIP:
        do_ship(s, pb, a, b)
        enter_ship_action(s, p, pb)
        return
    if kind == L.M_GUARD:
        if not take_guardian(s, pb, a):
            resume(s, p)
        return
    if kind == L.M_PROCESSION:
        if not start_procession(s, pb, a, False):
            resume(s, p)
        return
    if kind == L.M_FATE:
        do_fate(s, p, pb, a, b, c, d, False)  # the discard was the payment
    elif kind == L.M_PATH:
        do_path(s, p, pb, a)
    elif kind == L.M_TASK:
        do_task(s, p, pb, a, b, c)
    elif kind == L.M_FIRE:
        do_fire(s, p, pb, a, b, c, d)
    elif kind == L.M_GNOME:
        do_gnome(s, p, pb, a, b)
    resume(s, p)


@njit(cache=True, _nrt=False)  # no reference counting: see bonfire_sim.strategies.evaluate.NO_RT
def complete_pending(s, p, pb):
    """Carry out the move whose payment has just been chosen (complete_move reads the
    pending row before it changes the state, so a view of it does, no copy)."""
    complete_move(s, p, pb, s[L.G_PAY_MOVE:L.G_PAY_MOVE + L.MOVE_W], s[L.G_PAY_MAIN] == 1)


# Long: the dispatch over every move kind, one branch each calling the rule chapter that
# plays it; the whole table of moves is easier to check in one place.
@njit(cache=True, _nrt=False)  # no reference counting of the arrays: see strategies.evaluate.NO_RT
def apply_move(s, p, mv):
    """Play move row ``mv`` (assumed legal) for the seat to move."""
    seat = s[L.G_CUR]
    pb = pb_of(seat)
    kind, a, b, c, d = mv[0], mv[1], mv[2], mv[3], mv[4]
    ph = s[L.G_PHASE]
    s[L.G_DECISIONS] += 1
    in_main = ph == L.PH_MAIN
    if in_main and kind != L.M_BONUS and kind != L.M_PASS:
        s[L.G_RET] = L.PH_POST
    choice = kind == L.M_PAY or kind == L.M_DISCARD
    if not choice:
        clear_paid(s)
    if choice:
        apply_choice(s, pb, mv)
        if not settle(s, pb):
            complete_pending(s, p, pb)
    elif is_paying(kind, in_main):
        if not demand_payment(s, p, pb, mv, in_main):
            complete_move(s, p, pb, mv, in_main)
    elif kind == L.M_SWAP:
        do_swap(s, p, pb, a)
        if not begin_turn(s, p):
            finish_turn(s, p)
    elif kind == L.M_FATE:  # the council's fate bonus: no discard
        do_fate(s, p, pb, a, b, c, d, False)
        resume(s, p)
    elif kind == L.M_PATH_REFRESH:
        do_refresh(s)
    elif kind == L.M_MOVE_GUARD:
        if ph == L.PH_PROCESSION:
            if not do_procession_step(s, p, pb, a, b, c):
                resume(s, p)
        else:
            move_guardian(s, p, pb, a, b, c, True)
            resume(s, p)
    elif kind == L.M_FIRE:  # the council's Great Bonfire bonus: free
        do_council_fire(s, p, pb, a, b, c)
        resume(s, p)
    elif kind == L.M_IGNITE:
        do_ignite(s, pb, a, seat)
    elif kind == L.M_BONUS:
        do_bonus(s, a)
    elif kind == L.M_COUNCIL:
        if not do_council(s, p, pb, a, b):
            resume(s, p)
    elif kind == L.M_TAKE_PATH:
        do_council_path(s, p, pb, a)
        resume(s, p)
    elif kind == L.M_TAKE_GUARD:
        if not take_guardian(s, pb, a):
            resume(s, p)
    elif kind == L.M_TAKE_SPEC:
        do_council_spec(s, p, pb, a)
        resume(s, p)
    elif kind == L.M_SHIP_TO:
        do_council_ship(s, pb, a)
        enter_ship_action(s, p, pb)
    elif kind == L.M_PASS:
        do_pass(s, seat)
        finish_turn(s, p)
    elif kind == L.M_END:
        if ph == L.PH_SHIP_ACTION:
            resume(s, p)
        else:
            finish_turn(s, p)
    elif kind == L.M_SKIP:
        s[pb + L.P_OUT] = 1
        finish_turn(s, p)
    check_common_rewards(s, p, seat)
    if s[L.G_OVER] == 0 and s[L.G_DECISIONS] >= L.MAX_DECISIONS:
        end_game(s, L.END_LIMIT)
