"""Ignite a bonfire, the High Council and the bonus action (rulebook p.11, Appendix II,
RULINGS 5; specialists 7, 19, 24)."""

from __future__ import annotations

import numpy as np
from helpers_flow import (
    BONFIRE,
    FRUIT,
    GOLD,
    GREY,
    GUARD,
    OWN,
    PINK,
    SHIP,
    STAY,
    WOOD,
    YELLOW,
    council,
    guard,
    legal,
    mv,
    of_kind,
    path_tile,
    pb,
    play,
    res,
    score,
    start,
    tiles,
)

from bonfire_sim.rules import components as C
from bonfire_sim.rules import layout as L
from bonfire_sim.rules import tables as T
from bonfire_sim.rules.state import StateBuilder

P = T.DEFAULT_PARAMS
SP_GOLD, SP_PATH, SP_GUARD, SP_FIRE, SP_SPEC, SP_MOVE, SP_SHIP, SP_FATE = range(8)
NEUTRAL = L.NEUTRAL
TASKS7, PORTALS7, PATHS7, GUARDIANS5, GNOMES6 = range(5)
B_BLOSSOM = path_tile("blue", "blossom")
B_FRUIT = path_tile("blue", "fruit")
B_HERB = path_tile("blue", "herb")
Y_SHELL = path_tile("yellow", "shell")
B_HERB2, B_FRUIT2 = path_tile("blue", "herb", 1), path_tile("blue", "fruit", 1)
Y_SHELL2 = path_tile("yellow", "shell", 1)


def igniter(*specialists: int) -> StateBuilder:
    """Seat 0 owns the grey guardian; B5 (grey guardian, fulfilled) waits on space 0,
    B6 (pink guardian, not fulfilled) on space 1."""
    b = StateBuilder(2)
    b.guardian(0, "grey").task(0, 0, "B5").task(0, 1, "B6")
    for a in specialists:
        b.specialist(0, a)
    return b


def ignited(*specialists: int) -> np.ndarray:
    s = start(igniter(*specialists))
    play(s, mv(L.M_IGNITE, 0))
    return s


def council_moves(s) -> list[tuple[int, int]]:
    return sorted((m[1], m[2]) for m in of_kind(s, L.M_COUNCIL))


def spaces(s, point: int = 0) -> list[int]:
    return sorted(a for a, b in council_moves(s) if b == point)


def deal_paths(s, display=(B_BLOSSOM, B_FRUIT, B_HERB, Y_SHELL), deck=()):
    for j in range(4):
        s[L.PATH_DISP + j] = display[j] if j < len(display) else -1
    for i, t in enumerate(deck):
        s[L.PATH_DECK + i] = t
    s[L.G_PATH_HEAD] = 0
    s[L.G_PATH_N] = len(deck)


def deal_specialists(s, display=(0, 1, 2, 3, 4, 5), pile=(6, 7)):
    for j in range(6):
        s[L.SPEC_DISP + j] = display[j] if j < len(display) else -1
    for i, g in enumerate(pile):
        s[L.SPEC_PILE + i] = g
    s[L.G_SPEC_TOP] = 0
    s[L.G_SPEC_N] = len(pile)


# ---- ignite ------------------------------------------------------------------------------


def test_only_a_fulfilled_task_may_be_ignited():
    s = start(igniter())
    assert of_kind(s, L.M_IGNITE) == [mv(L.M_IGNITE, 0)]


def test_a_lit_bonfire_cannot_be_ignited_again():
    b = StateBuilder(2).guardian(0, "grey").task(0, 0, "B5", lit=True)
    assert of_kind(start(b), L.M_IGNITE) == []


def test_igniting_flips_the_task_and_sends_its_novice_to_the_council():
    s = ignited()
    b = pb(0)
    assert s[b + L.P_LIT + 0] == 1 and s[b + L.P_NOVICE + 0] == 0
    assert s[b + L.P_LIT + 1] == 0 and s[b + L.P_NOVICE + 1] == 1
    assert s[L.G_PHASE] == L.PH_COUNCIL and s[L.G_NOV_COLOUR] == 0
    play(s, mv(L.M_COUNCIL, SP_PATH, 1))
    assert council(s, SP_PATH, 0) == 1 and s[L.G_COUNCIL_N] == 1


