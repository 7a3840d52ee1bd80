"""Use the Great Bonfire (rulebook p.10, RULINGS 5): turn it, then take 2 of its 3 rewards.

Spaces (components, [assumed]) clockwise: 0 ship/blossom, 1 path/fruit, 2 task/herb,
3 fire/shell, 4 guard/root, 5 gnome/gold, 6 yellow/2 points only (spaces 0-5 never give
points, space 6 never a resource: RULINGS 5 and 8).  M_FIRE rows are
[kind, space, reward set, portal shape or -1, tiles paid]; reward sets (layout.REWARD_SETS):
0 tile+resource, 1 tile+points, 2 tile+portal, 3 resource+portal, 4 points+portal,
5 tile+resource+portal, 6 tile+points+portal.  Board 0 notches 0..6 take shapes A..G and
fill 6, 5, ..., 0, so its first portal must be a G, then an F.
"""

from __future__ import annotations

import numpy as np
import pytest

from bonfire_sim import engine
from bonfire_sim.errors import IllegalMoveError
from bonfire_sim.rules import components as C
from bonfire_sim.rules import layout as L
from bonfire_sim.rules.state import StateBuilder

PB = L.player_base(0)
A, B, CC, D, E, F, G = range(7)
SHIP, PATH, TASK, FIRE, GUARD, GNOME, YELLOW = range(7)
NO_PORTAL = -1


def _tiles(s: np.ndarray) -> list[int]:
    return s[PB + L.P_TILES:PB + L.P_TILES + 7].tolist()


def _res(s: np.ndarray) -> list[int]:
    return s[PB + L.P_RES:PB + L.P_RES + 6].tolist()


def _costs(moves: list[tuple[int, ...]]) -> dict[int, int]:
    return {m[1]: m[4] for m in moves}


def _sets(moves: list[tuple[int, ...]], space: int) -> set[tuple[int, int]]:
    return {(m[2], m[3]) for m in moves if m[1] == space}


def _portals_on(s: np.ndarray, space: int) -> list[int]:
    return s[L.GB_PORTALS + space * 7:L.GB_PORTALS + space * 7 + 7].tolist()


# ---- turning the Great Bonfire --------------------------------------------------------------

def test_the_first_use_in_the_game_costs_one_tile_for_any_space(main_state, moves_of):
    s = main_state(StateBuilder().tiles(0, fire=1).great_bonfire(0, used=False))
    assert _costs(moves_of(s, L.M_FIRE)) == {g: 1 for g in range(7)}
    engine.apply(s, (L.M_FIRE, 4, 0, NO_PORTAL, 1))
    assert (s[L.G_GB_POS], s[L.G_GB_USED]) == (4, 1)
    assert _tiles(s) == [0, 0, 0, 0, 1, 0, 0]  # paid the fire tile, gained a guard tile
    assert _res(s) == [0, 0, 0, 0, 1, 0]


def test_after_anyones_first_use_one_two_or_three_tiles_turn_it(main_state, moves_of):
    s = main_state(StateBuilder().tiles(0, fire=3).great_bonfire(2, used=True))
    assert _costs(moves_of(s, L.M_FIRE)) == {3: 1, 4: 2, 5: 3, 6: 3, 0: 3, 1: 3, 2: 3}


def test_the_turn_is_clockwise_and_wraps_round(main_state, moves_of):
    s = main_state(StateBuilder().tiles(0, fire=3).great_bonfire(6, used=True))
    costs = _costs(moves_of(s, L.M_FIRE))
    assert (costs[0], costs[1], costs[5], costs[6]) == (1, 2, 3, 3)


def test_with_two_tiles_only_the_next_two_spaces_are_reachable(main_state, moves_of):
    s = main_state(StateBuilder().tiles(0, fire=2).great_bonfire(2, used=True))
    assert sorted(_costs(moves_of(s, L.M_FIRE))) == [3, 4]


def test_specialist_22_turns_it_one_space_further_than_paid(main_state, moves_of):
    s = main_state(StateBuilder().tiles(0, fire=3).great_bonfire(2).specialist(0, 22))
    assert _costs(moves_of(s, L.M_FIRE)) == {3: 1, 4: 1, 5: 2, 6: 3, 0: 3, 1: 3, 2: 3}


def test_specialist_22s_extra_space_gives_that_spaces_rewards(main_state, moves_of):
    s = main_state(StateBuilder().tiles(0, fire=1).great_bonfire(2).specialist(0, 22))
    assert _sets(moves_of(s, L.M_FIRE), 4) == {(0, NO_PORTAL)}  # guard tile + root only
    s = main_state(StateBuilder().tiles(0, fire=1).great_bonfire(4).specialist(0, 22))
    assert _sets(moves_of(s, L.M_FIRE), 6) == {(1, NO_PORTAL)}  # yellow tile + 2 points


def test_the_use_pays_the_offered_tiles_and_leaves_it_pointing_there(main_state):
    s = main_state(StateBuilder().tiles(0, fire=2).great_bonfire(2))
    engine.apply(s, (L.M_FIRE, 4, 0, NO_PORTAL, 2))
    assert s[L.G_GB_POS] == 4
    assert _tiles(s) == [0, 0, 0, 0, 1, 0, 0]


