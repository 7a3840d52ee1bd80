"""Solo play against Tom (rulebook p.12, RULINGS 7): his cards, special cases, bonus action
and the premature end after his 4th pass through the deck."""

from __future__ import annotations

import numpy as np
import pytest
from helpers_flow import (
    BLOSSOM,
    FRUIT,
    HERB,
    ROOT,
    SHELL,
    first_of,
    legal,
    mv,
    of_kind,
    path_tile,
    pb,
    play,
    score,
    spec_with_resource,
)

from bonfire_sim import engine
from bonfire_sim.rules import components as C
from bonfire_sim.rules import layout as L
from bonfire_sim.rules import setup
from bonfire_sim.rules import tables as T
from bonfire_sim.rules.tom import play_card, tom_turn

P = T.DEFAULT_PARAMS
TOM = 1
TB = L.player_base(TOM)
GNOME_C, PATH_C, TASK1_C, TASK2_C, GUARD_C, FIRE_C = range(6)
TASKS7, PORTALS7, PATHS7, GUARDIANS5, GNOMES6 = range(5)
BLOSSOM_ISLANDS = (0, 7)
FRUIT_ISLANDS = (2, 9)


def card(kind: int) -> int:
    """TOM_DECK encoding: kind * 2 + (1 if the card reveals a gnome)."""
    return kind * 2 + (1 if kind <= TASK2_C else 0)


def solo(seed: int = 3) -> np.ndarray:
    return setup.new_game(seed, 1)


def clear_islands(s: np.ndarray) -> None:
    s[L.ISLAND_TASKS:L.ISLAND_TASKS + C.N_ISLANDS * 3] = -1


def tom_tasks(s: np.ndarray) -> list[int]:
    return s[TB + L.P_TASK:TB + L.P_TASK + 7].tolist()


def tid(task_id: str) -> int:
    return T.task_index(task_id)


def pts(task_id: str) -> int:
    return int(P[T.T_POINTS + tid(task_id)])


# ---- setup -------------------------------------------------------------------------------


def test_solo_setup_tom_is_seat_1_with_4_novices_and_8_cards():
    s = solo()
    assert (s[L.G_NSEATS], s[L.G_HUMANS], s[L.G_SOLO]) == (2, 1, 1)
    assert s[TB + L.P_TOM_NOVICES] == 4 and s[TB + L.P_STARTED] == 1
    assert sorted(s[L.TOM_DECK:L.TOM_DECK + 8].tolist()) == sorted(
        card(k) for k in (GNOME_C, PATH_C, TASK1_C, TASK1_C, TASK2_C, GUARD_C, FIRE_C, FIRE_C))
    assert s[TB + L.P_GUARD] == L.GP_WAIT  # his own guardian on the starting tile
    assert s[TB + L.P_RES:TB + L.P_RES + 6].tolist() == [0] * 6
    # No specialist showing gold in a solo game.
    pile = s[L.SPEC_PILE:L.SPEC_PILE + s[L.G_SPEC_TOP] + s[L.G_SPEC_N]]
    assert all(P[T.SPEC_RES + g] != C.GOLD for g in pile)


# ---- the cards ---------------------------------------------------------------------------


def test_gnome_card_takes_every_displayed_specialist_showing_the_revealed_resource():
    s = solo()
    b0, b1, b2 = (spec_with_resource(BLOSSOM, i) for i in range(3))
    f0, h0, r0 = spec_with_resource(FRUIT), spec_with_resource(HERB), spec_with_resource(ROOT)
    s[L.SPEC_DISP:L.SPEC_DISP + 6] = [b0, f0, b1, h0, r0, -1]
    s[L.SPEC_PILE + s[L.G_SPEC_TOP]] = b2  # the revealed gnome shows blossom
    nxt = s[L.SPEC_PILE + s[L.G_SPEC_TOP] + 1:L.SPEC_PILE + s[L.G_SPEC_TOP] + 4].tolist()
    play_card(s, P, GNOME_C, 1)
    assert s[TB + L.P_GNOME + b0] == 1 and s[TB + L.P_GNOME + b1] == 1
    assert s[TB + L.P_NGNOME] == 2
    assert s[TB + L.P_GNOME + b2] == 0  # the revealed card is discarded, not his
    assert s[L.G_SPEC_DISC_N] == 1 and s[L.SPEC_DISC] == b2
    # The display is refilled from the pile (slots 0, 2 and the empty slot 5).
    disp = s[L.SPEC_DISP:L.SPEC_DISP + 6].tolist()
    assert disp == [nxt[0], f0, nxt[1], h0, r0, nxt[2]]
    assert score(s, TOM) == 0