def test_the_novice_may_go_to_any_space_with_bonus_or_point_but_space_0_has_no_point():
    s = ignited()
    deal_paths(s)
    deal_specialists(s)
    b = pb(0)
    s[b + L.P_NPATH] = 1
    s[b + L.P_PATH + 1] = B_BLOSSOM
    assert spaces(s, 0) == list(range(8))
    assert spaces(s, 1) == list(range(1, 8))


def test_the_novice_may_not_join_a_novice_of_its_colour():
    s = ignited()
    s[L.COUNCIL + SP_GOLD * 5 + 0] = 1  # seat 0's novice already there
    s[L.COUNCIL + SP_SHIP * 5 + 1] = 1  # seat 1's novice: no obstacle
    s[L.COUNCIL + SP_FIRE * 5 + NEUTRAL] = 1  # a neutral novice: no obstacle
    assert SP_GOLD not in spaces(s, 0)
    assert SP_SHIP in spaces(s, 0) and SP_FIRE in spaces(s, 0)


def test_specialist_24_lets_novices_of_one_colour_share_a_space():
    s = ignited(24)
    s[L.COUNCIL + SP_GOLD * 5 + 0] = 1
    play(s, mv(L.M_COUNCIL, SP_GOLD, 0))
    assert council(s, SP_GOLD, 0) == 2


def test_the_point_alternative_scores_1():
    s = ignited()
    play(s, mv(L.M_COUNCIL, SP_SPEC, 1))
    assert score(s) == 1 and s[pb(0) + L.P_PTS_COUNCIL] == 1
    assert s[L.G_CUR] == 1  # the turn is over


# ---- the 8 bonuses -----------------------------------------------------------------------


def test_space_0_gives_2_gold_and_a_yellow_tile():
    s = ignited()
    before_r, before_t = res(s), tiles(s)
    play(s, mv(L.M_COUNCIL, SP_GOLD, 0))
    assert res(s)[GOLD] == before_r[GOLD] + 2
    assert tiles(s)[YELLOW] == before_t[YELLOW] + 1
    assert score(s) == 0


def test_space_1_path_from_the_display_or_searched_from_the_deck():
    s = ignited()
    deck = (B_HERB2, Y_SHELL2, B_FRUIT2, path_tile("red", "root"))
    deal_paths(s, deck=deck)
    play(s, mv(L.M_COUNCIL, SP_PATH, 0))
    assert s[L.G_PHASE] == L.PH_C_PATH
    moves = {m[1] for m in of_kind(s, L.M_TAKE_PATH)}
    # 4 display slots + one choice per tile kind in the deck
    assert moves == {0, 1, 2, 3} | {10 + t for t in deck}
    play(s, mv(L.M_TAKE_PATH, 10 + path_tile("red", "root")))
    b = pb(0)
    assert s[b + L.P_NPATH] == 1 and s[b + L.P_PATH + 1] == path_tile("red", "root")
    assert s[L.G_PATH_N] == 3
    left = sorted(s[L.PATH_DECK:L.PATH_DECK + 3].tolist())
    assert left == sorted([B_HERB2, Y_SHELL2, B_FRUIT2])
    assert tiles(s) == [0] * 7  # free


def test_space_1_path_from_the_display_is_refilled():
    s = ignited()
    deal_paths(s, deck=(B_HERB2,))
    play(s, mv(L.M_COUNCIL, SP_PATH, 0), mv(L.M_TAKE_PATH, 1))
    assert s[pb(0) + L.P_PATH + 1] == B_FRUIT
    assert s[L.PATH_DISP + 1] == B_HERB2 and s[L.G_PATH_N] == 0


def test_space_1_is_unavailable_with_6_paths_but_its_point_is_not():
    s = ignited()
    deal_paths(s)
    b = pb(0)
    s[b + L.P_NPATH] = 6
    s[b + L.P_PATH + 1:b + L.P_PATH + 7] = B_BLOSSOM
    assert SP_PATH not in spaces(s, 0) and SP_PATH in spaces(s, 1)


