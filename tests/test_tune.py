"""Weight tuning: a study improves nothing by luck of the deal, and resumes exactly."""

from __future__ import annotations

import json

import numpy as np
import pytest
from click.testing import CliRunner

from bonfire_sim.cli.main import main
from bonfire_sim.errors import ConfigError
from bonfire_sim.strategies import weights_for
from bonfire_sim.strategies.specs import parse_player
from bonfire_sim.studies.tune import Space, TuneConfig, deal_seeds, evaluate_row, tune, weights_toml

TINY = dict(style="portal", field=("portal",), deals2=2, games4=1, popsize=4, seed=5)


def test_a_resumed_study_continues_exactly_like_an_uninterrupted_one(tmp_path):
    straight = tune(TuneConfig(generations=3, **TINY), tmp_path / "a")
    tune(TuneConfig(generations=1, **TINY), tmp_path / "b")
    resumed = tune(TuneConfig(generations=3, **TINY), tmp_path / "b", resume=True)
    assert resumed.history == straight.history and resumed.best == straight.best
    assert resumed.games == straight.games == 3 * 4 * (2 * 2 + 1)
    doc = json.loads((tmp_path / "b" / "study.json").read_text())
    assert doc["generation"] == 3 and len(doc["history"]) == 3


def test_a_study_refuses_other_settings_and_a_second_start(tmp_path):
    tune(TuneConfig(generations=1, **TINY), tmp_path / "s")
    with pytest.raises(ConfigError, match="--resume"):
        tune(TuneConfig(generations=1, **TINY), tmp_path / "s")
    other = dict(TINY, deals2=3)
    with pytest.raises(ConfigError, match="other settings"):
        tune(TuneConfig(generations=2, **other), tmp_path / "s", resume=True)


def test_candidates_of_a_generation_share_their_deals_and_the_start_row_is_the_style():
    cfg = TuneConfig(generations=1, **TINY)
    assert np.array_equal(deal_seeds(cfg, 2, 5), deal_seeds(cfg, 2, 5))
    assert not np.array_equal(deal_seeds(cfg, 2, 5), deal_seeds(cfg, 3, 5))
    space = Space.around("portal")
    assert np.allclose(space.row(np.zeros(len(space.start))), weights_for("portal"))
    # identical rows on identical deals: identical statistics (paired evaluation)
    a = evaluate_row(cfg, 0, weights_for("portal"))
    assert a == evaluate_row(cfg, 0, weights_for("portal"))
    assert a["win2"] == 0.5 and a["margin2"] == 0.0  # portal against itself, both seats


def test_cli_tune_writes_a_weights_file_that_is_a_player(tmp_path):
    w = tmp_path / "best.toml"
    res = CliRunner().invoke(main, [
        "tune", "--deals2", "1", "--games4", "1", "--popsize", "3", "--generations", "1",
        "--out", str(tmp_path / "t"), "--weights-out", str(w), "--quiet"])
    assert res.exit_code == 0, res.output
    player = parse_player(f"portal@{w}")
    assert player.kind == "weights" and w.read_text().startswith("# bonfire-sim tune")
    res = CliRunner().invoke(main, ["tune", "--style", "random", "--out", str(tmp_path / "x")])
    assert res.exit_code == 2 and res.output.startswith("Error: ")


def test_weights_toml_lists_every_weight():
    cfg = TuneConfig(generations=1, **TINY)
    from bonfire_sim.studies.tune import Study, table_of

    study = Study(cfg, best={"mean_weights": table_of(weights_for("portal"))})
    text = weights_toml(study)
    assert text.count(" = ") == len(table_of(weights_for("portal")))


def test_the_stall_weight_scales_the_objective_and_old_studies_resume(tmp_path):
    from bonfire_sim.studies.tune import objective

    st = {"win2": 0.5, "margin2": 0.0, "stalled2": 0.1}
    assert objective(st, TuneConfig(generations=1, **TINY)) == pytest.approx(0.5 - 0.2)
    assert objective(st, TuneConfig(generations=1, w_stalled=5.0, **TINY)) == \
        pytest.approx(0.5 - 0.5)
    # a study written before the setting existed resumes with its default ...
    tune(TuneConfig(generations=1, **TINY), tmp_path / "s")
    path = tmp_path / "s" / "study.json"
    doc = json.loads(path.read_text())
    del doc["config"]["w_stalled"]
    path.write_text(json.dumps(doc))
    assert tune(TuneConfig(generations=2, **TINY), tmp_path / "s", resume=True).generation == 2
    # ... and refuses another value
    with pytest.raises(ConfigError, match="other settings"):
        tune(TuneConfig(generations=3, w_stalled=5.0, **TINY), tmp_path / "s", resume=True)


