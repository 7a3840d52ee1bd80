"""Shared scenario helpers for the rule tests (fixtures, so every test file can use them)."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest

from bonfire_sim import engine
from bonfire_sim.rules import layout as L
from bonfire_sim.rules.state import StateBuilder


def ready_to_act(builder: StateBuilder, seat: int = 0) -> np.ndarray:
    """The built state with ``seat`` started and choosing its main option (PH_MAIN).

    The other seats have not chosen their starting fate tile yet, so when the acting seat's
    turn ends the game simply waits at the next seat's swap decision.
    """
    s = builder.build()
    s[L.G_CUR] = seat
    s[L.G_PHASE] = L.PH_MAIN
    s[L.G_RET] = L.PH_POST
    s[L.player_base(seat) + L.P_STARTED] = 1
    return s


def legal_of(s: np.ndarray, kind: int) -> list[tuple[int, ...]]:
    """The legal moves of one kind, as tuples (kind, a, b, c, d)."""
    return [tuple(int(x) for x in m) for m in engine.legal_moves(s) if m[0] == kind]


@pytest.fixture
def main_state() -> Callable[..., np.ndarray]:
    """``main_state(builder, seat=0)``: see ``ready_to_act``."""
    return ready_to_act


@pytest.fixture
def moves_of() -> Callable[[np.ndarray, int], list[tuple[int, ...]]]:
    """``moves_of(state, kind)``: see ``legal_of``."""
    return legal_of
