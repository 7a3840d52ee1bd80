"""Bit masks of the printed fate area, for the placement checks on the hot path.

Every turn asks "can this player still place a fate tile?" and every option-I decision
lists the legal placements; done cell by cell (``fate.can_place``) that is hundreds of
grid reads per decision.  Without specialist 27 a tile must lie wholly inside the area,
so the area fits in one integer (cell (r, c) is bit ``r * cols + c``; the area's rows and
columns come from the parameter vector, so every ``fate_area`` variant is served) and a
placement is legal exactly when its three cells are empty and one of them has a covered
neighbour: two mask tests.  Specialist 27 (tiles may protrude into the margin) keeps the
cell-by-cell check; ``tests/rules/test_fate_masks.py`` proves both agree.
"""

from __future__ import annotations

from numba import njit

from bonfire_sim.rules import layout as L
from bonfire_sim.rules import tables as T

# (row step, column step) of a tile's symbols i = 0, 1, 2 per orientation (fate.tile_cell)
STEPS = ((0, 1), (0, -1), (1, 0), (-1, 0))


@njit(cache=True)
def full(p):
    """Mask of every cell of the area."""
    return (1 << (p[T.FATE_ROWS] * p[T.FATE_COLS])) - 1


@njit(cache=True)
def placement(p, r, c, o):
    """Mask of the cells of a tile with symbol 0 at (r, c) in orientation o; -1 where the
    tile would leave the area."""
    rows, cols = p[T.FATE_ROWS], p[T.FATE_COLS]
    dr, dc = STEPS[o]
    m = 0
    for i in range(3):
        rr, cc = r + i * dr, c + i * dc
        if rr < 0 or rr >= rows or cc < 0 or cc >= cols:
            return -1
        m |= 1 << (rr * cols + cc)
    return m


@njit(cache=True)
def occupied(s, p, pb):
    """Mask of the covered cells of the area."""
    rows, cols = p[T.FATE_ROWS], p[T.FATE_COLS]
    m = 0
    for r in range(rows):
        base = pb + L.P_FATE + (r + L.FATE_M) * L.FATE_W + L.FATE_M
        for c in range(cols):
            if s[base + c] >= 0:
                m |= 1 << (r * cols + c)
    return m


@njit(cache=True)
def touching(s, p, pb):
    """Mask of the area cells with a covered orthogonal neighbour (margin included)."""
    rows, cols = p[T.FATE_ROWS], p[T.FATE_COLS]
    m = 0
    w = L.FATE_W
    for r in range(rows):
        for c in range(cols):
            g = pb + L.P_FATE + (r + L.FATE_M) * w + c + L.FATE_M
            if s[g - w] >= 0 or s[g + w] >= 0 or s[g - 1] >= 0 or s[g + 1] >= 0:
                m |= 1 << (r * cols + c)
    return m


@njit(cache=True)
def fits(mask, occ, touch):
    """A placement with cell mask ``mask`` (-1: leaves the area) is legal inside the area."""
    return mask >= 0 and (mask & occ) == 0 and (mask & touch) != 0


@njit(cache=True)
def line_mask(p, k):
    """Straight triple k of the area (rows first, then columns); 0 past the last one."""
    rows, cols = p[T.FATE_ROWS], p[T.FATE_COLS]
    n_rows = rows * (cols - 2)
    if k < n_rows:
        r, c = k // (cols - 2), k % (cols - 2)
        return 7 << (r * cols + c)
    k -= n_rows
    if k < cols * (rows - 2):
        c, r = k // (rows - 2), k % (rows - 2)
        return (1 << (r * cols + c)) | (1 << ((r + 1) * cols + c)) | (1 << ((r + 2) * cols + c))
    return 0


@njit(cache=True)
def n_lines(p):
    """Number of straight triples in the area."""
    rows, cols = p[T.FATE_ROWS], p[T.FATE_COLS]
    return rows * (cols - 2) + cols * (rows - 2)


@njit(cache=True)
def any_fit(p, occ, touch):
    """Some placement inside the area is legal (a tile covers a straight triple)."""
    for k in range(n_lines(p)):
        if fits(line_mask(p, k), occ, touch):
            return True
    return False


@njit(cache=True)
def popcount(x):
    """Number of set bits of a non-negative mask."""
    x = x - ((x >> 1) & 0x5555555555555555)  # bits counted in pairs, nibbles, bytes
    x = (x & 0x3333333333333333) + ((x >> 2) & 0x3333333333333333)
    x = (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0F
    x = x + (x >> 8)  # then the bytes summed (no multiply: it would overflow int64)
    x = x + (x >> 16)
    x = x + (x >> 32)
    return x & 0x7F