def test_gnome_card_with_no_match_takes_nothing():
    s = solo()
    f0, h0 = spec_with_resource(FRUIT), spec_with_resource(HERB)
    s[L.SPEC_DISP:L.SPEC_DISP + 6] = [f0, h0, -1, -1, -1, -1]
    s[L.SPEC_PILE + s[L.G_SPEC_TOP]] = spec_with_resource(SHELL)
    play_card(s, P, GNOME_C, 1)
    assert s[TB + L.P_NGNOME] == 0 and score(s, TOM) == 0


def test_path_card_takes_matching_tiles_left_to_right():
    s = solo()
    fa, fb = path_tile("red", "fruit"), path_tile("blue", "fruit")
    hb = path_tile("blue", "herb")
    s[L.PATH_DISP:L.PATH_DISP + 4] = [fa, hb, fb, path_tile("yellow", "shell")]
    s[L.SPEC_PILE + s[L.G_SPEC_TOP]] = spec_with_resource(FRUIT)
    top = s[L.PATH_DECK + s[L.G_PATH_HEAD]]
    n = s[L.G_PATH_N]
    play_card(s, P, PATH_C, 1)
    assert s[TB + L.P_NPATH] == 2
    assert s[TB + L.P_PATH + 1] == fa and s[TB + L.P_PATH + 2] == fb
    assert s[L.PATH_DISP] == top and s[L.G_PATH_N] == n - 2  # refilled from the deck
    assert s[L.PATH_DISP + 1] == hb


def test_path_card_with_no_match_takes_nothing():
    s = solo()
    s[L.PATH_DISP:L.PATH_DISP + 4] = [path_tile("blue", "herb", i % 2) for i in range(4)]
    s[L.SPEC_PILE + s[L.G_SPEC_TOP]] = spec_with_resource(ROOT)
    play_card(s, P, PATH_C, 1)
    assert s[TB + L.P_NPATH] == 0 and score(s, TOM) == 0


def test_task_i_takes_the_highest_task_of_the_two_islands_bonfire_side_up():
    s = solo()
    clear_islands(s)
    s[L.ISLAND_TASKS + BLOSSOM_ISLANDS[0] * 3] = tid("B1")
    s[L.ISLAND_TASKS + BLOSSOM_ISLANDS[0] * 3 + 1] = tid("R7")
    s[L.ISLAND_TASKS + BLOSSOM_ISLANDS[1] * 3] = tid("Y4")
    s[L.ISLAND_TASKS + BLOSSOM_ISLANDS[1] * 3 + 1] = tid("B2")
    s[L.ISLAND_TASKS + FRUIT_ISLANDS[0] * 3] = tid("Y11")  # 8 points but a fruit island
    s[L.SPEC_PILE + s[L.G_SPEC_TOP]] = spec_with_resource(BLOSSOM)
    play_card(s, P, TASK1_C, 1)
    assert tom_tasks(s) == [tid("Y4")] + [-1] * 6
    assert s[TB + L.P_LIT] == 1  # bonfire side up
    assert s[L.ISLAND_TASKS + BLOSSOM_ISLANDS[1] * 3] == -1
    assert s[TB + L.P_TOM_NOVICES] == 4 and score(s, TOM) == 0  # no novice, no point
    # The next task goes on the next free space clockwise.
    s[L.SPEC_PILE + s[L.G_SPEC_TOP]] = spec_with_resource(BLOSSOM, 1)
    play_card(s, P, TASK1_C, 1)
    assert tom_tasks(s)[:2] == [tid("Y4"), tid("R7")]


