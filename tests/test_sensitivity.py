"""``bonfire-sim sensitivity`` end to end on a small budget, and its paired statistics."""

from __future__ import annotations

import csv
import json

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from bonfire_sim.cli.main import main
from bonfire_sim.errors import ConfigError
from bonfire_sim.pipelines import sensitivity as SE
from bonfire_sim.report import stats as ST
from bonfire_sim.sim.load import load

ARMS = ("tom_deck=gnome", "fate_area=4x6")


@pytest.fixture(scope="module")
def study(tmp_path_factory):
    """A small study run through the CLI: 12 games per player count, 6 solo games."""
    tmp = tmp_path_factory.mktemp("sens")
    args = ["sensitivity", "--games", "12", "--solo-games", "6", "--players", "1,2,4",
            "--seed", "9", "--work", str(tmp / "runs"), "--csv", str(tmp / "s.csv"),
            "--json", str(tmp / "s.json"), "--html", str(tmp / "s.html"), "--quiet"]
    for a in ARMS:
        args += ["--variant", a]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    return tmp, result.output


def test_the_cli_prints_one_table_and_writes_csv_json_and_html(study):
    tmp, out = study
    assert "figure" in out.splitlines()[0] and "tom_deck=gnome" in out.splitlines()[0]
    doc = json.loads((tmp / "s.json").read_text())
    assert doc["format"] == "bonfire_sim-sensitivity"
    assert [v["variant"] for v in doc["variants"]] == ["gnome", "4x6"]
    with open(tmp / "s.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    assert len(rows) == len(doc["rows"])
    figures = {r["figure"] for r in rows}
    for n in (2, 4):
        assert {f"start player wins, {n}p", f"games stalled, {n}p",
                f"best style's win rate, {n}p"} <= figures
    assert "Tom's mean score (all styles)" in figures
    assert {f"solo win rate, {s}" for s in SE.SOLO_STYLES} <= figures
    assert {"strongest task (surplus over printed points)", "weakest gnome (score effect)"
            } <= figures
    assert {r["variant"] for r in rows} == set(ARMS)
    html = (tmp / "s.html").read_text()
    assert "Sensitivity to the assumed facts" in html and "why it is plausible" in html
    assert not list(tmp.glob("*.tmp"))


def _rows(tmp) -> pd.DataFrame:
    return pd.DataFrame(json.loads((tmp / "s.json").read_text())["rows"])


def test_tom_deck_variants_leave_multiplayer_games_identical(study):
    tmp, _ = study
    r = _rows(tmp)
    gnome = r[(r["variant"] == "tom_deck=gnome") & ~r["figure"].str.contains("solo|Tom")]
    assert len(gnome) == 10
    gnome = gnome.dropna(subset=["diff"])  # task effects need more games than 12 per count
    assert len(gnome) >= 6
    assert (gnome["diff"] == 0).all() and (gnome["lo"] == 0).all() and (gnome["hi"] == 0).all()
    assert not (tmp / "runs" / "tom_deck-gnome" / "p2").exists()  # not replayed


def test_the_paired_difference_is_the_mean_of_per_game_differences(study):
    tmp, _ = study
    a = load(tmp / "runs" / "default" / "solo-greedy")
    b = load(tmp / "runs" / "tom_deck-gnome" / "solo-greedy")
    assert (a.games["seed"].to_numpy() == b.games["seed"].to_numpy()).all()  # same deals
    _, pa = ST.combine([("a", a)])
    _, pb = ST.combine([("b", b)])
    wa = ST.solo_games(pa).sort_values("game_id")["won"].astype(float).to_numpy()
    wb = ST.solo_games(pb).sort_values("game_id")["won"].astype(float).to_numpy()
    r = _rows(tmp)
    row = r[(r["variant"] == "tom_deck=gnome") & (r["figure"] == "solo win rate, greedy")]
    assert row["default"].item() == pytest.approx(wa.mean())
    assert row["value"].item() == pytest.approx(wb.mean())
    assert row["diff"].item() == pytest.approx((wb - wa).mean())
    m, lo, hi = ST.mean_ci(wb - wa)
    if np.all(wb - wa == (wb - wa)[0]):
        lo = hi = m
    assert (row["lo"].item(), row["hi"].item()) == pytest.approx((lo, hi))


def test_the_fate_area_variant_changes_multiplayer_games(study):
    tmp, _ = study
    a = load(tmp / "runs" / "default" / "p2").players["score"].to_numpy()
    b = load(tmp / "runs" / "fate_area-4x6" / "p2").players["score"].to_numpy()
    assert len(a) == len(b) and (a != b).any()
    manifest = json.loads((tmp / "runs" / "fate_area-4x6" / "p2" / "manifest.json").read_text())
    assert manifest["config"]["variants"]["fate_area"] == "4x6"


def test_a_second_run_reuses_the_finished_runs(study):
    tmp, _ = study
    plan = SE.SensitivityPlan(games=12, solo_games=6, players=(1, 2, 4), seed=9,
                              variants=SE.parse_arms(ARMS))
    files = sorted((tmp / "runs").rglob("*.parquet"))
    before = [f.stat().st_mtime_ns for f in files]
    played = []
    long, doc = SE.run_sensitivity(plan, tmp / "runs", progress=played.append)
    assert [f.stat().st_mtime_ns for f in files] == before  # nothing replayed or rewritten
    assert sum(played) == SE.total_games(plan)  # the bar still counts them as done
    assert long.equals(SE.sensitivity_table(plan, SE.play_arms(plan, tmp / "runs")))


def test_the_report_method_section_shows_the_table_and_the_assumptions(study, tmp_path):
    tmp, _ = study
    result = CliRunner().invoke(main, [
        "report", str(tmp / "runs" / "fate_area-4x6" / "p2"), "--out",
        str(tmp_path / "r.html"), "--sensitivity", str(tmp / "s.json")])
    assert result.exit_code == 0, result.output
    html = (tmp_path / "r.html").read_text()
    assert "Assumptions in force" in html and "4x6" in html
    assert "How each headline figure moves under each variant" in html


def test_plans_are_validated():
    with pytest.raises(ConfigError, match="default"):
        SE.SensitivityPlan(variants=(("tom_deck", "task1"),))
    with pytest.raises(ConfigError, match="unknown variant"):
        SE.parse_arms(["dragons"])
    assert SE.parse_arms(["tom_deck"]) == (("tom_deck", "gnome"), ("tom_deck", "path"),
                                            ("tom_deck", "guardian"))
    assert SE.multiplayer_free(("tom_deck", "guardian"))
    assert not SE.multiplayer_free(("guardian_points", "8-k"))


def test_the_experiment_file_loads():
    plan, settings = SE.load_plan("experiments/sensitivity.toml")
    assert set(plan.variants) == set(SE.all_variants())
    assert settings["json"].endswith(".json") and settings["jobs"] == 2


def test_each_cell_shows_the_variant_s_value_next_to_the_difference(study):
    tmp, out = study
    doc = json.loads((tmp / "s.json").read_text())
    long = pd.DataFrame(doc["rows"]).set_index(["figure", "variant"])
    checked = 0
    for w in doc["wide"]:
        for arm in ARMS:
            r = long.loc[(w["figure"], arm)]
            if pd.isna(r["value"]) or pd.isna(r["diff"]):
                continue
            value, diff = SE._fmt(r["unit"], r["value"]), SE._fmt(r["unit"], r["diff"], True)
            assert w[arm].startswith(f"{value} ({diff} ["), (w["figure"], arm, w[arm])
            checked += 1
    assert checked >= 20
    # Under Tom's gnome deck a solo row's value is the variant's, not the default's.
    row = long.loc[("Tom's mean score (all styles)", "tom_deck=gnome")]
    cell = next(w for w in doc["wide"] if w["figure"] == "Tom's mean score (all styles)")
    assert row["value"] != row["default"] and cell["tom_deck=gnome"].startswith(
        f"{row['value']:.2f} (")
    assert cell["default"] == f"{row['default']:.2f}"
    for style in ("steady", "tuned"):  # the recommended solo players are in the table
        assert f"solo win rate, {style}" in out
