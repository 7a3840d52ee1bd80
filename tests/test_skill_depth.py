"""The skill-depth matrix: seat-rotated cells on shared deals, the stronger player's win
share above its fair share, summaries, variants/overrides, the stored document, the CLI and
the report section."""

from __future__ import annotations

import json

import pandas as pd
import pytest
from click.testing import CliRunner

from bonfire_sim.cli.main import main
from bonfire_sim.errors import ConfigError, DataError
from bonfire_sim.report.skill import section_skill
from bonfire_sim.studies.ladder import GameResult
from bonfire_sim.studies.skill import (
    SkillConfig,
    cell_plan,
    cells,
    read_matrix,
    skill_matrix,
    stronger_wins,
    summary,
    write_matrix,
)


@pytest.fixture(scope="module")
def doc():
    """random < greedy < tuned at 2 and 4 players, 6 deals per cell (seed 5)."""
    return skill_matrix(SkillConfig(rungs=("random", "greedy", "tuned"), players=(2, 4),
                                    games=6, seed=5))


def test_every_cell_is_seat_rotated_on_the_same_deals():
    config = SkillConfig(rungs=("random", "greedy", "tuned"), players=(2, 4), games=3).check()
    two = cell_plan(config, 2)
    assert len(two) == 3 * 3 * 2  # pairs x deals x seat orders
    four = cell_plan(config, 4)
    assert len(four) == 3 * 2 * 3 * 4  # pairs x lineups x deals x seat orders
    lone = [o for _, o in four if o.count("tuned") == 1 and "greedy" in o]
    assert sorted(o.index("tuned") for o in lone) == [0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 3]
    assert {d for d, _ in four} == {0, 1, 2}


def test_search_cells_play_their_own_deal_count():
    config = SkillConfig(rungs=("random", "tuned", "search:2"), players=(2,), games=4,
                         search_games=1).check()
    plan = cell_plan(config, 2)
    with_search = [o for _, o in plan if "search:2" in o]
    assert len(with_search) == 2 * 1 * 2 and len(plan) - len(with_search) == 4 * 2


def test_the_stronger_player_wins_more_than_its_fair_share(doc):
    m = pd.DataFrame(doc["cells"])
    assert set(m["players"]) == {2, 4} and set(m["lineup"]) == {
        "1 vs 1", "1 stronger vs 3 weaker", "3 stronger vs 1 weaker"}
    tuned_random = m[(m["stronger"] == "tuned") & (m["weaker"] == "random")]
    two = tuned_random[tuned_random["players"] == 2].iloc[0]
    assert two["games"] == 12 and two["fair"] == 0.5
    assert two["share"] > 0.5 + 0.25 and two["lo"] > 0.5  # tolerance: a clear margin
    lone = tuned_random[tuned_random["lineup"] == "1 stronger vs 3 weaker"].iloc[0]
    assert lone["fair"] == 0.25 and lone["share"] > 0.25 + 0.2
    assert (m["lo"] <= m["share"]).all() and (m["share"] <= m["hi"]).all()
    assert (two["share"] < 1 or two["hi"] == 1)  # a clean sweep keeps its interval's top
    depth = [r for r in doc["summary"] if r["lineup"] == "all lineups"]
    assert [r["players"] for r in depth] == [2, 4] and all(r["edge"] > 0 for r in depth)


def test_the_same_seed_gives_the_same_matrix_whatever_the_workers():
    config = SkillConfig(rungs=("random", "greedy"), players=(2,), games=3, seed=9)
    a = skill_matrix(config, jobs=1)
    b = skill_matrix(config, jobs=2)
    assert a["cells"] == b["cells"]