def test_space_2_a_guardian_of_a_new_colour():
    s = ignited()
    play(s, mv(L.M_COUNCIL, SP_GUARD, 0))
    assert [m[1] for m in of_kind(s, L.M_TAKE_GUARD)] == [2, 3, 4]  # not grey: owned
    play(s, mv(L.M_TAKE_GUARD, WOOD))
    assert guard(s, WOOD) == L.GP_WAIT
    assert s[L.ISLAND_GUARDS + WOOD] == C.N_GUARD_PER_COLOUR - 1


def test_space_2_skips_a_colour_whose_island_is_empty():
    s = ignited()
    s[L.ISLAND_GUARDS + PINK] = 0
    play(s, mv(L.M_COUNCIL, SP_GUARD, 0))
    assert [m[1] for m in of_kind(s, L.M_TAKE_GUARD)] == [3, 4]


def test_space_2_is_unavailable_with_5_guardians():
    b = igniter().guardian(0, "pink").guardian(0, "red").guardian(0, "wood")
    s = start(b)
    play(s, mv(L.M_IGNITE, 0))
    assert SP_GUARD not in spaces(s, 0) and SP_GUARD in spaces(s, 1)


def test_space_3_turns_the_great_bonfire_to_any_space_for_free():
    s = ignited()
    s[L.G_GB_USED] = 1
    s[L.G_GB_POS] = 4
    play(s, mv(L.M_COUNCIL, SP_FIRE, 0))
    fire = of_kind(s, L.M_FIRE)
    assert {m[1] for m in fire} == set(range(7))  # the current space included
    assert all(m[4] == 0 for m in fire)  # nothing paid
    before = res(s)
    play(s, mv(L.M_FIRE, 2, 0, -1, 0))  # space 2: task tile + herb
    assert s[L.G_GB_POS] == 2
    assert tiles(s)[2] == 1 and res(s)[2] == before[2] + 1


def test_space_3_can_take_a_portal_and_the_2_points_of_the_points_space():
    s = ignited()
    g = 6
    shape = P[T.BOARD_NOTCH + s[pb(0) + L.P_BOARD] * 7 + 6]  # the first notch is 6
    s[L.GB_PORTALS + g * 7 + shape] = 1
    play(s, mv(L.M_COUNCIL, SP_FIRE, 0))
    assert (L.M_FIRE, g, 4, shape, 0) in legal(s)  # 2 points + portal
    play(s, mv(L.M_FIRE, g, 4, shape, 0))
    assert s[pb(0) + L.P_PORTAL + 6] == 1 and score(s) == 2
    assert s[L.G_GB_USED] == 1


def test_space_3_never_offers_points_on_a_resource_space():
    s = ignited()
    shape = P[T.BOARD_NOTCH + s[pb(0) + L.P_BOARD] * 7 + 6]
    for g in range(6):
        s[L.GB_PORTALS + g * 7 + shape] = 1
    play(s, mv(L.M_COUNCIL, SP_FIRE, 0))
    fire = of_kind(s, L.M_FIRE)
    assert {m[2] for m in fire if m[1] < 6} == {0, 2, 3}  # tile+res, tile+portal, res+portal
    assert {m[2] for m in fire if m[1] == 6} == {1}  # no portal lies there: tile + 2 points


def test_space_4_a_free_specialist_and_the_display_is_refilled():
    s = ignited()
    deal_specialists(s)
    r0 = res(s)
    play(s, mv(L.M_COUNCIL, SP_SPEC, 0))
    assert sorted(m[1] for m in of_kind(s, L.M_TAKE_SPEC)) == [0, 1, 2, 3, 4, 5]
    play(s, mv(L.M_TAKE_SPEC, 3))
    assert s[pb(0) + L.P_GNOME + 3] == 1 and s[pb(0) + L.P_NGNOME] == 1
    assert s[L.SPEC_DISP + 3] == 6
    assert res(s) == r0 and tiles(s) == [0] * 7


def test_space_4_is_unavailable_with_6_gnomes_or_an_empty_display():
    b = igniter()
    for g in range(27, 33):
        b.gnome(0, g)
    s = start(b)
    play(s, mv(L.M_IGNITE, 0))
    deal_specialists(s)
    assert SP_SPEC not in spaces(s, 0) and SP_SPEC in spaces(s, 1)
    s = ignited()
    deal_specialists(s, display=(), pile=())
    assert SP_SPEC not in spaces(s, 0)


