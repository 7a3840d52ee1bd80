"""The weight rows the README and ``strategies/tuned.py`` quote load as players."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from strategies import load_weights
from strategies.evaluate import WEIGHT_NAMES
from strategies.specs import parse_player

ROWS = sorted((Path(__file__).parent.parent / "experiments" / "tuning").glob("*.toml"))


@pytest.mark.parametrize("path", ROWS, ids=lambda p: p.name)
def test_every_shipped_row_is_a_complete_usable_weight_file(path):
    names = set(load_weights(path))
    assert names <= set(WEIGHT_NAMES), names - set(WEIGHT_NAMES)
    player = parse_player(f"tuned@{path}")
    assert np.isfinite(player.weight_row()).all()


def test_tuned_ships_the_stage3_row_and_not_the_stage5_row():
    """strategies/tuned.py: the built-in is stage 3 (the strongest); stage 5 lights more
    bonfires but loses head to head, so it is only a weight file."""
    tuning = Path(__file__).parent.parent / "experiments" / "tuning"
    for name in ("stage3.toml", "stage5.toml"):  # complete rows: no name falls back
        assert set(load_weights(tuning / name)) == set(WEIGHT_NAMES)
    built_in = parse_player("tuned").weight_row()
    stage3 = parse_player(f"tuned@{tuning / 'stage3.toml'}").weight_row()
    stage5 = parse_player(f"tuned@{tuning / 'stage5.toml'}").weight_row()
    assert np.array_equal(built_in, stage3)
    assert not np.array_equal(built_in, stage5)
