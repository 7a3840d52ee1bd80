"""The fate area: placing fate tiles, gains, connected symbol areas, covered cell sets.

The area is stored as a ``FATE_W x FATE_W`` grid (``layout``) at ``s[pb + L.P_FATE + gi]``
with ``gi = (r + FATE_M) * FATE_W + (c + FATE_M)`` for area coordinates ``(r, c)``.  The
printed area is ``p[T.FATE_ROWS] x p[T.FATE_COLS]`` cells (the ``fate_area`` variant, 5 x 5
by default); the grid holds the largest variant plus a margin that exists only for
specialist 27, whose tiles may protrude.  A cell holds a fate symbol ``0..5`` or ``-1``
when empty.
"""

from __future__ import annotations

from numba import njit

from bonfire_sim.rules import components as C
from bonfire_sim.rules import fate_masks as FM
from bonfire_sim.rules import layout as L
from bonfire_sim.rules import tables as T
from bonfire_sim.rules.payment import has_spec
from bonfire_sim.rules.stackbuf import stack_ints

NCELL = T.NCELL
SPEC_PRINT_TWICE = 16  # ability of specialist 16: printed objects gained once more
SPEC_PROTRUDE = 27  # ability of specialist 27: tiles may protrude beyond the area
PRINT_GOLD = 1  # FATE_PRINT codes
PRINT_YELLOW = 2
GOLD = C.GOLD
YELLOW = C.YELLOW
DR = (-1, 1, 0, 0)  # orthogonal neighbour steps (row, column)
DC = (0, 0, -1, 1)


@njit(cache=True)
def tile_cell(r, c, orient, i):
    """Area coordinates of symbol i of a tile whose symbol 0 lies at (r, c)."""
    if orient == 0:
        return r, c + i
    if orient == 1:
        return r, c - i
    if orient == 2:
        return r + i, c
    return r - i, c


@njit(cache=True)
def in_grid(rr, cc):
    """True if area coordinates (rr, cc) lie in the stored grid (area + margin)."""
    return -L.FATE_M <= rr < L.FATE_W - L.FATE_M and -L.FATE_M <= cc < L.FATE_W - L.FATE_M


@njit(cache=True)
def in_area(p, rr, cc):
    """True if area coordinates (rr, cc) lie in the printed fate area."""
    return 0 <= rr < p[T.FATE_ROWS] and 0 <= cc < p[T.FATE_COLS]


@njit(cache=True)
def grid_index(rr, cc):
    """Grid index (relative to P_FATE) of area coordinates (rr, cc)."""
    return (rr + L.FATE_M) * L.FATE_W + (cc + L.FATE_M)


@njit(cache=True)
def _occupied(s, pb, rr, cc):
    """True if (rr, cc) is inside the grid and covered by a symbol."""
    return in_grid(rr, cc) and s[pb + L.P_FATE + grid_index(rr, cc)] >= 0


@njit(cache=True)
def _touches(s, pb, rr, cc):
    """True if an orthogonal neighbour of (rr, cc) is covered."""
    return (_occupied(s, pb, rr - 1, cc) or _occupied(s, pb, rr + 1, cc)
            or _occupied(s, pb, rr, cc - 1) or _occupied(s, pb, rr, cc + 1))


@njit(cache=True)
def can_place(s, p, pb, r, c, orient):
    """True if a tile with symbol 0 at (r, c) in orientation orient may be placed."""
    protrude = has_spec(s, pb, SPEC_PROTRUDE)
    inside = 0
    touches = False
    for i in range(3):
        rr, cc = tile_cell(r, c, orient, i)
        if not in_grid(rr, cc) or s[pb + L.P_FATE + grid_index(rr, cc)] >= 0:
            return False
        if in_area(p, rr, cc):
            inside += 1
        # The tile's own cells are still empty here, so a touch means an earlier tile.
        if _touches(s, pb, rr, cc):
            touches = True
    if protrude:
        return touches and inside >= 1
    return touches and inside == 3


