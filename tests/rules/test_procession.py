"""Make a procession (rulebook p.9, RULINGS 3, Appendix III specialists 1, 2, 6, 10-13, 17, 20)."""

from __future__ import annotations

from helpers_flow import (
    BLOSSOM,
    BONFIRE,
    FRUIT,
    GOLD,
    GREY,
    GUARD,
    HERB,
    OWN,
    PINK,
    RED,
    ROOT,
    SHELL,
    STAY,
    WOOD,
    guard,
    legal,
    mv,
    of_kind,
    path_tile,
    pb,
    play,
    proc_moves,
    res,
    start,
    tiles,
)

from bonfire_sim.rules import layout as L
from bonfire_sim.rules import scoring as SC
from bonfire_sim.rules import tables as T
from bonfire_sim.rules.state import StateBuilder

P = T.DEFAULT_PARAMS
B_BLOSSOM = path_tile("blue", "blossom")
B_FRUIT = path_tile("blue", "fruit")
B_HERB = path_tile("blue", "herb")
B_SHELL = path_tile("blue", "shell")
B_ROOT = path_tile("blue", "root")
R_FRUIT = path_tile("red", "fruit")


def city(*guardians: tuple[str, int], paths=(B_BLOSSOM, B_FRUIT, B_HERB, B_SHELL),
         guard_tiles: int = 5, specialists=(), own: int = L.GP_WAIT) -> StateBuilder:
    """Seat 0: built paths 1.., the own guardian at ``own``, island guardians, guard tiles."""
    b = StateBuilder(2)
    b.path(0, *paths)
    b.guardian(0, "own", own)
    for colour, pos in guardians:
        b.guardian(0, colour, pos)
    b.tiles(0, guard=guard_tiles)
    b.resources(0)
    for ability in specialists:
        b.specialist(0, ability)
    return b


def zero_res(s):
    s[pb(0) + L.P_RES:pb(0) + L.P_RES + 6] = 0
    return s


def payments(s) -> list[int]:
    return [m[1] for m in of_kind(s, L.M_PROCESSION)]


# ---- paying and steps --------------------------------------------------------------------


def test_paying_k_tiles_lets_each_guardian_move_up_to_k_steps():
    s = zero_res(start(city()))
    play(s, mv(L.M_PROCESSION, 2))
    assert tiles(s)[GUARD] == 3
    assert s[L.G_PHASE] == L.PH_PROCESSION
    # From the waiting area: 1 step = position 0, 2 steps = position 1; not position 2.
    assert sorted(proc_moves(s)) == [(OWN, STAY, -1), (OWN, 0, -1), (OWN, 1, -1)]


def test_payments_are_offered_up_to_what_the_player_can_pay():
    b = city()
    b.tiles(0, guard=3)
    s = start(b)
    assert payments(s) == [1, 2, 3]  # 4 paths: positions 0..4 would need up to 5


def test_no_payment_beyond_the_end_of_the_path_is_offered():
    s = start(city(paths=(B_BLOSSOM,), guard_tiles=5))
    # Waiting area -> 0 -> 1 is the whole path; no bonfire is open.
    assert payments(s) == [1, 2]


def test_no_procession_without_a_guard_tile_or_substitute():
    b = city(guard_tiles=0)
    s = start(b)
    assert payments(s) == []
    b.tiles(0, guard=0, yellow=1)
    assert payments(start(b)) == [1]


def test_the_guardian_furthest_ahead_moves_first():
    s = start(city(("grey", 3), own=1))
    play(s, mv(L.M_PROCESSION, 1))
    assert {m[0] for m in proc_moves(s)} == {GREY}
    play(s, mv(L.M_MOVE_GUARD, GREY, 4, -1))
    assert {m[0] for m in proc_moves(s)} == {OWN}
    assert sorted(proc_moves(s)) == [(OWN, STAY, -1), (OWN, 2, -1)]


def test_several_guardians_in_the_waiting_area_the_player_picks_who_moves_first():
    s = zero_res(start(city(("grey", -1), ("pink", -1))))
    play(s, mv(L.M_PROCESSION, 1))
    assert sorted(proc_moves(s)) == sorted(
        [(g, d, -1) for g in (OWN, GREY, PINK) for d in (STAY, 0)])
    play(s, mv(L.M_MOVE_GUARD, PINK, 0, -1))
    # Position 0 is taken and 1 step reaches nothing else: the procession is over.
    assert s[L.G_PHASE] != L.PH_PROCESSION
    assert (guard(s, PINK), guard(s, OWN), guard(s, GREY)) == (0, -1, -1)
    assert res(s)[GOLD] == 1


