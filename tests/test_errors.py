"""One error hierarchy: every intentional library error is a BonfireError (and the
configuration ones stay ValueErrors, so older ``except ValueError`` code keeps working)."""

from __future__ import annotations

import pytest

from bonfire_sim import strategies as S
from bonfire_sim.errors import BonfireError, ConfigError
from bonfire_sim.rules import components as C
from bonfire_sim.rules import tables as T
from bonfire_sim.rules.setup import new_game
from bonfire_sim.rules.state import StateBuilder


@pytest.mark.parametrize("call", [
    lambda: C.variant("tom_deck", "nope"),
    lambda: C.parse_variant("tom_deck"),
    lambda: T.build_params({"task_points": {"B1": -1}}),
    lambda: T.build_params({"nonsense": 1}),
    lambda: S.strategy_id("nope"),
    lambda: S.weight_table("greedy", {"nonsense": 1.0}),
    lambda: new_game(1, 5),
    lambda: StateBuilder(n_seats=9),
])
def test_library_errors_are_bonfire_errors_and_value_errors(call):
    with pytest.raises(BonfireError) as info:
        call()
    assert isinstance(info.value, ConfigError) and isinstance(info.value, ValueError)
