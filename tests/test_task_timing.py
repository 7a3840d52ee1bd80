"""The evaluator's task-timing weights (issue 13): when to ignite, when to take a task.

``ignite_hold`` defers igniting a fulfilled task to the countdown (the council trigger is
shared, so every novice placed before it shortens the game for everyone); it must vanish
in the countdown, in solo games and under stall pressure, or games would stall.
``task_ignite`` / ``task_idle`` price what a new task promises beyond its printed points;
``fire_plain`` penalises Great Bonfire turns that only convert stock.  All four default to
0, so every style written before them plays exactly as it did.
"""

from __future__ import annotations

import numpy as np
import pytest

from bonfire_sim import engine
from bonfire_sim.rules import layout as L
from bonfire_sim.rules import tables as T
from bonfire_sim.rules.fate import place_start_tile
from bonfire_sim.rules.state import StateBuilder
from bonfire_sim.strategies import BUILTIN, EXPERT, evaluate, weights_for
from bonfire_sim.strategies import price_board as board
from bonfire_sim.strategies import price_context as context
from bonfire_sim.strategies import price_tasks as tasks
from bonfire_sim.strategies.weights import WEIGHT_NAMES

P = T.DEFAULT_PARAMS
NEW = ("task_ignite", "task_idle", "fire_plain", "ignite_hold")


def row(**over: float) -> np.ndarray:
    """The ``steady`` row (the new weights at 0) with overrides."""
    return weights_for("steady", over)


def holding_a_fulfilled_task(council: int = 5, column: bool = True) -> np.ndarray:
    """Seat 0 to move holding R3 '4 gold' fulfilled (4 gold), with tiles for other actions."""
    b = (StateBuilder().task(0, 3, "R3").resources(0, gold=4, fruit=1, herb=1)
         .tiles(0, ship=2, path=2, fire=1, guard=1))
    s = b.build()
    for i in range(council):
        s[L.COUNCIL + i * 5 + 3] = 1
    s[L.G_COUNCIL_N] = council
    for seat in range(int(s[L.G_NSEATS])):
        pb = L.player_base(seat)
        s[pb + L.P_STARTED] = 1
        for i in range(8):
            s[pb + L.P_FATE_SUP + i] = i
        s[pb + L.P_FATE_LO], s[pb + L.P_FATE_HI] = 1, 8 if column else 1
        place_start_tile(s, P, pb, 0)
    s[L.G_CUR] = 0
    s[L.G_PHASE] = L.PH_MAIN
    s[L.G_RET] = L.PH_POST
    return s


def chosen_kind(s: np.ndarray, w: np.ndarray) -> int:
    moves = engine.legal_moves(s)
    assert any(m[0] == L.M_IGNITE for m in moves)
    return int(moves[evaluate.choose(s, P, moves, len(moves), w)][0])


def test_the_new_weights_are_appended_and_zero_for_every_older_style():
    # appended after the weights of 2026-11-22 (issue 27 appended more after them)
    start = WEIGHT_NAMES.index(NEW[0])
    assert WEIGHT_NAMES[start:start + len(NEW)] == NEW
    assert WEIGHT_NAMES[start + len(NEW):] == ("yellow_floor", "set_take", "set_keep",
                                               "spec_flat")
    for name in BUILTIN:
        # tuned, the issue-27 styles built on its row and learned (which prices with
        # tuned's row) use them
        if name in ("random", "search", "tuned", "learned") or name.startswith("tuned_"):
            continue
        # the row found by fitting (expert iteration, issue 35), not written by hand: the
        # fit may set any weight, these too; the promise is that the older hand-made styles
        # play exactly as before.  (search_expert is a spec playing this row, no row of its
        # own, so it is not in BUILTIN.)
        if name == EXPERT:
            continue
        r = weights_for(name)
        assert all(r[WEIGHT_NAMES.index(k)] == 0.0 for k in NEW), name


def test_a_fulfilled_task_is_lit_at_once_without_the_hold_weight():
    assert chosen_kind(holding_a_fulfilled_task(), row()) == L.M_IGNITE


def test_the_hold_weight_defers_the_ignite_before_the_countdown():
    assert chosen_kind(holding_a_fulfilled_task(), row(ignite_hold=60.0)) != L.M_IGNITE


def test_in_the_countdown_the_held_task_is_lit():
    s = holding_a_fulfilled_task()
    s[L.G_CD_ACTIVE] = 1
    s[L.G_CD_PILE] = 5  # seat 0 is the starting player: 5 turns left
    assert chosen_kind(s, row(ignite_hold=60.0)) == L.M_IGNITE


def test_under_full_stall_pressure_the_hold_vanishes():
    # an empty council and no fate tiles left to place: the game is heading for a stall
    s = holding_a_fulfilled_task(council=0, column=False)
    assert context.stall_pressure(s, P) == 1.0
    assert chosen_kind(s, row(ignite_hold=60.0)) == L.M_IGNITE


def test_the_hold_penalty_is_zero_in_solo_and_in_the_countdown():
    s = holding_a_fulfilled_task()
    w = row(ignite_hold=10.0)
    cx = np.zeros(context.NCX)
    cx[context.CX_PRESS] = 0.25
    assert board.ignite_hold_penalty(s, w, cx) == pytest.approx(7.5)
    s[L.G_SOLO] = 1
    assert board.ignite_hold_penalty(s, w, cx) == 0.0
    s[L.G_SOLO] = 0
    s[L.G_CD_ACTIVE] = 1
    assert board.ignite_hold_penalty(s, w, cx) == 0.0


def test_a_new_task_is_worth_its_ignite_and_more_while_no_unlit_task_is_held():
    w = row(task_ignite=4.0, task_idle=3.0)
    cx = np.zeros(context.NCX)
    cx[context.CX_OPEN] = 0
    assert tasks.task_promise(w, cx, 0.5) == pytest.approx(2.0 + 3.0)
    cx[context.CX_OPEN] = 1
    assert tasks.task_promise(w, cx, 0.5) == pytest.approx(2.0)
    assert tasks.task_promise(row(), cx, 0.5) == 0.0


def test_only_great_bonfire_turns_without_a_portal_pay_the_plain_penalty():
    w = row(fire_plain=1.5)
    for rset, mask in enumerate(L.REWARD_SETS):
        expect = 0.0 if mask & board.R_PORTAL else 1.5
        assert board.fire_plain_penalty(rset, w) == expect
    assert {board.fire_plain_penalty(r, w) for r in range(len(L.REWARD_SETS))} == {0.0, 1.5}
