"""Solo play: Tom, the automaton (rulebook p.12, RULINGS 7).

Tom is seat 1.  After each human turn he plays the top card of his 8-card deck (reshuffled
when empty).  Cards marked (g) first reveal the next specialist from the pile; its resource
steers the action.  He never receives action tiles or resources, never uses specialist
abilities and never walks guardians.  Special case 1: an action he cannot take because he
already completed the matching common task gives him 3 points instead.  The game ends after
his 4th pass through the deck unless the countdown ended it first.  "Your choice" points are
settled with the strategies' RNG stream (the human's default policy: seeded random).
"""

from __future__ import annotations

from numba import njit

from bonfire_sim.rules import components as C
from bonfire_sim.rules import layout as L
from bonfire_sim.rules import tables as T
from bonfire_sim.rules.council import check_trigger
from bonfire_sim.rules.gnomes import refill_specialists
from bonfire_sim.rules.great_bonfire import next_notch
from bonfire_sim.rules.paths import refill_display
from bonfire_sim.rules.payment import grant_card
from bonfire_sim.rules.rng import randint, shuffle
from bonfire_sim.rules.tasks import common_fulfilled
from bonfire_sim.rules.turns import end_game

TOM = 1
SPECIAL_CASE_POINTS = C.TOM_SPECIAL_CASE_POINTS
C_TASKS, C_PORTALS, C_PATHS, C_GUARDS, C_GNOMES = 0, 1, 2, 3, 4


@njit(cache=True)
def _pb():
    return L.PLAYER0 + TOM * L.PSIZE


@njit(cache=True)
def _score(s, pts):
    pb = _pb()
    s[pb + L.P_SCORE] += pts
    s[pb + L.P_PTS_TOM] += pts


@njit(cache=True)
def reveal_gnome(s):
    """Reveal the next specialist onto the discard pile (pile empty: reshuffle the
    discards first, special case 2); return its id, -1 if there is none at all."""
    if s[L.G_SPEC_N] == 0:
        n = s[L.G_SPEC_DISC_N]
        if n == 0:
            return -1
        for i in range(n):
            s[L.SPEC_PILE + i] = s[L.SPEC_DISC + i]
        shuffle(s, L.G_RNG, s, L.SPEC_PILE, n)
        s[L.G_SPEC_TOP] = 0
        s[L.G_SPEC_N] = n
        s[L.G_SPEC_DISC_N] = 0
    g = s[L.SPEC_PILE + s[L.G_SPEC_TOP]]
    s[L.G_SPEC_TOP] += 1
    s[L.G_SPEC_N] -= 1
    s[L.SPEC_DISC + s[L.G_SPEC_DISC_N]] = g
    s[L.G_SPEC_DISC_N] += 1
    return g


@njit(cache=True)
def tom_gnome(s, p, res):
    """Take every displayed specialist showing ``res`` (up to 6 gnomes)."""
    pb = _pb()
    if s[pb + L.P_NGNOME] >= C.MAX_GNOMES:
        _score(s, SPECIAL_CASE_POINTS)
        return
    for j in range(C.SPECIALIST_DISPLAY):
        g = s[L.SPEC_DISP + j]
        if g >= 0 and p[T.SPEC_RES + g] == res and s[pb + L.P_NGNOME] < C.MAX_GNOMES:
            grant_card(s, p, pb, g)
            s[pb + L.P_GNOME_AT + g] = s[L.G_TURN]
            s[pb + L.P_NGNOME] += 1
            s[L.SPEC_DISP + j] = -1
    refill_specialists(s)


@njit(cache=True)
def tom_path(s, p, res):
    """Take every displayed path tile showing ``res``, left to right (up to 6)."""
    pb = _pb()
    if s[pb + L.P_NPATH] >= C.MAX_PATHS:
        _score(s, SPECIAL_CASE_POINTS)
        return
    for j in range(C.PATH_DISPLAY):
        t = s[L.PATH_DISP + j]
        if t >= 0 and p[T.PATH_RES + t] == res and s[pb + L.P_NPATH] < C.MAX_PATHS:
            n = s[pb + L.P_NPATH] + 1
            s[pb + L.P_PATH + n] = t
            s[pb + L.P_NPATH] = n
            s[L.PATH_DISP + j] = -1
    refill_display(s)


@njit(cache=True)
def _n_tasks(s, pb):
    n = 0
    for k in range(7):
        if s[pb + L.P_TASK + k] >= 0:
            n += 1
    return n


@njit(cache=True)
def tom_task(s, p, res, highest):
    """Take the highest (Task I) / lowest (Task II) task from the 2 islands of ``res``.

    Returns True if a task was taken.  Ties are the human's choice (seeded random).
    """
    pb = _pb()
    if _n_tasks(s, pb) >= C.MAX_TASKS:
        _score(s, SPECIAL_CASE_POINTS)
        return False
    best = -1
    ties = 0
    pick_i = -1
    for i in range(C.N_ISLANDS):
        if p[T.ISL_KIND + i] != 0 or p[T.ISL_VAL + i] != res:
            continue
        for j in range(3):
            t = s[L.ISLAND_TASKS + i * 3 + j]
            if t < 0:
                continue
            v = p[T.T_POINTS + t]
            better = best < 0 or (v > best if highest else v < best)
            if better:
                best, ties, pick_i = v, 1, i * 3 + j
            elif v == best:
                ties += 1
                if randint(s, L.G_RNG_STRAT, ties) == 0:  # reservoir: uniform among ties
                    pick_i = i * 3 + j
    if pick_i < 0:
        return False
    for k in range(7):  # next free space clockwise
        if s[pb + L.P_TASK + k] < 0:
            s[pb + L.P_TASK + k] = s[L.ISLAND_TASKS + pick_i]
            s[pb + L.P_TASK_AT + k] = s[L.G_TURN]
            s[pb + L.P_LIT_AT + k] = s[L.G_TURN]
            s[pb + L.P_LIT + k] = 1
            break
    s[L.ISLAND_TASKS + pick_i] = -1
    return True