def test_task_i_ties_take_one_of_them():
    s = solo()
    clear_islands(s)
    s[L.ISLAND_TASKS + BLOSSOM_ISLANDS[0] * 3] = tid("R7")  # 4
    s[L.ISLAND_TASKS + BLOSSOM_ISLANDS[1] * 3] = tid("R2")  # 4
    assert pts("R7") == pts("R2")
    s[L.SPEC_PILE + s[L.G_SPEC_TOP]] = spec_with_resource(BLOSSOM)
    play_card(s, P, TASK1_C, 1)
    assert tom_tasks(s)[0] in (tid("R7"), tid("R2"))
    left = [s[L.ISLAND_TASKS + i * 3] for i in BLOSSOM_ISLANDS]
    assert sorted(left + [tom_tasks(s)[0]]) == sorted([-1, tid("R7"), tid("R2")])


def test_task_ii_takes_the_lowest_task_places_a_novice_and_scores_1():
    s = solo()
    clear_islands(s)
    s[L.ISLAND_TASKS + FRUIT_ISLANDS[0] * 3] = tid("R7")
    s[L.ISLAND_TASKS + FRUIT_ISLANDS[1] * 3] = tid("B3")
    s[L.ISLAND_TASKS + FRUIT_ISLANDS[1] * 3 + 1] = tid("Y5")
    s[L.SPEC_PILE + s[L.G_SPEC_TOP]] = spec_with_resource(FRUIT)
    n0 = s[L.G_COUNCIL_N]
    play_card(s, P, TASK2_C, 1)
    assert tom_tasks(s)[0] == tid("B3") and s[TB + L.P_LIT] == 1
    assert s[TB + L.P_TOM_NOVICES] == 3
    assert s[L.G_COUNCIL_N] == n0 + 1
    assert sum(s[L.COUNCIL + sp * 5 + TOM] for sp in range(8)) == 1
    assert score(s, TOM) == 1 and s[TB + L.P_PTS_TOM] == 1


def test_task_ii_without_a_task_gives_no_novice_and_no_point():
    s = solo()
    clear_islands(s)
    s[L.SPEC_PILE + s[L.G_SPEC_TOP]] = spec_with_resource(FRUIT)
    play_card(s, P, TASK2_C, 1)
    assert tom_tasks(s) == [-1] * 7
    assert s[TB + L.P_TOM_NOVICES] == 4 and score(s, TOM) == 0 and s[L.G_COUNCIL_N] == 0


def test_toms_novice_does_not_block_the_human():
    s = solo()
    s[L.COUNCIL + 0 * 5 + TOM] = 1
    s[L.G_COUNCIL_N] = 1
    hb = pb(0)
    s[hb + L.P_STARTED] = 1
    s[hb + L.P_TASK] = tid("B14")
    s[hb + L.P_GNOME + 27] = 1  # elder 1 shows blossom
    s[hb + L.P_NGNOME] = 1
    s[L.G_PHASE] = L.PH_MAIN
    play(s, mv(L.M_IGNITE, 0))
    assert (L.M_COUNCIL, 0, 0, 0, 0) in legal(s)


def test_guardian_card_takes_a_colour_tom_lacks():
    s = solo()
    s[TB + L.P_GUARD + 1] = L.GP_WAIT
    s[TB + L.P_GUARD + 3] = L.GP_WAIT
    s[L.ISLAND_GUARDS + 4] = 0  # no wood guardian left
    play_card(s, P, GUARD_C, 0)
    assert s[TB + L.P_GUARD + 2] == L.GP_WAIT  # pink: the only choice
    assert s[L.ISLAND_GUARDS + 2] == C.N_GUARD_PER_COLOUR - 1
    assert s[TB + L.P_GUARD + 4] == L.GP_NONE


def test_guardian_card_with_no_colour_left_gives_nothing():
    s = solo()
    s[L.ISLAND_GUARDS + 1:L.ISLAND_GUARDS + 5] = 0
    play_card(s, P, GUARD_C, 0)
    assert s[TB + L.P_GUARD + 1:TB + L.P_GUARD + 5].tolist() == [L.GP_NONE] * 4
    assert score(s, TOM) == 0


