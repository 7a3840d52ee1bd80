"""End of game: the countdown, passing, players who are out (rulebook p.11, RULINGS 6)."""

from __future__ import annotations

import numpy as np
import pytest
from helpers_flow import (
    drive,
    fill_council,
    first_of,
    legal,
    mv,
    pb,
    play,
    score,
    start,
)

from bonfire_sim import engine
from bonfire_sim.rules import layout as L
from bonfire_sim.rules import tables as T
from bonfire_sim.rules.council import check_trigger
from bonfire_sim.rules.state import StateBuilder

P = T.DEFAULT_PARAMS
SP_GOLD, SP_SPEC = 0, 4
GUARDIANS5 = 3
THRESHOLD = {2: 7, 3: 10, 4: 13}

# Sail (cheapest first listed), decline the island action, end the turn: 1-2 tiles a turn.
SAILOR = first_of([L.M_SHIP, L.M_END])


def table(n: int, trigger_seat: int, idle=(), yellow: int = 40) -> np.ndarray:
    """n seats, each with ``yellow`` yellow tiles and a fate supply; ``trigger_seat`` holds a
    fulfilled task (B5, grey guardian) and the council is one novice short of the trigger."""
    b = StateBuilder(n)
    for seat in range(n):
        if seat not in idle:
            b.tiles(seat, yellow=yellow)
    b.guardian(trigger_seat, "grey").task(trigger_seat, 0, "B5")
    s = start(b, cur=trigger_seat, idle=idle)
    others = [c for c in range(n) if c != trigger_seat] or [L.NEUTRAL]
    fill_council(s, THRESHOLD[n] - 1, others)
    return s


def trigger(s: np.ndarray) -> None:
    """The current seat ignites B5 and takes the point: the countdown starts."""
    play(s, mv(L.M_IGNITE, 0), mv(L.M_COUNCIL, SP_SPEC, 1))


def one_turn(s: np.ndarray) -> None:
    """The current seat sails (and declines any island action); the turn ends."""
    seat = s[L.G_CUR]
    while s[L.G_CUR] == seat and not s[L.G_OVER]:
        moves = engine.legal_moves(s)
        engine.apply(s, moves[SAILOR(s, moves)])


def turns(s: np.ndarray) -> list[int]:
    return [int(s[pb(seat) + L.P_TURNS]) for seat in range(int(s[L.G_NSEATS]))]


def turns_after_trigger(n: int, trigger_seat: int) -> list[int]:
    s = table(n, trigger_seat)
    trigger(s)
    assert s[L.G_CD_ACTIVE] == 1
    before = turns(s)
    drive(s, SAILOR)
    assert s[L.G_OVER] == 1 and s[L.G_END] == L.END_COUNTDOWN
    return [a - b for a, b in zip(turns(s), before, strict=True)]


# ---- thresholds --------------------------------------------------------------------------


@pytest.mark.parametrize("humans, threshold", [(1, 7), (2, 7), (3, 10), (4, 13)])
def test_the_countdown_starts_at_7_7_10_13_novices(humans, threshold):
    s = StateBuilder(max(humans, 2)).build()
    s[L.G_HUMANS] = humans
    s[L.G_COUNCIL_N] = threshold - 1
    check_trigger(s, P)
    assert s[L.G_CD_ACTIVE] == 0 and s[L.G_CD_PILE] == 0
    s[L.G_COUNCIL_N] = threshold
    check_trigger(s, P)
    assert s[L.G_CD_ACTIVE] == 1 and s[L.G_CD_PILE] == 5


def test_placing_the_novice_that_reaches_the_threshold_triggers_the_countdown():
    s = table(3, 1)
    assert s[L.G_COUNCIL_N] == 9
    play(s, mv(L.M_IGNITE, 0))
    assert s[L.G_CD_ACTIVE] == 0  # the novice is not placed yet
    play(s, mv(L.M_COUNCIL, SP_SPEC, 1))
    assert s[L.G_CD_ACTIVE] == 1 and s[L.G_COUNCIL_N] == 10
    assert s[L.G_TRIGGER_TURN] == 1


def test_one_novice_short_does_not_trigger():
    s = table(4, 0)
    s[L.G_COUNCIL_N] -= 1
    trigger(s)
    assert s[L.G_CD_ACTIVE] == 0