# ---- rewards --------------------------------------------------------------------------------

def test_two_of_the_three_rewards_are_offered(main_state, moves_of):
    b = StateBuilder().tiles(0, fire=1).great_bonfire(0).gb_portals(1, "AG")
    assert _sets(moves_of(main_state(b), L.M_FIRE), 1) == {(0, NO_PORTAL), (2, G), (3, G)}


@pytest.mark.parametrize("space", range(6))
def test_a_resource_space_never_offers_the_2_points(main_state, moves_of, space):
    b = StateBuilder().tiles(0, fire=1).great_bonfire(0, used=False).gb_portals(space, "G")
    sets = {rs for rs, _ in _sets(moves_of(main_state(b), L.M_FIRE), space)}
    assert sets == {0, 2, 3}
    assert not any(L.REWARD_SETS[rs] & 4 for rs in sets)


def test_the_2_points_on_a_resource_space_are_an_illegal_move(main_state):
    s = main_state(StateBuilder().tiles(0, fire=1).great_bonfire(0))
    with pytest.raises(IllegalMoveError):
        engine.apply(s, (L.M_FIRE, 1, 1, NO_PORTAL, 1))
    assert s[PB + L.P_SCORE] == 0


def test_tile_and_resource(main_state):
    s = main_state(StateBuilder().tiles(0, fire=1).great_bonfire(0))
    engine.apply(s, (L.M_FIRE, 1, 0, NO_PORTAL, 1))
    assert _tiles(s) == [0, 1, 0, 0, 0, 0, 0] and _res(s) == [0, 1, 0, 0, 0, 0]
    assert s[PB + L.P_SCORE] == 0


def test_tile_and_two_points_on_the_points_space(main_state):
    s = main_state(StateBuilder().tiles(0, fire=1).great_bonfire(5))
    engine.apply(s, (L.M_FIRE, 6, 1, NO_PORTAL, 1))
    assert _tiles(s) == [0, 0, 0, 0, 0, 0, 1] and _res(s) == [0] * 6
    assert s[PB + L.P_SCORE] == 2 and s[PB + L.P_PTS_FIRE] == 2


def test_resource_and_portal_fills_the_next_notch_and_empties_the_space(main_state):
    s = main_state(StateBuilder().tiles(0, fire=1).great_bonfire(0).gb_portals(1, "AGG"))
    engine.apply(s, (L.M_FIRE, 1, 3, G, 1))
    assert _res(s) == [0, 1, 0, 0, 0, 0] and _tiles(s) == [0] * 7
    assert s[PB + L.P_PORTAL:PB + L.P_PORTAL + 7].tolist() == [0, 0, 0, 0, 0, 0, 1]
    assert s[PB + L.P_NPORTAL] == 1
    assert _portals_on(s, 1) == [1, 0, 0, 0, 0, 0, 1]


def test_the_yellow_space_gives_a_yellow_tile_and_only_points(main_state, moves_of):
    b = StateBuilder().tiles(0, fire=1).great_bonfire(5).gb_portals(6, "G")
    s = main_state(b)
    assert _sets(moves_of(s, L.M_FIRE), 6) == {(1, NO_PORTAL), (2, G), (4, G)}
    engine.apply(s, (L.M_FIRE, 6, 1, NO_PORTAL, 1))
    assert _tiles(s) == [0, 0, 0, 0, 0, 0, 1] and s[PB + L.P_SCORE] == 2


def test_a_portal_that_does_not_fit_the_next_notch_is_not_offered(main_state, moves_of):
    b = StateBuilder().tiles(0, fire=1).great_bonfire(0).gb_portals(1, "ABF")
    assert _sets(moves_of(main_state(b), L.M_FIRE), 1) == {(0, NO_PORTAL)}


def test_after_the_first_portal_the_next_notch_wants_the_next_shape(main_state, moves_of):
    b = StateBuilder().tiles(0, fire=1).great_bonfire(0).gb_portals(1, "FG").portals(0, 6)
    assert {m[3] for m in moves_of(main_state(b), L.M_FIRE) if m[1] == 1} == {NO_PORTAL, F}


def test_each_board_has_its_own_notch_order(main_state, moves_of):
    # Board 1 notches "GECAFDB": its notch 6 wants shape B.
    b = StateBuilder().tiles(0, fire=1).great_bonfire(0).gb_portals(1, "BG").board(0, 1)
    assert {m[3] for m in moves_of(main_state(b), L.M_FIRE) if m[1] == 1} == {NO_PORTAL, B}
    assert C.BOARDS[1][6] == "B"


def test_a_full_set_of_seven_portals_takes_no_more(main_state, moves_of):
    b = (StateBuilder().tiles(0, fire=1).great_bonfire(0).gb_portals(1, "ABCDEFG")
         .portals(0, *range(7)))
    assert {m[3] for m in moves_of(main_state(b), L.M_FIRE)} == {NO_PORTAL}