def needed_shape(s) -> int:
    return int(P[T.BOARD_NOTCH + s[TB + L.P_BOARD] * 7 + 6])


def test_great_bonfire_card_turns_to_the_next_space_with_his_next_portal():
    s = solo()
    sh = needed_shape(s)
    s[L.GB_PORTALS:L.GB_PORTALS + 49] = 0
    s[L.GB_PORTALS + 2 * 7 + sh] = 1
    s[L.GB_PORTALS + 5 * 7 + sh] = 1
    s[L.GB_PORTALS + 4 * 7 + (sh + 1) % 7] = 1  # another shape: skipped
    s[L.G_GB_POS] = 3
    play_card(s, P, FIRE_C, 0)
    assert s[L.G_GB_POS] == 5 and s[L.G_GB_USED] == 1
    assert s[L.GB_PORTALS + 5 * 7 + sh] == 0 and s[L.GB_PORTALS + 2 * 7 + sh] == 1
    assert s[TB + L.P_PORTAL + 6] == 1 and s[TB + L.P_NPORTAL] == 1
    # The next card wants notch 5's shape.
    sh5 = int(P[T.BOARD_NOTCH + s[TB + L.P_BOARD] * 7 + 5])
    s[L.GB_PORTALS + 1 * 7 + sh5] = 1
    play_card(s, P, FIRE_C, 0)
    assert s[L.G_GB_POS] == 1 and s[TB + L.P_PORTAL + 5] == 1  # wrapped round


def test_great_bonfire_card_reaches_the_current_space_last():
    s = solo()
    sh = needed_shape(s)
    s[L.GB_PORTALS:L.GB_PORTALS + 49] = 0
    s[L.GB_PORTALS + 3 * 7 + sh] = 1
    s[L.G_GB_POS] = 3
    play_card(s, P, FIRE_C, 0)
    assert s[L.G_GB_POS] == 3 and s[TB + L.P_PORTAL + 6] == 1


def test_great_bonfire_card_without_his_portal_anywhere_gives_nothing():
    s = solo()
    sh = needed_shape(s)
    for g in range(7):
        s[L.GB_PORTALS + g * 7 + sh] = 0
    s[L.G_GB_POS] = 2
    play_card(s, P, FIRE_C, 0)
    assert s[L.G_GB_POS] == 2 and s[TB + L.P_NPORTAL] == 0 and score(s, TOM) == 0


# ---- special cases -----------------------------------------------------------------------


@pytest.mark.parametrize("kind", [GNOME_C, PATH_C, TASK1_C, TASK2_C, GUARD_C, FIRE_C])
def test_special_case_1_a_completed_common_task_gives_3_points_instead(kind):
    s = solo()
    s[TB + L.P_NGNOME] = 6
    s[TB + L.P_NPATH] = 6
    s[TB + L.P_TASK:TB + L.P_TASK + 7] = np.arange(7)
    s[TB + L.P_LIT:TB + L.P_LIT + 7] = 1
    s[TB + L.P_GUARD:TB + L.P_GUARD + 5] = L.GP_WAIT
    s[TB + L.P_PORTAL:TB + L.P_PORTAL + 7] = 1
    s[TB + L.P_NPORTAL] = 7
    s[L.COMMON_NOVICE:L.COMMON_NOVICE + 5] = 0
    before = s.copy()
    play_card(s, P, kind, card(kind) & 1)
    assert score(s, TOM) == 3 and s[TB + L.P_PTS_TOM] == 3
    assert s[TB + L.P_TOM_NOVICES] == 4  # Task II: no novice either
    assert s[L.G_COUNCIL_N] == before[L.G_COUNCIL_N]


def test_no_compensation_when_nothing_matches_for_another_reason():
    s = solo()
    s[L.PATH_DISP:L.PATH_DISP + 4] = [path_tile("blue", "herb", i % 2) for i in range(4)]
    s[L.SPEC_PILE + s[L.G_SPEC_TOP]] = spec_with_resource(ROOT)
    s[TB + L.P_NPATH] = 5  # one short of the limit
    play_card(s, P, PATH_C, 1)
    assert score(s, TOM) == 0


