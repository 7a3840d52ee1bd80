"""Processions and guardian movement (rulebook p.9, RULINGS 3).

Path positions 0..P_NPATH exist (0 = the path on the Starting Tile).  A step goes waiting
area -> 0, j -> j+1, or path j -> bonfire j through a portal in notch j onto a lit bonfire.
Guardians move one after the other, the one furthest ahead first (several in the waiting
area: the player picks the order); each may pass occupied tiles but not end on one
(specialist 1: path tiles may be shared; bonfires never).  Ending a move of >= 1 step on a
path tile yields its resource.
"""

from __future__ import annotations

from numba import njit

from bonfire_sim.rules import components as C
from bonfire_sim.rules import layout as L
from bonfire_sim.rules import tables as T
from bonfire_sim.rules.movebuf import add
from bonfire_sim.rules.payment import has_spec, max_tiles_payable, note

GUARD = C.ACTION_TILES.index("guard")
GOLD = C.GOLD
STAY = -9  # destination code: the guardian does not move


@njit(cache=True)
def occupied(s, pb, pos, me):
    """Another of the player's guardians stands on ``pos`` (path 0..6 or bonfire 10+k)."""
    for g in range(5):
        if g != me and s[pb + L.P_GUARD + g] == pos:
            return True
    return False


@njit(cache=True)
def bonfire_open(s, pb, j, me):
    """Bonfire j can be entered: lit, a portal in notch j, nobody there."""
    return (s[pb + L.P_LIT + j] == 1 and s[pb + L.P_PORTAL + j] == 1
            and not occupied(s, pb, L.GP_BONFIRE + j, me))


@njit(cache=True)
def path_open(s, pb, q, me):
    """Path position q exists and may be ended on (specialist 1 lifts the one-guardian rule)."""
    if q < 0 or q > s[pb + L.P_NPATH]:
        return False
    return has_spec(s, pb, 1) or not occupied(s, pb, q, me)


@njit(cache=True)
def spec6_choices(q):
    """Resources specialist 6 may choose on path q: 0..4, and gold only on the Starting
    Tile (position 0), where gold is the printed resource (German summary, RULINGS 5)."""
    return 6 if q == 0 else 5


@njit(cache=True)
def gen_destinations(s, pb, g, steps, gain, kind, out, n):
    """Moves of guardian g within ``steps`` steps (spec 6: one per resource it may choose)."""
    pos = s[pb + L.P_GUARD + g]
    npath = s[pb + L.P_NPATH]
    choose = gain and has_spec(s, pb, 6)
    for q in range(pos + 1, min(pos + steps, npath) + 1):
        if path_open(s, pb, q, g):
            if choose:
                for r in range(spec6_choices(q)):
                    n = add(out, n, kind, g, q, r, 0)
            else:
                n = add(out, n, kind, g, q, -1, 0)
    for j in range(max(pos, 0), npath + 1):
        if j - pos + 1 <= steps and bonfire_open(s, pb, j, g):
            n = add(out, n, kind, g, L.GP_BONFIRE + j, -1, 0)
    return n


@njit(cache=True)
def n_destinations(s, pb, g, steps):
    """How many places guardian g can end on within ``steps`` steps."""
    pos = s[pb + L.P_GUARD + g]
    if pos == L.GP_NONE or pos >= L.GP_BONFIRE:
        return 0
    npath = s[pb + L.P_NPATH]
    n = 0
    for q in range(pos + 1, min(pos + steps, npath) + 1):
        if path_open(s, pb, q, g):
            n += 1
    for j in range(max(pos, 0), npath + 1):
        if j - pos + 1 <= steps and bonfire_open(s, pb, j, g):
            n += 1
    return n


@njit(cache=True)
def has_destination(s, pb, g, steps):
    """Guardian g can move somewhere within ``steps`` steps."""
    return n_destinations(s, pb, g, steps) > 0


@njit(cache=True)
def extra_steps(s, pb):
    """Specialist 2: every procession allows one step more than paid."""
    return 1 if has_spec(s, pb, 2) else 0