def test_the_bonfire_floor_costs_only_below_it_and_rejects_negative_settings():
    from bonfire_sim.studies.tune import objective

    base = {"win_score4": 60.0, "stalled4": 0.0}
    cfg = TuneConfig(generations=1, w_bonfires=0.0, bonfires_min=4.6, w_short=2.0, **TINY)
    assert objective({**base, "bonfires4": 4.4}, cfg) == pytest.approx(-0.4)
    assert objective({**base, "bonfires4": 4.6}, cfg) == pytest.approx(0.0)
    assert objective({**base, "bonfires4": 5.5}, cfg) == pytest.approx(0.0)
    # off by default: the old objective exactly
    old = TuneConfig(generations=1, w_bonfires=0.0, **TINY)
    assert objective({**base, "bonfires4": 3.0}, old) == pytest.approx(0.0)
    with pytest.raises(ConfigError, match="w_short"):
        TuneConfig(generations=1, w_short=-1.0, **TINY)


def test_cli_tune_takes_the_bonfire_floor(tmp_path):
    from click.testing import CliRunner

    from bonfire_sim.cli.main import main

    out = tmp_path / "s"
    res = CliRunner().invoke(main, ["tune", "--field", "portal", "--deals2", "2", "--games4",
                                    "1", "--popsize", "4", "--generations", "1",
                                    "--bonfires-min", "4.5", "--w-short", "1.5", "-q",
                                    "--out", str(out)])
    assert res.exit_code == 0, res.output
    cfg = json.loads((out / "study.json").read_text())["config"]
    assert (cfg["bonfires_min"], cfg["w_short"]) == (4.5, 1.5)
    bad = CliRunner().invoke(main, ["tune", "--w-short", "-1", "--out", str(tmp_path / "b")])
    assert bad.exit_code != 0 and "w-short" in bad.output


def test_bounds_and_the_signature_keep_a_tuned_style_its_plan(tmp_path):
    from bonfire_sim.strategies import STYLE_DEFAULTS
    from bonfire_sim.strategies.weights import WEIGHT_NAMES
    from bonfire_sim.studies.tune import parse_bound

    space = Space.around("guardian", bounds=[("yellow_floor", 1.0, 1.5)], keep_signature=1.5)
    big = space.row(np.full(len(space.start), 1000.0))  # far past every bound, upwards
    small = space.row(np.full(len(space.start), -1000.0))
    for k in STYLE_DEFAULTS["guardian"]:
        i = WEIGHT_NAMES.index(k)
        assert big[i] == pytest.approx(space.start[i] * 1.5)
        assert small[i] == pytest.approx(space.start[i] / 1.5)
    i = WEIGHT_NAMES.index("yellow_floor")
    assert (small[i], big[i]) == (1.0, 1.5)
    free = WEIGHT_NAMES.index("tile")  # not guardian's: only the default bounds
    assert big[free] == 30.0 and small[free] == 0.0
    assert parse_bound("portal=3:8") == ("portal", 3.0, 8.0)
    for bad in ("portal", "portal=3", "portal=a:b", "portal=8:3", "portal=nan:1"):
        with pytest.raises(ConfigError):
            parse_bound(bad)
    with pytest.raises(ConfigError, match="unknown weight"):
        TuneConfig(generations=1, bounds=(("nope", 0, 1),), **TINY)
    with pytest.raises(ConfigError):
        TuneConfig(generations=1, keep_signature=0.5, **TINY)
    res = CliRunner().invoke(main, [
        "tune", "--deals2", "1", "--games4", "1", "--popsize", "3", "--generations", "1",
        "--keep-signature", "1.5", "--bound", "yellow_floor=1:1.5",
        "--out", str(tmp_path / "t"), "--quiet"])
    assert res.exit_code == 0, res.output
    cfg = json.loads((tmp_path / "t" / "study.json").read_text())["config"]
    assert cfg["bounds"] == [["yellow_floor", 1.0, 1.5]] and cfg["keep_signature"] == 1.5
    res = CliRunner().invoke(main, ["tune", "--bound", "x=1", "--out", str(tmp_path / "u")])
    assert res.exit_code == 2 and res.output.startswith("Error: ")
