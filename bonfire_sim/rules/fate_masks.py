"""Bit masks of the printed fate area, for the placement checks on the hot path.

Every turn asks "can this player still place a fate tile?" and every option-I decision
lists the legal placements; done cell by cell (``fate.can_place``) that is hundreds of
grid reads per decision.  Without specialist 27 a tile must lie wholly inside the 5 x 5
area, so the area fits in one integer (cell (r, c) is bit ``r * 5 + c``) and a placement
is legal exactly when its three cells are empty and one of them has a covered
neighbour: two mask tests.  Specialist 27 (tiles may protrude into the margin) keeps the
cell-by-cell check; ``tests/rules/test_fate_masks.py`` proves both agree.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from bonfire_sim.rules import layout as L

AREA = 5
FULL = (1 << (AREA * AREA)) - 1


def _placement_masks() -> np.ndarray:
    """Mask of the cells of a tile with symbol 0 at (r, c) in orientation o, index
    ``(r * 5 + c) * 4 + o``; -1 where the tile would leave the area (see ``fate.tile_cell``)."""
    steps = ((0, 1), (0, -1), (1, 0), (-1, 0))
    out = np.full(AREA * AREA * 4, -1, np.int64)
    for r in range(AREA):
        for c in range(AREA):
            for o, (dr, dc) in enumerate(steps):
                cells = [(r + i * dr, c + i * dc) for i in range(3)]
                if all(0 <= rr < AREA and 0 <= cc < AREA for rr, cc in cells):
                    out[(r * AREA + c) * 4 + o] = sum(1 << (rr * AREA + cc) for rr, cc in cells)
    return out


def _lines() -> np.ndarray:
    """The 30 straight triples of the area: rows first, then columns."""
    rows = [sum(1 << (r * AREA + c + i) for i in range(3)) for r in range(AREA)
            for c in range(AREA - 2)]
    cols = [sum(1 << ((r + i) * AREA + c) for i in range(3)) for c in range(AREA)
            for r in range(AREA - 2)]
    return np.array(rows + cols, np.int64)


PLACEMENT = _placement_masks()
LINES = _lines()


@njit(cache=True)
def occupied(s, pb):
    """Mask of the covered cells of the area."""
    m = 0
    for r in range(AREA):
        base = pb + L.P_FATE + (r + L.FATE_M) * L.FATE_W + L.FATE_M
        for c in range(AREA):
            if s[base + c] >= 0:
                m |= 1 << (r * AREA + c)
    return m


@njit(cache=True)
def touching(s, pb):
    """Mask of the area cells with a covered orthogonal neighbour (margin included)."""
    m = 0
    w = L.FATE_W
    for r in range(AREA):
        for c in range(AREA):
            g = pb + L.P_FATE + (r + L.FATE_M) * w + c + L.FATE_M
            if s[g - w] >= 0 or s[g + w] >= 0 or s[g - 1] >= 0 or s[g + 1] >= 0:
                m |= 1 << (r * AREA + c)
    return m


@njit(cache=True)
def fits(mask, occ, touch):
    """A placement with cell mask ``mask`` (-1: leaves the area) is legal inside the area."""
    return mask >= 0 and (mask & occ) == 0 and (mask & touch) != 0


@njit(cache=True)
def any_fit(occ, touch):
    """Some placement inside the area is legal (a tile covers a straight triple)."""
    for k in range(LINES.shape[0]):
        if fits(LINES[k], occ, touch):
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