@njit(cache=True)
def _free_for(s, pb, q, g, share, mov):
    """Path q can become guardian g's end: shared (spec 1), empty, or its occupant (ahead
    of g, so she moves first) can move on (bit set in ``mov``)."""
    if share:
        return True
    for h in range(5):
        if h != g and s[pb + L.P_GUARD + h] == q:
            return (mov >> h) & 1 == 1
    return True


@njit(cache=True)
def movable_mask(s, pb, steps):
    """Bit mask of guardians that can end somewhere in a procession of ``steps`` steps.

    Guardians are taken furthest ahead first, as they move: a path tile held by a guardian
    ahead counts as free when that guardian can move on herself.
    """
    npath = s[pb + L.P_NPATH]
    share = has_spec(s, pb, 1)
    mov = 0
    for pos in range(npath, -2, -1):
        for g in range(5):
            if s[pb + L.P_GUARD + g] != pos:
                continue
            ok = False
            for q in range(pos + 1, min(pos + steps, npath) + 1):
                if _free_for(s, pb, q, g, share, mov):
                    ok = True
                    break
            if not ok:
                for j in range(max(pos, 0), npath + 1):
                    if j - pos + 1 <= steps and bonfire_open(s, pb, j, g):
                        ok = True
                        break
            if ok:
                mov |= 1 << g
    return mov


@njit(cache=True)
def _reaches_exactly(s, pb, steps, mov):
    """Some guardian can end on a place exactly ``steps`` steps away (which no smaller
    payment reaches): path pos+steps, or bonfire pos+steps-1."""
    npath = s[pb + L.P_NPATH]
    share = has_spec(s, pb, 1)
    for g in range(5):
        pos = s[pb + L.P_GUARD + g]
        if pos == L.GP_NONE or pos >= L.GP_BONFIRE:
            continue
        q = pos + steps
        if q <= npath and _free_for(s, pb, q, g, share, mov):
            return True
        j = q - 1
        if 0 <= j <= npath and bonfire_open(s, pb, j, g):
            return True
    return False


@njit(cache=True)
def gen_procession(s, p, pb, out, n):
    """Procession moves: pay k tiles for every k that lets some guardian move and is useful.

    Paying k is offered only if it lets a guardian end somewhere k - 1 tiles do not reach
    (a place exactly k (+1 with specialist 2) steps away), taking into account that the
    guardians ahead move first and may clear a tile.
    """
    npath = s[pb + L.P_NPATH]
    kmax = min(max_tiles_payable(s, pb, GUARD), npath + 2)
    for k in range(1, kmax + 1):
        steps = k + extra_steps(s, pb)
        mov = movable_mask(s, pb, steps)
        if k == 1:
            useful = mov != 0
        else:
            useful = _reaches_exactly(s, pb, steps, mov)
        if useful:
            n = add(out, n, L.M_PROCESSION, k, 0, 0, 0)
    return n


@njit(cache=True)
def start_procession(s, pb, paid, nogain):
    """Begin a procession of ``paid`` steps; True if a guardian decision is pending."""
    s[L.G_PROC_LEFT] = paid + extra_steps(s, pb)
    s[L.G_PROC_NOGAIN] = 1 if nogain else 0
    s[L.G_PROC_DONE] = 0
    s[L.G_PHASE] = L.PH_PROCESSION
    return advance_procession(s, pb)


@njit(cache=True)
def _candidates(s, pb):
    """Bit mask of guardians whose turn it is to move (furthest ahead first)."""
    best = -3
    for g in range(5):
        pos = s[pb + L.P_GUARD + g]
        if pos == L.GP_NONE or pos >= L.GP_BONFIRE or (s[L.G_PROC_DONE] >> g) & 1:
            continue
        best = max(best, pos)
    mask = 0
    if best == -3:
        return 0
    for g in range(5):
        if s[pb + L.P_GUARD + g] == best and not (s[L.G_PROC_DONE] >> g) & 1:
            mask |= 1 << g
    return mask


