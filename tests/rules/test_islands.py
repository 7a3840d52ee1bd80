"""Move your ship, receive a task, retrieve a guardian (rulebook pp.8-9, RULINGS 5).

Islands (components, [assumed] ring of 14): 0 blossom*, 1 grey, 2 fruit, 3 herb, 4 pink,
5 shell*, 6 root, 7 blossom*, 8 red, 9 fruit, 10 herb, 11 wood, 12 shell*, 13 root.
"""

from __future__ import annotations

import numpy as np
import pytest

from bonfire_sim import engine
from bonfire_sim.errors import IllegalMoveError
from bonfire_sim.rules import layout as L
from bonfire_sim.rules import tables as T
from bonfire_sim.rules.pay_choice import pack, unpack
from bonfire_sim.rules.state import StateBuilder

PB = L.player_base(0)
BLOSSOM, FRUIT, HERB, SHELL, ROOT, GOLD = range(6)
OWN, GREY, PINK, RED, WOOD = range(5)
HERB_ISLAND, GREY_ISLAND = 3, 1
# Pile 0 shows fruit, pile 1 shows shell; under them: the rest of the 10 tiles.
PILES = ("fruit blossom herb root shell", "shell fruit blossom herb root")


def _tiles(s: np.ndarray) -> list[int]:
    return s[PB + L.P_TILES:PB + L.P_TILES + 7].tolist()


def _res(s: np.ndarray) -> list[int]:
    return s[PB + L.P_RES:PB + L.P_RES + 6].tolist()


def _costs(moves: list[tuple[int, ...]]) -> dict[int, int]:
    return {m[1]: m[2] for m in moves}


def _task_builder(island: int = HERB_ISLAND, **res: int) -> StateBuilder:
    """Seat 0's ship at a herb island holding B1 and R2; offering piles PILES."""
    return (StateBuilder().ship(0, island).offering_piles(0, *PILES)
            .island_tasks(HERB_ISLAND, "B1", "R2").resources(0, **res))


# ---- move your ship ----------------------------------------------------------------------

def test_the_first_trip_costs_one_tile_to_any_island(main_state, moves_of):
    s = main_state(StateBuilder().tiles(0, ship=1))
    assert _costs(moves_of(s, L.M_SHIP)) == {i: 1 for i in range(14)}
    engine.apply(s, (L.M_SHIP, 7, 1))
    assert (s[PB + L.P_SHIP], s[PB + L.P_SHIP_USED]) == (7, 1)
    assert _tiles(s) == [0] * 7


def test_later_trips_cost_one_per_route_up_to_two_and_three_for_any_island(main_state,
                                                                            moves_of):
    s = main_state(StateBuilder().tiles(0, ship=3).ship(0, 3))
    costs = _costs(moves_of(s, L.M_SHIP))
    assert costs == {2: 1, 4: 1, 1: 2, 5: 2, 3: 2, 0: 3, 6: 3, 7: 3, 8: 3, 9: 3, 10: 3,
                     11: 3, 12: 3, 13: 3}


def test_the_route_ring_closes_between_the_last_and_the_first_island(main_state, moves_of):
    s = main_state(StateBuilder().tiles(0, ship=3).ship(0, 0))
    costs = _costs(moves_of(s, L.M_SHIP))
    assert (costs[13], costs[12], costs[1], costs[2], costs[11]) == (1, 2, 1, 2, 3)


def test_farther_islands_are_not_offered_to_a_player_with_two_tiles(main_state, moves_of):
    s = main_state(StateBuilder().tiles(0, ship=2).ship(0, 3))
    assert sorted(_costs(moves_of(s, L.M_SHIP))) == [1, 2, 3, 4, 5]


def test_sailing_pays_the_offered_number_of_tiles(main_state):
    s = main_state(StateBuilder().tiles(0, ship=3).ship(0, 3))
    engine.apply(s, (L.M_SHIP, 10, 3))
    assert s[PB + L.P_SHIP] == 10 and _tiles(s) == [0] * 7


