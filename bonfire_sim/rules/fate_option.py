"""Option I: place a fate tile and gain action tiles (rulebook p.7, RULINGS 8).

The geometry and the gains live in ``fate``; this module turns them into moves: which end
of the column (top or bottom), where (row, column of symbol 0), which orientation.
"""

from __future__ import annotations

from numba import njit

from bonfire_sim.rules import components as C
from bonfire_sim.rules import fate_masks as FM
from bonfire_sim.rules import layout as L
from bonfire_sim.rules import tables as T
from bonfire_sim.rules.fate import can_place, place_tile
from bonfire_sim.rules.movebuf import add
from bonfire_sim.rules.payment import has_spec, note

YELLOW = C.YELLOW


@njit(cache=True)
def supply_size(s, pb):
    """Fate tiles left in the column."""
    return s[pb + L.P_FATE_HI] - s[pb + L.P_FATE_LO]


@njit(cache=True)
def gen_fate(s, p, pb, out, n, kind):
    """Every placement of the top or bottom column tile (symbol-0 cell x orientation)."""
    if supply_size(s, pb) <= 0:
        return n
    ends = 1 if supply_size(s, pb) == 1 else 2
    if not has_spec(s, pb, 27):
        occ = FM.occupied(s, p, pb)
        touch = FM.touching(s, p, pb)
        cols = p[T.FATE_COLS]
        for r in range(p[T.FATE_ROWS]):
            for c in range(cols):
                if (occ >> (r * cols + c)) & 1:
                    continue  # every placement covers its symbol-0 cell
                for o in range(4):
                    if FM.fits(FM.placement(p, r, c, o), occ, touch):
                        for e in range(ends):
                            n = add(out, n, kind, e, r, c, o)
        return n
    m = L.FATE_M  # specialist 27: tiles may protrude into the margin
    for r in range(-m, p[T.FATE_ROWS] + m):
        for c in range(-m, p[T.FATE_COLS] + m):
            for o in range(4):
                if can_place(s, p, pb, r, c, o):
                    for e in range(ends):
                        n = add(out, n, kind, e, r, c, o)
    return n


@njit(cache=True)
def tile_limit(s, p, pb):
    """Action tiles one may keep when placing a fate tile (specialist 14: 3)."""
    return 3 if has_spec(s, pb, 14) else p[T.TILE_LIMIT]


@njit(cache=True)
def discard_down_to(s, pb, limit):
    """Discard excess action tiles, keeping yellow first, then the most plentiful types."""
    base = pb + L.P_TILES
    total = 0
    for k in range(7):
        total += s[base + k]
    while total > limit:
        worst = -1  # the non-yellow type with the fewest tiles goes first
        for k in range(6):
            if s[base + k] > 0 and (worst < 0 or s[base + k] < s[base + worst]):
                worst = k
        if worst < 0:
            worst = YELLOW
        s[base + worst] -= 1
        total -= 1


@njit(cache=True)
def _n_tiles(s, pb):
    n = 0
    for k in range(7):
        n += s[pb + L.P_TILES + k]
    return n


@njit(cache=True)
def take_fate_tile(s, pb, end):
    """Remove the top (end 0) or bottom (end 1) tile of the column and return it."""
    if end == 0:
        t = s[pb + L.P_FATE_SUP + s[pb + L.P_FATE_LO]]
        s[pb + L.P_FATE_LO] += 1
    else:
        s[pb + L.P_FATE_HI] -= 1
        t = s[pb + L.P_FATE_SUP + s[pb + L.P_FATE_HI]]
    return t


@njit(cache=True)
def do_fate(s, p, pb, end, r, c, orient, discard):
    """Discard to the limit (not for the council bonus), then place and gain."""
    if discard:
        limit = tile_limit(s, p, pb)
        if limit > 1 and _n_tiles(s, pb) > 1:
            note(s, pb, 14)  # keeps more than one tile
        discard_down_to(s, pb, limit)
    t = take_fate_tile(s, pb, end)
    place_tile(s, p, pb, t, r, c, orient)