@njit(cache=True)
def advance_procession(s, pb):
    """Skip guardians that cannot move; True if some guardian still has a choice."""
    while True:
        mask = _candidates(s, pb)
        if mask == 0:
            return False
        any_move = False
        for g in range(5):
            if (mask >> g) & 1:
                if has_destination(s, pb, g, s[L.G_PROC_LEFT]):
                    any_move = True
                else:
                    s[L.G_PROC_DONE] |= 1 << g
        if any_move:
            return True


@njit(cache=True)
def gen_procession_step(s, p, pb, out, n):
    """Moves of the guardians whose turn it is: each destination, or stay."""
    mask = _candidates(s, pb)
    gain = s[L.G_PROC_NOGAIN] == 0
    for g in range(5):
        if (mask >> g) & 1 and has_destination(s, pb, g, s[L.G_PROC_LEFT]):
            n = gen_destinations(s, pb, g, s[L.G_PROC_LEFT], gain, L.M_MOVE_GUARD, out, n)
            n = add(out, n, L.M_MOVE_GUARD, g, STAY, -1, 0)
    return n


@njit(cache=True)
def gain_on_path(s, p, pb, g, q, choice):
    """Resources for ending a move on path q: its resource (spec 6: chosen), specs 10-13, 20."""
    if has_spec(s, pb, 6) and choice >= 0:
        r = choice
        note(s, pb, 6)
    elif q == 0:
        r = p[T.START_PATH_RES]
    else:
        r = p[T.PATH_RES + s[pb + L.P_PATH + q]]
    amount = 1
    if g >= 1 and has_spec(s, pb, 9 + g):  # abilities 10..13 = grey, pink, red, wood
        amount += p[T.ABIL_RES + 9 + g]
        note(s, pb, 9 + g)
    s[pb + L.P_RES + r] += amount
    if q == 0 and has_spec(s, pb, 20):
        s[pb + L.P_RES + GOLD] += p[T.ABIL_GOLD + 20]
        note(s, pb, 20)


@njit(cache=True)
def move_guardian(s, p, pb, g, dest, choice, gain):
    """Put guardian g on ``dest`` and collect the path reward when ``gain``."""
    s[pb + L.P_GUARD + g] = dest
    if gain and 0 <= dest < L.GP_BONFIRE:
        gain_on_path(s, p, pb, g, dest, choice)


@njit(cache=True)
def do_procession_step(s, p, pb, g, dest, choice):
    """Apply one guardian's move; True if the procession still needs decisions."""
    s[L.G_PROC_DONE] |= 1 << g
    if dest != STAY:
        pos = s[pb + L.P_GUARD + g]
        steps = (dest - pos) if dest < L.GP_BONFIRE else (dest - L.GP_BONFIRE - pos + 1)
        if steps == s[L.G_PROC_LEFT] and extra_steps(s, pb) == 1:
            note(s, pb, 2)  # the step beyond the payment was used
        if dest < L.GP_BONFIRE and occupied(s, pb, dest, g):
            note(s, pb, 1)  # ends on a path tile another guardian holds
        move_guardian(s, p, pb, g, dest, choice, s[L.G_PROC_NOGAIN] == 0)
    return advance_procession(s, pb)


@njit(cache=True)
def gen_free_move(s, p, pb, out, n):
    """Council bonus: one guardian forward or backward to any free path tile or bonfire."""
    npath = s[pb + L.P_NPATH]
    choose = has_spec(s, pb, 6)
    for g in range(5):
        pos = s[pb + L.P_GUARD + g]
        if pos == L.GP_NONE:
            continue
        for q in range(npath + 1):
            if q != pos and path_open(s, pb, q, g):
                if choose:
                    for r in range(spec6_choices(q)):
                        n = add(out, n, L.M_MOVE_GUARD, g, q, r, 0)
                else:
                    n = add(out, n, L.M_MOVE_GUARD, g, q, -1, 0)
        for j in range(npath + 1):
            if L.GP_BONFIRE + j != pos and bonfire_open(s, pb, j, g):
                n = add(out, n, L.M_MOVE_GUARD, g, L.GP_BONFIRE + j, -1, 0)
    return n
