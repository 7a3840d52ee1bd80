"""scripts/search_width.py: the wider-search plug-ins play the built-in search's games.

The control (``Width4B16``) must replay the built-in ``search:16`` game by game, or the
width experiment would measure the plug-in path instead of the width; and a wider plug-in
must really search its width (a row that ignored it would replay the control).
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

SCRIPTS = Path(__file__).resolve().parents[1] / "scripts"
SEED = 3636


@pytest.fixture(scope="module")
def sw():
    sys.path.insert(0, str(SCRIPTS))
    try:
        import search_width
        yield search_width
    finally:
        sys.path.remove(str(SCRIPTS))


def _play(spec: str, order: int):
    from bonfire_sim.studies.ladder import play_schedule

    lineup = (spec, "tuned") if order == 0 else ("tuned", spec)
    return play_schedule([spec, "tuned"], 2, SEED, [(0, lineup)])[0]


def test_control_row_is_the_builtin_search_row(sw) -> None:
    from bonfire_sim.strategies import search as SE
    from bonfire_sim.strategies.specs import parse_player

    np.testing.assert_array_equal(sw.Width4B16().row, parse_player("search:16").weight_row())
    assert sw.Width8B32().row[SE.R_WIDTH] == 8 and sw.Width8B32().row[SE.R_BUDGET] == 32


@pytest.mark.parametrize("order", [0, 1])
def test_control_replays_builtin_search16(sw, order: int) -> None:
    """Same deal, same seat: the plug-in control's game is the built-in's, score for score."""
    sys.path.insert(0, str(SCRIPTS))  # play_schedule imports the plug-in by its spec
    try:
        ours = _play("search_width:Width4B16", order)
        builtin = _play("search:16", order)
    finally:
        sys.path.remove(str(SCRIPTS))
    assert ours.scores == builtin.scores and ours.ranks == builtin.ranks


def test_width_is_searched(sw) -> None:
    """Along the control's game, the width-8 plug-in chooses differently at some decision
    (it races candidates the control never sees)."""
    from bonfire_sim.sim.pyloop import play_mixed

    narrow, wide = sw.Width4B16(), sw.Width8B16()
    differ = []

    class Both:
        def choose(self, view, moves):
            i = narrow.choose(view, moves)
            differ.append(i != wide.choose(view, moves))
            return i

    play_mixed(3, 2, [Both(), "tuned"])
    assert len(differ) > 20 and any(differ)


def test_rollout_schedule(sw) -> None:
    """Width 8 at budget 16 spends what width 4 does (8+4+2x2 against 4x2+2x4)."""
    assert sw.rollouts(4, 16) == sw.rollouts(8, 16) == 16
    assert sw.rollouts(6, 16) == 13 and sw.rollouts(8, 32) == 26


@pytest.mark.parametrize("argv", [["arm", "NoSuchArm"], ["arm"], ["cost", "--deals", "x"],
                                  ["cost", "--deals", "0"],
                                  ["arm", "Width4B16", "--seed", "-5", "--deals", "1"]])
def test_bad_arguments_are_one_error_line(sw, capsys, argv) -> None:
    """An unknown arm, a missing or bad value: one ``Error:`` line and exit 2, as the
    bonfire-sim commands answer bad input (not argparse's usage block)."""
    with pytest.raises(SystemExit) as stop:
        code = sw.main(argv)
        raise SystemExit(code)
    err = capsys.readouterr().err
    assert stop.value.code == 2
    assert err.startswith("Error: ") and err.count("\n") == 1, err