def test_specialist_21_adds_one_free_route_to_a_paid_trip(main_state, moves_of):
    s = main_state(StateBuilder().tiles(0, ship=3).ship(0, 3).specialist(0, 21))
    costs = _costs(moves_of(s, L.M_SHIP))
    assert costs == {1: 1, 2: 1, 3: 1, 4: 1, 5: 1, 0: 2, 6: 2, 7: 3, 8: 3, 9: 3, 10: 3,
                     11: 3, 12: 3, 13: 3}


def test_after_sailing_the_islands_task_action_may_follow_at_its_normal_cost(main_state,
                                                                            moves_of):
    b = _task_builder(island=2, fruit=1, herb=1).tiles(0, ship=1, task=1)
    s = main_state(b)
    engine.apply(s, (L.M_SHIP, HERB_ISLAND, 1))
    assert s[L.G_PHASE] == L.PH_SHIP_ACTION
    assert moves_of(s, L.M_END) == [(L.M_END, 0, 0, 0, 0)]
    engine.apply(s, (L.M_TASK, 1, 0, 2))
    assert s[PB + L.P_TASK + 2] == T.task_index("R2")
    assert _tiles(s) == [0] * 7 and _res(s) == [0] * 6


def test_after_sailing_a_guardian_may_be_retrieved_at_its_normal_cost(main_state, moves_of):
    s = main_state(StateBuilder().tiles(0, ship=1, guard=1).ship(0, 2))
    engine.apply(s, (L.M_SHIP, GREY_ISLAND, 1))
    assert moves_of(s, L.M_GUARD) == [(L.M_GUARD, GREY, 0, 0, 0)]
    engine.apply(s, (L.M_GUARD, GREY))
    assert s[PB + L.P_GUARD + GREY] == L.GP_WAIT and _tiles(s) == [0] * 7


def test_the_island_action_may_be_declined(main_state):
    b = _task_builder(island=2, fruit=1, herb=1).tiles(0, ship=1, task=1)
    s = main_state(b)
    engine.apply(s, (L.M_SHIP, HERB_ISLAND, 1))
    engine.apply(s, (L.M_END,))
    assert s[PB + L.P_TASK:PB + L.P_TASK + 7].tolist() == [-1] * 7
    assert _tiles(s) == [0, 0, 1, 0, 0, 0, 0]
    assert (s[L.G_CUR], s[L.G_PHASE]) == (1, L.PH_SWAP)  # the turn is over


def test_without_a_possible_island_action_the_turn_ends_after_sailing(main_state):
    b = _task_builder(island=2, fruit=1, herb=1).tiles(0, ship=1)  # no task tile
    s = main_state(b)
    engine.apply(s, (L.M_SHIP, HERB_ISLAND, 1))
    assert (s[L.G_CUR], s[L.G_PHASE]) == (1, L.PH_SWAP)


# ---- receive a task ----------------------------------------------------------------------

@pytest.mark.parametrize("own, cost", [(0, 1), (1, 2), (2, 3)])
def test_a_task_costs_one_more_tile_per_own_offering_already_on_the_island(
        main_state, moves_of, own, cost):
    b = _task_builder(fruit=1, herb=1).offerings(0, HERB_ISLAND, own)
    assert moves_of(main_state(b.tiles(0, task=cost - 1)), L.M_TASK) == []
    s = main_state(b.tiles(0, task=cost))
    assert moves_of(s, L.M_TASK)
    engine.apply(s, (L.M_TASK, 0, 0, 0))
    assert _tiles(s) == [0] * 7
    assert s[PB + L.P_OFF_ISLAND + HERB_ISLAND] == own + 1


def test_other_players_offerings_do_not_raise_the_cost(main_state, moves_of):
    b = _task_builder(fruit=1, herb=1).offerings(1, HERB_ISLAND, 2).tiles(0, task=1)
    assert moves_of(main_state(b), L.M_TASK)