@njit(cache=True, _nrt=False)  # no reference counting: see bonfire_sim.strategies.evaluate.NO_RT
def flood(s, pb, gi, lab, stack, label):
    """Size of the same-symbol area containing grid cell gi; writes ``label`` into lab for
    each of its cells (lab < 0 = not yet visited).  0 if gi is empty or already labelled."""
    sym = s[pb + L.P_FATE + gi]
    if sym < 0 or lab[gi] >= 0:
        return 0
    lab[gi] = label
    stack[0] = gi
    top = 1
    size = 0
    while top > 0:
        top -= 1
        g = stack[top]
        size += 1
        gr = g // L.FATE_W
        gc = g % L.FATE_W
        for d in range(4):
            nr = gr + DR[d]
            nc = gc + DC[d]
            if 0 <= nr < L.FATE_W and 0 <= nc < L.FATE_W:
                ng = nr * L.FATE_W + nc
                if lab[ng] < 0 and s[pb + L.P_FATE + ng] == sym:
                    lab[ng] = label
                    stack[top] = ng
                    top += 1
    return size


@njit(cache=True, _nrt=False)  # no reference counting: see bonfire_sim.strategies.evaluate.NO_RT
def area_size(s, pb, gi):
    """Size of the connected same-symbol area containing grid cell gi (0 if empty)."""
    lab = stack_ints(NCELL)
    lab[:] = -1
    stack = stack_ints(NCELL)
    return flood(s, pb, gi, lab, stack, 0)


@njit(cache=True, _nrt=False)  # no reference counting: see bonfire_sim.strategies.evaluate.NO_RT
def count_areas(s, pb, sym, min_size):
    """Number of distinct connected areas of symbol sym (-1: any symbol) of size >= min_size."""
    lab = stack_ints(NCELL)
    lab[:] = -1
    stack = stack_ints(NCELL)
    n = 0
    for gi in range(NCELL):
        v = s[pb + L.P_FATE + gi]
        if v < 0 or lab[gi] >= 0 or (sym >= 0 and v != sym):
            continue
        if flood(s, pb, gi, lab, stack, 0) >= min_size:
            n += 1
    return n


@njit(cache=True)
def place_tile(s, p, pb, tile_id, r, c, orient):
    """Place fate tile tile_id and credit its gains; returns the action tiles gained."""
    for i in range(3):
        rr, cc = tile_cell(r, c, orient, i)
        s[pb + L.P_FATE + grid_index(rr, cc)] = p[T.FATE_TILE + tile_id * 3 + i]
    s[pb + L.P_FATE_PLACED] += 1
    mult = 2 if has_spec(s, pb, SPEC_PRINT_TWICE) else 1
    gained = 0
    for i in range(3):
        rr, cc = tile_cell(r, c, orient, i)
        if not in_area(p, rr, cc):
            s[pb + L.P_ABIL + 27] += 1  # a symbol outside the area: specialist 27 at work
        sym = p[T.FATE_TILE + tile_id * 3 + i]
        # The area after placement = the depicted tile plus every connected earlier symbol.
        n = area_size(s, pb, grid_index(rr, cc))
        s[pb + L.P_TILES + sym] += n
        gained += n
        if in_area(p, rr, cc):
            obj = p[T.FATE_PRINT + grid_index(rr, cc)]
            if obj != 0 and mult == 2:
                s[pb + L.P_ABIL + 16] += 1  # specialist 16 took effect
            if obj == PRINT_GOLD:
                s[pb + L.P_RES + GOLD] += mult
            elif obj == PRINT_YELLOW:
                s[pb + L.P_TILES + YELLOW] += mult
                gained += mult
    return gained


@njit(cache=True)
def place_start_tile(s, p, pb, tile_id):
    """Put the chosen starting fate tile on the marked centre cells (no gains)."""
    for i in range(3):
        s[pb + L.P_FATE + p[T.FATE_START + i]] = p[T.FATE_TILE + tile_id * 3 + i]
    s[pb + L.P_FATE_PLACED] = 1


@njit(cache=True)
def cells_covered(s, p, pb, set_id):
    """True if every cell of fate cell set set_id is covered."""
    for gi in range(NCELL):
        if p[T.FATE_SET + set_id * NCELL + gi] == 1 and s[pb + L.P_FATE + gi] < 0:
            return False
    return True


@njit(cache=True, _nrt=False)  # no reference counting: see bonfire_sim.strategies.evaluate.NO_RT
def has_legal_placement(s, p, pb):
    """True if some position and orientation admits a fate tile."""
    if not has_spec(s, pb, SPEC_PROTRUDE):
        return FM.any_fit(p, FM.occupied(s, p, pb), FM.touching(s, p, pb))
    for r in range(-L.FATE_M, p[T.FATE_ROWS] + L.FATE_M):
        for c in range(-L.FATE_M, p[T.FATE_COLS] + L.FATE_M):
            for orient in range(4):
                if can_place(s, p, pb, r, c, orient):
                    return True
    return False
