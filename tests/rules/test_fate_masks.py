"""The bit-mask placement checks agree with the cell-by-cell rule (``fate.can_place``).

``fate_masks`` replaces the cell-by-cell scan on the hot path when specialist 27 is not
owned; these tests fill fate areas of every ``fate_area`` variant at random (margin cells
included, as a protruding tile would leave them) and compare every placement, the "any
placement" answer and the evaluator's dead-cell count with straightforward
re-implementations.
"""

from __future__ import annotations

import numpy as np
import pytest

from bonfire_sim.rules import components as C
from bonfire_sim.rules import fate as F
from bonfire_sim.rules import fate_masks as FM
from bonfire_sim.rules import layout as L
from bonfire_sim.rules import tables as T
from bonfire_sim.rules.fate_option import gen_fate
from bonfire_sim.rules.state import StateBuilder
from bonfire_sim.strategies.price_fate import dead_cells

PB = L.player_base(0)
AREAS = [v.name for v in C.VARIANTS["fate_area"]]


def _params(area: str) -> np.ndarray:
    return T.build_params(variants={"fate_area": area})


def _dims(p: np.ndarray) -> tuple[int, int]:
    return int(p[T.FATE_ROWS]), int(p[T.FATE_COLS])


def _random_area(p: np.ndarray, rng: np.random.Generator, density: float,
                 margin: bool) -> np.ndarray:
    rows, cols = _dims(p)
    s = StateBuilder().build()
    for rr in range(-L.FATE_M, rows + L.FATE_M):
        for cc in range(-L.FATE_M, cols + L.FATE_M):
            inside = F.in_area(p, rr, cc)
            if (inside or margin) and rng.random() < density:
                s[PB + L.P_FATE + F.grid_index(rr, cc)] = int(rng.integers(0, 6))
    return s


def _slow_legal(p: np.ndarray, s: np.ndarray) -> list[tuple[int, int, int]]:
    rows, cols = _dims(p)
    return [(r, c, o) for r in range(rows) for c in range(cols) for o in range(4)
            if F.can_place(s, p, PB, r, c, o)]


def _slow_dead(p: np.ndarray, s: np.ndarray, r: int, c: int, o: int) -> tuple[int, int]:
    rows, cols = _dims(p)
    occ = np.array([[s[PB + L.P_FATE + F.grid_index(rr, cc)] >= 0 for cc in range(cols)]
                    for rr in range(rows)])
    for i in range(3):
        rr, cc = F.tile_cell(r, c, o, i)
        if F.in_area(p, rr, cc):
            occ[rr, cc] = True
    cover = np.zeros((rows, cols), bool)
    for a in range(rows):
        for b in range(cols - 2):
            if not occ[a, b:b + 3].any():
                cover[a, b:b + 3] = True
    for a in range(cols):
        for b in range(rows - 2):
            if not occ[b:b + 3, a].any():
                cover[b:b + 3, a] = True
    return int((~occ & ~cover).sum()), int((~occ).sum())


@pytest.mark.parametrize("area", AREAS)
@pytest.mark.parametrize("density", [0.15, 0.35, 0.6, 0.85])
@pytest.mark.parametrize("margin", [False, True])
def test_masks_agree_with_can_place(area, density, margin):
    p = _params(area)
    rows, cols = _dims(p)
    rng = np.random.default_rng(int(density * 100) + margin)
    for _ in range(40):
        s = _random_area(p, rng, density, margin)
        legal = _slow_legal(p, s)
        occ, touch = FM.occupied(s, p, PB), FM.touching(s, p, PB)
        fast = [(r, c, o) for r in range(rows) for c in range(cols) for o in range(4)
                if FM.fits(FM.placement(p, r, c, o), occ, touch)]
        assert fast == legal
        assert F.has_legal_placement(s, p, PB) == bool(legal)


@pytest.mark.parametrize("area", AREAS)
def test_gen_fate_lists_the_cell_by_cell_placements_in_order(area):
    p = _params(area)
    rng = np.random.default_rng(7)
    buf = np.zeros((L.MAX_MOVES, L.MOVE_W), np.int64)
    for _ in range(30):
        s = _random_area(p, rng, 0.4, False)
        s[PB + L.P_FATE_LO], s[PB + L.P_FATE_HI] = 0, 5
        n = gen_fate(s, p, PB, buf, 0, L.M_FATE)
        expected = [(L.M_FATE, e, r, c, o) for r, c, o in _slow_legal(p, s) for e in range(2)]
        assert [tuple(int(x) for x in row) for row in buf[:n]] == expected


@pytest.mark.parametrize("area", AREAS)
def test_an_area_without_room_has_no_placement_and_a_fresh_one_has(area):
    p = _params(area)
    s = StateBuilder().build()
    s[PB + L.P_FATE + F.grid_index(1, 2)] = 0
    assert F.has_legal_placement(s, p, PB)
    full = _random_area(p, np.random.default_rng(1), 1.0, False)
    assert not F.has_legal_placement(full, p, PB)


@pytest.mark.parametrize("area", AREAS)
def test_dead_cells_match_a_direct_count(area):
    p = _params(area)
    rng = np.random.default_rng(3)
    for _ in range(30):
        s = _random_area(p, rng, 0.35, False)
        for r, c, o in _slow_legal(p, s)[:6]:
            assert tuple(dead_cells(s, p, PB, r, c, o)) == _slow_dead(p, s, r, c, o)


def test_masks_span_each_area_exactly():
    for area in AREAS:
        p = _params(area)
        rows, cols = _dims(p)
        assert FM.full(p) == (1 << (rows * cols)) - 1
        lines = [FM.line_mask(p, k) for k in range(FM.n_lines(p))]
        assert len(set(lines)) == rows * (cols - 2) + cols * (rows - 2)
        assert all(FM.popcount(m) == 3 and m & ~FM.full(p) == 0 for m in lines)


def test_popcount_counts_bits():
    rng = np.random.default_rng(11)
    for x in [0, 1, (1 << 25) - 1, *rng.integers(0, 1 << 62, 200).tolist()]:
        assert FM.popcount(x) == bin(x).count("1")
