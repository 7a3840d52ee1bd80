"""Setup (rulebook pp.4-5, solo p.12): ``rules.setup.new_game`` deals the table and cities."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from bonfire_sim import engine
from bonfire_sim.rules import components as C
from bonfire_sim.rules import layout as L
from bonfire_sim.rules import tables as T
from bonfire_sim.rules.setup import new_game
from bonfire_sim.rules.state import fate_index

P = T.DEFAULT_PARAMS
SEEDS = range(12)
TASK_ISLANDS = [i for i, isl in enumerate(C.ISLANDS) if isl[0] == "task"]
CORNERS = [i for i, isl in enumerate(C.ISLANDS) if isl[2]]
Y2 = T.task_index("Y2")
GOLD_SPECIALIST_IDS = {a - 1 for a in C.GOLD_SPECIALISTS}


def _island_tasks(s: np.ndarray, i: int) -> list[int]:
    return [int(t) for t in s[L.ISLAND_TASKS + i * 3:L.ISLAND_TASKS + i * 3 + 3] if t >= 0]


def _all_tasks(s: np.ndarray) -> list[int]:
    return [t for i in range(C.N_ISLANDS) for t in _island_tasks(s, i)]


def _portals(s: np.ndarray, space: int) -> list[int]:
    return s[L.GB_PORTALS + space * 7:L.GB_PORTALS + space * 7 + 7].tolist()


def _colour(t: int) -> int:
    return int(P[T.T_COLOUR + t])


# ---- tasks on the islands ----------------------------------------------------------------

@pytest.mark.parametrize("seed", SEEDS)
def test_four_players_get_three_tasks_on_every_task_island(seed):
    s = new_game(seed, 4)
    assert all(len(_island_tasks(s, i)) == 3 for i in TASK_ISLANDS)
    assert len(set(_all_tasks(s))) == 30


@pytest.mark.parametrize("seed", SEEDS)
def test_three_players_get_two_tasks_on_corner_islands_and_three_elsewhere(seed):
    s = new_game(seed, 3)
    assert CORNERS == [0, 5, 7, 12]
    for i in TASK_ISLANDS:
        assert len(_island_tasks(s, i)) == (2 if i in CORNERS else 3)
    assert len(set(_all_tasks(s))) == 26


@pytest.mark.parametrize("players", [1, 2])
@pytest.mark.parametrize("seed", SEEDS)
def test_one_or_two_players_get_two_tasks_per_island_without_y2(seed, players):
    s = new_game(seed, players)
    assert all(len(_island_tasks(s, i)) == 2 for i in TASK_ISLANDS)
    assert len(set(_all_tasks(s))) == 20
    assert Y2 not in _all_tasks(s)


def test_y2_is_dealt_in_some_three_and_four_player_games():
    assert any(Y2 in _all_tasks(new_game(seed, n)) for seed in range(40) for n in (3, 4))


def test_guardian_islands_get_no_tasks_but_four_guardians_each():
    s = new_game(0, 4)
    for i, (kind, colour, _) in enumerate(C.ISLANDS):
        if kind == "guardian":
            assert _island_tasks(s, i) == []
            assert s[L.ISLAND_GUARDS + C.code(C.GUARDIAN_COLOURS, colour)] == 4


@pytest.mark.parametrize("seed", SEEDS)
def test_solo_deals_seven_blue_seven_red_six_yellow_two_colours_per_island(seed):
    s = new_game(seed, 1)
    assert Counter(_colour(t) for t in _all_tasks(s)) == {0: 7, 1: 7, 2: 6}
    for i in TASK_ISLANDS:
        a, b = _island_tasks(s, i)
        assert _colour(a) != _colour(b)


# ---- Great Bonfire portals ---------------------------------------------------------------

@pytest.mark.parametrize("players", [3, 4])
def test_three_and_four_players_get_four_portals_per_space_and_per_shape(players):
    s = new_game(5, players)
    assert [sum(_portals(s, g)) for g in range(7)] == [4] * 7
    assert [sum(_portals(s, g)[k] for g in range(7)) for k in range(7)] == [4] * 7


@pytest.mark.parametrize("players", [1, 2])
def test_one_and_two_players_get_three_portals_per_space_one_shape_each_removed(players):
    s = new_game(5, players)
    assert [sum(_portals(s, g)) for g in range(7)] == [3] * 7
    assert [sum(_portals(s, g)[k] for g in range(7)) for k in range(7)] == [3] * 7


@pytest.mark.parametrize("seed", SEEDS)
def test_solo_portals_on_one_space_are_all_different(seed):
    s = new_game(seed, 1)
    for g in range(7):
        assert max(_portals(s, g)) == 1 and sum(_portals(s, g)) == 3


def _portal_deal(s: np.ndarray) -> tuple[frozenset[int], ...]:
    return tuple(frozenset(k for k in range(7) if _portals(s, g)[k]) for g in range(7))


def test_solo_portal_deals_are_any_valid_random_deal_not_one_pattern():
    deals = [_portal_deal(new_game(seed, 1)) for seed in range(60)]
    for deal in deals:  # valid: 3 different shapes per space, each shape 3 times
        assert all(len(shapes) == 3 for shapes in deal)
        assert Counter(k for shapes in deal for k in shapes) == {k: 3 for k in range(7)}
    assert len(set(deals)) == len(deals)
    # A circulant deal (space g: shapes g, g+1, g+2 relabelled) has pairwise overlaps of
    # exactly 2, 1 and 0 shapes seven times each; random valid deals do not keep to that.
    profiles = {tuple(sorted(Counter(len(a & b) for i, a in enumerate(deal)
                                     for b in deal[i + 1:]).items())) for deal in deals}
    assert len(profiles) > 3
    assert any(dict(pr).get(3, 0) > 0 or dict(pr).get(2, 0) != 7 for pr in profiles)


def test_multiplayer_portals_on_a_space_may_repeat_a_shape():
    # The 2-player deal is a plain shuffle: some seed puts two equal portals on a space.
    assert any(max(_portals(new_game(seed, 2), g)) > 1 for seed in range(20) for g in range(7))


def test_the_great_bonfire_is_unused_at_the_start():
    s = new_game(3, 4)
    assert s[L.G_GB_USED] == 0


# ---- path tiles, gnomes -----------------------------------------------------------------

@pytest.mark.parametrize("players", [1, 2, 3, 4])
def test_four_path_tiles_lie_face_up_and_twenty_four_form_the_deck(players):
    s = new_game(7, players)
    disp = s[L.PATH_DISP:L.PATH_DISP + 4].tolist()
    deck = [int(s[L.PATH_DECK + (s[L.G_PATH_HEAD] + i) % L.NPATHT])
            for i in range(s[L.G_PATH_N])]
    assert len(disp) == 4 and len(deck) == 24
    assert sorted(disp + deck) == list(range(28))


@pytest.mark.parametrize("players", [2, 3, 4])
def test_six_specialists_lie_face_up_on_top_of_a_pile_of_twenty_one(players):
    s = new_game(7, players)
    disp = s[L.SPEC_DISP:L.SPEC_DISP + 6].tolist()
    pile = s[L.SPEC_PILE + s[L.G_SPEC_TOP]:L.SPEC_PILE + s[L.G_SPEC_TOP] + s[L.G_SPEC_N]]
    assert s[L.G_SPEC_N] == 21
    assert sorted(disp + pile.tolist()) == list(range(27))


@pytest.mark.parametrize("seed", SEEDS)
def test_solo_leaves_out_the_three_gold_specialists(seed):
    s = new_game(seed, 1)
    assert C.GOLD_SPECIALISTS == (5, 22, 23)
    disp = s[L.SPEC_DISP:L.SPEC_DISP + 6].tolist()
    pile = s[L.SPEC_PILE + s[L.G_SPEC_TOP]:L.SPEC_PILE + s[L.G_SPEC_TOP] + s[L.G_SPEC_N]]
    assert s[L.G_SPEC_N] == 18
    assert sorted(disp + pile.tolist()) == sorted(set(range(27)) - GOLD_SPECIALIST_IDS)


def test_all_six_elders_are_available():
    s = new_game(1, 3)
    assert s[L.ELDER_AVAIL:L.ELDER_AVAIL + 6].tolist() == [1] * 6


# ---- the cities --------------------------------------------------------------------------

@pytest.mark.parametrize("players", [1, 2, 3, 4])
def test_each_player_starts_with_one_of_each_resource_and_no_tiles(players):
    s = new_game(11, players)
    for seat in range(players):
        b = L.player_base(seat)
        assert s[b + L.P_RES:b + L.P_RES + 6].tolist() == [1] * 6
        assert s[b + L.P_TILES:b + L.P_TILES + 7].tolist() == [0] * 7
        assert s[b + L.P_SHIP] == -1 and s[b + L.P_SHIP_USED] == 0
        assert s[b + L.P_GUARD:b + L.P_GUARD + 5].tolist() == [L.GP_WAIT] + [L.GP_NONE] * 4


@pytest.mark.parametrize("players", [1, 2, 3, 4])
def test_offerings_form_two_face_up_piles_of_five_two_of_each_non_gold_resource(players):
    s = new_game(11, players)
    for seat in range(players):
        b = L.player_base(seat)
        tiles = s[b + L.P_OFF_PILE:b + L.P_OFF_PILE + 10].tolist()
        assert Counter(tiles) == {r: 2 for r in range(5)}
        assert s[b + L.P_OFF_TAKEN:b + L.P_OFF_TAKEN + 2].tolist() == [0, 0]


def test_offering_piles_are_shuffled_per_player():
    s = new_game(11, 4)
    piles = {tuple(s[L.player_base(k) + L.P_OFF_PILE:L.player_base(k) + L.P_OFF_PILE + 10])
             for k in range(4)}
    assert len(piles) > 1


@pytest.mark.parametrize("players", [2, 3, 4])
def test_fate_tiles_one_in_front_and_a_column_of_seven(players):
    s = new_game(13, players)
    for seat in range(players):
        b = L.player_base(seat)
        assert sorted(s[b + L.P_FATE_SUP:b + L.P_FATE_SUP + 8].tolist()) == list(range(8))
        assert (s[b + L.P_FATE_LO], s[b + L.P_FATE_HI]) == (1, 8)
        assert s[b + L.P_FATE_PLACED] == 0 and s[b + L.P_STARTED] == 0


@pytest.mark.parametrize("players", [1, 2, 3, 4])
def test_player_boards_are_all_different(players):
    for seed in SEEDS:
        s = new_game(seed, players)
        seats = 2 if players == 1 else players
        boards = [int(s[L.player_base(k) + L.P_BOARD]) for k in range(seats)]
        assert len(set(boards)) == seats and all(0 <= x < 4 for x in boards)


def test_solo_tom_keeps_four_novices_and_no_resources():
    s = new_game(2, 1)
    b = L.player_base(1)
    assert (s[L.G_NSEATS], s[L.G_HUMANS], s[L.G_SOLO]) == (2, 1, 1)
    assert s[b + L.P_TOM_NOVICES] == 4 and s[b + L.P_STARTED] == 1
    assert s[b + L.P_RES:b + L.P_RES + 6].tolist() == [0] * 6


# ---- the starting fate tile --------------------------------------------------------------

def _centre(s: np.ndarray, seat: int = 0) -> list[int]:
    b = L.player_base(seat)
    return [int(s[b + L.P_FATE + fate_index(2, c)]) for c in (1, 2, 3)]


def test_the_first_decision_is_keeping_or_swapping_the_front_fate_tile():
    s = new_game(4, 3)
    assert (s[L.G_CUR], s[L.G_PHASE]) == (0, L.PH_SWAP)
    assert engine.legal_moves(s).tolist() == [[L.M_SWAP, 0, 0, 0, 0], [L.M_SWAP, 1, 0, 0, 0]]


@pytest.mark.parametrize("seed", SEEDS)
def test_keeping_puts_the_front_tile_on_the_centre_and_gives_its_three_tiles_and_two_yellow(seed):
    s = new_game(seed, 3)
    b = L.player_base(0)
    front = int(s[b + L.P_FATE_SUP])
    column = s[b + L.P_FATE_SUP + 1:b + L.P_FATE_SUP + 8].tolist()
    engine.apply(s, (L.M_SWAP, 0))
    syms = [int(P[T.FATE_TILE + front * 3 + i]) for i in range(3)]
    assert _centre(s) == syms
    expect = [0] * 7
    for x in syms:
        expect[x] += 1
    expect[C.YELLOW] = 2
    assert s[b + L.P_TILES:b + L.P_TILES + 7].tolist() == expect
    assert s[b + L.P_FATE_SUP + 1:b + L.P_FATE_SUP + 8].tolist() == column
    assert s[b + L.P_FATE_PLACED] == 1 and s[b + L.P_STARTED] == 1
    assert (s[L.G_CUR], s[L.G_PHASE]) == (0, L.PH_MAIN)


@pytest.mark.parametrize("seed", SEEDS)
def test_swapping_takes_the_middle_fourth_tile_of_the_column(seed):
    s = new_game(seed, 3)
    b = L.player_base(0)
    front = int(s[b + L.P_FATE_SUP])
    column = s[b + L.P_FATE_SUP + 1:b + L.P_FATE_SUP + 8].tolist()
    middle = column[3]
    engine.apply(s, (L.M_SWAP, 1))
    syms = [int(P[T.FATE_TILE + middle * 3 + i]) for i in range(3)]
    assert _centre(s) == syms
    expect = [0] * 7
    for x in syms:
        expect[x] += 1
    expect[C.YELLOW] = 2
    assert s[b + L.P_TILES:b + L.P_TILES + 7].tolist() == expect
    # The old front tile now lies in the middle of the column; the rest is unchanged.
    assert s[b + L.P_FATE_SUP + 1:b + L.P_FATE_SUP + 8].tolist() == (
        column[:3] + [front] + column[4:])
    assert s[b + L.P_RES:b + L.P_RES + 6].tolist() == [1] * 6


def test_the_second_seat_chooses_its_tile_before_its_own_first_turn():
    s = new_game(4, 2)
    engine.apply(s, (L.M_SWAP, 0))
    assert s[L.player_base(1) + L.P_STARTED] == 0
    # Seat 0 takes option I (top tile of the column, any placement): then seat 1 swaps.
    fate = [m for m in engine.legal_moves(s) if m[0] == L.M_FATE][0]
    engine.apply(s, fate)
    assert s[L.G_PHASE] == L.PH_PAY  # first: which of the 5 starting tiles to keep
    engine.apply(s, [m for m in engine.legal_moves(s) if m[0] == L.M_DISCARD][0])
    assert (s[L.G_CUR], s[L.G_PHASE]) == (1, L.PH_SWAP)


# ---- determinism -------------------------------------------------------------------------

@pytest.mark.parametrize("players", [1, 2, 3, 4])
def test_the_same_seed_deals_the_identical_game(players):
    assert np.array_equal(new_game(99, players), new_game(99, players))


@pytest.mark.parametrize("players", [1, 2, 3, 4])
def test_a_different_seed_deals_a_different_game(players):
    a, b = new_game(99, players), new_game(100, players)
    assert not np.array_equal(a[L.ISLAND_TASKS:L.ISLAND_TASKS + 42],
                              b[L.ISLAND_TASKS:L.ISLAND_TASKS + 42])
    assert not np.array_equal(a[L.PATH_DECK:L.PATH_DECK + 28], b[L.PATH_DECK:L.PATH_DECK + 28])


def test_new_game_rejects_bad_arguments():
    with pytest.raises(ValueError):
        new_game(1, 5)
    with pytest.raises(ValueError):
        new_game(1, 0)
    with pytest.raises(ValueError):
        new_game(-1, 2)


def test_seat_points_give_each_seat_its_starting_score_and_keep_the_invariants():
    from bonfire_sim.rules.invariants import check

    p = T.build_params({"seat_points": [0, 2, 5]})
    s = new_game(3, 3, p)
    assert [int(s[L.player_base(k) + L.P_SCORE]) for k in range(3)] == [0, 2, 5]
    assert check(s, p) == 0
    # Neighbouring case: without the override every seat starts at 0.
    s0 = new_game(3, 3)
    assert [int(s0[L.player_base(k) + L.P_SCORE]) for k in range(3)] == [0, 0, 0]
    # The deal itself does not change.
    assert np.array_equal(s0[:L.PLAYER0], s[:L.PLAYER0])


def test_seat_points_never_go_to_tom_in_solo():
    from bonfire_sim.rules.invariants import check

    p = T.build_params({"seat_points": [4, 9]})
    s = new_game(5, 1, p)
    assert int(s[L.player_base(0) + L.P_SCORE]) == 4
    assert int(s[L.player_base(1) + L.P_SCORE]) == 0
    assert check(s, p) == 0


def test_fractional_seat_points_are_a_per_deal_lottery_independent_per_seat():
    from bonfire_sim.rules.invariants import check

    p = T.build_params({"seat_points": [0, 2.25, 1.5]})
    base = T.build_params({"seat_points": [0, 2, 1]})
    extra = []
    for seed in range(800):
        s = new_game(seed, 3, p)
        s0 = new_game(seed, 3, base)
        # The lottery never shifts the deal (nor the game's streams).
        assert np.array_equal(s0[:L.PLAYER0], s[:L.PLAYER0])
        got = [int(s[L.player_base(k) + L.P_SCORE]) for k in range(3)]
        assert got[0] == 0 and got[1] in (2, 3) and got[2] in (1, 2)
        assert [int(s[L.player_base(k) + L.P_PTS_SEAT]) for k in range(3)] == got
        assert check(s, p) == 0
        extra.append((got[1] - 2, got[2] - 1))
    e = np.array(extra, float)
    # 800 deals: the shares are 0.25 and 0.5 within 4.5 binomial standard errors, and the
    # two seats' draws are uncorrelated.
    assert abs(e[:, 0].mean() - 0.25) < 4.5 * np.sqrt(0.25 * 0.75 / 800)
    assert abs(e[:, 1].mean() - 0.5) < 4.5 * np.sqrt(0.25 / 800)
    assert abs(np.corrcoef(e[:, 0], e[:, 1])[0, 1]) < 0.15
    # The same seed always draws the same (no hidden state).
    s1, s2 = new_game(11, 3, p), new_game(11, 3, p)
    assert np.array_equal(s1, s2)


def test_a_seat_started_with_the_wrong_points_breaks_the_invariants():
    from bonfire_sim.rules.invariants import check

    p = T.build_params({"seat_points": [0, 2]})
    s = new_game(3, 2, p)
    pb = L.player_base(1)
    s[pb + L.P_PTS_SEAT] += 1  # a lottery point on a seat without a fraction
    s[pb + L.P_SCORE] += 1
    assert check(s, p) == 13


def test_seat_points_reject_bad_values():
    for bad in ([0, -1], [], [1, 2, 3, 4, 5], ["x"], [0, float("nan")], [0, -0.5], [True]):
        with pytest.raises(ValueError):
            T.build_params({"seat_points": bad})