def test_shared_wins_count_fractionally_and_summary_is_over_adjacent_rungs():
    r = GameResult(0, 1, ("a", "b", "b", "b"), (50, 50, 10, 10), (1, 1, 3, 3),
                   (True, True, False, False), "countdown")
    assert stronger_wins(r, "a") == 0.5
    config = SkillConfig(rungs=("a", "b", "c"))
    games = [GameResult(0, 1, ("a", "b"), (1, 2), (2, 1), (False, True), "countdown"),
             GameResult(0, 1, ("b", "c"), (1, 2), (2, 1), (False, True), "countdown"),
             GameResult(0, 1, ("c", "b"), (2, 2), (1, 1), (True, True), "countdown"),
             GameResult(0, 1, ("a", "c"), (1, 2), (2, 1), (False, True), "countdown")]
    m = cells(games, config, 2)
    bc = m[(m["stronger"] == "c") & (m["weaker"] == "b")].iloc[0]
    assert bc["share"] == 0.75 and bc["rung_gap"] == 1
    s = summary(m)
    assert s.loc[s["lineup"] == "1 vs 1", "mean_share"].item() == pytest.approx(0.875)
    assert s.loc[s["lineup"] == "all lineups", "edge"].item() == pytest.approx(0.75)


def test_a_rules_change_is_played_and_recorded(tmp_path):
    base = SkillConfig(rungs=("random", "greedy"), players=(2,), games=3, seed=4)
    changed = SkillConfig(rungs=("random", "greedy"), players=(2,), games=3, seed=4,
                          overrides={"task_points": {"B1": 30}, "portal_points": 9},
                          variants={"fate_area": "4x6"})
    a, b = skill_matrix(base), skill_matrix(changed)
    assert b["meta"]["overrides"] == {"task_points": {"B1": 30}, "portal_points": 9}
    assert b["meta"]["variants"] == {"fate_area": "4x6"}
    assert a["meta"]["overrides"] == {}
    with pytest.raises(ConfigError):
        SkillConfig(overrides={"task_points": {"Z9": 3}}).check()
    with pytest.raises(ConfigError):
        SkillConfig(variants={"fate_area": "9x9"}).check()


@pytest.mark.parametrize("bad", [
    {"rungs": ("tuned",)}, {"rungs": ("tuned", "tuned")}, {"rungs": ("nope", "tuned")},
    {"players": (5,)}, {"players": ()}, {"games": 0}, {"search_games": 0}, {"seed": -1}])
def test_bad_settings_are_refused(bad):
    with pytest.raises(ConfigError):
        SkillConfig(**{"rungs": ("random", "tuned"), **bad}).check()


def test_the_stored_matrix_round_trips_and_refuses_tampering(doc, tmp_path):
    path = write_matrix(tmp_path / "skill.json", doc)
    meta, m, s = read_matrix(path)
    assert meta["rungs"] == ["random", "greedy", "tuned"] and len(m) == len(doc["cells"])
    assert s["edge"].tolist() == pytest.approx([r["edge"] for r in doc["summary"]])
    data = json.loads(path.read_text())
    data["cells"][0]["share"] = 1.5
    (tmp_path / "bad.json").write_text(json.dumps(data))
    with pytest.raises(DataError, match="cell 0"):
        read_matrix(tmp_path / "bad.json")
    (tmp_path / "other.json").write_text('{"format": "something else"}')
    with pytest.raises(DataError, match="not written by"):
        read_matrix(tmp_path / "other.json")
    (tmp_path / "junk.json").write_text("{not json")
    with pytest.raises(DataError, match="not JSON"):
        read_matrix(tmp_path / "junk.json")


def test_the_report_section_shows_the_heat_map_table_and_summary(doc, tmp_path):
    path = write_matrix(tmp_path / "skill.json", doc)
    sec = section_skill(path, ["4 players · default game"])
    assert sec["id"] == "skill" and sec["absent"] is None
    kinds = [b["kind"] for b in sec["blocks"]]
    assert kinds.count("figure") == 1 and kinds.count("table") == 2
    text = " ".join(b.get("text", "") for b in sec["blocks"])
    assert "skill depth 2 players" in text and "random < greedy < tuned" in text
    assert "never pooled" in text
    assert section_skill(None)["absent"].startswith("No skill-depth matrix")