@njit(cache=True)
def tom_novice(s, p):
    """Task II: one of Tom's novices to any council space (human's choice), +1 point."""
    pb = _pb()
    if s[pb + L.P_TOM_NOVICES] <= 0:
        return
    s[pb + L.P_TOM_NOVICES] -= 1
    sp = randint(s, L.G_RNG_STRAT, C.COUNCIL_SPACES)
    s[L.COUNCIL + sp * 5 + TOM] += 1
    s[L.G_COUNCIL_N] += 1
    _score(s, 1)
    check_trigger(s, p)


@njit(cache=True)
def tom_guardian(s):
    """Any guardian colour Tom lacks (human's choice), into his waiting area."""
    pb = _pb()
    n = 0
    for g in range(5):
        if s[pb + L.P_GUARD + g] != L.GP_NONE:
            n += 1
    if n >= C.MAX_GUARDIANS:
        _score(s, SPECIAL_CASE_POINTS)
        return
    cnt = 0
    for g in range(1, 5):
        if s[pb + L.P_GUARD + g] == L.GP_NONE and s[L.ISLAND_GUARDS + g] > 0:
            cnt += 1
    if cnt == 0:
        return
    k = randint(s, L.G_RNG_STRAT, cnt)
    for g in range(1, 5):
        if s[pb + L.P_GUARD + g] == L.GP_NONE and s[L.ISLAND_GUARDS + g] > 0:
            if k == 0:
                s[pb + L.P_GUARD + g] = L.GP_WAIT
                s[L.ISLAND_GUARDS + g] -= 1
                return
            k -= 1


@njit(cache=True)
def tom_fire(s, p):
    """Turn the Great Bonfire clockwise to the next space holding the portal Tom needs."""
    pb = _pb()
    k = next_notch(s, pb)
    if k < 0:
        _score(s, SPECIAL_CASE_POINTS)
        return
    shape = p[T.BOARD_NOTCH + s[pb + L.P_BOARD] * 7 + k]
    for step in range(1, 8):
        g = (s[L.G_GB_POS] + step) % 7
        if s[L.GB_PORTALS + g * 7 + shape] > 0:
            s[L.G_GB_POS] = g
            s[L.G_GB_USED] = 1
            s[L.GB_PORTALS + g * 7 + shape] -= 1
            s[pb + L.P_PORTAL + k] = 1
            s[pb + L.P_NPORTAL] += 1
            return


@njit(cache=True)
def tom_bonus(s, p):
    """Each fulfilled common task with its neutral novice: novice flat to any space, +1."""
    for c in range(C.COMMON_TASKS):
        if s[L.COMMON_NOVICE + c] == 1 and common_fulfilled(s, p, TOM, c):
            s[L.COMMON_NOVICE + c] = 0
            sp = randint(s, L.G_RNG_STRAT, C.COUNCIL_SPACES)
            s[L.COUNCIL_FLAT + sp] += 1
            s[L.G_COUNCIL_N] += 1
            _score(s, 1)
            check_trigger(s, p)


@njit(cache=True)
def play_card(s, p, kind, reveal):
    """Carry out one Tom card."""
    res = -1
    if reveal == 1:
        g = reveal_gnome(s)
        if g >= 0:
            res = p[T.SPEC_RES + g]
    if kind == 0:
        if res >= 0:
            tom_gnome(s, p, res)
    elif kind == 1:
        if res >= 0:
            tom_path(s, p, res)
    elif kind == 2:
        if res >= 0:
            tom_task(s, p, res, True)
    elif kind == 3:
        if res >= 0 and tom_task(s, p, res, False):
            tom_novice(s, p)
    elif kind == 4:
        tom_guardian(s)
    else:
        tom_fire(s, p)


@njit(cache=True)
def tom_turn(s, p):
    """Tom's turn: draw (reshuffle when empty), play, bonus actions, premature end."""
    n = C.TOM_DECK_SIZE
    if s[L.G_TOM_POS] >= n:
        shuffle(s, L.G_RNG, s, L.TOM_DECK, n)
        s[L.G_TOM_POS] = 0
        s[L.G_TOM_PASSES] += 1
    card = s[L.TOM_DECK + s[L.G_TOM_POS]]
    s[L.G_TOM_POS] += 1
    s[L.G_TOM_CARD] = card
    play_card(s, p, card >> 1, card & 1)
    tom_bonus(s, p)
    s[_pb() + L.P_TURNS] += 1
    if s[L.G_TOM_POS] >= n and s[L.G_TOM_PASSES] >= p[T.TOM_PASSES]:
        end_game(s, L.END_TOM_DECK)