def test_the_path_card_stops_at_the_limit_without_points():
    s = solo()
    fa, fb = path_tile("red", "fruit"), path_tile("blue", "fruit")
    s[L.PATH_DISP:L.PATH_DISP + 4] = [fa, fb, path_tile("blue", "herb"), path_tile("red", "herb")]
    s[L.SPEC_PILE + s[L.G_SPEC_TOP]] = spec_with_resource(FRUIT)
    s[TB + L.P_NPATH] = 5
    play_card(s, P, PATH_C, 1)
    assert s[TB + L.P_NPATH] == 6 and s[TB + L.P_PATH + 6] == fa
    assert s[L.PATH_DISP + 1] == fb and score(s, TOM) == 0


def test_special_case_2_the_gnome_pile_is_reshuffled_from_the_discards():
    s = solo()
    s[L.G_SPEC_TOP] = s[L.G_SPEC_TOP] + s[L.G_SPEC_N]
    s[L.G_SPEC_N] = 0
    disc = [spec_with_resource(FRUIT, i) for i in range(3)]
    for i, g in enumerate(disc):
        s[L.SPEC_DISC + i] = g
    s[L.G_SPEC_DISC_N] = 3
    s[L.PATH_DISP:L.PATH_DISP + 4] = [path_tile("blue", "fruit"), path_tile("blue", "herb"),
                                      path_tile("red", "herb"), path_tile("blue", "herb", 1)]
    play_card(s, P, PATH_C, 1)
    assert s[L.G_SPEC_N] == 2 and s[L.G_SPEC_DISC_N] == 1
    assert s[L.SPEC_DISC] in disc
    assert sorted(s[L.SPEC_PILE + s[L.G_SPEC_TOP] - 1:L.SPEC_PILE + s[L.G_SPEC_TOP] + 2]
                  .tolist()) == sorted(disc)
    assert s[TB + L.P_NPATH] == 1  # every discard shows fruit: the fruit tile was taken


# ---- bonus action ------------------------------------------------------------------------


def test_toms_bonus_action_lays_a_flat_neutral_novice_and_scores_1():
    s = solo()
    for g in (1, 2, 3):
        s[TB + L.P_GUARD + g] = L.GP_WAIT
    s[L.ISLAND_GUARDS + 1:L.ISLAND_GUARDS + 4] -= 1
    s[L.TOM_DECK + 0] = card(GUARD_C)
    s[L.G_TOM_POS] = 0
    tom_turn(s, P)
    assert s[TB + L.P_GUARD + 4] == L.GP_WAIT  # the 5th guardian ...
    assert s[L.COMMON_NOVICE + GUARDIANS5] == 0  # ... fulfils "5 guardians"
    flat = s[L.COUNCIL_FLAT:L.COUNCIL_FLAT + 8].tolist()
    assert sum(flat) == 1 and s[L.G_COUNCIL_N] == 1
    assert all(s[L.COUNCIL + sp * 5 + L.NEUTRAL] == 0 for sp in range(8))
    assert score(s, TOM) == 1
    # Next turn: the common task is still fulfilled but its novice is gone.
    s[L.TOM_DECK + 1] = card(GUARD_C)
    tom_turn(s, P)
    assert score(s, TOM) == 1 + 3  # guardian card at the limit: special case 1 only
    assert sum(s[L.COUNCIL_FLAT:L.COUNCIL_FLAT + 8]) == 1


def test_a_flat_neutral_novice_does_not_block_a_council_space_for_the_human():
    s = solo()
    sp_flat = 5
    s[L.COUNCIL_FLAT + sp_flat] = 1
    for sp in range(8):
        if sp != sp_flat:
            s[L.COUNCIL + sp * 5 + L.NEUTRAL] = 1
    s[L.G_COUNCIL_N] = 0  # keep the countdown out of the way
    hb = pb(0)
    s[hb + L.P_STARTED] = 1
    s[hb + L.P_NPATH] = 6
    s[hb + L.P_PATH + 1:hb + L.P_PATH + 7] = path_tile("blue", "herb")
    s[L.G_PHASE] = L.PH_MAIN
    play(s, mv(L.M_BONUS, PATHS7))
    assert sorted({m[1] for m in of_kind(s, L.M_COUNCIL)}) == [sp_flat]


