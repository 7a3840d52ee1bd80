"""Final scoring (rulebook p. 11, Appendix IV) and the game result (RULINGS 6, 7)."""

from __future__ import annotations

import numpy as np

from bonfire_sim.rules import layout as L
from bonfire_sim.rules import scoring as SC
from bonfire_sim.rules import tables as T
from bonfire_sim.rules.state import StateBuilder

P = T.DEFAULT_PARAMS
PB = L.player_base(0)
RED_BLOSSOM, RED_FRUIT = 10, 12  # path tile ids with a red crystal
BLUE_BLOSSOM, BLUE_FRUIT = 0, 2  # path tile ids with a blue crystal


def lines_of(s: np.ndarray, seat: int = 0) -> tuple[list[int], int]:
    out = np.zeros(SC.NLINES, dtype=np.int64)
    total = SC.score_lines(s, P, seat, out)
    return out.tolist(), int(total)


def result(s: np.ndarray) -> tuple[list[int], list[int], list[int], np.ndarray]:
    n = L.NP
    scores = np.zeros(n, dtype=np.int64)
    lines = np.zeros((n, SC.NLINES), dtype=np.int64)
    ranks = np.zeros(n, dtype=np.int64)
    won = np.zeros(n, dtype=np.int64)
    seats = SC.final_result(s, P, scores, lines, ranks, won)
    return scores[:seats].tolist(), ranks[:seats].tolist(), won[:seats].tolist(), lines


def build_example() -> np.ndarray:
    """The city of Appendix IV: 61 points."""
    b = StateBuilder()
    # 5 bonfires worth 7 + 5 + 2 + 4 + 2 on spaces 0-4: yellow, red, blue, blue, red;
    # an unlit task on space 5 (6 tasks, so no "7 tasks" common task).
    b.task(0, 0, "Y5", lit=True).task(0, 1, "R1", lit=True).task(0, 2, "B1", lit=True)
    b.task(0, 3, "B5", lit=True).task(0, 4, "R2", lit=True).task(0, 5, "Y1")
    # The grey guardian next to the red bonfire on space 4 (printed 2 + 4 = 6 points);
    # the own guardian on the path.
    b.guardian(0, "grey", L.GP_BONFIRE + 4).guardian(0, "own", 2)
    # All 7 portals (common task "7 portals"); 5 of them next to the bonfires 0-4.
    b.portals(0, 6, 5, 4, 3, 2, 1, 0)
    # 4 path tiles whose crystals match the bonfires on spaces 1-4: red, blue, blue, red.
    b.path(0, RED_BLOSSOM, BLUE_BLOSSOM, BLUE_FRUIT, RED_FRUIT)
    # Elder 1 (1 point per path tile incl. the starting tile) scored 5 during the game.
    b.gnome(0, 27)
    b.s[PB + L.P_SCORE] = b.s[PB + L.P_PTS_ELDER] = 5
    # 2 fate tiles left in the column; 3 action tiles and 1 resource left.
    b.s[PB + L.P_FATE_LO], b.s[PB + L.P_FATE_HI] = 6, 8
    b.tiles(0, ship=2, yellow=1).resources(0, gold=1)
    return b.build()


def test_the_rulebook_example_scores_61_points_line_by_line():
    lines, total = lines_of(build_example())
    assert lines == [20, 6, 10, 8, 4, 6, 2, 5]
    assert total == 61


def test_portals_and_paths_score_only_next_to_lit_bonfires():
    s = StateBuilder().task(0, 1, "R1").portals(0, 6, 5, 4, 3, 2, 1, 0).path(0, RED_BLOSSOM)
    lines, _ = lines_of(s.build())
    assert lines[SC.LN_PORTALS] == 0
    assert lines[SC.LN_PATHS] == 0
    lines, _ = lines_of(StateBuilder().task(0, 1, "R1", lit=True).portals(0, 1)
                        .path(0, BLUE_BLOSSOM).build())
    assert lines[SC.LN_PORTALS] == 2
    assert lines[SC.LN_PATHS] == 0  # blue crystal beside a red bonfire