def test_cli_writes_the_matrix_and_prints_the_summary(tmp_path):
    out = tmp_path / "skill.json"
    res = CliRunner().invoke(main, ["ladder", "--skill-depth", "--players", "2",
                                    "--games", "2", "--strategies", "random,tuned",
                                    "--set", "task_points.Y14=5", "--variant",
                                    "fate_area=4x6", "--out", str(out), "--quiet",
                                    "--format", "csv"])
    assert res.exit_code == 0, res.output
    assert res.stdout.splitlines()[0].startswith("players,lineup,stronger,weaker")
    assert "skill depth, 2 players" in res.stderr
    meta, m, _ = read_matrix(out)
    assert meta["overrides"] == {"task_points": {"Y14": 5}}
    assert m["games"].tolist() == [4]


@pytest.mark.parametrize("args", [
    ["--players", "5"], ["--players", "2,x"], ["--strategies", "nope,tuned"],
    ["--set", "task_points.Z99=3"], ["--set", "portal_points"], ["--set", "portal_points=-1"],
    ["--variant", "fate_area=9x9"], ["--search-games", "0"], ["--games", "0"]])
def test_cli_bad_input_is_one_error_line(args):
    res = CliRunner().invoke(main, ["ladder", "--skill-depth", "--games", "1", "--quiet",
                                    "--strategies", "random,tuned", *args])
    assert res.exit_code == 2, res.output
    lines = [line for line in res.output.splitlines() if line.strip()]
    assert lines[-1].startswith("Error:") and "Traceback" not in res.output


def test_ordinary_ladder_refuses_skill_depth_only_options():
    res = CliRunner().invoke(main, ["ladder", "--players", "2,4", "--games", "1", "--quiet"])
    assert res.exit_code == 2 and "--skill-depth" in res.output


def test_report_refuses_a_bad_matrix_before_any_run(tmp_path):
    (tmp_path / "bad.json").write_text('{"format": "bonfire_sim-skill-depth", "version": 1, '
                                      '"meta": {}}')
    res = CliRunner().invoke(main, ["report", str(tmp_path), "--skill-depth",
                                    str(tmp_path / "bad.json"), "--out",
                                    str(tmp_path / "r.html"), "--quiet"])
    assert res.exit_code == 2
    assert res.output.strip().splitlines()[-1].startswith("Error:")
    assert "holds no cells" in res.output


def test_a_clean_sweep_is_a_valid_cell():
    """400 wins in 400 games: Wilson's top is 1 - 1e-16 in floating point; the cell keeps
    the share inside its interval and reads back."""
    games = [GameResult(d, 1, ("a", "b"), (2, 1), (1, 2), (True, False), "countdown")
             for d in range(400)]
    m = cells(games, SkillConfig(rungs=("b", "a")), 2)
    assert m["share"].item() == 1.0 and m["hi"].item() == 1.0 and m["lo"].item() < 1.0


def test_a_rules_change_is_compared_with_its_baseline(doc, tmp_path):
    from bonfire_sim.studies.skill import compare_depth, depth_interval

    meta, m, _ = read_matrix(write_matrix(tmp_path / "a.json", doc))
    d = depth_interval(m)
    assert (d["lo"] <= d["depth"]).all() and (d["depth"] <= d["hi"]).all()
    same = compare_depth(m, meta, m, meta)
    assert (same["difference"] == 0).all() and (same["lo"] < 0).all()
    # a planted loss of skill: every stronger side wins only its fair share
    flat = m.assign(share=m["fair"], edge=0.0)
    lower = compare_depth(flat, meta, m, meta)
    assert (lower["hi"] < 0).all()
    with pytest.raises(ConfigError, match="same rungs"):
        compare_depth(m, {**meta, "rungs": ["random", "tuned"]}, m, meta)


def test_cli_refuses_a_baseline_of_other_rungs_before_playing(doc, tmp_path):
    write_matrix(tmp_path / "base.json", doc)
    res = CliRunner().invoke(main, ["ladder", "--skill-depth", "--games", "1", "--quiet",
                                    "--strategies", "random,portal", "--baseline",
                                    str(tmp_path / "base.json")])
    assert res.exit_code == 2 and "same rungs" in res.output
    assert res.output.strip().splitlines()[-1].startswith("Error:")
