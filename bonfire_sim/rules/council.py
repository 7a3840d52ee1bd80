"""Option III, the bonus action and the High Council (rulebook p.11, Appendix II).

Ignite: flip a fulfilled task; its novice goes to a council space with no novice of its
colour (specialist 24: may share); take the space's bonus or 1 point (space 0: no point
option).  Bonus action: a fulfilled common task whose neutral novice is still there sends
that novice to a space with no neutral novice.  Specialist 7: +1 gold per novice placed.
"""

from __future__ import annotations

from numba import njit

from bonfire_sim.rules import components as C
from bonfire_sim.rules import layout as L
from bonfire_sim.rules import tables as T
from bonfire_sim.rules.fate import has_legal_placement
from bonfire_sim.rules.fate_option import supply_size
from bonfire_sim.rules.gnomes import can_take_council_spec, gain_gnome
from bonfire_sim.rules.great_bonfire import take_rewards
from bonfire_sim.rules.islands import can_take_guardian, sail
from bonfire_sim.rules.movebuf import add
from bonfire_sim.rules.paths import can_take_council_path
from bonfire_sim.rules.payment import has_spec, note
from bonfire_sim.rules.procession import bonfire_open, path_open
from bonfire_sim.rules.tasks import common_fulfilled, task_fulfilled

GOLD, YELLOW = C.GOLD, C.YELLOW
SP_GOLD, SP_PATH, SP_GUARD, SP_FIRE, SP_SPEC, SP_MOVE, SP_SHIP, SP_FATE = range(8)


@njit(cache=True)
def gen_ignite(s, p, seat, pb, out, n):
    """Ignite moves: every unlit task whose condition holds."""
    for k in range(7):
        if s[pb + L.P_TASK + k] >= 0 and s[pb + L.P_LIT + k] == 0:
            if task_fulfilled(s, p, seat, s[pb + L.P_TASK + k]):
                n = add(out, n, L.M_IGNITE, k, 0, 0, 0)
    return n


@njit(cache=True)
def do_ignite(s, pb, space, seat):
    """Flip the task; its novice now waits to be placed in the council."""
    s[pb + L.P_LIT + space] = 1
    s[pb + L.P_LIT_AT + space] = s[L.G_TURN]
    s[pb + L.P_NOVICE + space] = 0
    s[L.G_NOV_COLOUR] = seat
    s[L.G_NOV_SRC] = space
    s[L.G_PHASE] = L.PH_COUNCIL


@njit(cache=True, _nrt=False)  # no reference counting: see bonfire_sim.strategies.evaluate.NO_RT
def gen_bonus(s, p, seat, out, n):
    """Bonus actions: fulfilled common tasks whose neutral novice is still there."""
    for c in range(C.COMMON_TASKS):
        if bonus_open(s, p, seat, c):
            n = add(out, n, L.M_BONUS, c, 0, 0, 0)
    return n


@njit(cache=True)
def bonus_open(s, p, seat, c):
    """Common task c offers seat a bonus action (fulfilled, its neutral novice there)."""
    return s[L.COMMON_NOVICE + c] == 1 and common_fulfilled(s, p, seat, c)


@njit(cache=True, _nrt=False)  # no reference counting: see bonfire_sim.strategies.evaluate.NO_RT
def any_bonus(s, p, seat):
    """``gen_bonus`` would list a move (asked after every finished action)."""
    for c in range(C.COMMON_TASKS):
        if bonus_open(s, p, seat, c):
            return True
    return False


@njit(cache=True)
def do_bonus(s, c):
    """Take the neutral novice off common task c; it waits to be placed in the council."""
    s[L.COMMON_NOVICE + c] = 0
    s[L.G_NOV_COLOUR] = L.NEUTRAL
    s[L.G_NOV_SRC] = 10 + c
    s[L.G_RET] = s[L.G_PHASE]
    s[L.G_PHASE] = L.PH_COUNCIL


@njit(cache=True)
def space_open(s, pb, space, colour):
    """No novice of ``colour`` on the space yet (specialist 24 lifts this)."""
    return s[L.COUNCIL + space * 5 + colour] == 0 or has_spec(s, pb, 24)


@njit(cache=True)
def can_take_bonus(s, p, pb, space):
    """The space's bonus has at least one legal way to be taken (limits still apply)."""
    if space == SP_PATH:
        return can_take_council_path(s, pb)
    if space == SP_GUARD:
        for g in range(1, 5):
            if can_take_guardian(s, pb, g):
                return True
        return False
    if space == SP_SPEC:
        return can_take_council_spec(s, pb)
    if space == SP_MOVE:
        return _any_free_move(s, pb)
    if space == SP_FATE:
        return supply_size(s, pb) > 0 and has_legal_placement(s, p, pb)
    return True  # gold, Great Bonfire, ship: always possible


