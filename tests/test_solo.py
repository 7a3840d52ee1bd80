"""Handicap challenge arithmetic and the solo command."""

from __future__ import annotations

import numpy as np
import pytest
from click.testing import CliRunner

from bonfire_sim.analysis.solo import (
    SoloGames,
    equilibrium_handicap,
    handicap_path,
    handicap_series,
    outcomes_at,
    play_solo,
)
from bonfire_sim.cli.main import main


def test_the_handicap_starts_at_minus_ten_and_moves_plus_five_minus_two_or_zero():
    # margins: win by 3 at -10; lose (margin -6 < -5); tie (margin == -7); win (0 > -7)
    path, out = handicap_path(np.array([3, -6, -7, 0]))
    assert list(out) == [1, -1, 0, 1]
    assert list(path) == [-10, -5, -7, -7, -2]


def test_a_win_needs_a_margin_strictly_above_the_handicap():
    assert list(outcomes_at(np.array([5, 6, 4]), 5)) == [0, 1, -1]


def test_the_equilibrium_is_where_the_win_rate_is_two_sevenths():
    margins = np.arange(-50, 50)  # uniform: P(m > H) = 2/7 near H = 21.4
    h = equilibrium_handicap(margins)
    assert abs(np.mean(margins > h) - 2 / 7) < 0.02


def test_a_long_series_settles_near_the_equilibrium():
    rng = np.random.default_rng(3)
    margins = rng.normal(10, 8, 20000).round().astype(np.int64)
    series = handicap_series(SoloGames(margins + 50, np.full(len(margins), 50)), n_boot=50)
    assert abs(series.settled - series.equilibrium) < 2.0
    lo, hi = series.equilibrium_ci
    assert lo <= series.equilibrium <= hi


def test_solo_games_are_seeded_and_score_tom():
    a = play_solo("random", 20, seed=4, chunk_size=7)
    b = play_solo("random", 20, seed=4, chunk_size=20)
    assert np.array_equal(a.human, b.human) and np.array_equal(a.tom, b.tom)
    assert a.tom.mean() > 0


def test_cli_solo_reports_rates_and_the_settling_handicap(tmp_path):
    res = CliRunner().invoke(main, ["solo", "--games", "30", "--path-csv",
                                    str(tmp_path / "p.csv")])
    assert res.exit_code == 0, res.output
    assert "settles near" in res.output and "mean score" in res.output
    assert "5 P(win) - 2 P(loss), is zero (a tie changes nothing)" in res.output
    assert (tmp_path / "p.csv").read_text().count("\n") == 31


def test_cli_solo_rejects_an_unknown_strategy_in_one_line():
    res = CliRunner().invoke(main, ["solo", "--strategy", "nope", "--games", "5"])
    assert res.exit_code != 0 and "unknown strategy 'nope'" in res.output


def test_solo_variant_plays_the_named_tom_deck(tmp_path):
    """--variant tom_deck=gnome plays the same deals with Tom's other deck: Tom's scores
    change, and the printed means are those of play_solo under that variant."""
    default = play_solo("steady", 40, seed=3)
    gnome = play_solo("steady", 40, seed=3, variants={"tom_deck": "gnome"})
    assert not np.array_equal(default.tom, gnome.tom)
    res = CliRunner().invoke(main, ["solo", "--strategy", "steady", "--games", "40",
                                    "--seed", "3", "--variant", "tom_deck=gnome", "-q"])
    assert res.exit_code == 0, res.output
    assert "steady vs Tom (seed 3, tom_deck=gnome)" in res.output
    assert (f"mean score: steady {gnome.human.mean():.1f}, Tom {gnome.tom.mean():.1f}"
            in res.output)


def test_solo_refuses_an_unknown_variant_in_one_line():
    for bad in ("tom_deck=nope", "tomdeck=gnome", "tom_deck"):
        res = CliRunner().invoke(main, ["solo", "--games", "5", "--variant", bad])
        assert res.exit_code == 2, res.output
        lines = res.output.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("Error:")


def test_the_settle_point_has_an_interval_of_nonzero_width_on_integer_margins():
    # Issue 39: the (1 - 2/7) quantile of integer margins bootstrapped to one value,
    # "95% CI -3.0 .. -3.0".  The interpolated zero of the drift moves with every sample.
    rng = np.random.default_rng(1)
    margins = rng.normal(-3, 3, 2000).round().astype(np.int64)  # narrow: many ties per value
    series = handicap_series(SoloGames(margins + 60, np.full(len(margins), 60)), n_boot=200)
    lo, hi = series.equilibrium_ci
    assert lo < series.equilibrium < hi and hi - lo > 0.1


def test_the_settle_point_is_where_the_expected_change_is_zero_ties_changing_nothing():
    from bonfire_sim.analysis.solo import handicap_drift, settle_point

    # Half the games tie at margin 0: at H = 0 a tie changes nothing, so the drift there
    # is 5 * 0.3 - 2 * 0.2 = +1.1, not the 5 P(win) - 2 (1 - P(win)) a rule ignoring
    # ties would see.
    margins = np.array([10] * 3 + [0] * 5 + [-10] * 2)
    assert handicap_drift(margins, np.array([0]))[0] == pytest.approx(1.1)
    h = settle_point(margins)
    assert handicap_drift(margins, np.array([int(np.floor(h))]))[0] >= 0
    assert handicap_drift(margins, np.array([int(np.floor(h)) + 1]))[0] < 0
    # Between 0 (drift +1.1) and 1 (5 * 0.3 - 2 * 0.7 = +0.1) it stays positive; it
    # crosses between 9 (+0.1) and 10 (5 * 0 - 2 * 0.7 = -1.4): 9 + 0.1 / 1.5.
    assert h == pytest.approx(9 + 0.1 / 1.5)