def test_specialist_26_makes_every_task_cost_one_tile(main_state, moves_of):
    b = _task_builder(fruit=1, herb=1).offerings(0, HERB_ISLAND, 2).tiles(0, task=1)
    assert moves_of(main_state(b), L.M_TASK) == []
    s = main_state(b.specialist(0, 26))
    engine.apply(s, (L.M_TASK, 0, 0, 0))
    assert _tiles(s) == [0] * 7


def test_the_resources_are_the_chosen_offerings_and_the_islands(main_state, moves_of):
    # Fruit (pile 0) + herb (island): only pile 0 can be chosen.
    s = main_state(_task_builder(fruit=1, herb=1).tiles(0, task=1))
    assert {m[2] for m in moves_of(s, L.M_TASK)} == {0}
    # Shell (pile 1) + herb: only pile 1.
    s = main_state(_task_builder(shell=1, herb=1).tiles(0, task=1))
    assert {m[2] for m in moves_of(s, L.M_TASK)} == {1}
    engine.apply(s, (L.M_TASK, 0, 1, 0))
    assert _res(s) == [0] * 6


def test_the_islands_resource_is_required(main_state, moves_of):
    s = main_state(_task_builder(fruit=1, shell=1).tiles(0, task=1))  # no herb, no gold
    assert moves_of(s, L.M_TASK) == []


def test_specialist_3_pays_any_two_resources(main_state, moves_of):
    b = _task_builder(root=2).tiles(0, task=1)
    s = main_state(b.specialist(0, 3))
    assert {m[2] for m in moves_of(s, L.M_TASK)} == {0, 1}
    engine.apply(s, (L.M_TASK, 0, 0, 0))
    assert _res(s) == [0] * 6


def test_without_specialist_3_two_unrelated_resources_pay_only_one_missing(main_state,
                                                                          moves_of):
    assert moves_of(main_state(_task_builder(root=2).tiles(0, task=1)), L.M_TASK) == []


def test_the_offering_goes_to_the_island_and_the_next_tile_of_its_pile_flips(main_state):
    s = main_state(_task_builder(fruit=1, herb=1).tiles(0, task=1))
    engine.apply(s, (L.M_TASK, 0, 0, 0))
    assert s[PB + L.P_OFF_ISLAND + HERB_ISLAND] == 1
    assert s[PB + L.P_OFF_TAKEN:PB + L.P_OFF_TAKEN + 2].tolist() == [1, 0]
    # Pile 0 now shows blossom: its next tile.
    b = L.player_base(0)
    assert s[b + L.P_OFF_PILE + s[b + L.P_OFF_TAKEN]] == BLOSSOM


def test_a_depleted_pile_offers_nothing(main_state, moves_of):
    b = _task_builder(fruit=1, shell=1, herb=2).tiles(0, task=1)
    b.offering_piles(0, *PILES, taken=(5, 0))
    assert {m[2] for m in moves_of(main_state(b), L.M_TASK)} == {1}
    b.offering_piles(0, *PILES, taken=(5, 5))
    assert moves_of(main_state(b), L.M_TASK) == []


def test_the_task_leaves_the_island_for_any_free_bonfire_space(main_state, moves_of):
    b = _task_builder(fruit=1, herb=1).tiles(0, task=1).task(0, 0, "B5").task(0, 2, "B6")
    s = main_state(b)
    moves = moves_of(s, L.M_TASK)
    assert {m[3] for m in moves} == {1, 3, 4, 5, 6}
    assert {m[1] for m in moves} == {0, 1}  # either task of the island
    engine.apply(s, (L.M_TASK, 0, 0, 4))
    assert s[PB + L.P_TASK + 4] == T.task_index("B1")
    assert s[L.ISLAND_TASKS + HERB_ISLAND * 3:L.ISLAND_TASKS + HERB_ISLAND * 3 + 2].tolist() == [
        -1, T.task_index("R2")]


