"""The bit-mask placement checks agree with the cell-by-cell rule (``fate.can_place``).

``fate_masks`` replaces the cell-by-cell scan on the hot path when specialist 27 is not
owned; these tests fill fate areas at random (margin cells included, as a protruding
tile would leave them) and compare every placement, the "any placement" answer and the
evaluator's dead-cell count with straightforward re-implementations.
"""

from __future__ import annotations

import numpy as np
import pytest

from bonfire_sim.rules import fate as F
from bonfire_sim.rules import fate_masks as FM
from bonfire_sim.rules import layout as L
from bonfire_sim.rules import tables as T
from bonfire_sim.rules.fate_option import gen_fate
from bonfire_sim.rules.state import StateBuilder
from strategies import evaluate as E

P = T.DEFAULT_PARAMS
PB = L.player_base(0)


def _random_area(rng: np.random.Generator, density: float, margin: bool) -> np.ndarray:
    s = StateBuilder().build()
    for rr in range(-L.FATE_M, 5 + L.FATE_M):
        for cc in range(-L.FATE_M, 5 + L.FATE_M):
            inside = F.in_area(rr, cc)
            if (inside or margin) and rng.random() < density:
                s[PB + L.P_FATE + F.grid_index(rr, cc)] = int(rng.integers(0, 6))
    return s


def _slow_legal(s: np.ndarray) -> list[tuple[int, int, int]]:
    return [(r, c, o) for r in range(5) for c in range(5) for o in range(4)
            if F.can_place(s, PB, r, c, o)]


def _slow_dead(s: np.ndarray, r: int, c: int, o: int) -> tuple[int, int]:
    occ = np.array([[s[PB + L.P_FATE + F.grid_index(rr, cc)] >= 0 for cc in range(5)]
                    for rr in range(5)])
    for i in range(3):
        rr, cc = F.tile_cell(r, c, o, i)
        if F.in_area(rr, cc):
            occ[rr, cc] = True
    cover = np.zeros((5, 5), bool)
    for a in range(5):
        for b in range(3):
            if not occ[a, b:b + 3].any():
                cover[a, b:b + 3] = True
            if not occ[b:b + 3, a].any():
                cover[b:b + 3, a] = True
    return int((~occ & ~cover).sum()), int((~occ).sum())


@pytest.mark.parametrize("density", [0.15, 0.35, 0.6, 0.85])
@pytest.mark.parametrize("margin", [False, True])
def test_masks_agree_with_can_place(density, margin):
    rng = np.random.default_rng(int(density * 100) + margin)
    for _ in range(40):
        s = _random_area(rng, density, margin)
        legal = _slow_legal(s)
        occ, touch = FM.occupied(s, PB), FM.touching(s, PB)
        fast = [(r, c, o) for r in range(5) for c in range(5) for o in range(4)
                if FM.fits(FM.PLACEMENT[(r * 5 + c) * 4 + o], occ, touch)]
        assert fast == legal
        assert F.has_legal_placement(s, PB) == bool(legal)


def test_gen_fate_lists_the_cell_by_cell_placements_in_order():
    rng = np.random.default_rng(7)
    buf = np.zeros((L.MAX_MOVES, L.MOVE_W), np.int64)
    for _ in range(30):
        s = _random_area(rng, 0.4, False)
        s[PB + L.P_FATE_LO], s[PB + L.P_FATE_HI] = 0, 5
        n = gen_fate(s, P, PB, buf, 0, L.M_FATE)
        expected = [(L.M_FATE, e, r, c, o) for r, c, o in _slow_legal(s) for e in range(2)]
        assert [tuple(int(x) for x in row) for row in buf[:n]] == expected


def test_an_area_without_room_has_no_placement_and_a_fresh_one_has():
    s = StateBuilder().build()
    s[PB + L.P_FATE + F.grid_index(2, 2)] = 0
    assert F.has_legal_placement(s, PB)
    full = _random_area(np.random.default_rng(1), 1.0, False)
    assert not F.has_legal_placement(full, PB)


def test_dead_cells_match_a_direct_count():
    rng = np.random.default_rng(3)
    for _ in range(30):
        s = _random_area(rng, 0.35, False)
        for r, c, o in _slow_legal(s)[:6]:
            assert tuple(E.dead_cells(s, PB, r, c, o)) == _slow_dead(s, r, c, o)


def test_popcount_counts_bits():
    rng = np.random.default_rng(11)
    for x in [0, 1, FM.FULL, *rng.integers(0, 1 << 62, 200).tolist()]:
        assert FM.popcount(x) == bin(x).count("1")
