"""Invariants of every reachable game state, checked after each decision in self-play.

``check(s, p)`` returns 0 or the code of the first violated invariant (``MESSAGES``): each
component is in exactly one place, no stock is negative, every limit holds, and derived
counters agree with what they count.  Compiled so thousands of games can check every move.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from bonfire_sim.rules import components as C
from bonfire_sim.rules import layout as L
from bonfire_sim.rules import tables as T
from bonfire_sim.rules.payment import has_spec

MESSAGES = (
    "ok",
    "a task is in two places or the dealt tasks are not all accounted for",
    "guardians of a colour do not add up to 4",
    "portals of a shape do not add up",
    "path tiles are duplicated or missing",
    "a player's novices do not add up to 7 (Tom: 4)",
    "neutral novices do not add up to 5",
    "the council count disagrees with the novices on it",
    "specialists are duplicated or missing",
    "elders are duplicated or missing",
    "a stock (resource, tile, score) is negative",
    "a limit is exceeded (6 paths, 7 tasks, 5 guardians, 6 gnomes, 7 portals)",
    "a counter disagrees with what it counts (gnomes, elders, portals, paths)",
    "in-game score differs from the sum of its sources",
    "fate area and fate supply disagree",
    "offerings delivered differ from offerings taken or tasks received",
    "a guardian stands where she cannot (occupied, unbuilt, closed bonfire)",
    "countdown tiles are inconsistent",
    "a lit bonfire still has its novice, or an unlit one lost it",
    "a payment choice is open outside PH_PAY, or PH_PAY has nothing to choose",
)
NPT = len(C.PATH_TILES)


@njit(cache=True)
def _tasks_ok(s, p, nseats):
    seen = np.zeros(L.NT, np.int64)
    dealt_expected = 0
    humans = s[L.G_HUMANS]
    for i in range(C.N_ISLANDS):
        if p[T.ISL_KIND + i] == 0:
            if s[L.G_SOLO] == 1:
                dealt_expected += 2
            elif p[T.ISL_CORNER + i] == 1:
                dealt_expected += p[T.TPI_CORNER_N + humans]
            else:
                dealt_expected += p[T.TPI_OTHER + humans]
        for j in range(3):
            t = s[L.ISLAND_TASKS + i * 3 + j]
            if t >= 0:
                seen[t] += 1
    for seat in range(nseats):
        pb = L.PLAYER0 + seat * L.PSIZE
        for k in range(7):
            t = s[pb + L.P_TASK + k]
            if t >= 0:
                seen[t] += 1
    total = 0
    for t in range(L.NT):
        if seen[t] > 1:
            return False
        total += seen[t]
    return total == dealt_expected


@njit(cache=True)
def _portals_ok(s, p, nseats):
    per = p[T.N_PORTAL_PER_SHAPE] - (1 if s[L.G_HUMANS] <= 2 else 0)
    for shape in range(7):
        n = 0
        for g in range(7):
            n += s[L.GB_PORTALS + g * 7 + shape]
        for seat in range(nseats):
            pb = L.PLAYER0 + seat * L.PSIZE
            for k in range(7):
                if s[pb + L.P_PORTAL + k] == 1:
                    if p[T.BOARD_NOTCH + s[pb + L.P_BOARD] * 7 + k] == shape:
                        n += 1
        if n != per:
            return False
    return True


@njit(cache=True)
def _paths_ok(s, nseats):
    seen = np.zeros(NPT, np.int64)
    for i in range(s[L.G_PATH_N]):
        seen[s[L.PATH_DECK + (s[L.G_PATH_HEAD] + i) % NPT]] += 1
    for j in range(C.PATH_DISPLAY):
        if s[L.PATH_DISP + j] >= 0:
            seen[s[L.PATH_DISP + j]] += 1
    for seat in range(nseats):
        pb = L.PLAYER0 + seat * L.PSIZE
        for q in range(1, s[pb + L.P_NPATH] + 1):
            seen[s[pb + L.P_PATH + q]] += 1
    for t in range(NPT):
        if seen[t] != 1:
            return False
    return True


@njit(cache=True)
def _novices_code(s, nseats):
    pending = s[L.G_NOV_COLOUR] if s[L.G_PHASE] == L.PH_COUNCIL else -1  # novice in hand
    on_council = 0
    for sp in range(C.COUNCIL_SPACES):
        for k in range(5):
            on_council += s[L.COUNCIL + sp * 5 + k]
        on_council += s[L.COUNCIL_FLAT + sp]
    if on_council != s[L.G_COUNCIL_N]:
        return 7
    for seat in range(nseats):
        pb = L.PLAYER0 + seat * L.PSIZE
        n = 1 if pending == seat else 0
        for sp in range(C.COUNCIL_SPACES):
            n += s[L.COUNCIL + sp * 5 + seat]
        if s[L.G_SOLO] == 1 and seat == 1:
            if n + s[pb + L.P_TOM_NOVICES] != 4:
                return 5
            continue
        for k in range(7):
            n += s[pb + L.P_NOVICE + k]
        if n != C.NOVICES_PER_PLAYER:
            return 5
    neutral = 1 if pending == L.NEUTRAL else 0
    for c in range(C.COMMON_TASKS):
        neutral += s[L.COMMON_NOVICE + c]
    for sp in range(C.COUNCIL_SPACES):
        neutral += s[L.COUNCIL + sp * 5 + L.NEUTRAL] + s[L.COUNCIL_FLAT + sp]
    if neutral != C.COMMON_TASKS:
        return 6
    return 0


@njit(cache=True)
def _gnomes_code(s, p, nseats):
    seen = np.zeros(L.NGNOME, np.int64)
    for i in range(s[L.G_SPEC_N]):
        seen[s[L.SPEC_PILE + s[L.G_SPEC_TOP] + i]] += 1
    for i in range(s[L.G_SPEC_DISC_N]):
        seen[s[L.SPEC_DISC + i]] += 1
    for j in range(C.SPECIALIST_DISPLAY):
        if s[L.SPEC_DISP + j] >= 0:
            seen[s[L.SPEC_DISP + j]] += 1
    for e in range(C.N_ELDERS):
        seen[L.NSPEC + e] += s[L.ELDER_AVAIL + e]
    for seat in range(nseats):
        pb = L.PLAYER0 + seat * L.PSIZE
        for g in range(L.NGNOME):
            seen[g] += s[pb + L.P_GNOME + g]
    for g in range(L.NSPEC):
        gold = p[T.SPEC_RES + g] == C.GOLD
        want = 0 if (s[L.G_SOLO] == 1 and gold) else 1
        if seen[g] != want:
            return 8
    for e in range(C.N_ELDERS):
        if seen[L.NSPEC + e] != 1:
            return 9
    return 0


# Long: one check per field of a seat's state, in layout order; split, the one list of a
# seat's invariants would be scattered over several functions.
@njit(cache=True)
def _player_code(s, p, seat):
    pb = L.PLAYER0 + seat * L.PSIZE
    tom = s[L.G_SOLO] == 1 and seat == 1
    for k in range(6):
        if s[pb + L.P_RES + k] < 0:
            return 10
    for k in range(7):
        if s[pb + L.P_TILES + k] < 0:
            return 10
    if s[pb + L.P_SCORE] < 0:
        return 10
    ntask = 0
    for k in range(7):
        if s[pb + L.P_TASK + k] >= 0:
            ntask += 1
        elif s[pb + L.P_LIT + k] == 1:
            return 18
        if not tom and s[pb + L.P_TASK + k] >= 0:
            if (s[pb + L.P_LIT + k] == 1) == (s[pb + L.P_NOVICE + k] == 1):
                return 18
    nguard = 0
    for g in range(5):
        if s[pb + L.P_GUARD + g] != L.GP_NONE:
            nguard += 1
    ng = 0
    ne = 0
    for g in range(L.NGNOME):
        ng += s[pb + L.P_GNOME + g]
        if g >= L.NSPEC:
            ne += s[pb + L.P_GNOME + g]
    npor = 0
    for k in range(7):
        npor += s[pb + L.P_PORTAL + k]
    npath = s[pb + L.P_NPATH]
    if npath > C.MAX_PATHS or ntask > C.MAX_TASKS or nguard > C.MAX_GUARDIANS:
        return 11
    if ng > C.MAX_GNOMES or npor > 7:
        return 11
    if ng != s[pb + L.P_NGNOME] or ne != s[pb + L.P_NELDER] or npor != s[pb + L.P_NPORTAL]:
        return 12
    for q in range(1, 7):
        if (s[pb + L.P_PATH + q] >= 0) != (q <= npath):
            return 12
    parts = (s[pb + L.P_PTS_ELDER] + s[pb + L.P_PTS_COUNCIL] + s[pb + L.P_PTS_FIRE]
             + s[pb + L.P_PTS_PASS] + s[pb + L.P_PTS_TOM] + s[pb + L.P_PTS_SEAT])
    start = s[pb + L.P_PTS_SEAT]  # the starting score (override seat_points)
    if tom and start != 0:
        return 13
    if not tom and not (start == p[T.SEAT_PTS + seat]
                        or (start == p[T.SEAT_PTS + seat] + 1 and p[T.SEAT_FRAC + seat] > 0)):
        return 13
    if parts != s[pb + L.P_SCORE]:
        return 13
    if not tom and s[pb + L.P_STARTED] == 1:
        cells = 0
        for i in range(L.FATE_W * L.FATE_W):
            if s[pb + L.P_FATE + i] >= 0:
                cells += 1
        placed = s[pb + L.P_FATE_PLACED]
        if cells != 3 * placed or placed + s[pb + L.P_FATE_HI] - s[pb + L.P_FATE_LO] != 8:
            return 14
    if not tom:
        delivered = 0
        for i in range(C.N_ISLANDS):
            delivered += s[pb + L.P_OFF_ISLAND + i]
        taken = s[pb + L.P_OFF_TAKEN] + s[pb + L.P_OFF_TAKEN + 1]
        if delivered != taken or delivered != ntask or max(
                s[pb + L.P_OFF_TAKEN], s[pb + L.P_OFF_TAKEN + 1]) > C.OFFERING_PILE:
            return 15
    share = has_spec(s, pb, 1)  # ability 1: path tiles may be shared
    for g in range(5):
        pos = s[pb + L.P_GUARD + g]
        if pos == L.GP_NONE or pos == L.GP_WAIT:
            continue
        if pos >= L.GP_BONFIRE:
            k = pos - L.GP_BONFIRE
            if k > npath or s[pb + L.P_LIT + k] == 0 or s[pb + L.P_PORTAL + k] == 0:
                return 16
        elif pos > npath:
            return 16
        for h in range(g + 1, 5):
            if s[pb + L.P_GUARD + h] == pos and (pos >= L.GP_BONFIRE or not share):
                return 16
    if s[pb + L.P_CD_TILE] < 0 or s[pb + L.P_CD_TILE] > C.COUNTDOWN_TILES:
        return 17
    return 0


@njit(cache=True)
def payment_consistent(s):
    """PH_PAY exactly while a paying move's demand is open (and that move can pay)."""
    open_tiles = s[L.G_PAY_TILE + 1] > 0
    open_res = s[L.G_PAY_RES + 1] + s[L.G_PAY_RES + 3] > 0
    open_keep = s[L.G_PAY_KEEP] >= 0
    if s[L.G_PHASE] != L.PH_PAY:
        return not (open_tiles or open_res or open_keep)
    kind = s[L.G_PAY_MOVE]
    if open_keep and kind != L.M_FATE:
        return False
    paying = L.M_FATE <= kind <= L.M_GNOME and kind != L.M_PATH_REFRESH
    return (open_tiles or open_res or open_keep) and paying


@njit(cache=True)
def check(s, p):
    """0 if every invariant holds, else the code of the first violation (see MESSAGES)."""
    nseats = s[L.G_NSEATS]
    if not _tasks_ok(s, p, nseats):
        return 1
    for g in range(1, 5):
        n = s[L.ISLAND_GUARDS + g]
        for seat in range(nseats):
            if s[L.PLAYER0 + seat * L.PSIZE + L.P_GUARD + g] != L.GP_NONE:
                n += 1
        if n != C.N_GUARD_PER_COLOUR:
            return 2
    if not _portals_ok(s, p, nseats):
        return 3
    if not _paths_ok(s, nseats):
        return 4
    code = _novices_code(s, nseats)
    if code:
        return code
    code = _gnomes_code(s, p, nseats)
    if code:
        return code
    holders = 0
    for seat in range(nseats):
        code = _player_code(s, p, seat)
        if code:
            return code
        if s[L.PLAYER0 + seat * L.PSIZE + L.P_CD_TILE] > 0:
            holders += 1
    if holders > 1 or s[L.G_CD_PILE] < 0 or s[L.G_CD_PILE] > C.COUNTDOWN_TILES:
        return 17
    if not payment_consistent(s):
        return 19
    return 0