def move_city(*extra) -> np.ndarray:
    """Seat 0: paths 1-3 (blossom, fruit, herb); own guardian on 3, grey on 1; bonfire 0 lit
    with its portal.  B5 (grey guardian) on space 2 is ignited; its novice takes space 5."""
    b = StateBuilder(2)
    b.path(0, B_BLOSSOM, B_FRUIT, B_HERB)
    b.guardian(0, "own", 3).guardian(0, "grey", 1)
    b.task(0, 0, "B1", lit=True).portals(0, 0)
    b.task(0, 2, "B5")  # the grey guardian: fulfilled
    for a in extra:
        b.specialist(0, a)
    s = start(b)
    s[pb(0) + L.P_RES:pb(0) + L.P_RES + 6] = 0
    play(s, mv(L.M_IGNITE, 2), mv(L.M_COUNCIL, SP_MOVE, 0))
    return s


def test_space_5_moves_a_guardian_forward_or_backward_to_a_free_place():
    s = move_city()
    assert s[L.G_PHASE] == L.PH_C_MOVE
    dests = {}
    for _, g, d, _r, _ in of_kind(s, L.M_MOVE_GUARD):
        dests.setdefault(g, []).append(d)
    assert sorted(dests[OWN]) == [0, 2, BONFIRE + 0]  # not 1 (grey), not 3 (herself)
    assert sorted(dests[GREY]) == [0, 2, BONFIRE + 0]
    assert STAY not in dests[OWN]


def test_space_5_backward_move_gains_the_usual_reward():
    s = move_city()
    play(s, mv(L.M_MOVE_GUARD, OWN, 0, -1))
    assert guard(s, OWN) == 0 and res(s) == [0, 0, 0, 0, 0, 1]  # position 0: gold


def test_space_5_move_to_a_bonfire_gains_nothing_and_specialists_apply():
    s = move_city()
    play(s, mv(L.M_MOVE_GUARD, GREY, BONFIRE + 0, -1))
    assert guard(s, GREY) == BONFIRE + 0 and res(s) == [0] * 6
    s = move_city(10)
    play(s, mv(L.M_MOVE_GUARD, GREY, 2, -1))
    assert res(s)[FRUIT] == 2  # specialist 10: the grey guardian's resource twice


def test_space_5_with_specialist_6_chooses_gold_only_on_the_starting_tile():
    s = move_city(6)
    choices = {}
    for _, g, d, r, _ in of_kind(s, L.M_MOVE_GUARD):
        if g == OWN:
            choices.setdefault(d, set()).add(r)
    assert choices[0] == set(range(6))  # the Starting Tile: gold or any other resource
    assert choices[2] == set(range(5))  # a path tile: any resource but gold
    assert choices[BONFIRE + 0] == {-1}


def test_space_5_can_move_a_guardian_off_a_bonfire():
    b = StateBuilder(2).path(0, B_BLOSSOM).guardian(0, "own", BONFIRE + 0)
    b.task(0, 0, "B1", lit=True).portals(0, 0).guardian(0, "grey").task(0, 1, "B5")
    s = start(b)
    play(s, mv(L.M_IGNITE, 1), mv(L.M_COUNCIL, SP_MOVE, 0))
    assert (L.M_MOVE_GUARD, OWN, 1, -1, 0) in legal(s)
    play(s, mv(L.M_MOVE_GUARD, OWN, 1, -1))
    assert guard(s, OWN) == 1


def test_space_5_is_unavailable_when_no_guardian_can_move():
    # Only the own guardian, on position 0, and no path tile built (B14: a blossom gnome).
    s = start(StateBuilder(2).guardian(0, "own", 0).gnome(0, 27).task(0, 0, "B14"))
    play(s, mv(L.M_IGNITE, 0))
    assert SP_MOVE not in spaces(s, 0) and SP_MOVE in spaces(s, 1)