def test_an_occupied_bonfire_space_cannot_take_a_task(main_state):
    s = main_state(_task_builder(fruit=1, herb=1).tiles(0, task=1).task(0, 0, "B5"))
    with pytest.raises(IllegalMoveError):
        engine.apply(s, (L.M_TASK, 0, 0, 0))


@pytest.mark.parametrize("held, allowed", [(6, True), (7, False)])
def test_at_most_seven_tasks(main_state, moves_of, held, allowed):
    b = _task_builder(fruit=1, herb=1).tiles(0, task=1)
    for k, tid in enumerate(["B5", "B6", "B7", "B8", "B9", "B10", "B11"][:held]):
        b.task(0, k, tid, lit=k % 2 == 0)
    assert bool(moves_of(main_state(b), L.M_TASK)) is allowed


def test_a_task_needs_the_ship_at_that_island(main_state, moves_of):
    b = _task_builder(island=2, fruit=1, herb=1).tiles(0, task=1)
    assert moves_of(main_state(b), L.M_TASK) == []


def test_an_island_without_tasks_offers_none(main_state, moves_of):
    b = StateBuilder().ship(0, 10).offering_piles(0, *PILES).resources(0, fruit=1, herb=1)
    assert moves_of(main_state(b.tiles(0, task=1)), L.M_TASK) == []


# ---- retrieve a guardian -----------------------------------------------------------------

def test_a_guardian_of_a_new_colour_costs_one_tile_and_waits_on_the_starting_tile(
        main_state, moves_of):
    s = main_state(StateBuilder().tiles(0, guard=1).ship(0, GREY_ISLAND))
    assert moves_of(s, L.M_GUARD) == [(L.M_GUARD, GREY, 0, 0, 0)]
    engine.apply(s, (L.M_GUARD, GREY))
    assert s[PB + L.P_GUARD + GREY] == L.GP_WAIT
    assert s[L.ISLAND_GUARDS + GREY] == 3
    assert _tiles(s) == [0] * 7


def test_a_colour_already_owned_cannot_be_retrieved(main_state, moves_of):
    b = StateBuilder().tiles(0, guard=1).ship(0, GREY_ISLAND).guardian(0, "grey", 2)
    assert moves_of(main_state(b), L.M_GUARD) == []


def test_an_emptied_guardian_island_offers_nothing(main_state, moves_of):
    b = StateBuilder(4).tiles(0, guard=1).ship(0, GREY_ISLAND)
    for seat in (1, 2, 3):
        b.guardian(seat, "grey")
    assert moves_of(main_state(b), L.M_GUARD) == [(L.M_GUARD, GREY, 0, 0, 0)]
    b.s[L.ISLAND_GUARDS + GREY] = 0  # the 4th grey guardian left too
    assert moves_of(main_state(b), L.M_GUARD) == []


def test_a_guardian_needs_the_ship_at_her_island(main_state, moves_of):
    b = StateBuilder().tiles(0, guard=1).ship(0, 2)
    assert moves_of(main_state(b), L.M_GUARD) == []


def test_the_fifth_guardian_is_the_last(main_state, moves_of):
    b = (StateBuilder().tiles(0, guard=2).ship(0, GREY_ISLAND)
         .guardian(0, "pink").guardian(0, "red").guardian(0, "wood"))
    s = main_state(b)
    engine.apply(s, (L.M_GUARD, GREY))  # own + 4 colours = 5
    s = main_state(b.guardian(0, "grey"))
    for island in range(14):
        s[PB + L.P_SHIP] = island
        assert moves_of(s, L.M_GUARD) == []


