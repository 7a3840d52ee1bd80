"""Fate area: placement legality, gains from connected areas and printed symbols, areas."""

from __future__ import annotations

import numpy as np
import pytest

from bonfire_sim.rules import components as C
from bonfire_sim.rules import fate as F
from bonfire_sim.rules import layout as L
from bonfire_sim.rules import tables as T
from bonfire_sim.rules.state import StateBuilder, fate_index

P = T.DEFAULT_PARAMS
PB = L.player_base(0)
SHIP, PATH, TASK, FIRE, GUARD, GNOME, YELLOW = range(7)
GOLD = C.GOLD


def _tile(*names: str) -> int:
    """Index of the fate tile showing exactly these symbols in this order."""
    return C.FATE_TILES.index(tuple(names))


def _started(tile: int = 0, *specialists: int) -> np.ndarray:
    """A state whose seat 0 has the starting fate tile ``tile`` and the given specialists."""
    b = StateBuilder()
    for ability in specialists:
        b.specialist(0, ability)
    s = b.build()
    F.place_start_tile(s, P, PB, tile)
    return s


def _tiles(s: np.ndarray) -> list[int]:
    return s[PB + L.P_TILES:PB + L.P_TILES + 7].tolist()


def test_tile_cells_follow_the_four_orientations():
    assert [F.tile_cell(1, 2, 0, i) for i in range(3)] == [(1, 2), (1, 3), (1, 4)]
    assert [F.tile_cell(1, 2, 1, i) for i in range(3)] == [(1, 2), (1, 1), (1, 0)]
    assert [F.tile_cell(1, 2, 2, i) for i in range(3)] == [(1, 2), (2, 2), (3, 2)]
    assert [F.tile_cell(1, 2, 3, i) for i in range(3)] == [(1, 2), (0, 2), (-1, 2)]


def test_starting_tile_lies_on_the_centre_row_without_gains():
    s = _started(_tile("ship", "path", "task"))
    assert [s[PB + L.P_FATE + fate_index(2, c)] for c in (1, 2, 3)] == [SHIP, PATH, TASK]
    assert s[PB + L.P_FATE_PLACED] == 1
    assert _tiles(s) == [0] * 7


def test_a_tile_orthogonally_next_to_a_placed_tile_may_be_placed():
    s = _started()
    assert F.can_place(s, P, PB, 1, 1, 0)  # row 1, above the starting tile
    assert F.can_place(s, P, PB, 0, 0, 2)  # column 0 rows 0-2: (2, 0) touches (2, 1)


def test_a_tile_touching_only_diagonally_may_not_be_placed():
    s = StateBuilder().fate(0, {(2, 0): "ship", (3, 0): "fire", (4, 0): "guard"}).build()
    # Row 1, columns 1-3: (1, 1) touches (2, 0) only at a corner.
    assert not F.can_place(s, P, PB, 1, 1, 0)
    # One column to the left, (1, 0) lies directly above (2, 0).
    assert F.can_place(s, P, PB, 1, 0, 0)


def test_a_tile_may_not_cover_another_tile():
    s = _started()
    assert not F.can_place(s, P, PB, 1, 2, 2)  # column 2 rows 1-3 crosses (2, 2)
    assert not F.can_place(s, P, PB, 2, 0, 0)  # row 2 columns 0-2 overlaps two cells


def test_a_tile_may_not_be_placed_without_any_neighbour():
    s = _started()
    assert not F.can_place(s, P, PB, 4, 0, 0)  # bottom row is two rows away


def test_a_tile_may_not_protrude_beyond_the_fate_area():
    s = _started()
    assert not F.can_place(s, P, PB, 1, 3, 0)  # row 1 columns 3-5
    assert not F.can_place(s, P, PB, 1, 1, 3)  # column 1 rows 1, 0, -1


def test_specialist_27_lets_a_tile_protrude_while_one_symbol_stays_inside():
    s = _started(0, 27)
    assert F.can_place(s, P, PB, 1, 3, 0)  # two symbols outside, (1, 3) inside
    assert F.can_place(s, P, PB, 2, 4, 0)  # only (2, 4) inside
    F.place_tile(s, P, PB, 1, 1, 3, 0)  # now (1, 5) in the margin is covered
    # Column 5 rows 2-4 touches (1, 5) but no symbol would lie in the area.
    assert not F.can_place(s, P, PB, 2, 5, 2)
    # Column 4 rows 2-4 is fully inside and touches (2, 3) and (1, 4).
    assert F.can_place(s, P, PB, 2, 4, 2)


def test_positions_beyond_the_stored_margin_are_rejected():
    s = _started(0, 27)
    F.place_tile(s, P, PB, 1, 1, 4, 0)  # (1, 4), (1, 5), (1, 6): 6 is the last grid column
    assert not F.can_place(s, P, PB, 0, 5, 0)  # (0, 7) lies outside the grid
    assert not F.can_place(s, P, PB, -3, 2, 2)


def test_the_rulebook_example_gains_three_two_and_one_action_tiles():
    # Start: ship-path-task on row 2; ship-fire-guard above it; ship-fire-task below it.
    # The last tile's ship joins the ship area of 2 above it (3 tiles), its task joins the
    # starting tile's task (2 tiles), its fire touches no fire (1 tile) - like the white,
    # purple and red symbols of the rulebook picture.
    s = _started(_tile("ship", "path", "task"))
    F.place_tile(s, P, PB, _tile("ship", "fire", "guard"), 1, 1, 0)
    s[PB + L.P_TILES:PB + L.P_TILES + 7] = 0
    gained = F.place_tile(s, P, PB, _tile("ship", "fire", "task"), 3, 1, 0)
    assert gained == 6
    assert _tiles(s) == [3, 0, 2, 1, 0, 0, 0]
    assert s[PB + L.P_RES + GOLD] == 0
    assert s[PB + L.P_FATE_PLACED] == 3