@njit(cache=True)
def _any_free_move(s, pb):
    npath = s[pb + L.P_NPATH]
    for g in range(5):
        pos = s[pb + L.P_GUARD + g]
        if pos == L.GP_NONE:
            continue
        for q in range(npath + 1):
            if q != pos and path_open(s, pb, q, g):
                return True
        for j in range(npath + 1):
            if L.GP_BONFIRE + j != pos and bonfire_open(s, pb, j, g):
                return True
    return False


@njit(cache=True)
def gen_council(s, p, pb, out, n):
    """Placements of the waiting novice: space x (bonus | 1 point)."""
    colour = s[L.G_NOV_COLOUR]
    for sp in range(C.COUNCIL_SPACES):
        if not space_open(s, pb, sp, colour):
            continue
        if can_take_bonus(s, p, pb, sp):
            n = add(out, n, L.M_COUNCIL, sp, 0, 0, 0)
        if sp != SP_GOLD:
            n = add(out, n, L.M_COUNCIL, sp, 1, 0, 0)
    return n


@njit(cache=True)
def place_novice(s, p, pb, space, colour):
    """Stand a novice on a council space, pay specialist 7, check the countdown trigger."""
    if s[L.COUNCIL + space * 5 + colour] > 0:
        note(s, pb, 24)  # joins a novice of the same colour
    s[L.COUNCIL + space * 5 + colour] += 1
    s[L.G_COUNCIL_N] += 1
    if has_spec(s, pb, 7):
        s[pb + L.P_RES + GOLD] += p[T.ABIL_GOLD + 7]
        note(s, pb, 7)
    check_trigger(s, p)


@njit(cache=True)
def check_trigger(s, p):
    """Start the countdown when the council holds enough novices."""
    if s[L.G_CD_ACTIVE] == 0 and s[L.G_COUNCIL_N] >= p[T.CD_TRIGGER + s[L.G_HUMANS]]:
        s[L.G_CD_ACTIVE] = 1
        s[L.G_CD_PILE] = C.COUNTDOWN_TILES
        s[L.G_TRIGGER_TURN] = s[L.G_TURN]


@njit(cache=True)
def do_council(s, p, pb, space, point):
    """Place the novice; take the point, the gold bonus, or open the bonus's sub-decision.

    Returns True if a further decision (which tile, which guardian, ...) is pending.
    """
    place_novice(s, p, pb, space, s[L.G_NOV_COLOUR])
    if point == 1:
        s[pb + L.P_SCORE] += p[T.COUNCIL_PT]
        s[pb + L.P_PTS_COUNCIL] += p[T.COUNCIL_PT]
        return False
    if space == SP_GOLD:
        s[pb + L.P_RES + GOLD] += 2
        s[pb + L.P_TILES + YELLOW] += 1
        return False
    if space == SP_SHIP:
        s[L.G_PHASE] = L.PH_C_SHIP
    elif space == SP_PATH:
        s[L.G_PHASE] = L.PH_C_PATH
    elif space == SP_GUARD:
        s[L.G_PHASE] = L.PH_C_GUARD
    elif space == SP_FIRE:
        s[L.G_PHASE] = L.PH_C_FIRE
    elif space == SP_SPEC:
        s[L.G_PHASE] = L.PH_C_SPEC
    elif space == SP_MOVE:
        s[L.G_PHASE] = L.PH_C_MOVE
    else:
        s[L.G_PHASE] = L.PH_C_FATE
    return True


@njit(cache=True)
def gen_council_guard(s, pb, out, n):
    """Council bonus: a guardian of any colour the player lacks (from her island)."""
    for g in range(1, 5):
        if can_take_guardian(s, pb, g):
            n = add(out, n, L.M_TAKE_GUARD, g, 0, 0, 0)
    return n


@njit(cache=True)
def gen_council_ship(s, out, n):
    """Council bonus: sail for free to any island."""
    for i in range(C.N_ISLANDS):
        n = add(out, n, L.M_SHIP_TO, i, 0, 0, 0)
    return n


@njit(cache=True)
def do_council_ship(s, pb, island):
    """Free move; the island's action may follow at its normal cost."""
    sail(s, pb, island)


@njit(cache=True)
def do_council_spec(s, p, pb, gid):
    """Take a displayed specialist for free."""
    gain_gnome(s, p, pb, gid)


@njit(cache=True)
def do_council_fire(s, p, pb, g, rset, shape):
    """Turn the Great Bonfire to g for free and take its rewards as usual."""
    take_rewards(s, p, pb, g, rset, shape)