def test_tom_bonus_actions_can_trigger_the_countdown():
    s = solo()
    s[L.G_COUNCIL_N] = 6
    s[TB + L.P_NGNOME] = 6  # "6 gnomes" fulfilled
    s[L.TOM_DECK + 0] = card(GUARD_C)
    s[L.G_TOM_POS] = 0
    tom_turn(s, P)
    assert s[L.G_COUNCIL_N] == 7 and s[L.G_CD_ACTIVE] == 1


# ---- the deck and the end ----------------------------------------------------------------


def test_the_deck_is_reshuffled_when_empty_and_passes_are_counted():
    s = solo()
    s[L.G_TOM_POS] = 8
    s[L.G_TOM_PASSES] = 2
    deck = sorted(s[L.TOM_DECK:L.TOM_DECK + 8].tolist())
    tom_turn(s, P)
    assert s[L.G_TOM_PASSES] == 3 and s[L.G_TOM_POS] == 1
    assert sorted(s[L.TOM_DECK:L.TOM_DECK + 8].tolist()) == deck
    assert s[L.G_OVER] == 0


def test_the_game_ends_after_toms_4th_pass_through_the_deck():
    s = solo()
    s[L.G_TOM_PASSES] = 4
    s[L.G_TOM_POS] = 7
    tom_turn(s, P)
    assert s[L.G_OVER] == 1 and s[L.G_END] == L.END_TOM_DECK
    assert s[L.G_PHASE] == L.PH_OVER


def test_the_3rd_pass_does_not_end_the_game():
    s = solo()
    s[L.G_TOM_PASSES] = 3
    s[L.G_TOM_POS] = 7
    tom_turn(s, P)
    assert s[L.G_OVER] == 0


def human_ready(seed: int = 3) -> np.ndarray:
    s = solo(seed)
    play(s, mv(L.M_SWAP, 0))
    hb = pb(0)
    s[hb + L.P_TILES + 6] = 40
    return s


def test_tom_plays_one_card_after_each_human_turn():
    s = human_ready()
    assert s[L.G_CUR] == 0 and s[TB + L.P_TURNS] == 0
    policy = first_of([L.M_SHIP, L.M_END])
    for turn in range(1, 4):
        while True:
            moves = engine.legal_moves(s)
            engine.apply(s, moves[policy(s, moves)])
            if s[L.G_CUR] == 0 and s[L.G_PHASE] == L.PH_MAIN:
                break
        assert s[TB + L.P_TURNS] == turn and s[L.G_TOM_POS] == turn
        assert s[L.G_TOM_CARD] == s[L.TOM_DECK + turn - 1]


def test_a_solo_game_ends_with_tom_deck_through_the_engine():
    s = human_ready()
    s[L.G_TOM_PASSES] = 4
    s[L.G_TOM_POS] = 6
    policy = first_of([L.M_SHIP, L.M_END])
    n = 0
    while not s[L.G_OVER]:
        moves = engine.legal_moves(s)
        engine.apply(s, moves[policy(s, moves)])
        n += 1
        assert n < 100
    assert s[L.G_END] == L.END_TOM_DECK
    assert s[TB + L.P_TURNS] == 2 and s[pb(0) + L.P_TURNS] == 2


def test_the_solo_countdown_ends_the_game_before_the_deck():
    s = human_ready()
    s[L.G_CD_ACTIVE] = 1
    s[L.G_CD_PILE] = 1  # the human's last turn
    policy = first_of([L.M_SHIP, L.M_END])
    while not s[L.G_OVER]:
        moves = engine.legal_moves(s)
        engine.apply(s, moves[policy(s, moves)])
    assert s[L.G_END] == L.END_COUNTDOWN
    assert s[TB + L.P_TURNS] == 1  # Tom held tile 1 for his last card
