"""Strategy features: what a held task still needs, and when it can no longer be done.

Tiny hand-built states (``StateBuilder``), one feature each, with a neighbouring case where
the answer changes.
"""

from __future__ import annotations

import numpy as np

from bonfire_sim.rules import components as C
from bonfire_sim.rules import layout as L
from bonfire_sim.rules import tables as T
from bonfire_sim.rules.state import StateBuilder
from bonfire_sim.strategies import features as FE

P = T.DEFAULT_PARAMS
SEAT = 0
PB = L.player_base(SEAT)
HERB_ISLANDS = [i for i, isl in enumerate(C.ISLANDS) if isl[:2] == ("task", "herb")]


def with_column(s: np.ndarray, left: int) -> np.ndarray:
    """Seat 0 has ``left`` fate tiles in its column (tile ids 8 - left .. 7)."""
    for i in range(C.N_FATE_TILES):
        s[PB + L.P_FATE_SUP + i] = i
    s[PB + L.P_FATE_LO] = C.N_FATE_TILES - left
    s[PB + L.P_FATE_HI] = C.N_FATE_TILES
    return s


def distance(s: np.ndarray, task: str) -> float:
    return FE.task_distance(s, P, SEAT, T.task_index(task), -1, False)


def start_tile_builder() -> StateBuilder:
    """Seat 0's fate area holds only the starting tile (row 2, columns 1-3)."""
    return StateBuilder().fate(SEAT, {(2, 1): "ship", (2, 2): "path", (2, 3): "task"})


# ---- fate area ----------------------------------------------------------------------------
def max_extra_tiles() -> int:
    """Most 1x3 tiles that fit in the 5x5 area beside the starting tile (exhaustive)."""
    cells = {(r, c) for r in range(5) for c in range(5)} - {(2, 1), (2, 2), (2, 3)}
    pieces = [frozenset((r, c + k) for k in range(3)) for r in range(5) for c in range(3)]
    pieces += [frozenset((r + k, c) for k in range(3)) for r in range(3) for c in range(5)]
    pieces = [pc for pc in pieces if pc <= cells]
    best = 0

    def search(free: frozenset, n: int) -> None:
        nonlocal best
        best = max(best, n)
        if not free or n + len(free) // 3 <= best:
            return
        first = min(free)
        for pc in pieces:
            if first in pc and pc <= free:
                search(free - pc, n + 1)
        search(free - {first}, n)

    search(frozenset(cells), 0)
    return best


def test_the_centre_starting_tile_leaves_room_for_six_more_tiles_never_seven():
    assert max_extra_tiles() == 6
    s = with_column(start_tile_builder().build(), 7)
    assert FE.placeable(s, P, PB) == 6


def test_specialist_27_lets_the_last_column_tile_be_placed_too():
    s = with_column(start_tile_builder().specialist(SEAT, 27).build(), 3)
    assert FE.placeable(s, P, PB) == 3
    s = with_column(start_tile_builder().build(), 3)
    assert FE.placeable(s, P, PB) == 2


def test_the_gold_corners_need_one_placement_each():
    s = start_tile_builder().task(SEAT, 6, "Y22").build()
    assert FE.placements_for_cells(s, P, PB, 2) == 4
    s = start_tile_builder().fate(SEAT, {(0, 0): "fire", (4, 4): "gnome"}).build()
    assert FE.placements_for_cells(s, P, PB, 2) == 2


def test_the_outer_columns_need_three_tiles_each_when_empty():
    s = start_tile_builder().build()
    assert FE.placements_for_cells(s, P, PB, 1) == 6
    cells = {(r, 0): "ship" for r in range(3)}  # a vertical tile covers rows 0-2 of column 0
    s = start_tile_builder().fate(SEAT, cells).build()
    assert FE.placements_for_cells(s, P, PB, 1) == 3 + 2


def test_highlighted_cells_count_rows_of_three_as_one_placement():
    s = start_tile_builder().build()
    assert FE.placements_for_cells(s, P, PB, 0) == 4  # rows 1 and 3, cells (2,0) and (2,4)
    s = start_tile_builder().fate(SEAT, {(1, 2): "fire"}).build()
    assert FE.placements_for_cells(s, P, PB, 0) == 5  # row 1 split: (1,1) and (1,3) apart


def test_gold_corners_task_is_impossible_with_fewer_placements_than_open_corners():
    b = start_tile_builder().task(SEAT, 6, "Y22")
    assert distance(with_column(b.build(), 5), "Y22") < FE.FAR  # 4 placements, 4 corners
    assert distance(with_column(b.build(), 4), "Y22") == FE.FAR  # 3 placements left


