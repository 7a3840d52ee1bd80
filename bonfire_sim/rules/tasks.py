"""Task conditions (Appendix I) and common tasks, read from a player's city.

``task_fulfilled`` dispatches on the ``TaskKind`` stored in the parameter vector; the
arguments ``a, b, c`` of each kind are documented in ``components.TaskKind``.  Every
condition accepts more than requested (Appendix I note) and, where it asks to HAVE
resources or action tiles, accepts no substitutes: gold is not a resource there and a
yellow tile is not another type (RULINGS 4).
"""

from __future__ import annotations

from numba import njit

from bonfire_sim.rules import components as C
from bonfire_sim.rules import fate as F
from bonfire_sim.rules import layout as L
from bonfire_sim.rules import tables as T

# TaskKind codes as module ints: numba folds these into constants, not class attributes.
K_PATH_RESOURCE = C.TaskKind.PATH_RESOURCE
K_GUARDIANS = C.TaskKind.GUARDIANS
K_OFFER_ON_RESOURCE = C.TaskKind.OFFER_ON_RESOURCE
K_OFFER_ISLANDS = C.TaskKind.OFFER_ISLANDS
K_GNOME_RESOURCE = C.TaskKind.GNOME_RESOURCE
K_BONFIRE_COLOURS = C.TaskKind.BONFIRE_COLOURS
K_RESOURCE_SETS = C.TaskKind.RESOURCE_SETS
K_FATE_GROUPS = C.TaskKind.FATE_GROUPS
K_ADJACENT_PATH_SAME = C.TaskKind.ADJACENT_PATH_SAME
K_GNOMES = C.TaskKind.GNOMES
K_ELDERS = C.TaskKind.ELDERS
K_GOLD = C.TaskKind.GOLD
K_PORTALS = C.TaskKind.PORTALS
K_COMMON = C.TaskKind.COMMON
K_OFFER_BOTH = C.TaskKind.OFFER_BOTH
K_RESOURCE = C.TaskKind.RESOURCE
K_COLOUR_TASKS = C.TaskKind.COLOUR_TASKS
K_GUARDIAN_COUNT = C.TaskKind.GUARDIAN_COUNT
K_DEPLETED_PILE = C.TaskKind.DEPLETED_PILE
K_CRYSTALS = C.TaskKind.CRYSTALS
K_FATE_CELLS = C.TaskKind.FATE_CELLS
K_GUARDIANS_ON_BONFIRES = C.TaskKind.GUARDIANS_ON_BONFIRES
K_TILES_IN_SUPPLY = C.TaskKind.TILES_IN_SUPPLY
K_BONFIRES = C.TaskKind.BONFIRES
N_COLOURS = len(C.GUARDIAN_COLOURS)  # guardian colours: 0 own, 1..4 island colours
N_TASK_COLOURS = len(C.TASK_COLOURS)
N_TILE_TYPES = len(C.ACTION_TILES)  # yellow included
N_PLAIN_RES = C.GOLD  # resources 0..4 that count as "resources" in conditions (gold excluded)
N_PORTALS_ALL = len(C.PORTAL_SHAPES)  # one portal per notch: 7
ANY_SYMBOL = -1  # FATE_GROUPS: an area of any symbol
ONE_GROUP = -2  # FATE_GROUPS: b unused, one area suffices

COMMON_TASKS7, COMMON_PORTALS7, COMMON_PATHS7, COMMON_GUARDIANS5, COMMON_GNOMES6 = range(5)


@njit(cache=True)
def pbase(seat):
    """Start of seat's block in the state vector."""
    return L.PLAYER0 + seat * L.PSIZE


# ---- counting helpers (take the player base pb) -----------------------------------------
@njit(cache=True)
def n_tasks(s, pb):
    """Tasks and bonfires on the player's board (lit or not)."""
    n = 0
    for k in range(C.MAX_TASKS):
        if s[pb + L.P_TASK + k] != -1:
            n += 1
    return n


@njit(cache=True)
def n_bonfires(s, pb):
    """Lit bonfires on the player's board."""
    n = 0
    for k in range(C.MAX_TASKS):
        if s[pb + L.P_TASK + k] != -1 and s[pb + L.P_LIT + k] == 1:
            n += 1
    return n


@njit(cache=True)
def n_colour_tasks(s, p, pb, colour):
    """Tasks and bonfires of task colour colour on the board."""
    n = 0
    for k in range(C.MAX_TASKS):
        t = s[pb + L.P_TASK + k]
        if t != -1 and p[T.T_COLOUR + t] == colour:
            n += 1
    return n