def test_space_6_a_free_ship_move_then_the_island_action_at_normal_cost():
    s = ignited()
    s[pb(0) + L.P_TILES + GUARD] = 1
    play(s, mv(L.M_COUNCIL, SP_SHIP, 0))
    assert sorted(m[1] for m in of_kind(s, L.M_SHIP_TO)) == list(range(C.N_ISLANDS))
    play(s, mv(L.M_SHIP_TO, 4))  # the pink guardian island, not a neighbour of the harbour
    assert s[pb(0) + L.P_SHIP] == 4 and tiles(s)[SHIP] == 0
    assert s[L.G_PHASE] == L.PH_SHIP_ACTION
    play(s, mv(L.M_GUARD, PINK))
    assert guard(s, PINK) == L.GP_WAIT and tiles(s)[GUARD] == 0


def test_space_6_without_the_means_for_the_island_action_just_sails():
    s = ignited()
    play(s, mv(L.M_COUNCIL, SP_SHIP, 0), mv(L.M_SHIP_TO, 4))
    assert s[pb(0) + L.P_SHIP] == 4
    assert s[L.G_CUR] == 1  # no island action possible: the turn ended


def test_space_7_places_the_next_fate_tile_ignoring_the_tile_limit():
    s = ignited()
    s[pb(0) + L.P_TILES + SHIP] = 4
    s[pb(0) + L.P_TILES + YELLOW] = 1
    placed = s[pb(0) + L.P_FATE_PLACED]
    play(s, mv(L.M_COUNCIL, SP_FATE, 0))
    assert s[L.G_PHASE] == L.PH_C_FATE
    m = of_kind(s, L.M_FATE)[0]
    play(s, m)
    assert s[pb(0) + L.P_FATE_PLACED] == placed + 1
    t = tiles(s)
    assert t[SHIP] == 4 and t[YELLOW] >= 1  # nothing discarded (the tile shows no ship)
    assert sum(t) >= 5 + 3


def test_option_i_discards_down_to_the_limit_for_comparison():
    s = start(igniter())
    s[pb(0) + L.P_TILES + SHIP] = 4
    m = of_kind(s, L.M_FATE)[0]
    play(s, m)
    assert tiles(s)[SHIP] == 1  # discarded down to 1; the tile shows no ship


def test_space_7_is_unavailable_without_a_fate_tile_in_the_supply():
    s = start(igniter(), supply=0)
    play(s, mv(L.M_IGNITE, 0))
    assert SP_FATE not in spaces(s, 0) and SP_FATE in spaces(s, 1)


# ---- specialist 7 ------------------------------------------------------------------------


def test_specialist_7_gains_a_gold_per_own_novice_placed():
    s = ignited(7)
    g = res(s)[GOLD]
    play(s, mv(L.M_COUNCIL, SP_SPEC, 1))
    assert res(s)[GOLD] == g + 1 and score(s) == 1


def test_specialist_7_gains_a_gold_per_neutral_novice_placed():
    s = start(bonus_city(7))
    g = res(s)[GOLD]
    play(s, mv(L.M_BONUS, GUARDIANS5), mv(L.M_COUNCIL, SP_PATH, 1))
    assert res(s)[GOLD] == g + 1


def test_no_gold_for_placing_without_specialist_7():
    s = ignited()
    g = res(s)[GOLD]
    play(s, mv(L.M_COUNCIL, SP_SPEC, 1))
    assert res(s)[GOLD] == g


# ---- the bonus action --------------------------------------------------------------------


def bonus_city(*specialists: int, paths: bool = False) -> StateBuilder:
    """Seat 0 has 5 guardians (common task "5 guardians"); with ``paths`` also 6 paths."""
    b = StateBuilder(2)
    for name in ("grey", "pink", "red", "wood"):
        b.guardian(0, name)
    if paths:
        b.path(0, *([B_BLOSSOM] * 6))
    for a in specialists:
        b.specialist(0, a)
    return b


def test_a_bonus_action_needs_a_fulfilled_common_task_with_its_neutral_novice():
    s = start(bonus_city())
    assert of_kind(s, L.M_BONUS) == [mv(L.M_BONUS, GUARDIANS5)]
    s[L.COMMON_NOVICE + GUARDIANS5] = 0
    assert of_kind(s, L.M_BONUS) == []
    s = start(StateBuilder(2).guardian(0, "grey").guardian(0, "pink").guardian(0, "red"))
    assert of_kind(s, L.M_BONUS) == []  # 4 guardians only


