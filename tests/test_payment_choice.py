"""The strategies price the payer's choices (RULINGS 4) by the stock each one leaves.

The shared evaluator values a payment by what it takes: a yellow joker is worth more than a
plain tile, a tile of a type no action can use any more is surplus, a resource a held task
still needs is worth more than gold.  Each test builds a tiny mid-game state, opens the
PH_PAY decision and asks the built-in evaluator which alternative it takes.
"""

from __future__ import annotations

import numpy as np
import pytest

from bonfire_sim import engine
from bonfire_sim.rules import layout as L
from bonfire_sim.rules import tables as T
from bonfire_sim.rules.fate import place_start_tile
from bonfire_sim.rules.pay_choice import pack, unpack
from bonfire_sim.rules.state import StateBuilder
from bonfire_sim.strategies import evaluate, weights_for

P = T.DEFAULT_PARAMS
PB = L.player_base(0)
SCRIPTED = ("greedy", "portal", "tempo", "planner", "gnome_engine", "guardian")
FIRE_ON_3 = (L.M_FIRE, 3, 0, -1, 1)  # first use of the Great Bonfire: 1 fire tile
ELDER_4 = (L.M_GNOME, 30, 0, 0, 0)  # elder 4 shows shell: 2 gnome tiles + 1 shell


def mid_game(b: StateBuilder) -> np.ndarray:
    """Seat 0 to move with its whole fate column ahead, far from the end of the game, and a
    council filling up normally (no threat of a stall: see ``evaluate.stall_pressure``)."""
    s = b.build()
    for i in range(5):
        s[L.COUNCIL + i * 5 + 3] = 1
    s[L.G_COUNCIL_N] = 5
    for seat in range(int(s[L.G_NSEATS])):
        pb = L.player_base(seat)
        s[pb + L.P_STARTED] = 1
        for i in range(8):
            s[pb + L.P_FATE_SUP + i] = i
        s[pb + L.P_FATE_LO], s[pb + L.P_FATE_HI] = 1, 8
        place_start_tile(s, P, pb, 0)
    s[L.G_CUR] = 0
    s[L.G_PHASE] = L.PH_MAIN
    s[L.G_RET] = L.PH_POST
    return s


def chosen(s: np.ndarray, strategy: str) -> list[int]:
    """The counts the strategy pays (or keeps) in the pending PH_PAY decision."""
    assert s[L.G_PHASE] == L.PH_PAY
    moves = engine.legal_moves(s)
    i = evaluate.choose(s, P, moves, len(moves), weights_for(strategy))
    return unpack(int(moves[i][1]), 7 if moves[i][2] == 0 else 6)


def six_gnomes(b: StateBuilder) -> StateBuilder:
    for ability in (1, 2, 3, 4, 6, 7):
        b.specialist(0, ability)
    return b


@pytest.mark.parametrize("strategy", SCRIPTED)
def test_a_bot_keeps_the_yellow_joker_when_a_pair_of_useless_tiles_can_pay(strategy):
    # 6 gnomes: gnome tiles can pay for nothing but pairs
    s = mid_game(six_gnomes(StateBuilder().tiles(0, gnome=2, yellow=1)))
    engine.apply(s, FIRE_ON_3)
    assert chosen(s, strategy) == [0, 0, 0, 0, 0, 2, 0]


@pytest.mark.parametrize("strategy", SCRIPTED)
def test_a_bot_pays_the_yellow_joker_rather_than_two_useful_tiles(strategy):
    s = mid_game(StateBuilder().tiles(0, gnome=2, yellow=1))
    engine.apply(s, FIRE_ON_3)
    assert chosen(s, strategy) == [0, 0, 0, 0, 0, 0, 1]


@pytest.mark.parametrize("strategy", SCRIPTED)
def test_a_bot_pays_its_own_resource_rather_than_gold(strategy):
    b = StateBuilder().tiles(0, gnome=2).resources(0, shell=1, gold=1, herb=3).elders(4)
    s = mid_game(b)
    engine.apply(s, ELDER_4)
    assert chosen(s, strategy) == [0, 0, 0, 1, 0, 0]