@njit(cache=True)
def has_bonfire_colour(s, p, pb, colour):
    """True if a lit bonfire of task colour colour is on the board."""
    for k in range(C.MAX_TASKS):
        t = s[pb + L.P_TASK + k]
        if t != -1 and s[pb + L.P_LIT + k] == 1 and p[T.T_COLOUR + t] == colour:
            return True
    return False


@njit(cache=True)
def n_guardians(s, pb):
    """Guardians owned, the own one included."""
    n = 0
    for k in range(N_COLOURS):
        if s[pb + L.P_GUARD + k] != L.GP_NONE:
            n += 1
    return n


@njit(cache=True)
def n_guardians_on_bonfires(s, pb):
    """Guardians standing next to a bonfire."""
    n = 0
    for k in range(N_COLOURS):
        if s[pb + L.P_GUARD + k] >= L.GP_BONFIRE:
            n += 1
    return n


@njit(cache=True)
def n_crystals(s, p, pb, crystal):
    """Built path tiles showing crystal colour crystal (the starting tile has none)."""
    n = 0
    for pos in range(1, s[pb + L.P_NPATH] + 1):
        if p[T.PATH_CRYSTAL + s[pb + L.P_PATH + pos]] == crystal:
            n += 1
    return n


@njit(cache=True)
def path_resource(s, p, pb, pos):
    """Resource shown by path position pos (0 = the starting tile)."""
    if pos == 0:
        return p[T.START_PATH_RES]
    return p[T.PATH_RES + s[pb + L.P_PATH + pos]]


@njit(cache=True)
def n_offer_islands(s, pb, min_each):
    """Islands holding at least min_each of the player's offerings."""
    n = 0
    for i in range(C.N_ISLANDS):
        if s[pb + L.P_OFF_ISLAND + i] >= min_each:
            n += 1
    return n


@njit(cache=True)
def gnome_resource(p, g):
    """Resource shown by gnome id g (specialist 0..26, elder 27..32)."""
    if g < C.N_SPECIALISTS:
        return p[T.SPEC_RES + g]
    return p[T.ELDER_RES + g - C.N_SPECIALISTS]


# ---- conditions ------------------------------------------------------------------------
@njit(cache=True)
def _fate_groups(s, pb, a, b, size):
    """FATE_GROUPS: areas of >= size identical symbols for a and b, distinct areas."""
    if b == ONE_GROUP:
        return F.count_areas(s, pb, a, size) >= 1
    if a == b:
        # Two areas of one symbol (or, for -1, of any symbols) must be two different areas.
        return F.count_areas(s, pb, a, size) >= 2
    if a == ANY_SYMBOL or b == ANY_SYMBOL:
        fixed = b if a == ANY_SYMBOL else a
        return F.count_areas(s, pb, fixed, size) >= 1 and F.count_areas(s, pb, -1, size) >= 2
    # Different symbols can never share an area.
    return F.count_areas(s, pb, a, size) >= 1 and F.count_areas(s, pb, b, size) >= 1


@njit(cache=True)
def _offer_both(s, p, pb, res):
    """OFFER_BOTH: an own offering on every task island showing res."""
    found = False
    for i in range(C.N_ISLANDS):
        if p[T.ISL_KIND + i] == 0 and p[T.ISL_VAL + i] == res:
            if s[pb + L.P_OFF_ISLAND + i] < 1:
                return False
            found = True
    return found


@njit(cache=True)
def _offer_on(s, p, pb, res):
    """OFFER_ON_RESOURCE: an own offering on some task island showing res."""
    for i in range(C.N_ISLANDS):
        if (p[T.ISL_KIND + i] == 0 and p[T.ISL_VAL + i] == res
                and s[pb + L.P_OFF_ISLAND + i] >= 1):
            return True
    return False


@njit(cache=True)
def _gnome_shows(s, p, pb, res):
    """GNOME_RESOURCE: an owned specialist or elder showing res."""
    for g in range(C.N_GNOMES):
        if s[pb + L.P_GNOME + g] == 1 and gnome_resource(p, g) == res:
            return True
    return False


@njit(cache=True)
def _adjacent_path_same(s, p, pb):
    """ADJACENT_PATH_SAME: two consecutive path positions (0 included) show one resource."""
    for pos in range(s[pb + L.P_NPATH]):
        if path_resource(s, p, pb, pos) == path_resource(s, p, pb, pos + 1):
            return True
    return False


@njit(cache=True)
def _has_path_resource(s, p, pb, res):
    """PATH_RESOURCE: a built path tile shows res."""
    for pos in range(1, s[pb + L.P_NPATH] + 1):
        if path_resource(s, p, pb, pos) == res:
            return True
    return False


@njit(cache=True)
def _n_resource_sets(s, pb, times):
    """Non-gold resources held at least times each."""
    n = 0
    for r in range(N_PLAIN_RES):
        if s[pb + L.P_RES + r] >= times:
            n += 1
    return n