def test_a_guardian_that_stays_has_had_her_move():
    s = start(city(("grey", 2), own=0))
    play(s, mv(L.M_PROCESSION, 1), mv(L.M_MOVE_GUARD, GREY, STAY, -1))
    assert {m[0] for m in proc_moves(s)} == {OWN}


def test_a_guardian_may_pass_occupied_path_tiles_but_not_end_on_one():
    s = zero_res(start(city(("grey", 0), own=1)))
    play(s, mv(L.M_PROCESSION, 2))
    play(s, mv(L.M_MOVE_GUARD, OWN, STAY, -1))
    # Grey at 0: position 1 is occupied (not offered), position 2 beyond it is.
    assert sorted(proc_moves(s)) == [(GREY, STAY, -1), (GREY, 2, -1)]
    play(s, mv(L.M_MOVE_GUARD, GREY, 2, -1))
    assert guard(s, GREY) == 2 and res(s)[FRUIT] == 1  # path 2 is the blue fruit tile


def test_a_guardian_blocked_everywhere_is_skipped():
    s = start(city(("grey", 3), paths=(B_BLOSSOM, B_FRUIT, B_HERB), own=2))
    # Grey stands at the end of the path; own is blocked by grey: nothing can move.
    assert payments(s) == []


def test_specialist_1_lets_path_tiles_be_shared():
    s = zero_res(start(city(("grey", 0), own=1, specialists=(1,))))
    play(s, mv(L.M_PROCESSION, 1))
    assert (OWN, 2, -1) in proc_moves(s)
    play(s, mv(L.M_MOVE_GUARD, OWN, STAY, -1))
    assert (GREY, 1, -1) in proc_moves(s)
    play(s, mv(L.M_MOVE_GUARD, GREY, 1, -1))
    assert guard(s, GREY) == guard(s, OWN) == 1
    assert res(s)[BLOSSOM] == 1


def test_specialist_1_does_not_let_bonfires_be_shared():
    b = city(("grey", BONFIRE + 1), own=1, specialists=(1,))
    b.task(0, 1, "B1", lit=True).portals(0, 1)
    s = start(b)
    play(s, mv(L.M_PROCESSION, 1))
    assert (OWN, BONFIRE + 1, -1) not in proc_moves(s)
    assert (OWN, 2, -1) in proc_moves(s)


# ---- bonfires ----------------------------------------------------------------------------


def test_path_j_to_bonfire_j_needs_a_portal_and_a_lit_bonfire():
    def dests(lit: bool, portal: bool):
        b = city(own=2)
        b.task(0, 2, "B1", lit=lit)
        if portal:
            b.portals(0, 2)
        s = start(b)
        play(s, mv(L.M_PROCESSION, 1))
        return sorted(d for _, d, _ in proc_moves(s))

    assert dests(lit=True, portal=True) == [STAY, 3, BONFIRE + 2]
    assert dests(lit=False, portal=True) == [STAY, 3]  # a task not yet ignited
    assert dests(lit=True, portal=False) == [STAY, 3]


def test_no_bonfire_without_a_task_on_the_space():
    b = city(own=2).portals(0, 2)
    s = start(b)
    play(s, mv(L.M_PROCESSION, 1))
    assert BONFIRE + 2 not in [d for _, d, _ in proc_moves(s)]


def test_bonfire_j_is_entered_only_from_path_j():
    b = city(own=3)
    b.task(0, 2, "B1", lit=True).portals(0, 2)
    s = start(b)
    assert payments(s) == [1]
    play(s, mv(L.M_PROCESSION, 1))
    # Standing on path 3, bonfire 2 lies behind her.
    assert BONFIRE + 2 not in [d for _, d, _ in proc_moves(s)]


def test_reaching_a_bonfire_costs_the_path_steps_plus_one():
    b = city()
    b.task(0, 1, "B1", lit=True).portals(0, 1)
    s = start(b)
    play(s, mv(L.M_PROCESSION, 2))  # waiting -> 0 -> 1: no step left for the bonfire
    assert BONFIRE + 1 not in [d for _, d, _ in proc_moves(s)]
    s = start(b)
    play(s, mv(L.M_PROCESSION, 3))  # waiting -> 0 -> 1 -> bonfire 1
    assert (OWN, BONFIRE + 1, -1) in proc_moves(s)