def test_specialist_17_makes_a_one_step_procession_without_resources(main_state, moves_of):
    b = (StateBuilder().tiles(0, guard=1).ship(0, GREY_ISLAND).specialist(0, 17)
         .path(0, 0).guardian(0, "own", 0))  # path tile 0 shows blossom
    s = main_state(b)
    engine.apply(s, (L.M_GUARD, GREY))
    assert s[L.G_PHASE] == L.PH_PROCESSION
    # The own guardian (furthest ahead, on position 0) moves first: 1 step or stay.
    assert sorted(m[2] for m in moves_of(s, L.M_MOVE_GUARD)) == [-9, 1]
    engine.apply(s, (L.M_MOVE_GUARD, OWN, 1, -1))
    # Then the new grey guardian: from the waiting area to position 0, or stay.
    assert sorted(m[2] for m in moves_of(s, L.M_MOVE_GUARD)) == [-9, 0]
    engine.apply(s, (L.M_MOVE_GUARD, GREY, 0, -1))
    assert s[PB + L.P_GUARD + OWN] == 1 and s[PB + L.P_GUARD + GREY] == 0
    assert _res(s) == [0] * 6  # neither blossom nor gold
    assert s[L.G_CUR] == 1


def test_without_specialist_17_a_retrieved_guardian_just_waits(main_state):
    b = (StateBuilder().tiles(0, guard=1).ship(0, GREY_ISLAND)
         .path(0, 0).guardian(0, "own", 0))
    s = main_state(b)
    engine.apply(s, (L.M_GUARD, GREY))
    assert s[PB + L.P_GUARD + GREY] == L.GP_WAIT and s[PB + L.P_GUARD + OWN] == 0
    assert s[L.G_CUR] == 1


def _pairs_offered(s) -> list[list[int]]:
    assert s[L.G_PHASE] == L.PH_PAY
    return sorted(unpack(m[1], 7) for m in engine.legal_moves(s) if m[0] == L.M_PAY)


def test_a_ship_paid_with_a_pair_lets_the_player_spare_the_tile_the_island_action_needs(
        main_state, moves_of):
    # No ship or yellow tile: the trip costs a pair, task + fire or task + task.
    b = _task_builder(island=2, fruit=1, herb=1).tiles(0, task=2, fire=1)
    s = main_state(b)
    engine.apply(s, (L.M_SHIP, HERB_ISLAND, 1))
    assert _pairs_offered(s) == [[0, 0, 1, 1, 0, 0, 0], [0, 0, 2, 0, 0, 0, 0]]
    engine.apply(s, (L.M_PAY, pack((0, 0, 1, 1, 0, 0, 0)), 0))
    assert _tiles(s) == [0, 0, 1, 0, 0, 0, 0]
    assert moves_of(s, L.M_TASK)
    engine.apply(s, (L.M_TASK, 0, 0, 0))
    assert s[PB + L.P_TASK] == T.task_index("B1")


def test_paying_the_ship_with_both_task_tiles_leaves_no_task_to_receive(main_state, moves_of):
    b = _task_builder(island=2, fruit=1, herb=1).tiles(0, task=2, fire=1)
    s = main_state(b)
    engine.apply(s, (L.M_SHIP, HERB_ISLAND, 1))
    engine.apply(s, (L.M_PAY, pack((0, 0, 2, 0, 0, 0, 0)), 0))
    assert _tiles(s) == [0, 0, 0, 1, 0, 0, 0] and s[PB + L.P_SHIP] == HERB_ISLAND
    assert moves_of(s, L.M_TASK) == []


def test_a_ship_paid_with_a_pair_may_spare_guardian_tiles_too(main_state, moves_of):
    s = main_state(StateBuilder().tiles(0, guard=2, gnome=1).ship(0, 2))
    engine.apply(s, (L.M_SHIP, GREY_ISLAND, 1))
    assert _pairs_offered(s) == [[0, 0, 0, 0, 1, 1, 0], [0, 0, 0, 0, 2, 0, 0]]
    engine.apply(s, (L.M_PAY, pack((0, 0, 0, 0, 1, 1, 0)), 0))
    assert _tiles(s) == [0, 0, 0, 0, 1, 0, 0]
    assert moves_of(s, L.M_GUARD) == [(L.M_GUARD, GREY, 0, 0, 0)]