def test_the_first_placed_tile_gains_the_areas_it_joins():
    s = _started(_tile("ship", "path", "task"))
    gained = F.place_tile(s, P, PB, _tile("ship", "fire", "guard"), 1, 1, 0)
    # Ship joins the starting ship (2); fire over path and guard over task touch nothing.
    assert gained == 4
    assert _tiles(s) == [2, 0, 0, 1, 1, 0, 0]


def test_covering_a_printed_gold_and_a_printed_yellow_symbol_gains_both():
    s = StateBuilder().fate(0, {(1, 0): "ship", (1, 1): "path", (1, 2): "task"}).build()
    gained = F.place_tile(s, P, PB, _tile("fire", "guard", "gnome"), 0, 0, 0)
    # (0, 0) is a gold corner, (0, 2) a yellow action tile.
    assert s[PB + L.P_RES + GOLD] == 1
    assert _tiles(s) == [0, 0, 0, 1, 1, 1, 1]
    assert gained == 4


def test_covering_a_printed_yellow_symbol_gains_one_yellow_action_tile():
    s = _started()
    gained = F.place_tile(s, P, PB, _tile("fire", "guard", "gnome"), 1, 4, 2)  # (2, 4)
    assert _tiles(s)[YELLOW] == 1
    assert s[PB + L.P_RES + GOLD] == 0
    assert gained == 4


def test_specialist_16_doubles_every_printed_object_gained():
    b = StateBuilder().specialist(0, 16)
    s = b.fate(0, {(1, 0): "ship", (1, 1): "path", (1, 2): "task"}).build()
    gained = F.place_tile(s, P, PB, _tile("fire", "guard", "gnome"), 0, 0, 0)
    assert s[PB + L.P_RES + GOLD] == 2
    assert _tiles(s)[YELLOW] == 2
    assert gained == 5


def test_placing_does_not_touch_the_supply_column():
    s = _started()
    s[PB + L.P_FATE_LO], s[PB + L.P_FATE_HI] = 1, 8
    F.place_tile(s, P, PB, 1, 1, 1, 0)
    assert (s[PB + L.P_FATE_LO], s[PB + L.P_FATE_HI]) == (1, 8)


def test_area_size_counts_the_connected_same_symbol_cells():
    s = StateBuilder().fate(0, {(0, 0): "ship", (0, 1): "ship", (1, 1): "ship",
                                (2, 2): "ship", (1, 0): "path"}).build()
    assert F.area_size(s, PB, fate_index(0, 0)) == 3
    assert F.area_size(s, PB, fate_index(2, 2)) == 1  # diagonal does not connect
    assert F.area_size(s, PB, fate_index(1, 0)) == 1
    assert F.area_size(s, PB, fate_index(4, 4)) == 0


def test_count_areas_counts_distinct_areas_of_a_symbol_or_of_any_symbol():
    cells = {(0, 0): "ship", (0, 1): "ship", (0, 2): "ship",  # ship area of 3
             (2, 0): "ship",  # a lone ship
             (4, 0): "path", (4, 1): "path", (4, 2): "path", (3, 2): "path"}  # path of 4
    s = StateBuilder().fate(0, cells).build()
    assert F.count_areas(s, PB, SHIP, 3) == 1
    assert F.count_areas(s, PB, SHIP, 1) == 2
    assert F.count_areas(s, PB, PATH, 4) == 1
    assert F.count_areas(s, PB, FIRE, 1) == 0
    assert F.count_areas(s, PB, -1, 3) == 2
    assert F.count_areas(s, PB, -1, 4) == 1


def test_an_area_may_extend_into_the_margin():
    s = StateBuilder().fate(0, {(0, 4): "gnome", (0, 5): "gnome", (0, 6): "gnome",
                                (-1, 6): "gnome"}).build()
    assert F.count_areas(s, PB, GNOME, 4) == 1
    assert F.area_size(s, PB, fate_index(-1, 6)) == 4


@pytest.mark.parametrize("set_id, cells", [
    (0, C.FATE_AREA_5X5.highlighted),
    (1, tuple((r, c) for r in range(5) for c in C.FATE_AREA_5X5.outer_columns)),
    (2, C.FATE_AREA_5X5.gold_cells),
])
def test_a_cell_set_is_covered_only_when_every_cell_is(set_id, cells):
    full = {cell: "fire" for cell in cells}
    s = StateBuilder().fate(0, full).build()
    assert F.cells_covered(s, P, PB, set_id)
    missing = dict(full)
    del missing[cells[-1]]
    s = StateBuilder().fate(0, missing).build()
    assert not F.cells_covered(s, P, PB, set_id)


def test_a_full_fate_area_has_no_legal_placement():
    s = StateBuilder().fate(0, {(r, c): "ship" for r in range(5) for c in range(5)}).build()
    assert not F.has_legal_placement(s, P, PB)
    assert F.has_legal_placement(_started(), P, PB)


def test_a_full_fate_area_with_specialist_27_has_no_legal_placement():
    # Every protruding tile would need an empty area cell to keep one symbol inside.
    b = StateBuilder().specialist(0, 27)
    s = b.fate(0, {(r, c): "ship" for r in range(5) for c in range(5)}).build()
    assert not F.has_legal_placement(s, P, PB)