def test_ending_on_a_bonfire_yields_nothing():
    b = city(own=1)
    b.task(0, 1, "B1", lit=True).portals(0, 1)
    s = zero_res(start(b))
    play(s, mv(L.M_PROCESSION, 1), mv(L.M_MOVE_GUARD, OWN, BONFIRE + 1, -1))
    assert guard(s, OWN) == BONFIRE + 1
    assert res(s) == [0] * 6


def test_an_occupied_bonfire_cannot_be_entered():
    b = city(("grey", BONFIRE + 1), own=1)
    b.task(0, 1, "B1", lit=True).portals(0, 1)
    s = start(b)
    play(s, mv(L.M_PROCESSION, 1))
    assert sorted(proc_moves(s)) == [(OWN, STAY, -1), (OWN, 2, -1)]


def test_a_guardian_on_a_bonfire_never_moves_again_in_a_procession():
    b = city(("grey", BONFIRE + 0), own=3)
    b.task(0, 0, "B1", lit=True).portals(0, 0)
    s = start(b)
    play(s, mv(L.M_PROCESSION, 1))
    assert {m[0] for m in proc_moves(s)} == {OWN}
    # With only guardians on bonfires, no procession is possible at all.
    b = city(own=BONFIRE + 0)
    b.task(0, 0, "B1", lit=True).portals(0, 0)
    assert payments(start(b)) == []


# ---- resources ---------------------------------------------------------------------------


def test_ending_on_a_path_tile_yields_its_resource():
    for pos, r in ((1, BLOSSOM), (2, FRUIT), (3, HERB), (4, SHELL)):
        s = zero_res(start(city()))
        play(s, mv(L.M_PROCESSION, pos + 1), mv(L.M_MOVE_GUARD, OWN, pos, -1))
        expect = [0] * 6
        expect[r] = 1
        assert res(s) == expect, pos


def test_ending_on_position_0_yields_gold():
    s = zero_res(start(city()))
    play(s, mv(L.M_PROCESSION, 1), mv(L.M_MOVE_GUARD, OWN, 0, -1))
    assert res(s) == [0, 0, 0, 0, 0, 1]


def test_only_the_tile_where_the_move_ends_pays():
    s = zero_res(start(city()))
    play(s, mv(L.M_PROCESSION, 4), mv(L.M_MOVE_GUARD, OWN, 3, -1))
    assert res(s) == [0, 0, 1, 0, 0, 0]  # herb; nothing for the tiles passed


def test_staying_yields_nothing():
    s = zero_res(start(city(("grey", 1), own=3)))
    play(s, mv(L.M_PROCESSION, 1), mv(L.M_MOVE_GUARD, OWN, STAY, -1))
    play(s, mv(L.M_MOVE_GUARD, GREY, STAY, -1))
    assert res(s) == [0] * 6
    assert tiles(s)[GUARD] == 4  # the payment stays paid


# ---- specialists -------------------------------------------------------------------------


def test_specialist_2_moves_every_guardian_one_step_further_than_paid():
    s = start(city(specialists=(2,)))
    play(s, mv(L.M_PROCESSION, 1))
    assert sorted(proc_moves(s)) == [(OWN, STAY, -1), (OWN, 0, -1), (OWN, 1, -1)]
    s = start(city())
    play(s, mv(L.M_PROCESSION, 1))
    assert sorted(proc_moves(s)) == [(OWN, STAY, -1), (OWN, 0, -1)]


def test_specialist_6_chooses_the_resource_gained_but_never_gold_on_a_path_tile():
    s = zero_res(start(city(own=0, specialists=(6,))))
    play(s, mv(L.M_PROCESSION, 1))
    assert sorted(proc_moves(s)) == [(OWN, STAY, -1)] + [(OWN, 1, r) for r in range(5)]
    assert (OWN, 1, GOLD) not in proc_moves(s)
    play(s, mv(L.M_MOVE_GUARD, OWN, 1, ROOT))  # a blossom tile, root chosen
    assert res(s) == [0, 0, 0, 0, 1, 0]


def test_specialist_6_also_chooses_on_the_starting_tile_where_gold_stays_allowed():
    s = zero_res(start(city(specialists=(6,))))
    play(s, mv(L.M_PROCESSION, 1))
    assert sorted(proc_moves(s)) == [(OWN, STAY, -1)] + [(OWN, 0, r) for r in range(6)]
    play(s, mv(L.M_MOVE_GUARD, OWN, 0, SHELL))
    assert res(s) == [0, 0, 0, 1, 0, 0]


