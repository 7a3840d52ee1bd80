"""Build a path (rulebook p.8, RULINGS 5): cost, display or deck, refill, limit, refresh.

Path tile ids (components.PATH_TILES): blue 0-9 and red 10-19 show blossom, fruit, herb,
shell, root two each; yellow 20-27 show blossom, fruit, herb, shell two each.
"""

from __future__ import annotations

import numpy as np
import pytest

from bonfire_sim import engine
from bonfire_sim.rules import layout as L
from bonfire_sim.rules.state import StateBuilder

PB = L.player_base(0)
BLUE_DISPLAY = (0, 2, 4, 6)  # blue blossom, fruit, herb, shell
DECK = (10, 12, 14, 16, 20, 22)  # red blossom..shell, yellow blossom, fruit
BLOSSOM, FRUIT, HERB, SHELL, ROOT, GOLD = range(6)


def _tiles(s: np.ndarray) -> list[int]:
    return s[PB + L.P_TILES:PB + L.P_TILES + 7].tolist()


def _display(s: np.ndarray) -> list[int]:
    return s[L.PATH_DISP:L.PATH_DISP + 4].tolist()


def _deck(s: np.ndarray) -> list[int]:
    return [int(s[L.PATH_DECK + (s[L.G_PATH_HEAD] + i) % L.NPATHT])
            for i in range(s[L.G_PATH_N])]


def _built(s: np.ndarray) -> list[int]:
    return s[PB + L.P_PATH + 1:PB + L.P_PATH + 1 + s[PB + L.P_NPATH]].tolist()


def _table(display=(1, 3, 11, 21), deck=DECK, built=()) -> StateBuilder:
    return StateBuilder().path(0, *built).path_display(*display).path_deck(*deck)


MORE = (5, 7, 9, 13, 15, 17)  # built tiles that appear neither in the display nor the deck


@pytest.mark.parametrize("built, cost", [(0, 1), (1, 1), (2, 1), (3, 2), (4, 2), (5, 2)])
def test_paths_one_to_three_cost_one_tile_and_four_to_six_two(main_state, moves_of,
                                                             built, cost):
    b = _table(built=MORE[:built])
    assert moves_of(main_state(b.tiles(0, path=cost - 1)), L.M_PATH) == []
    s = main_state(b.tiles(0, path=cost))
    assert moves_of(s, L.M_PATH) == [(L.M_PATH, a, 0, 0, 0) for a in (0, 1, 2, 3, 4)]
    engine.apply(s, (L.M_PATH, 0))
    assert _tiles(s) == [0] * 7
    assert s[PB + L.P_NPATH] == built + 1


def test_a_display_tile_is_built_and_its_slot_refilled_from_the_deck(main_state):
    s = main_state(_table().tiles(0, path=1))
    engine.apply(s, (L.M_PATH, 2))
    assert _built(s) == [11]
    assert _display(s) == [1, 3, 10, 21]
    assert _deck(s) == list(DECK[1:])


def test_the_top_of_the_deck_may_be_built_blind(main_state):
    s = main_state(_table().tiles(0, path=1))
    engine.apply(s, (L.M_PATH, 4))
    assert _built(s) == [10]
    assert _display(s) == [1, 3, 11, 21]
    assert _deck(s) == list(DECK[1:])


def test_new_tiles_are_attached_after_the_previous_ones(main_state):
    s = main_state(_table(built=(5, 7)).tiles(0, path=1))
    engine.apply(s, (L.M_PATH, 1))
    assert _built(s) == [5, 7, 3]


def test_with_an_empty_deck_the_slot_stays_empty_and_no_blind_pick_is_offered(main_state,
                                                                             moves_of):
    s = main_state(_table(deck=()).tiles(0, path=2))
    assert [m[1] for m in moves_of(s, L.M_PATH)] == [0, 1, 2, 3]
    engine.apply(s, (L.M_PATH, 0))
    assert _display(s) == [-1, 3, 11, 21]


def test_no_path_can_be_built_when_no_tile_is_left(main_state, moves_of):
    s = main_state(_table(display=(-1, -1, -1, -1), deck=()).tiles(0, path=1))
    assert moves_of(s, L.M_PATH) == []


def test_a_city_holds_at_most_six_built_path_tiles(main_state, moves_of):
    s = main_state(_table(built=MORE).tiles(0, path=5))
    assert moves_of(s, L.M_PATH) == []


# ---- the refresh special case -------------------------------------------------------------

def test_refresh_is_offered_only_when_all_four_display_tiles_share_a_crystal(main_state,
                                                                            moves_of):
    s = main_state(_table(display=BLUE_DISPLAY).tiles(0, path=1))
    assert moves_of(s, L.M_PATH_REFRESH) == [(L.M_PATH_REFRESH, 0, 0, 0, 0)]
    s = main_state(_table(display=(0, 2, 4, 11)).tiles(0, path=1))  # one red among blue
    assert moves_of(s, L.M_PATH_REFRESH) == []
    s = main_state(_table(display=(0, 2, 4, -1)).tiles(0, path=1))  # a gap is no colour
    assert moves_of(s, L.M_PATH_REFRESH) == []