def test_only_portals_lying_on_the_chosen_space_can_be_taken(main_state, moves_of):
    b = StateBuilder().tiles(0, fire=1).great_bonfire(0, used=False).gb_portals(2, "G")
    moves = moves_of(main_state(b), L.M_FIRE)
    assert {m[1] for m in moves if m[3] == G} == {2}


def test_specialist_25_places_portals_in_any_order(main_state, moves_of):
    b = (StateBuilder().tiles(0, fire=1).great_bonfire(0).gb_portals(1, "AB")
         .specialist(0, 25))
    s = main_state(b)
    assert {m[3] for m in moves_of(s, L.M_FIRE) if m[1] == 1} == {NO_PORTAL, A, B}
    engine.apply(s, (L.M_FIRE, 1, 3, A, 1))
    assert s[PB + L.P_PORTAL:PB + L.P_PORTAL + 7].tolist() == [1, 0, 0, 0, 0, 0, 0]
    assert _portals_on(s, 1) == [0, 1, 0, 0, 0, 0, 0]
    assert _res(s) == [0, 1, 0, 0, 0, 0] and s[PB + L.P_SCORE] == 0


def test_specialist_25_never_offers_a_shape_whose_notch_is_filled(main_state, moves_of):
    b = (StateBuilder().tiles(0, fire=1).great_bonfire(0).gb_portals(1, "AB")
         .specialist(0, 25).portals(0, 0))
    assert {m[3] for m in moves_of(main_state(b), L.M_FIRE) if m[1] == 1} == {NO_PORTAL, B}


def test_specialist_23_may_take_all_three_rewards(main_state, moves_of):
    b = StateBuilder().tiles(0, fire=1).great_bonfire(0).gb_portals(1, "G").specialist(0, 23)
    s = main_state(b)
    assert _sets(moves_of(s, L.M_FIRE), 1) == {(0, NO_PORTAL), (2, G), (3, G), (5, G)}
    engine.apply(s, (L.M_FIRE, 1, 5, G, 1))
    assert _tiles(s) == [0, 1, 0, 0, 0, 0, 0] and _res(s) == [0, 1, 0, 0, 0, 0]
    assert s[PB + L.P_SCORE] == 0
    assert s[PB + L.P_NPORTAL] == 1 and _portals_on(s, 1) == [0] * 7


def test_specialist_23_on_the_points_space_takes_tile_points_and_portal(main_state, moves_of):
    b = StateBuilder().tiles(0, fire=1).great_bonfire(5).gb_portals(6, "G").specialist(0, 23)
    s = main_state(b)
    assert _sets(moves_of(s, L.M_FIRE), 6) == {(1, NO_PORTAL), (2, G), (4, G), (6, G)}
    engine.apply(s, (L.M_FIRE, 6, 6, G, 1))
    assert _tiles(s) == [0, 0, 0, 0, 0, 0, 1] and _res(s) == [0] * 6
    assert s[PB + L.P_SCORE] == 2 and s[PB + L.P_NPORTAL] == 1


def test_without_a_fitting_portal_specialist_23_still_gets_only_two(main_state, moves_of):
    b = StateBuilder().tiles(0, fire=1).great_bonfire(0).gb_portals(1, "A").specialist(0, 23)
    assert _sets(moves_of(main_state(b), L.M_FIRE), 1) == {(0, NO_PORTAL)}


@pytest.mark.parametrize("used, cost", [(False, 1), (True, 3)])
def test_the_space_it_points_at_costs_one_only_on_the_first_use(main_state, moves_of, used,
                                                                  cost):
    s = main_state(StateBuilder().tiles(0, fire=3).great_bonfire(5, used=used))
    assert _costs(moves_of(s, L.M_FIRE))[5] == cost


def test_after_another_players_first_use_the_normal_costs_apply(main_state, moves_of):
    s = main_state(StateBuilder().tiles(1, fire=1).great_bonfire(0, used=False), seat=1)
    engine.apply(s, (L.M_FIRE, 2, 0, NO_PORTAL, 1))
    assert (s[L.G_GB_POS], s[L.G_GB_USED]) == (2, 1)
    assert s[L.G_CUR] == 0  # seat 0's turn (its starting-tile choice first)
    s[PB + L.P_STARTED] = 1
    s[L.G_PHASE] = L.PH_MAIN
    s[PB + L.P_TILES + FIRE] = 1
    assert _costs(moves_of(s, L.M_FIRE)) == {3: 1}


@pytest.mark.parametrize("spec25", [False, True])
def test_the_portal_shape_mask_holds_exactly_the_shapes_notch_for_accepts(spec25):
    from bonfire_sim.rules.great_bonfire import notch_for, portal_shapes
    from bonfire_sim.rules.tables import DEFAULT_PARAMS as P

    for board in range(len(C.BOARDS)):
        for filled in range(2 ** 7):
            b = StateBuilder().board(0, board)
            if spec25:
                b.specialist(0, 25)
            b.portals(0, *[k for k in range(7) if (filled >> k) & 1])
            s = b.build()
            want = sum(1 << shape for shape in range(7) if notch_for(s, P, PB, shape) >= 0)
            assert portal_shapes(s, P, PB) == want