def test_the_bonus_action_sends_the_neutral_novice_to_a_space_without_one():
    s = start(bonus_city())
    s[L.COUNCIL + SP_GOLD * 5 + NEUTRAL] = 1
    s[L.COUNCIL + SP_PATH * 5 + 0] = 1  # an own novice does not block a neutral one
    play(s, mv(L.M_BONUS, GUARDIANS5))
    assert s[L.COMMON_NOVICE + GUARDIANS5] == 0
    assert s[L.G_PHASE] == L.PH_COUNCIL and s[L.G_NOV_COLOUR] == NEUTRAL
    assert SP_GOLD not in spaces(s, 0)
    assert SP_PATH in spaces(s, 1)
    play(s, mv(L.M_COUNCIL, SP_PATH, 1))
    assert council(s, SP_PATH, NEUTRAL) == 1 and score(s) == 1


def test_the_bonus_action_comes_before_the_main_option_and_the_turn_goes_on():
    s = start(bonus_city())
    play(s, mv(L.M_BONUS, GUARDIANS5), mv(L.M_COUNCIL, SP_GOLD, 0))
    assert s[L.G_CUR] == 0 and s[L.G_PHASE] == L.PH_MAIN
    assert of_kind(s, L.M_FATE)  # the main option is still to come
    assert of_kind(s, L.M_BONUS) == []


def test_the_bonus_action_after_the_main_option():
    s = start(bonus_city())
    play(s, of_kind(s, L.M_FATE)[0])
    assert s[L.G_CUR] == 0 and s[L.G_PHASE] == L.PH_POST
    assert sorted(legal(s)) == sorted([mv(L.M_BONUS, GUARDIANS5), mv(L.M_END)])
    play(s, mv(L.M_BONUS, GUARDIANS5), mv(L.M_COUNCIL, SP_SHIP, 1))
    assert s[L.G_CUR] == 1  # no further bonus: the turn ended


def test_any_number_of_bonus_actions_per_turn():
    s = start(bonus_city(paths=True))
    assert sorted(m[1] for m in of_kind(s, L.M_BONUS)) == [PATHS7, GUARDIANS5]
    play(s, mv(L.M_BONUS, PATHS7), mv(L.M_COUNCIL, SP_GOLD, 0))
    play(s, mv(L.M_BONUS, GUARDIANS5), mv(L.M_COUNCIL, SP_GUARD, 1))
    assert s[L.G_PHASE] == L.PH_MAIN and s[L.G_CUR] == 0
    assert council(s, SP_GOLD, NEUTRAL) == 1 and council(s, SP_GUARD, NEUTRAL) == 1
    assert s[L.G_COUNCIL_N] == 2


def test_a_bonus_action_is_no_option_i_ii_or_iii():
    # A player whose only possibility is a bonus action still has it offered.
    s = start(bonus_city(), supply=0)
    assert mv(L.M_BONUS, GUARDIANS5) in legal(s)


def test_the_ignite_and_the_bonus_action_in_one_turn():
    b = bonus_city().task(0, 0, "B5")
    s = start(b)
    play(s, mv(L.M_IGNITE, 0), mv(L.M_COUNCIL, SP_GOLD, 0))
    assert s[L.G_PHASE] == L.PH_POST
    play(s, mv(L.M_BONUS, GUARDIANS5), mv(L.M_COUNCIL, SP_SPEC, 1))
    assert council(s, SP_GOLD, 0) == 1 and council(s, SP_SPEC, NEUTRAL) == 1
    assert s[L.G_CUR] == 1


# ---- specialist 19 -----------------------------------------------------------------------