@njit(cache=True)
def _owns_guardians(s, pb, mask):
    """True if every guardian colour in bit mask mask is owned."""
    for k in range(N_COLOURS):
        if (mask >> k) & 1 and s[pb + L.P_GUARD + k] == L.GP_NONE:
            return False
    return True


@njit(cache=True)
def _holds_tile_types(s, pb, mask):
    """True if at least one action tile of every type in bit mask mask is held."""
    for k in range(N_TILE_TYPES):
        if (mask >> k) & 1 and s[pb + L.P_TILES + k] < 1:
            return False
    return True


@njit(cache=True)
def common_fulfilled(s, p, seat, c):
    """True if player seat meets the condition of common task c."""
    pb = pbase(seat)
    if c == COMMON_TASKS7:
        return n_tasks(s, pb) >= C.MAX_TASKS
    if c == COMMON_PORTALS7:
        return s[pb + L.P_NPORTAL] >= N_PORTALS_ALL
    if c == COMMON_PATHS7:
        # 7 path tiles including the starting tile = all 6 built.
        return s[pb + L.P_NPATH] >= C.MAX_PATHS
    if c == COMMON_GUARDIANS5:
        return n_guardians(s, pb) >= C.MAX_GUARDIANS
    if c == COMMON_GNOMES6:
        return s[pb + L.P_NGNOME] >= C.MAX_GNOMES
    return False


@njit(cache=True)
def any_common_fulfilled(s, p, seat):
    """True if player seat meets the condition of at least one common task."""
    for c in range(C.COMMON_TASKS):
        if common_fulfilled(s, p, seat, c):
            return True
    return False


# Long: one branch per task kind (components.TASKS), read side by side with the rulebook.
@njit(cache=True)
def task_fulfilled(s, p, seat, t):
    """True if player seat meets the condition of task t (index into components.TASKS)."""
    pb = pbase(seat)
    kind = p[T.T_KIND + t]
    a = p[T.T_A + t]
    b = p[T.T_B + t]
    c = p[T.T_C + t]
    if kind == K_PATH_RESOURCE:
        return _has_path_resource(s, p, pb, a)
    if kind == K_GUARDIANS:
        return _owns_guardians(s, pb, a)
    if kind == K_OFFER_ON_RESOURCE:
        return _offer_on(s, p, pb, a)
    if kind == K_OFFER_ISLANDS:
        return n_offer_islands(s, pb, b) >= a
    if kind == K_GNOME_RESOURCE:
        return _gnome_shows(s, p, pb, a)
    if kind == K_BONFIRE_COLOURS:
        for col in range(N_TASK_COLOURS):
            if (a >> col) & 1 and not has_bonfire_colour(s, p, pb, col):
                return False
        return True
    if kind == K_RESOURCE_SETS:
        return _n_resource_sets(s, pb, b) >= a
    if kind == K_FATE_GROUPS:
        return _fate_groups(s, pb, a, b, c)
    if kind == K_ADJACENT_PATH_SAME:
        return _adjacent_path_same(s, p, pb)
    if kind == K_GNOMES:
        return s[pb + L.P_NGNOME] >= a
    if kind == K_ELDERS:
        return s[pb + L.P_NELDER] >= a
    if kind == K_GOLD:
        return s[pb + L.P_RES + C.GOLD] >= a
    if kind == K_PORTALS:
        return s[pb + L.P_NPORTAL] >= a
    if kind == K_COMMON:
        return any_common_fulfilled(s, p, seat)
    if kind == K_OFFER_BOTH:
        return _offer_both(s, p, pb, a)
    if kind == K_RESOURCE:
        return s[pb + L.P_RES + a] >= b
    if kind == K_COLOUR_TASKS:
        return n_colour_tasks(s, p, pb, a) >= b
    if kind == K_GUARDIAN_COUNT:
        return n_guardians(s, pb) >= a
    if kind == K_DEPLETED_PILE:
        return (s[pb + L.P_OFF_TAKEN] >= C.OFFERING_PILE
                or s[pb + L.P_OFF_TAKEN + 1] >= C.OFFERING_PILE)
    if kind == K_CRYSTALS:
        return n_crystals(s, p, pb, a) >= b
    if kind == K_FATE_CELLS:
        return F.cells_covered(s, p, pb, a)
    if kind == K_GUARDIANS_ON_BONFIRES:
        return n_guardians_on_bonfires(s, pb) >= a
    if kind == K_TILES_IN_SUPPLY:
        # Only the depicted types count; a yellow tile never stands in for one.
        return _holds_tile_types(s, pb, a)
    if kind == K_BONFIRES:
        return n_bonfires(s, pb) >= a
    return False
