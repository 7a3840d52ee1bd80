"""Recruit a gnome (rulebook p.10, Appendix III): specialists from the display, elders."""

from __future__ import annotations

from numba import njit

from bonfire_sim.rules import components as C
from bonfire_sim.rules import layout as L
from bonfire_sim.rules import tables as T
from bonfire_sim.rules.movebuf import add
from bonfire_sim.rules.payment import (
    can_pay_resources,
    can_pay_tiles,
    grant_card,
    has_spec,
    note,
)

GNOME = C.ACTION_TILES.index("gnome")
NS = C.N_SPECIALISTS
YELLOW = C.YELLOW


@njit(cache=True)
def gnome_resource(s, p, pb, gid):
    """Resource to pay for gnome ``gid``; -1 (any) with specialist 9."""
    if has_spec(s, pb, 9):
        return -1
    if gid < NS:
        return p[T.SPEC_RES + gid]
    return p[T.ELDER_RES + gid - NS]


@njit(cache=True)
def _affordable(s, p, pb, gid, mode):
    tiles = 2 - mode
    res = 1 + mode
    return (can_pay_tiles(s, pb, GNOME, tiles)
            and can_pay_resources(s, pb, gnome_resource(s, p, pb, gid), res, 0, 0))


@njit(cache=True)
def gen_gnome(s, p, pb, out, n):
    """Recruit moves: each displayed specialist and each elder, in both ways to pay."""
    if s[pb + L.P_NGNOME] >= C.MAX_GNOMES:
        return n
    for j in range(C.SPECIALIST_DISPLAY):
        gid = s[L.SPEC_DISP + j]
        if gid >= 0:
            for mode in range(2):
                if _affordable(s, p, pb, gid, mode):
                    n = add(out, n, L.M_GNOME, gid, mode, 0, 0)
    for e in range(C.N_ELDERS):
        if s[L.ELDER_AVAIL + e] == 1:
            for mode in range(2):
                if _affordable(s, p, pb, NS + e, mode):
                    n = add(out, n, L.M_GNOME, NS + e, mode, 0, 0)
    return n


@njit(cache=True)
def refill_specialists(s):
    """Fill empty display slots from the specialist pile while it lasts."""
    for j in range(C.SPECIALIST_DISPLAY):
        if s[L.SPEC_DISP + j] < 0 and s[L.G_SPEC_N] > 0:
            s[L.SPEC_DISP + j] = s[L.SPEC_PILE + s[L.G_SPEC_TOP]]
            s[L.G_SPEC_TOP] += 1
            s[L.G_SPEC_N] -= 1


@njit(cache=True)
def elder_points(s, p, pb, e):
    """Points of elder e (0..5) at recruitment: its points per thing (1 as printed) times
    ``elder_count``."""
    return p[T.ELDER_PER + e] * elder_count(s, pb, e)


@njit(cache=True)
def elder_count(s, pb, e):
    """What elder e (0..5) counts at recruitment, this card already counted as a gnome."""
    if e == 0:
        return s[pb + L.P_NPATH] + 1  # the starting tile counts
    if e == 1:
        return s[pb + L.P_FATE_PLACED]
    if e == 2:
        return s[pb + L.P_NPORTAL]
    if e == 3:
        n = 0
        for k in range(7):
            if s[pb + L.P_TASK + k] >= 0:
                n += 1
        return n
    if e == 4:
        n = 0
        for k in range(5):
            if s[pb + L.P_GUARD + k] != L.GP_NONE:
                n += 1
        return n
    return s[pb + L.P_NGNOME]


@njit(cache=True)
def gain_gnome(s, p, pb, gid):
    """Put gnome ``gid`` in the city: display refilled, elder scored, specialist 15 paid."""
    grant_card(s, p, pb, gid)
    s[pb + L.P_NGNOME] += 1
    s[pb + L.P_GNOME_AT + gid] = s[L.G_TURN]
    if gid < NS:
        for j in range(C.SPECIALIST_DISPLAY):
            if s[L.SPEC_DISP + j] == gid:
                s[L.SPEC_DISP + j] = -1
        refill_specialists(s)
    else:
        e = gid - NS
        s[L.ELDER_AVAIL + e] = 0
        s[pb + L.P_NELDER] += 1
        pts = elder_points(s, p, pb, e)
        if has_spec(s, pb, 4):
            pts += p[T.ABIL_PTS + 4]
            note(s, pb, 4)
        s[pb + L.P_SCORE] += pts
        s[pb + L.P_PTS_ELDER] += pts
    if has_spec(s, pb, 15):
        s[pb + L.P_TILES + YELLOW] += p[T.ABIL_YELLOW + 15]
        note(s, pb, 15)


@njit(cache=True)
def do_gnome(s, p, pb, gid, mode):
    """Recruit, after paying 2 tiles + 1 resource (mode 0) or 1 tile + 2 resources (mode 1)."""
    if has_spec(s, pb, 9):
        note(s, pb, 9)
    gain_gnome(s, p, pb, gid)


@njit(cache=True)
def gen_council_spec(s, p, pb, out, n):
    """Council bonus: any displayed specialist for free."""
    for j in range(C.SPECIALIST_DISPLAY):
        gid = s[L.SPEC_DISP + j]
        if gid >= 0:
            n = add(out, n, L.M_TAKE_SPEC, gid, 0, 0, 0)
    return n


@njit(cache=True)
def can_take_council_spec(s, pb):
    """Room for a gnome and a specialist in the display."""
    if s[pb + L.P_NGNOME] >= C.MAX_GNOMES:
        return False
    for j in range(C.SPECIALIST_DISPLAY):
        if s[L.SPEC_DISP + j] >= 0:
            return True
    return False