def test_specialist_6_offers_no_choice_for_a_bonfire():
    b = city(own=1, specialists=(6,))
    b.task(0, 1, "B1", lit=True).portals(0, 1)
    s = start(b)
    play(s, mv(L.M_PROCESSION, 1))
    assert [m for m in proc_moves(s) if m[1] == BONFIRE + 1] == [(OWN, BONFIRE + 1, -1)]


def test_specialists_10_to_13_give_the_resource_twice_for_their_guardian_colour():
    for ability, colour, name in ((10, GREY, "grey"), (11, PINK, "pink"), (12, RED, "red"),
                                  (13, WOOD, "wood")):
        s = zero_res(start(city((name, 1), own=3, specialists=(ability,))))
        play(s, mv(L.M_PROCESSION, 1), mv(L.M_MOVE_GUARD, OWN, 4, -1))
        play(s, mv(L.M_MOVE_GUARD, colour, 2, -1))
        assert res(s) == [0, 2, 0, 1, 0, 0], name  # fruit twice (colour), shell once (own)


def test_specialist_10_does_not_help_another_colour():
    s = zero_res(start(city(("pink", 1), specialists=(10,))))
    play(s, mv(L.M_PROCESSION, 1), mv(L.M_MOVE_GUARD, PINK, 2, -1))
    assert res(s)[FRUIT] == 1


def test_specialist_20_adds_a_gold_on_position_0_only():
    s = zero_res(start(city(specialists=(20,))))
    play(s, mv(L.M_PROCESSION, 1), mv(L.M_MOVE_GUARD, OWN, 0, -1))
    assert res(s) == [0, 0, 0, 0, 0, 2]
    s = zero_res(start(city(specialists=(20,))))
    play(s, mv(L.M_PROCESSION, 2), mv(L.M_MOVE_GUARD, OWN, 1, -1))
    assert res(s) == [1, 0, 0, 0, 0, 0]


def test_specialist_17_new_guardian_makes_a_one_step_procession_without_resources():
    b = city(specialists=(17,), guard_tiles=1, own=0)
    s = zero_res(start(b))
    s[pb(0) + L.P_SHIP] = 1  # the grey guardian island
    s[pb(0) + L.P_SHIP_USED] = 1
    play(s, mv(L.M_GUARD, GREY))
    assert tiles(s)[GUARD] == 0  # the procession is free
    assert s[L.G_PHASE] == L.PH_PROCESSION
    # One step for all: own 0 -> 1 first (furthest ahead), then grey waiting -> 0.
    assert sorted(proc_moves(s)) == [(OWN, STAY, -1), (OWN, 1, -1)]
    play(s, mv(L.M_MOVE_GUARD, OWN, 1, -1))
    assert sorted(proc_moves(s)) == [(GREY, STAY, -1), (GREY, 0, -1)]
    play(s, mv(L.M_MOVE_GUARD, GREY, 0, -1))
    assert res(s) == [0] * 6  # neither the blossom nor the gold
    assert (guard(s, OWN), guard(s, GREY)) == (1, 0)
    assert s[L.G_PROC_NOGAIN] == 1


def test_specialist_17_procession_also_withholds_specialist_20_gold():
    b = city(specialists=(17, 20), guard_tiles=1, own=3)
    s = zero_res(start(b))
    s[pb(0) + L.P_SHIP] = 1
    s[pb(0) + L.P_SHIP_USED] = 1
    play(s, mv(L.M_GUARD, GREY), mv(L.M_MOVE_GUARD, OWN, STAY, -1))
    play(s, mv(L.M_MOVE_GUARD, GREY, 0, -1))
    assert res(s) == [0] * 6


def test_specialist_17_with_specialist_2_moves_two_steps():
    b = city(specialists=(17, 2), guard_tiles=1)
    b.guardian(0, "own", 3)
    s = start(b)
    s[pb(0) + L.P_SHIP] = 1
    s[pb(0) + L.P_SHIP_USED] = 1
    play(s, mv(L.M_GUARD, GREY), mv(L.M_MOVE_GUARD, OWN, STAY, -1))
    assert sorted(proc_moves(s)) == [(GREY, STAY, -1), (GREY, 0, -1), (GREY, 1, -1)]


def test_retrieving_a_guardian_without_specialist_17_makes_no_procession():
    b = city(guard_tiles=1)
    s = start(b)
    s[pb(0) + L.P_SHIP] = 1
    s[pb(0) + L.P_SHIP_USED] = 1
    play(s, mv(L.M_GUARD, GREY))
    assert guard(s, GREY) == L.GP_WAIT and guard(s, OWN) == L.GP_WAIT
    assert s[L.G_PHASE] != L.PH_PROCESSION