# ---- turns after the trigger -------------------------------------------------------------


def test_trigger_by_the_starting_player_4p():
    assert turns_after_trigger(4, 0) == [4, 5, 5, 5]


def test_trigger_by_seat_2_in_4p():
    assert turns_after_trigger(4, 2) == [5, 5, 5, 6]


@pytest.mark.parametrize("n, t", [(2, 0), (2, 1), (3, 0), (3, 1), (3, 2), (4, 1), (4, 3)])
def test_turns_after_the_trigger_follow_the_tiles(n, t):
    expect = [5 + (1 if t != 0 and seat > t else 0) - (1 if t == 0 and seat == 0 else 0)
              for seat in range(n)]
    assert turns_after_trigger(n, t) == expect


def test_tiles_travel_highest_first_and_tile_1_ends_the_game():
    s = table(3, 0)
    trigger(s)
    # End of seat 0's trigger turn: tile 5 went to seat 1, her pile shows 4.
    assert s[L.G_CUR] == 1 and s[pb(1) + L.P_CD_TILE] == 5 and s[L.G_CD_PILE] == 4
    log = []
    while not s[L.G_OVER]:
        seat = int(s[L.G_CUR])
        held = int(s[L.G_CD_PILE] if seat == 0 else s[pb(seat) + L.P_CD_TILE])
        if not log or log[-1] != (seat, held):
            log.append((seat, held))
        moves = engine.legal_moves(s)
        engine.apply(s, moves[SAILOR(s, moves)])
    assert log == [(1, 5), (2, 5), (0, 4), (1, 4), (2, 4), (0, 3), (1, 3), (2, 3),
                   (0, 2), (1, 2), (2, 2), (0, 1), (1, 1), (2, 1)]
    assert s[L.G_END] == L.END_COUNTDOWN and s[L.G_PHASE] == L.PH_OVER
    assert engine.legal_moves(s).shape == (0, 5)


def test_no_move_is_accepted_after_the_end():
    s = table(2, 1)
    trigger(s)
    drive(s, SAILOR)
    with pytest.raises(Exception, match="over"):
        engine.apply(s, mv(L.M_END))


# ---- passing -----------------------------------------------------------------------------


def test_passing_scores_the_tile_and_the_player_takes_no_more_turns():
    s = table(3, 0)
    trigger(s)
    assert s[L.G_CUR] == 1 and mv(L.M_PASS) in legal(s)
    t1 = int(s[pb(1) + L.P_TURNS])
    play(s, mv(L.M_PASS))
    assert score(s, 1) == 5 and s[pb(1) + L.P_PTS_PASS] == 5
    assert s[pb(1) + L.P_PASSED] == 1 and s[pb(1) + L.P_CD_TILE] == 0
    assert s[pb(2) + L.P_CD_TILE] == 5 and s[L.G_CUR] == 2  # the tile travels on
    before = [int(x) for x in (s[pb(0) + L.P_TURNS], s[pb(2) + L.P_TURNS])]
    drive(s, SAILOR)
    assert s[pb(1) + L.P_TURNS] == t1  # a pass is no turn, and there were no more
    assert [int(s[pb(0) + L.P_TURNS]) - before[0], int(s[pb(2) + L.P_TURNS]) - before[1]] == [4, 5]
    assert score(s, 1) == 5
    assert s[L.G_END] == L.END_COUNTDOWN


def test_the_starting_player_passes_for_the_highest_tile_in_her_pile():
    s = table(2, 0)
    trigger(s)
    one_turn(s)  # seat 1, tile 5
    assert s[L.G_CUR] == 0 and s[L.G_CD_PILE] == 4
    play(s, mv(L.M_PASS))
    assert score(s, 0) == 1 + 4  # the council point + 4


def test_the_starting_player_passes_for_5_when_another_seat_triggered():
    s = table(2, 1)
    trigger(s)
    assert s[L.G_CUR] == 0 and s[L.G_CD_PILE] == 5
    play(s, mv(L.M_PASS))
    assert score(s, 0) == 5
    assert s[pb(1) + L.P_CD_TILE] == 5  # the tile went on although she passed


