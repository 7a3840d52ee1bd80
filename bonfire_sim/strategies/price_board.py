"""Investments on the board: guardians and processions, paths, portals, the Great
Bonfire's rewards and gnomes (specialists and elders).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from bonfire_sim.rules import components as C
from bonfire_sim.rules import layout as L
from bonfire_sim.rules import tables as T
from bonfire_sim.rules import tasks as TK
from bonfire_sim.rules.gnomes import elder_count
from bonfire_sim.rules.great_bonfire import next_notch, notch_for
from bonfire_sim.rules.payment import (
    has_spec,
)
from bonfire_sim.rules.procession import bonfire_open, path_open
from bonfire_sim.strategies import features as FE
from bonfire_sim.strategies.price_context import CX_LATE, CX_PKNOWN, CX_PORTAL, CX_PRESS, NO_RT
from bonfire_sim.strategies.weights import (
    W_ADVANCE,
    W_CRYSTAL,
    W_ELDER,
    W_ELDER_WAIT,
    W_FIRE_CAP,
    W_FIRE_PLAIN,
    W_FIRE_POINTS,
    W_GUARD,
    W_GUARD_BONFIRE,
    W_IGNITE_HOLD,
    W_PATH,
    W_PORTAL,
    W_PROC_RES,
    W_SPEC,
    W_SPEC_FLAT,
)

# Specialist abilities 1..27 in points (index = ability); see rulebook Appendix III.
SPEC_VALUE = (0.0, 0.5, 1.5, 1.5, 0.8, 1.5, 1.0, 1.5, 1.0, 0.5, 1.0, 1.0, 1.0, 1.0, 2.0,
              1.2, 1.0, 0.5, 1.5, 1.0, 0.5, 1.0, 1.0, 2.0, 0.5, 1.5, 1.0, 0.3)
R_TILE, R_RES, R_PTS, R_PORTAL = 1, 2, 4, 8


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


@njit(cache=True, inline="always")  # per guardian and place: see price_fate.fate_value
def guard_pos_value(s, p, pb, g, dest, choice, w, cx, nd, rv):
    """Value of guardian g standing on dest (path 0..6 with its resource gained, bonfire)."""
    if dest >= L.GP_BONFIRE:
        k = dest - L.GP_BONFIRE
        extra = p[T.ABIL_PTS + 18] if has_spec(s, pb, 18) else 0
        return w[W_GUARD_BONFIRE] * (p[T.GUARD_PTS + k] + extra) + nd[FE.N_ONBONFIRE]
    if dest < 0:
        return 0.0
    return w[W_ADVANCE] * (dest + 1) * cx[CX_LATE]


@njit(cache=True, inline="always")  # per guardian and place: see price_fate.fate_value
def step_value(s, p, pb, g, dest, choice, gain, pr):
    """Value of moving guardian g from where she stands to dest (gaining the path resource)."""
    w, cx, nd, rv = pr.w, pr.cx, pr.nd, pr.rv
    cur = s[pb + L.P_GUARD + g]
    v = (guard_pos_value(s, p, pb, g, dest, choice, w, cx, nd, rv)
         - guard_pos_value(s, p, pb, g, cur, -1, w, cx, nd, rv))
    if gain and 0 <= dest < L.GP_BONFIRE:
        r = choice if choice >= 0 else TK.path_resource(s, p, pb, dest)
        amount = 1 + p[T.ABIL_RES + 9 + g] if g >= 1 and has_spec(s, pb, 9 + g) else 1
        v += w[W_PROC_RES] * rv[r] * amount
    return v


@njit(cache=True)
def procession_value(s, p, pb, steps, pr):
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
                best = max(best, step_value(s, p, pb, g, q, -1, True, pr))
        for j in range(max(pos, 0), npath + 1):
            if j - pos + 1 <= steps and bonfire_open(s, pb, j, g):
                best = max(best, step_value(s, p, pb, g, L.GP_BONFIRE + j, -1, False, pr))
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
def fire_value(s, p, pb, g, rset, shape, pr):
    """Value of the Great Bonfire's reward set rset at space g (costs excluded)."""
    w, cx, nd, tv, rv = pr.w, pr.cx, pr.nd, pr.tv, pr.rv
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
        v += w[W_SPEC] * SPEC_VALUE[p[T.SPEC_ABIL + gid]] * cx[CX_LATE]
        v += w[W_SPEC_FLAT] * cx[CX_LATE]
        v += nd[FE.N_GNOMERES + p[T.SPEC_RES + gid]]
    else:
        e = gid - C.N_SPECIALISTS
        per = p[T.ELDER_PER + e]
        pts = per * (elder_count(s, pb, e) + (1 if e == 5 else 0)) + (
            p[T.ABIL_PTS + 4] if has_spec(s, pb, 4) else 0)
        v += w[W_ELDER] * pts - w[W_ELDER_WAIT] * cx[CX_LATE]
        v += nd[FE.N_ELDERS] + nd[FE.N_GNOMERES + p[T.ELDER_RES + e]]
    return v