# ---- payment pruning ---------------------------------------------------------------------


def test_a_payment_is_offered_when_a_guardian_ahead_can_clear_the_way():
    # Grey at 2 can step to 3 with 1 tile; only then can own (at 0) end on 2 with 2 tiles.
    s = start(city(("grey", 2), paths=(B_BLOSSOM, B_FRUIT, B_HERB), own=0))
    assert payments(s) == [1, 2, 3]  # 3 tiles: own straight to 3
    play(s, mv(L.M_PROCESSION, 2), mv(L.M_MOVE_GUARD, GREY, 3, -1))
    assert (OWN, 2, -1) in proc_moves(s)


def test_a_payment_that_reaches_nothing_new_is_not_offered():
    # Grey stands at the end of the path: own (at 0) can never end on 3 or beyond.
    s = start(city(("grey", 3), paths=(B_BLOSSOM, B_FRUIT, B_HERB), own=0))
    assert payments(s) == [1, 2]  # 1 tile: to 1; 2 tiles: to 2


# ---- the rulebook's examples -------------------------------------------------------------


def rulebook_city() -> StateBuilder:
    """Path: 0 gold, 1-3 blossom/herb/shell, 4 fruit.  Red on 3, own on 2, pink on 1,
    wood waiting.  Bonfire 2 (next to path 2) is lit and has its portal."""
    b = city(("red", 3), ("pink", 1), ("wood", -1), own=2,
             paths=(B_BLOSSOM, B_HERB, B_SHELL, R_FRUIT))
    b.task(0, 2, "B2", lit=True).portals(0, 2)
    return b


def test_rulebook_example_red_and_wood_move_one_step_pink_is_blocked():
    s = zero_res(start(rulebook_city()))
    play(s, mv(L.M_PROCESSION, 1))
    play(s, mv(L.M_MOVE_GUARD, RED, 4, -1))  # red, furthest ahead: onto the fruit tile
    play(s, mv(L.M_MOVE_GUARD, OWN, STAY, -1))
    # Pink (on 1): the next tile is occupied and 1 step does not reach bonfire 2.
    assert sorted(proc_moves(s)) == [(WOOD, STAY, -1), (WOOD, 0, -1)]
    play(s, mv(L.M_MOVE_GUARD, WOOD, 0, -1))
    assert res(s) == [0, 1, 0, 0, 0, 1]  # 1 fruit + 1 gold
    assert (guard(s, RED), guard(s, PINK), guard(s, WOOD)) == (4, 1, 0)


def test_rulebook_example_pink_moves_two_steps_to_a_bonfire():
    b = rulebook_city()
    s = zero_res(start(b))
    s[pb(0) + L.P_GUARD + RED] = 4
    s[pb(0) + L.P_GUARD + WOOD] = 0
    play(s, mv(L.M_PROCESSION, 2))
    play(s, mv(L.M_MOVE_GUARD, OWN, STAY, -1))
    assert (PINK, BONFIRE + 2, -1) in proc_moves(s)  # 1 -> (2, occupied) -> bonfire 2
    play(s, mv(L.M_MOVE_GUARD, PINK, BONFIRE + 2, -1))
    play(s, mv(L.M_MOVE_GUARD, WOOD, STAY, -1))
    assert res(s) == [0] * 6  # nothing now ...
    assert SC.guardian_points(s, P, pb(0)) == 4  # ... but 4 points at the end


def test_the_procession_ends_the_turn_once_every_guardian_has_moved():
    s = start(city())
    play(s, mv(L.M_PROCESSION, 1), mv(L.M_MOVE_GUARD, OWN, 0, -1))
    # No bonus action available: the turn passes to seat 1.
    assert s[L.G_CUR] == 1 and s[L.G_PHASE] == L.PH_MAIN
    assert legal(s)


def test_specialist_20_with_specialist_6_adds_its_gold_to_the_resource_chosen():
    # docs/rules-notes.md: on the Starting Tile specialist 6 chooses the resource (a
    # blossom, not the printed gold) and specialist 20 still adds its 1 gold.
    s = zero_res(start(city(specialists=(6, 20))))
    play(s, mv(L.M_PROCESSION, 1), mv(L.M_MOVE_GUARD, OWN, 0, BLOSSOM))
    assert res(s) == [1, 0, 0, 0, 0, 1]
    s = zero_res(start(city(specialists=(6, 20))))
    play(s, mv(L.M_PROCESSION, 1), mv(L.M_MOVE_GUARD, OWN, 0, GOLD))
    assert res(s) == [0, 0, 0, 0, 0, 2]
