"""Final scoring (rulebook p. 11, Appendix IV) and the game result (RULINGS 6, 7).

A player's score is split into ``NLINES`` lines, in the order of the rulebook's list:
bonfires, guardians, portals, paths, common tasks, fate supply, leftovers, in-game points.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from bonfire_sim.rules import components as C
from bonfire_sim.rules import layout as L
from bonfire_sim.rules import tables as T
from bonfire_sim.rules import tasks as TK
from bonfire_sim.rules.payment import has_spec

NLINES = 8
LN_BONFIRES, LN_GUARDIANS, LN_PORTALS, LN_PATHS, LN_COMMON, LN_FATE, LN_LEFTOVER, LN_INGAME = (
    range(NLINES))
LINE_NAMES = ("bonfires", "guardians", "portals", "paths", "common", "fate_supply",
              "leftovers", "in_game")
SPEC_GUARD_BONUS = 18  # ability of specialist 18: +2 per guardian next to a bonfire
N_SPACES = C.MAX_TASKS  # bonfire spaces 0..6
N_COLOURS = len(C.GUARDIAN_COLOURS)
N_TILE_TYPES = len(C.ACTION_TILES)
N_RES = len(C.RESOURCES)


@njit(cache=True)
def _lit(s, pb, k):
    """True if bonfire space k holds a lit bonfire."""
    return s[pb + L.P_TASK + k] != -1 and s[pb + L.P_LIT + k] == 1


@njit(cache=True)
def bonfire_points(s, p, pb):
    """Printed points of the lit bonfires."""
    pts = 0
    for k in range(N_SPACES):
        if _lit(s, pb, k):
            pts += p[T.T_POINTS + s[pb + L.P_TASK + k]]
    return pts


@njit(cache=True)
def guardian_points(s, p, pb):
    """Points printed beside the spaces of guardians next to bonfires (+2 each, spec. 18)."""
    extra = p[T.ABIL_PTS + SPEC_GUARD_BONUS] if has_spec(s, pb, SPEC_GUARD_BONUS) else 0
    pts = 0
    for k in range(N_COLOURS):
        pos = s[pb + L.P_GUARD + k]
        if pos >= L.GP_BONFIRE:
            pts += p[T.GUARD_PTS + pos - L.GP_BONFIRE] + extra
    return pts


@njit(cache=True)
def portal_points(s, p, pb):
    """Points for portals whose notch lies next to a lit bonfire."""
    pts = 0
    for k in range(N_SPACES):
        if s[pb + L.P_PORTAL + k] == 1 and _lit(s, pb, k):
            pts += p[T.PORTAL_PTS]
    return pts


@njit(cache=True)
def path_points(s, p, pb):
    """Points for built path tiles whose crystal matches the colour of the adjacent bonfire."""
    pts = 0
    # Position 0 is the starting tile: no crystal, never scores.
    for k in range(1, s[pb + L.P_NPATH] + 1):
        if _lit(s, pb, k):
            crystal = p[T.PATH_CRYSTAL + s[pb + L.P_PATH + k]]
            if crystal == p[T.T_COLOUR + s[pb + L.P_TASK + k]]:
                pts += p[T.PATH_PTS]
    return pts


@njit(cache=True)
def common_points(s, p, seat):
    """Points for the common tasks whose condition holds at the end."""
    pb = TK.pbase(seat)
    pts = 0
    for c in range(C.COMMON_TASKS):
        if TK.common_fulfilled(s, p, seat, c):
            if c == TK.COMMON_TASKS7 and TK.n_bonfires(s, pb) >= C.MAX_TASKS:
                pts += p[T.SEVEN_PTS]
            else:
                pts += p[T.COMMON_PTS]
    return pts


@njit(cache=True)
def leftover_points(s, p, pb):
    """One point per LEFT_DIV action tiles and resources left in the supply."""
    n = 0
    for k in range(N_TILE_TYPES):
        n += s[pb + L.P_TILES + k]
    for r in range(N_RES):
        n += s[pb + L.P_RES + r]
    div = p[T.LEFT_DIV]
    return n // div if div > 0 else 0


@njit(cache=True)
def score_lines(s, p, seat, out):
    """Fill out[0:NLINES] with seat's final-scoring lines; returns the total."""
    pb = TK.pbase(seat)
    out[LN_BONFIRES] = bonfire_points(s, p, pb)
    out[LN_GUARDIANS] = guardian_points(s, p, pb)
    out[LN_PORTALS] = portal_points(s, p, pb)
    out[LN_PATHS] = path_points(s, p, pb)
    out[LN_COMMON] = common_points(s, p, seat)
    out[LN_FATE] = p[T.FATE_SUP_PTS] * (s[pb + L.P_FATE_HI] - s[pb + L.P_FATE_LO])
    out[LN_LEFTOVER] = leftover_points(s, p, pb)
    out[LN_INGAME] = s[pb + L.P_SCORE]
    total = 0
    for i in range(NLINES):
        total += out[i]
    return total


@njit(cache=True)
def _beats(scores, bonfires, j, i, solo):
    """True if seat j ranks strictly ahead of seat i (bonfires break ties, not in solo)."""
    if scores[j] != scores[i]:
        return scores[j] > scores[i]
    return (not solo) and bonfires[j] > bonfires[i]


@njit(cache=True, _nrt=True)  # allocates; callable from runtime-free kernels
def final_result(s, p, scores, lines, ranks, won):
    """Score every seat; fill scores, lines[seat, :], ranks (1 = best) and won; returns seats."""
    n = s[L.G_NSEATS]
    solo = s[L.G_SOLO] == 1
    bonfires = np.zeros(n, dtype=np.int64)
    row = np.zeros(NLINES, dtype=np.int64)
    for i in range(n):
        scores[i] = score_lines(s, p, i, row)
        for j in range(NLINES):
            lines[i, j] = row[j]
        bonfires[i] = TK.n_bonfires(s, TK.pbase(i))
    for i in range(n):
        # Standard competition ranking: 1 + seats strictly ahead (1, 1, 3).
        r = 1
        for j in range(n):
            if j != i and _beats(scores, bonfires, j, i, solo):
                r += 1
        ranks[i] = r
    n_first = 0
    for i in range(n):
        if ranks[i] == 1:
            n_first += 1
    for i in range(n):
        # Multiplayer ties share the win; solo has no tiebreaker and a tie wins for nobody.
        won[i] = 1 if ranks[i] == 1 and not (solo and n_first > 1) else 0
    return n