def test_seven_bonfires_score_seven_for_the_seven_tasks_common_task():
    b = StateBuilder()
    for k, tid in enumerate(("B1", "B2", "B3", "B4", "B5", "B6", "R1")):
        b.task(0, k, tid, lit=k < 6)
    assert lines_of(b.build())[0][SC.LN_COMMON] == 4
    b.s[PB + L.P_LIT + 6] = 1
    assert lines_of(b.build())[0][SC.LN_COMMON] == 7


def test_specialist_18_adds_two_points_per_guardian_next_to_a_bonfire():
    b = StateBuilder().task(0, 0, "B1", lit=True).task(0, 6, "B2", lit=True)
    b.guardian(0, "own", L.GP_BONFIRE + 0).guardian(0, "pink", L.GP_BONFIRE + 6)
    assert lines_of(b.build())[0][SC.LN_GUARDIANS] == 2 + 8
    b.specialist(0, 18)
    assert lines_of(b.build())[0][SC.LN_GUARDIANS] == 2 + 8 + 4


def test_leftovers_round_down():
    b = StateBuilder().tiles(0, path=2, yellow=1).resources(0, herb=1, gold=1)
    assert lines_of(b.build())[0][SC.LN_LEFTOVER] == 2
    b.resources(0, gold=0)
    assert lines_of(b.build())[0][SC.LN_LEFTOVER] == 2
    b.resources(0, herb=0)
    assert lines_of(b.build())[0][SC.LN_LEFTOVER] == 1


def _seat(b: StateBuilder, seat: int, bonfires: tuple[str, ...], in_game: int) -> None:
    for k, tid in enumerate(bonfires):
        b.task(seat, k, tid, lit=True)
    b.s[L.player_base(seat) + L.P_SCORE] = in_game


def test_a_tie_on_points_goes_to_the_player_with_more_bonfires():
    b = StateBuilder(3)
    _seat(b, 0, ("B1",), 8)  # 2 + 8 = 10 with 1 bonfire
    _seat(b, 1, ("B1", "B2"), 6)  # 2 + 2 + 6 = 10 with 2 bonfires
    _seat(b, 2, (), 5)
    scores, ranks, won, lines = result(b.build())
    assert scores == [10, 10, 5]
    assert ranks == [2, 1, 3]
    assert won == [0, 1, 0]
    assert lines[1].tolist() == [4, 0, 0, 0, 0, 0, 0, 6]


def test_a_tie_on_points_and_bonfires_is_a_shared_win():
    b = StateBuilder(3)
    _seat(b, 0, ("B1",), 8)
    _seat(b, 1, ("B2",), 8)
    _seat(b, 2, ("Y1",), 0)  # 6 points
    scores, ranks, won, _ = result(b.build())
    assert scores == [10, 10, 6]
    assert ranks == [1, 1, 3]
    assert won == [1, 1, 0]


def test_solo_tie_has_no_tiebreaker_and_no_winner():
    b = StateBuilder(2)
    b.s[L.G_SOLO] = 1
    b.s[L.G_HUMANS] = 1
    _seat(b, 0, ("B1",), 8)
    _seat(b, 1, ("B1", "B2"), 6)  # Tom has more bonfires: irrelevant in solo
    scores, ranks, won, _ = result(b.build())
    assert scores == [10, 10]
    assert ranks == [1, 1]
    assert won == [0, 0]


def test_solo_human_wins_only_with_strictly_more_points():
    b = StateBuilder(2)
    b.s[L.G_SOLO] = 1
    _seat(b, 0, (), 11)
    _seat(b, 1, ("B1", "B2"), 6)
    _, ranks, won, _ = result(b.build())
    assert (ranks, won) == ([1, 2], [1, 0])
    b.s[L.player_base(1) + L.P_SCORE] = 8
    _, ranks, won, _ = result(b.build())
    assert (ranks, won) == ([2, 1], [0, 1])