def test_specialist_19_pays_gold_and_yellow_once_per_common_task():
    b = StateBuilder(2).specialist(0, 19)
    for name in ("grey", "pink", "red"):
        b.guardian(0, name)
    b.tiles(0, guard=2)
    s = start(b)
    s[pb(0) + L.P_SHIP] = 11  # the wood guardian island
    s[pb(0) + L.P_SHIP_USED] = 1
    r, t = res(s), tiles(s)
    play(s, mv(L.M_GUARD, WOOD))  # the 5th guardian
    assert res(s)[GOLD] == r[GOLD] + 1
    assert tiles(s)[YELLOW] == t[YELLOW] + 1
    assert s[pb(0) + L.P_COMMON_DONE + GUARDIANS5] == 1
    # Placing the neutral novice later (or not at all) pays nothing more.
    play(s, mv(L.M_BONUS, GUARDIANS5), mv(L.M_COUNCIL, SP_GOLD, 0))
    assert res(s)[GOLD] == r[GOLD] + 1 + 2
    assert tiles(s)[YELLOW] == t[YELLOW] + 1 + 1


def test_specialist_19_pays_even_without_the_neutral_novice():
    b = StateBuilder(2).specialist(0, 19)
    for name in ("grey", "pink", "red"):
        b.guardian(0, name)
    b.tiles(0, guard=1)
    s = start(b)
    s[L.COMMON_NOVICE + GUARDIANS5] = 0
    s[pb(0) + L.P_SHIP] = 11
    s[pb(0) + L.P_SHIP_USED] = 1
    g = res(s)[GOLD]
    play(s, mv(L.M_GUARD, WOOD))
    assert res(s)[GOLD] == g + 1


def test_without_specialist_19_fulfilling_a_common_task_pays_nothing():
    b = StateBuilder(2)
    for name in ("grey", "pink", "red"):
        b.guardian(0, name)
    b.tiles(0, guard=1)
    s = start(b)
    s[pb(0) + L.P_SHIP] = 11
    s[pb(0) + L.P_SHIP_USED] = 1
    r, t = res(s), tiles(s)
    play(s, mv(L.M_GUARD, WOOD))
    assert res(s) == r and tiles(s)[YELLOW] == t[YELLOW]


def test_specialist_19_does_not_pay_for_a_task_fulfilled_before_it_arrived():
    b = bonus_city()
    b.tiles(0, gnome=4).resources(0, blossom=3)
    s = start(b)
    deal_specialists(s, display=(18,), pile=())  # gnome id 18 = specialist 19
    play(s, of_kind(s, L.M_FATE)[0], mv(L.M_END))  # "5 guardians" is fulfilled now
    play(s, of_kind(s, L.M_FATE)[0])  # seat 1
    assert s[L.G_CUR] == 0 and s[L.G_PHASE] == L.PH_MAIN
    assert s[pb(0) + L.P_COMMON_DONE + GUARDIANS5] == 1
    s[pb(0) + L.P_TILES + 5] = 4
    s[pb(0) + L.P_RES + 2] = 2  # herb: specialist 19's resource
    g = res(s)[GOLD]
    mvs = [m for m in of_kind(s, L.M_GNOME) if m[1] == 18]
    play(s, mvs[0])
    assert s[pb(0) + L.P_GNOME + 18] == 1
    assert res(s)[GOLD] == g  # no retroactive gold


def test_neutral_novice_placement_counts_for_the_countdown_trigger():
    s = start(bonus_city())
    s[L.G_COUNCIL_N] = 6
    play(s, mv(L.M_BONUS, GUARDIANS5), mv(L.M_COUNCIL, SP_GOLD, 0))
    assert s[L.G_CD_ACTIVE] == 1 and s[L.G_CD_PILE] == 5



def test_space_2_with_specialist_17_starts_the_one_step_procession():
    b = igniter(17).path(0, B_BLOSSOM)
    b.guardian(0, "own", 0)
    s = start(b)
    s[pb(0) + L.P_RES:pb(0) + L.P_RES + 6] = 0
    play(s, mv(L.M_IGNITE, 0), mv(L.M_COUNCIL, SP_GUARD, 0), mv(L.M_TAKE_GUARD, PINK))
    assert s[L.G_PHASE] == L.PH_PROCESSION
    play(s, mv(L.M_MOVE_GUARD, OWN, 1, -1))  # own first (ahead), then grey or pink
    play(s, mv(L.M_MOVE_GUARD, PINK, 0, -1))
    assert res(s) == [0] * 6 and guard(s, PINK) == 0 and guard(s, OWN) == 1
    assert s[L.G_CUR] == 1
