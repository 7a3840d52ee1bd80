"""Fate placements (option I and the council's fate bonus): the area sizes a tile's
symbols join, printed gold and jokers, cells no later tile can cover, and the discard.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from bonfire_sim.rules import fate as F
from bonfire_sim.rules import fate_masks as FM
from bonfire_sim.rules import layout as L
from bonfire_sim.rules import tables as T
from bonfire_sim.rules.payment import (
    has_spec,
)
from bonfire_sim.strategies import features as FE
from bonfire_sim.strategies.price_context import (
    CX_DLOSS,
    CX_DOVER,
    CX_OCC,
    GOLD,
    NO_RT,
    YELLOW,
)
from bonfire_sim.strategies.price_stock import discard_loss
from bonfire_sim.strategies.weights import W_DISCARD, W_FATE_COST, W_FATE_GEO, W_FATE_LOW


@njit(cache=True)
def dead_cells(s, p, pb, r, c, o, occ=-1):
    """Empty area cells that no 1x3 tile could cover after placing a tile at (r, c, o).

    ``occ``: the covered-cell mask of the area before placing (-1: read it from s).
    """
    if occ < 0:
        occ = FM.occupied(s, p, pb)
    cols = p[T.FATE_COLS]
    for i in range(3):
        rr, cc = F.tile_cell(r, c, o, i)
        if F.in_area(p, rr, cc):
            occ |= 1 << (rr * cols + cc)
    cover = 0
    for k in range(FM.n_lines(p)):
        line = FM.line_mask(p, k)
        if (line & occ) == 0:
            cover |= line
    free = ~occ & FM.full(p)
    return FM.popcount(free & ~cover), FM.popcount(free)


@njit(**NO_RT)
def free_lines(p, occ, fl):
    """Store in fl[1:] the straight triples of the area that no covered cell blocks
    (``occ``: the covered-cell mask), their number in fl[0]."""
    rows, cols = p[T.FATE_ROWS], p[T.FATE_COLS]
    m = 0
    for r in range(rows):
        for c in range(cols - 2):
            line = 7 << (r * cols + c)
            if (line & occ) == 0:
                m += 1
                fl[m] = line
    col = 1 | (1 << cols) | (1 << (2 * cols))
    for c in range(cols):
        for r in range(rows - 2):
            line = col << (r * cols + c)
            if (line & occ) == 0:
                m += 1
                fl[m] = line
    fl[0] = m


@njit(cache=True)
def dead_cells_free(p, occ, pm, fl):
    """``dead_cells`` of a placement covering the area cells ``pm``, from the free lines
    ``fl`` of the area before it (``free_lines``): a line stays free unless pm blocks it."""
    occ |= pm
    cover = 0
    for k in range(1, fl[0] + 1):
        line = fl[k]
        if (line & pm) == 0:
            cover |= line
    free = ~occ & FM.full(p)
    return FM.popcount(free & ~cover), FM.popcount(free)


# The geometry of a placement reads only the seat's grid (and the area's shape): the area
# a symbol joins on a cell, the dead and empty cells once a straight triple is covered.
# Four in five decisions with fate moves find the seat's grid as at its previous one, so
# these are kept per seat (``evaluate._label`` clears them when the grid differs), each
# computed at its first use: ``area[gi * 6 + sym]`` (0 = not yet; an area is >= 1) and
# ``lines[line_key]`` = empty * 256 + dead (-1 = not yet).
GEO_AREA = 6 * F.NCELL
GEO_LINES = 2 * F.NCELL


@njit(cache=True, inline="always")
def line_key(r, c, o):
    """Index into ``lines`` of the straight triple a placement covers, the same for a
    tile and its reverse: the grid index of its first cell x 2 + 1 if it runs down."""
    if o == 0:
        return F.grid_index(r, c) * 2
    if o == 1:
        return F.grid_index(r, c - 2) * 2
    if o == 2:
        return F.grid_index(r, c) * 2 + 1
    return F.grid_index(r - 2, c) * 2 + 1


@njit(cache=True, inline="always")
def known_area(s, pb, lab, size, area, rr, cc, sym):
    """``features.placed_area`` of symbol sym on grid cell (rr, cc), kept in ``area``."""
    j = F.grid_index(rr, cc) * 6 + sym
    a = area[j]
    if a == 0:
        a = FE.placed_area(s, pb, lab, size, rr, cc, sym)
        area[j] = a
    return a


# Inlined into ``evaluate.value_of`` (its one caller; same arithmetic): a call passed ten
# arrays as seven machine words each, for each of the ~11 fate moves of a decision.  Long:
# a tile's three cells, the geometry test and the discard, in the order they are priced.
@njit(cache=True, inline="always")
def fate_value(s, p, pb, end, r, c, o, discard, sc):
    """Value of option I / the council's fate bonus: gains from the area sizes, no apply.

    ``sc`` is the decision's ``Scratch``: its ``Prices``; ``lab``/``size``, the area
    labelling (``features.fate_labels``); ``fl``, the free lines of the area
    (``free_lines``, made at the decision's first dead-cell count: CX_OCC >= 0 from then);
    ``area``/``lines``, the seat's geometry kept while its grid is unchanged (``GEO_AREA``).
    """
    w, cx, nd, tv, rv = sc.pr.w, sc.pr.cx, sc.pr.nd, sc.pr.tv, sc.pr.rv
    lab, size, fl, area, lines = sc.lab, sc.size, sc.fl, sc.area, sc.lines
    lo = s[pb + L.P_FATE_LO]
    tile = s[pb + L.P_FATE_SUP + lo] if end == 0 else s[pb + L.P_FATE_SUP + s[pb + L.P_FATE_HI] - 1]
    mult = 2 if has_spec(s, pb, 16) else 1
    cols = p[T.FATE_COLS]
    pm = 0  # the area cells the tile covers
    v = -w[W_FATE_COST]
    for i in range(3):
        rr, cc = F.tile_cell(r, c, o, i)
        sym = p[T.FATE_TILE + tile * 3 + i]
        a = known_area(s, pb, lab, size, area, rr, cc, sym)
        v += a * tv[sym] + nd[FE.N_FATESYM + sym] * min(a - 1, 3) / 3.0
        if s[pb + L.P_TILES + sym] == 0:
            v += nd[FE.N_TILE + sym]  # Y15-Y17: a type the supply lacks
        if F.in_area(p, rr, cc):
            pm |= 1 << (rr * cols + cc)
            cell = F.grid_index(rr, cc)
            obj = p[T.FATE_PRINT + cell]
            if obj == 1:
                v += mult * rv[GOLD]
            elif obj == 2:
                v += mult * tv[YELLOW]
            for j in range(3):
                if p[T.FATE_SET + j * F.NCELL + cell] == 1:
                    v += nd[FE.N_FATECELL + j] / 3.0
    if w[W_FATE_GEO] > 0.0:
        # keep room for the tiles still in the column (each placement is ~4-5 tiles)
        key = line_key(r, c, o)
        known = lines[key]
        if known < 0:
            if cx[CX_OCC] < 0.0:  # the decision's first count: the area's free lines
                occ = FM.occupied(s, p, pb)
                cx[CX_OCC] = occ
                free_lines(p, occ, fl)
            dd, ee = dead_cells_free(p, np.int64(cx[CX_OCC]), pm, fl)
            known = ee * 256 + dd
            lines[key] = known
        dead = known & 255
        empty = known >> 8
        left = s[pb + L.P_FATE_HI] - s[pb + L.P_FATE_LO] - 1
        slack = empty - 3 * left
        if dead > slack:
            v -= w[W_FATE_GEO] * (dead - slack)
    if discard:
        over = cx[CX_DOVER]  # the same for every placement: known after the first
        if over < 0.0:
            held = 0
            for k in range(7):
                held += s[pb + L.P_TILES + k]
            limit = 3 if has_spec(s, pb, 14) else p[T.TILE_LIMIT]
            over = 1.0 if held > limit else 0.0
            if held > limit:
                cx[CX_DLOSS] = discard_loss(s, pb, held - limit, tv)
            cx[CX_DOVER] = over
        if over > 0.0:
            v -= w[W_DISCARD] * cx[CX_DLOSS]
        else:
            v += w[W_FATE_LOW]
    return v