def test_a_fate_group_is_impossible_when_the_column_lacks_its_symbol():
    b = start_tile_builder().task(SEAT, 6, "B21")  # a group of 3 fire symbols
    s = with_column(b.build(), 2)  # tiles 6 and 7: ship-fire-task, path-guard-gnome
    assert FE.column_with(s, P, PB, C.FATE_SYMBOLS.index("fire")) == 1
    assert distance(s, "B21") == FE.FAR  # two more fire cells, one fire tile left
    s = with_column(b.fate(SEAT, {(1, 1): "fire", (1, 2): "fire"}).build(), 2)
    assert distance(s, "B21") == 1.5  # one more fire cell beside the pair: one placement


# ---- islands ------------------------------------------------------------------------------
def test_an_offering_on_a_resource_island_needs_a_task_still_lying_there():
    b = StateBuilder().task(SEAT, 5, "B9")  # an offering on a herb island
    assert distance(b.build(), "B9") == FE.FAR  # no task lies on either herb island
    b.island_tasks(HERB_ISLANDS[1], "R1")
    assert distance(b.build(), "B9") == 2.0


def test_three_offerings_on_one_island_need_two_more_tasks_there():
    isl = HERB_ISLANDS[0]
    b = StateBuilder().task(SEAT, 6, "Y2").offerings(SEAT, isl, 1)
    assert distance(b.island_tasks(isl, "R1").build(), "Y2") == FE.FAR  # only 2 offerings
    b = StateBuilder().task(SEAT, 6, "Y2").offerings(SEAT, isl, 1)
    d = distance(b.island_tasks(isl, "R1", "R2").build(), "Y2")
    assert d == (1.5 + 0.5 * 2) + (1.5 + 0.5 * 3)  # the 2nd and 3rd offering cost more


# ---- gnomes -------------------------------------------------------------------------------
def test_a_gnome_of_a_resource_is_near_only_while_one_is_on_offer():
    root = C.RESOURCES.index("root")
    root_specs = [g + 1 for g in range(C.N_SPECIALISTS) if P[T.SPEC_RES + g] == root]
    other_specs = [g + 1 for g in range(C.N_SPECIALISTS)
                   if P[T.SPEC_RES + g] != root][:C.SPECIALIST_DISPLAY]
    root_elder = [e + 1 for e in range(C.N_ELDERS) if P[T.ELDER_RES + e] == root]
    b = StateBuilder().task(SEAT, 6, "B16").specialist_display(*other_specs)
    b.elders(*[e for e in range(1, 7) if e not in root_elder])
    assert distance(b.build(), "B16") == 4.0  # wait for the display
    b.elders(*range(1, 7))
    assert distance(b.build(), "B16") == 1.5  # the root elder is on the board
    b.elders(*[e for e in range(1, 7) if e not in root_elder])
    b.specialist_display(root_specs[0], *other_specs[:C.SPECIALIST_DISPLAY - 1])
    assert distance(b.build(), "B16") == 1.5


# ---- open tasks ----------------------------------------------------------------------------
def test_a_task_that_can_no_longer_be_done_does_not_count_as_open():
    b = start_tile_builder().task(SEAT, 6, "Y22").task(SEAT, 5, "B1")
    nd = np.zeros(FE.NN)
    s = with_column(b.build(), 5)
    assert FE.seat_needs(s, P, SEAT, nd, 0.0) == 2
    s = with_column(b.build(), 2)  # Y22 is dead: 1 placement left for 4 corners
    assert FE.seat_needs(s, P, SEAT, nd, 0.0) == 1


def test_column_with_counts_the_column_tiles_showing_a_symbol():
    s = with_column(start_tile_builder().build(), 7)
    for sym in range(len(C.FATE_SYMBOLS)):
        assert FE.column_with(s, P, PB, sym) == sum(
            sym in [P[T.FATE_TILE + t * 3 + i] for i in range(3)] for t in range(1, 8))
    assert FE.column_with(s, P, PB, -1) == 7


def _fate_groups_agree(s: np.ndarray, p: np.ndarray = P) -> list[tuple[int, int, float, float]]:
    """(seat, task, task_distance, fate_groups_distance) wherever the two differ."""
    from bonfire_sim.rules import fate as F
    from bonfire_sim.rules import tasks as TK

    out = []
    lab = np.empty(F.NCELL, np.int64)
    size = np.empty(F.NCELL, np.int64)
    stack = np.empty(F.NCELL, np.int64)
    top = np.empty(14)
    for seat in range(s[L.G_HUMANS]):
        pb = L.player_base(seat)
        assert FE.fate_labels_tops(s, pb, lab, size, stack, top) >= 0
        for t in range(L.NT):
            if p[T.T_KIND + t] != TK.K_FATE_GROUPS:
                continue
            want = FE.task_distance(s, p, seat, t, -1, False)
            got = FE.fate_groups_distance(s, p, pb, t, top)
            if got != want:
                out.append((seat, t, want, got))
    return out