@pytest.mark.parametrize("strategy", SCRIPTED)
def test_a_bot_pays_gold_for_a_resource_its_task_still_needs(strategy):
    b = (StateBuilder().tiles(0, gnome=2).resources(0, shell=1, gold=1, herb=3).elders(4)
         .task(0, 0, "R18"))  # "3 shells": the shell is worth keeping
    s = mid_game(b)
    engine.apply(s, ELDER_4)
    assert chosen(s, strategy) == [0, 0, 0, 0, 0, 1]


@pytest.mark.parametrize("strategy", SCRIPTED)
def test_a_bot_pays_its_ship_with_the_pair_that_keeps_the_island_action(strategy):
    b = (StateBuilder().ship(0, 2).island_tasks(3, "B1", "R2")
         .offering_piles(0, "fruit blossom herb root shell", "shell fruit blossom herb root")
         .resources(0, fruit=1, herb=1).tiles(0, task=2, fire=1))
    s = mid_game(b)
    engine.apply(s, (L.M_SHIP, 3, 1))  # 1 route: 1 ship tile, here a pair
    offered = {int(m[1]) for m in engine.legal_moves(s)}
    assert offered == {pack((0, 0, 2, 0, 0, 0, 0)), pack((0, 0, 1, 1, 0, 0, 0))}
    assert chosen(s, strategy) == [0, 0, 1, 1, 0, 0, 0]  # keeps a task tile for the task


def test_random_play_makes_payment_choices_and_keeps_every_invariant():
    from bonfire_sim.rules.invariants import check
    from bonfire_sim.rules.moves import apply_move, legal_moves
    from bonfire_sim.rules.setup import new_game
    from bonfire_sim.sim.loop import new_buffer
    from bonfire_sim.strategies import random_player

    kinds = set()
    for seed in range(2):
        s = new_game(seed, 3)
        buf = new_buffer()
        while not s[L.G_OVER]:
            n = legal_moves(s, P, buf)
            if s[L.G_PHASE] == L.PH_PAY:
                assert n >= 2
                kinds.add(int(buf[0, 0]))
            apply_move(s, P, buf[random_player.choose(s, P, buf, n)])
            assert check(s, P) == 0
    assert kinds == {L.M_PAY, L.M_DISCARD}


def test_a_bot_keeps_its_yellow_tile_and_discards_surplus_before_a_fate_tile():
    s = mid_game(six_gnomes(StateBuilder().tiles(0, gnome=3, yellow=1, ship=1)))
    fate = next(m for m in engine.legal_moves(s) if m[0] == L.M_FATE)
    engine.apply(s, fate)
    assert chosen(s, "greedy") == [0, 0, 0, 0, 0, 0, 1]


@pytest.mark.parametrize("strategy", ("tuned", *SCRIPTED))
def test_no_bot_pays_its_joker_while_holding_the_tile_asked(strategy):
    # tuned prices the joker (yellow 0.51) below a fire tile (tile 1.58 x tv_fire 1.88), so
    # it paid its joker for the Great Bonfire while holding the fire tile asked: 3.0% of
    # its payments (issue 39).  Spending a joker where a held tile of the type asked
    # would do is dominated (the joker can stand for any tile later), whatever the
    # weights: every player pays the fire tile and keeps the joker.
    s = mid_game(StateBuilder().tiles(0, fire=1, yellow=1, task=1))
    engine.apply(s, FIRE_ON_3)
    assert chosen(s, strategy) == [0, 0, 0, 1, 0, 0, 0]
    # Its move pricing agrees: the Great Bonfire costs the fire tile, not the joker.
    from bonfire_sim.strategies.price_stock import joker_for_held

    assert joker_for_held(0, 1, 0, 1, 1, 1)  # 1 asked, 1 held, paid with the joker
    assert not joker_for_held(1, 0, 0, 1, 1, 1)  # paid with the tile held
    assert not joker_for_held(0, 1, 0, 1, 0, 1)  # none held: the joker is the way
    # Specialist 5 (a joker covers 2): one joker for 2 asked while holding 2 is no waste
    # of a joker; one joker for 1 asked while holding 1 is.
    assert not joker_for_held(0, 1, 0, 2, 2, 2)
    assert joker_for_held(0, 1, 0, 1, 1, 2)


def test_a_joker_is_still_paid_where_the_tile_asked_is_not_held():
    s = mid_game(StateBuilder().tiles(0, gnome=2, yellow=1))
    engine.apply(s, FIRE_ON_3)
    assert chosen(s, "tuned") == [0, 0, 0, 0, 0, 0, 1]
