"""The weight rows the README and ``bonfire_sim/strategies/tuned.py`` quote load as players."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from bonfire_sim.strategies import load_weights
from bonfire_sim.strategies.specs import parse_player
from bonfire_sim.strategies.weights import WEIGHT_NAMES

ROWS = sorted((Path(__file__).parent.parent / "experiments" / "tuning").glob("*.toml"))


@pytest.mark.parametrize("path", ROWS, ids=lambda p: p.name)
def test_every_shipped_row_is_a_complete_usable_weight_file(path):
    names = set(load_weights(path))
    assert names <= set(WEIGHT_NAMES), names - set(WEIGHT_NAMES)
    player = parse_player(f"tuned@{path}")
    assert np.isfinite(player.weight_row()).all()


def test_tuned_ships_the_stage3_row_and_not_the_bonfire_rows():
    """strategies/tuned.py: the built-in is stage 3 (the strongest); stages 5 and 6 light
    more bonfires but lose head to head, so they are only weight files."""
    tuning = Path(__file__).parent.parent / "experiments" / "tuning"
    # complete: nothing falls back but the weights appended later (issues 27, 35), whose base
    # value 0 leaves these rows' play as it was
    later = {"yellow_floor", "set_take", "set_keep", "spec_flat", "spec_turns", "spec_guard",
             "elder_many", "guard_lit"}
    for name in ("stage3.toml", "stage5.toml", "stage6.toml"):
        assert set(load_weights(tuning / name)) == set(WEIGHT_NAMES) - later
    built_in = parse_player("tuned").weight_row()
    stage3 = parse_player(f"tuned@{tuning / 'stage3.toml'}").weight_row()
    assert np.array_equal(built_in, stage3)
    for name in ("stage5.toml", "stage6.toml"):
        assert not np.array_equal(built_in, parse_player(f"tuned@{tuning / name}").weight_row())