def test_fate_group_distances_from_the_labelling_equal_the_flood_fills_in_played_games():
    # the evaluator takes FATE_GROUPS distances from its own labelling of the area; every
    # FATE_GROUPS task, every seat, after every move of two 4-player default-mix games
    from bonfire_sim.rules.moves import apply_move, legal_moves
    from bonfire_sim.rules.setup import new_game
    from bonfire_sim.sim.loop import choose, new_buffer, no_weights
    from bonfire_sim.strategies import DEFAULT_MIX, STRATEGY_IDS

    sids = [STRATEGY_IDS[DEFAULT_MIX[k % len(DEFAULT_MIX)]] for k in range(L.NP)]
    w = no_weights()
    buf = new_buffer()
    checked = 0
    for seed in (5, 6):
        s = new_game(seed, 4)
        while s[L.G_OVER] == 0:
            assert _fate_groups_agree(s) == []
            checked += 1
            n = legal_moves(s, P, buf)
            seat = s[L.G_CUR]
            apply_move(s, P, buf[choose(s, P, buf, n, sids[seat], w[seat])])
    assert checked > 200


def test_fate_group_distances_from_the_labelling_on_hand_built_areas():
    # two ship areas of 3 and 2 cells, one path area of 3: one group of 3 ships is done,
    # two groups of 3 ships are not; the distance counts the missing cells
    s = StateBuilder().fate(SEAT, {(0, 0): "ship", (0, 1): "ship", (0, 2): "ship",
                                   (2, 0): "ship", (2, 1): "ship",
                                   (4, 0): "path", (4, 1): "path", (4, 2): "path"}).build()
    assert _fate_groups_agree(with_column(s, 5)) == []
    assert _fate_groups_agree(with_column(s, 0)) == []  # nothing left to place: FAR


def test_fate_group_distances_from_the_labelling_for_every_kind_of_group_demand():
    # every (a, b, size) a FATE_GROUPS task can state - one group, two groups of one
    # symbol, of any symbols, one fixed and one any, two symbols - on a task's copy
    from bonfire_sim.rules import tasks as TK

    t = next(t for t in range(L.NT) if P[T.T_KIND + t] == TK.K_FATE_GROUPS)
    # areas: ships 4 and 2, paths 3, a task 1 (largest and second largest differ)
    s = StateBuilder().fate(SEAT, {(0, 0): "ship", (0, 1): "ship", (0, 2): "ship",
                                   (0, 3): "ship", (2, 0): "ship", (2, 1): "ship",
                                   (2, 4): "task", (4, 0): "path", (4, 1): "path",
                                   (4, 2): "path"}).build()
    cases = 0
    for left in (0, 2, 5):
        with_column(s, left)
        for a in range(-1, 6):
            for b in (TK.ONE_GROUP, *range(-1, 6)):
                for size in (0, 1, 2, 3, 4):
                    p = P.copy()
                    p[T.T_A + t], p[T.T_B + t], p[T.T_C + t] = a, b, size
                    assert _fate_groups_agree(s, p) == [], (left, a, b, size)
                    cases += 1
    assert cases == 3 * 7 * 8 * 5


def test_synergy_over_the_span_of_a_task_kind_equals_the_full_sum_in_played_games():
    # the evaluator sums a task's synergy over the NEED entries its kind can touch
    # (FE.NEED_LO/HI): bit for bit the full sum, scratch left zero; every task, every seat,
    # every 7th state of two 4-player default-mix games
    from bonfire_sim.rules.moves import apply_move, legal_moves
    from bonfire_sim.rules.setup import new_game
    from bonfire_sim.sim.loop import choose, new_buffer, no_weights
    from bonfire_sim.strategies import DEFAULT_MIX, STRATEGY_IDS
    from bonfire_sim.strategies.price_tasks import _synergy, _synergy_span

    sids = [STRATEGY_IDS[DEFAULT_MIX[k % len(DEFAULT_MIX)]] for k in range(L.NP)]
    w = no_weights()
    buf = new_buffer()
    nd = np.empty(FE.NN)
    tmp = np.zeros(FE.NN)
    full = np.empty(FE.NN)
    checked = 0
    for seed in (7, 8):
        s = new_game(seed, 4)
        k = 0
        while s[L.G_OVER] == 0:
            k += 1
            if k % 7 == 0:
                for seat in range(s[L.G_HUMANS]):
                    FE.seat_needs(s, P, seat, nd, 0.6)
                    for t in range(L.NT):
                        want = _synergy(s, P, seat, t, nd, full)
                        got = _synergy_span(s, P, seat, t, nd, tmp)
                        assert got == want and np.all(tmp == 0.0), (seat, t, want, got)
                        checked += 1
            n = legal_moves(s, P, buf)
            seat = s[L.G_CUR]
            apply_move(s, P, buf[choose(s, P, buf, n, sids[seat], w[seat])])
    assert checked > 1000
