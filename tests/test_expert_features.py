"""The evaluator's issue-35 features (``spec_turns``, ``spec_guard``, ``elder_many``,
``guard_lit``): 0 in every built-in row, and each moves the price it documents."""

from __future__ import annotations

import numpy as np
import pytest

from bonfire_sim.rules import components as C
from bonfire_sim.rules import layout as L
from bonfire_sim.rules import tables as T
from bonfire_sim.rules.state import StateBuilder
from bonfire_sim.strategies import BUILTIN, weights_for
from bonfire_sim.strategies import features as FE
from bonfire_sim.strategies import price_board as board
from bonfire_sim.strategies import price_context as context
from bonfire_sim.strategies.weights import WEIGHT_NAMES

P = T.DEFAULT_PARAMS
NEW = ("spec_turns", "spec_guard", "elder_many", "guard_lit")
ELDER_PATHS = C.N_SPECIALISTS  # elder 0: a point per path tile


def scratch(turns: float = 20.0) -> tuple[np.ndarray, np.ndarray]:
    """A decision's context (``turns`` turns left, fully early) and a zero NEED vector."""
    cx = np.zeros(context.NCX)
    cx[context.CX_TURNS] = turns
    cx[context.CX_LATE] = 1.0
    return cx, np.zeros(FE.NN)


def test_the_new_weights_are_last_and_zero_in_every_built_in_row():
    assert WEIGHT_NAMES[-len(NEW):] == NEW  # appended: no older row's index moves
    for name in BUILTIN:
        if name in ("random", "search", "search_expert"):
            continue
        row = weights_for(name)
        assert all(row[WEIGHT_NAMES.index(k)] == 0.0 for k in NEW), name


def test_spec_turns_prices_a_specialist_by_the_turns_left():
    s = StateBuilder().build()
    w = weights_for("steady", {"spec_turns": 1.0})
    cx, nd = scratch(20.0)
    long = board.gnome_value(s, P, L.player_base(0), 1, w, cx, nd)  # ability 2
    cx[context.CX_TURNS] = 5.0
    short = board.gnome_value(s, P, L.player_base(0), 1, w, cx, nd)
    assert long - short == pytest.approx(board.SPEC_VALUE[2] * 15 / 10)


def test_spec_guard_counts_the_guardians_a_specialist_serves():
    s = StateBuilder().guardian(0, C.GUARDIAN_COLOURS[0], 0).guardian(
        0, C.GUARDIAN_COLOURS[1]).build()
    pb = L.player_base(0)
    assert board.spec_guardians(s, pb, 2) == 2  # every guardian steps further
    assert board.spec_guardians(s, pb, 10) == 1  # colour 1 is owned
    assert board.spec_guardians(s, pb, 11) == 0  # colour 2 is not
    assert board.spec_guardians(s, pb, 3) == 0  # not a guardian ability
    cx, nd = scratch()
    off = board.gnome_value(s, P, pb, 1, weights_for("steady"), cx, nd)
    on = board.gnome_value(s, P, pb, 1, weights_for("steady", {"spec_guard": 1.5}), cx, nd)
    assert on - off == pytest.approx(3.0)


def test_elder_many_lowers_an_elder_per_elder_held():
    w = weights_for("steady", {"elder_many": 2.0})
    cx, nd = scratch()
    pb = L.player_base(0)
    none = StateBuilder().build()
    two = (StateBuilder().gnome(0, 0)  # a specialist: not an elder
           .gnome(0, ELDER_PATHS + 1).gnome(0, ELDER_PATHS + 2).build())
    base = weights_for("steady")
    drop = (board.gnome_value(two, P, pb, ELDER_PATHS, base, cx, nd)
            - board.gnome_value(two, P, pb, ELDER_PATHS, w, cx, nd))
    assert drop == pytest.approx(4.0)
    assert (board.gnome_value(none, P, pb, ELDER_PATHS, base, cx, nd)
            == board.gnome_value(none, P, pb, ELDER_PATHS, w, cx, nd))


def test_guard_lit_values_guardians_by_the_open_lit_bonfires_ahead():
    s = (StateBuilder().path(0, 0, 1, 2).task(0, 2, "R3", lit=True).portals(0, 2)
         .guardian(0, C.GUARDIAN_COLOURS[0], 0).build())
    pb = L.player_base(0)
    pts = P[T.GUARD_PTS + 2]
    assert pts > 0
    assert board.open_lit_points(s, P, pb, 0, 0) == pytest.approx(pts / 3)
    assert board.open_lit_points(s, P, pb, 2, 0) == pytest.approx(pts)
    assert board.open_lit_points(s, P, pb, 3, 0) == 0.0  # walked past it
    cx, nd = scratch()
    w = weights_for("steady", {"guard_lit": 1.0})
    base = weights_for("steady")
    gain = (board.guard_value(s, P, pb, 1, w, cx, nd)
            - board.guard_value(s, P, pb, 1, base, cx, nd))
    assert gain == pytest.approx(pts / 3)
    # a step from path 0 to path 2, next to the bonfire, gains what the feature promises
    step = (board.guard_pos_value(s, P, pb, 0, 2, -1, w, cx, nd, np.zeros(6))
            - board.guard_pos_value(s, P, pb, 0, 2, -1, base, cx, nd, np.zeros(6)))
    assert step == pytest.approx(pts)