def test_refresh_is_not_offered_when_the_deck_has_no_new_tiles(main_state, moves_of):
    s = main_state(_table(display=BLUE_DISPLAY, deck=()).tiles(0, path=1))
    assert moves_of(s, L.M_PATH_REFRESH) == []
    assert len(moves_of(s, L.M_PATH)) == 4


def test_refresh_needs_a_payable_path_action(main_state, moves_of):
    s = main_state(_table(display=BLUE_DISPLAY))
    assert moves_of(s, L.M_PATH_REFRESH) == []


def test_refresh_puts_the_four_under_the_deck_refills_and_a_pick_must_follow(main_state,
                                                                           moves_of):
    s = main_state(_table(display=BLUE_DISPLAY).tiles(0, path=1))
    engine.apply(s, (L.M_PATH_REFRESH,))
    assert s[L.G_PHASE] == L.PH_PATH_PICK and s[L.G_CUR] == 0
    assert _display(s) == list(DECK[:4])
    assert _deck(s) == list(DECK[4:]) + list(BLUE_DISPLAY)
    assert _tiles(s) == [0, 1, 0, 0, 0, 0, 0]  # nothing paid yet
    moves = engine.legal_moves(s).tolist()
    assert moves == [[L.M_PATH, a, 0, 0, 0] for a in (0, 1, 2, 3, 4)]  # no way out
    engine.apply(s, (L.M_PATH, 1))
    assert _built(s) == [12]
    assert _tiles(s) == [0] * 7
    assert _display(s) == [10, 20, 14, 16]
    assert s[L.G_CUR] == 1  # the turn is over


def test_after_a_refresh_the_old_four_can_come_back_from_the_deck(main_state):
    s = main_state(_table(display=BLUE_DISPLAY, deck=(10, 12)).tiles(0, path=1))
    engine.apply(s, (L.M_PATH_REFRESH,))
    assert _display(s) == [10, 12, 0, 2]
    assert _deck(s) == [4, 6]


# ---- specialist 8 --------------------------------------------------------------------------

def test_specialist_8_gains_the_resource_shown_on_the_new_tile(main_state):
    s = main_state(_table().tiles(0, path=1).specialist(0, 8))
    engine.apply(s, (L.M_PATH, 1))  # tile 3: blue fruit
    assert s[PB + L.P_RES:PB + L.P_RES + 6].tolist() == [0, 1, 0, 0, 0, 0]


def test_without_specialist_8_building_gains_no_resource(main_state):
    s = main_state(_table().tiles(0, path=1))
    engine.apply(s, (L.M_PATH, 1))
    assert s[PB + L.P_RES:PB + L.P_RES + 6].tolist() == [0] * 6


def test_specialist_8_also_pays_for_a_blind_pick_after_a_refresh(main_state):
    s = main_state(_table(display=BLUE_DISPLAY).tiles(0, path=1).specialist(0, 8))
    engine.apply(s, (L.M_PATH_REFRESH,))
    engine.apply(s, (L.M_PATH, 4))  # deck top: yellow blossom (20)
    assert _built(s) == [20]
    assert s[PB + L.P_RES:PB + L.P_RES + 6].tolist() == [1, 0, 0, 0, 0, 0]


# ---- the council's path bonus (paths.gen_council_path / do_council_path) -----------------

def _council_pick(b: StateBuilder) -> np.ndarray:
    """Seat 0 in the council's path-bonus decision (PH_C_PATH)."""
    s = b.build()
    s[PB + L.P_STARTED] = 1
    s[L.G_CUR] = 0
    s[L.G_PHASE] = L.PH_C_PATH
    s[L.G_RET] = L.PH_POST
    return s


def test_the_council_path_bonus_offers_the_display_and_each_kind_of_deck_tile_once(moves_of):
    s = _council_pick(_table(deck=(12, 13, 20)))  # 12 and 13 are both red fruit
    assert [m[1] for m in moves_of(s, L.M_TAKE_PATH)] == [0, 1, 2, 3, 10 + 12, 10 + 20]


def test_a_tile_searched_from_the_deck_is_free_and_the_deck_is_shuffled(moves_of):
    s = _council_pick(_table(deck=DECK).tiles(0, path=0).specialist(0, 8))
    engine.apply(s, (L.M_TAKE_PATH, 10 + 14))  # red herb
    assert _built(s) == [14]
    assert sorted(_deck(s)) == sorted(set(DECK) - {14})
    assert _display(s) == [1, 3, 11, 21]
    assert s[PB + L.P_RES + HERB] == 1  # specialist 8


def test_searching_a_deck_that_wraps_round_its_ring_buffer_loses_no_tile(main_state):
    # After refreshes the draw deck's ring buffer wraps past its end; searching it must
    # keep every other tile exactly once.
    s = main_state(_table(display=BLUE_DISPLAY, deck=DECK).tiles(0, path=1))
    s[L.G_PATH_HEAD] = L.NPATHT - 2  # the same 6 tiles, stored across the wrap
    for i, t in enumerate(DECK):
        s[L.PATH_DECK + (L.NPATHT - 2 + i) % L.NPATHT] = t
    s[L.G_PHASE] = L.PH_C_PATH
    engine.apply(s, (L.M_TAKE_PATH, 10 + 20))
    assert _built(s) == [20]
    assert sorted(_deck(s)) == sorted(set(DECK) - {20})