def test_a_later_seat_cannot_pass_before_a_tile_reaches_it():
    s = table(4, 2)
    trigger(s)
    assert s[L.G_CUR] == 3 and s[pb(3) + L.P_CD_TILE] == 0
    assert mv(L.M_PASS) not in legal(s)


def test_no_passing_before_the_countdown():
    s = table(3, 0)
    assert mv(L.M_PASS) not in legal(s)


def test_no_passing_after_a_bonus_action_in_the_same_turn():
    b = StateBuilder(2)
    for name in ("grey", "pink", "red", "wood"):
        b.guardian(1, name)
    b.tiles(0, yellow=5).tiles(1, yellow=5)
    s = start(b, cur=1)
    s[L.G_CD_ACTIVE] = 1
    s[L.G_CD_PILE] = 4
    s[pb(1) + L.P_CD_TILE] = 5
    assert mv(L.M_PASS) in legal(s)
    play(s, mv(L.M_BONUS, GUARDIANS5), mv(L.M_COUNCIL, SP_GOLD, 0))
    assert s[L.G_CUR] == 1 and s[L.G_PHASE] == L.PH_MAIN
    assert mv(L.M_PASS) not in legal(s)  # passing is instead of a turn


def test_passing_is_not_offered_after_the_main_option():
    s = table(2, 1)
    trigger(s)
    assert s[L.G_CUR] == 0 and mv(L.M_PASS) in legal(s)
    play(s, mv(L.M_SHIP, 1, 1))  # the grey island: the guardian may follow
    assert s[L.G_PHASE] == L.PH_SHIP_ACTION and mv(L.M_PASS) not in legal(s)


def test_everybody_passing_still_lets_the_tiles_run_out():
    s = table(3, 0)
    trigger(s)
    play(s, mv(L.M_PASS))  # seat 1: 5
    play(s, mv(L.M_PASS))  # seat 2: 5
    assert s[L.G_CUR] == 0
    play(s, mv(L.M_PASS))  # seat 0: 4
    assert s[L.G_OVER] == 1 and s[L.G_END] == L.END_COUNTDOWN
    assert [score(s, i) for i in range(3)] == [1 + 4, 5, 5]


# ---- players who are out -----------------------------------------------------------------


def test_a_player_who_can_do_nothing_is_out_before_the_countdown():
    s = table(3, 0, idle=(2,))
    one_turn(s)  # seat 0, no trigger
    one_turn(s)  # seat 1; seat 2 is skipped
    assert s[L.G_CUR] == 0
    assert s[pb(2) + L.P_OUT] == 1 and s[pb(2) + L.P_PASSED] == 0
    assert s[pb(2) + L.P_TURNS] == 0


def test_a_player_who_is_out_passes_automatically_when_a_tile_is_available():
    s = table(3, 0, idle=(2,))
    trigger(s)
    one_turn(s)  # seat 1 with tile 5
    # Seat 2 could do nothing: out, and passing for tile 5 is free points.
    assert s[L.G_CUR] == 0
    assert s[pb(2) + L.P_OUT] == 1 and s[pb(2) + L.P_PASSED] == 1
    assert score(s, 2) == 5 and s[pb(2) + L.P_CD_TILE] == 0
    drive(s, SAILOR)
    assert score(s, 2) == 5 and s[L.G_END] == L.END_COUNTDOWN


def test_a_player_who_runs_out_during_the_countdown_passes_for_the_current_tile():
    s = table(3, 0)
    s[pb(2) + L.P_TILES + 6] = 2  # seat 2: only 2 yellow tiles ...
    s[pb(2) + L.P_FATE_LO] = s[pb(2) + L.P_FATE_HI]  # ... and no fate tile
    trigger(s)
    drive(s, SAILOR)
    # Seat 2 sails twice (tiles 5 and 4: 1 tile for the first trip, then 1 route),
    # cannot act with tile 3 and passes for 3.
    assert s[pb(2) + L.P_PTS_PASS] == 3
    assert s[pb(2) + L.P_OUT] == 1


def test_every_player_out_before_the_countdown_stalls_the_game():
    s = table(2, 0, idle=(0, 1))
    s[pb(0) + L.P_TASK] = -1  # nothing to ignite
    from bonfire_sim.rules.moves import finish_turn
    finish_turn(s, P)
    assert s[L.G_OVER] == 1 and s[L.G_END] == L.END_STALLED

