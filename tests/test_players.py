"""Every kind of player spec in every batch command, and the manifest that records it."""

from __future__ import annotations

import hashlib
import json

import numpy as np
import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner

from bonfire_sim.analysis.solo import play_solo
from bonfire_sim.cli.main import main
from bonfire_sim.errors import ConfigError
from bonfire_sim.sim.loop import choose
from bonfire_sim.sim.runconfig import RunConfig
from bonfire_sim.sim.runner import read_manifest, run
from bonfire_sim.strategies import SEARCH_ID, describe, strategy_id, weights_for
from bonfire_sim.strategies import search as SE
from bonfire_sim.strategies.specs import (
    check_stored_spec,
    parse_player,
    parse_players,
    split_specs,
)
from bonfire_sim.strategies.weights import WEIGHT_NAMES
from bonfire_sim.studies.ladder import play_ladder

PLUGIN = "tests.test_players:CompiledPortal"


class CompiledPortal:
    """A plug-in that asks the compiled ``portal`` strategy: it must reproduce portal's games
    move for move, so the Python loop and the compiled loop can be compared table by table."""

    name = "compiled_portal"

    def __init__(self) -> None:
        self.row = weights_for("portal")

    def choose(self, view, moves):
        s = np.array(view.state)
        return int(choose(s, view.params, np.array(moves), len(moves),
                          strategy_id("portal"), self.row))


@pytest.fixture
def weights_file(tmp_path):
    path = tmp_path / "w.toml"
    path.write_text("[weights]\nignite = 9.5\nportal = 0.5\n")
    return path


# ---- the parser --------------------------------------------------------------------------
def test_each_kind_of_spec_resolves_to_its_player(weights_file):
    builtin = parse_player("planner")
    assert builtin.kind == "builtin" and builtin.sid == strategy_id("planner")
    assert np.array_equal(builtin.weight_row(), weights_for("planner"))

    styled = parse_player(f"portal@{weights_file}")
    assert styled.kind == "weights" and styled.sid == strategy_id("portal")
    row = styled.weight_row()
    assert row[WEIGHT_NAMES.index("ignite")] == 9.5
    assert row[WEIGHT_NAMES.index("portal")] == 0.5
    # weights the file does not name keep the style's defaults
    assert row[WEIGHT_NAMES.index("bonus")] == weights_for("portal")[WEIGHT_NAMES.index("bonus")]
    rec = styled.record()
    assert rec["weights_sha256"] == hashlib.sha256(weights_file.read_bytes()).hexdigest()
    assert rec["weights"]["ignite"] == 9.5 and len(rec["weights"]) == len(WEIGHT_NAMES)

    s = parse_player("search:12")
    assert s.kind == "search" and s.sid == SEARCH_ID and s.budget == 12
    assert s.weight_row()[SE.R_BUDGET] == 12
    assert parse_player("search").budget == SE.DEFAULT_BUDGET
    assert s.record()["rollout_policy"] == "tuned"

    plug = parse_player(PLUGIN)
    assert plug.kind == "plugin" and not plug.compiled and plug.load().name == "compiled_portal"

    assert [p.spec for p in parse_players("tuned, search:3,portal")] == \
        ["tuned", "search:3", "portal"]
    assert split_specs(["a", " ", "b "]) == ["a", "b"]


@pytest.mark.parametrize("spec, message", [
    ("nope", "unknown strategy 'nope'"),
    ("search:0", "budget must be an integer"),
    ("search:x", "budget must be an integer"),
    ("random@w.toml", "weights apply to a style"),
    ("portal@/no/such/file.toml", "not found"),
    ("no_such_module_xyz:Thing", "not found"),
])
def test_bad_specs_fail_with_one_clear_error(spec, message):
    with pytest.raises(ConfigError, match=message):
        parse_player(spec)


def test_a_weight_file_with_an_unknown_name_is_refused(tmp_path):
    path = tmp_path / "bad.toml"
    path.write_text("ignitte = 3\n")
    with pytest.raises(ConfigError, match="unknown weight 'ignitte'"):
        parse_player(f"portal@{path}")


# ---- the runner API and the manifest -----------------------------------------------------
def test_run_records_every_seat_player_exactly(tmp_path, weights_file):
    specs = (f"portal@{weights_file}", "search:4", PLUGIN, "tuned")
    cfg = RunConfig(games=4, players=4, strategies=specs, seat_rotation=True, seed=3,
                    chunk_size=2)
    out = run(cfg, tmp_path / "r")
    manifest = read_manifest(out)
    players = manifest["seat_players"]
    assert set(players) == set(specs)
    assert players["search:4"]["budget"] == 4
    assert players[f"portal@{weights_file}"]["weights"]["ignite"] == 9.5
    assert players[PLUGIN] == {"spec": PLUGIN, "kind": "plugin", "plugin": PLUGIN}
    table = pq.read_table(out / "players.parquet").to_pandas()
    assert sorted(table["strategy"].unique()) == sorted(specs)
    assert (table.groupby("strategy").size() == 4).all()  # rotated: each spec in each seat


def test_a_changed_weight_file_refuses_to_resume_into_the_old_run(tmp_path, weights_file):
    cfg = RunConfig(games=2, players=2, strategies=(f"portal@{weights_file}", "tempo"))
    out = run(cfg, tmp_path / "r")
    weights_file.write_text("ignite = 1.0\n")
    with pytest.raises(ConfigError, match="different players"):
        run(cfg, out, resume=True)


def test_the_python_loop_writes_the_same_tables_as_the_compiled_loop(tmp_path):
    plug = run(RunConfig(games=6, players=3, strategies=(PLUGIN, "tempo", "planner"), seed=5,
                         turn_log="all", chunk_size=4), tmp_path / "plug")
    comp = run(RunConfig(games=6, players=3, strategies=("portal", "tempo", "planner"),
                         seed=5, turn_log="all", chunk_size=4), tmp_path / "comp")
    a = pq.read_table(plug / "players.parquet").to_pandas().drop(columns="strategy")
    b = pq.read_table(comp / "players.parquet").to_pandas().drop(columns="strategy")
    assert a.equals(b)
    ga = pq.read_table(plug / "games.parquet").to_pandas()
    gb = pq.read_table(comp / "games.parquet").to_pandas()
    assert ga.equals(gb)
    ta = pq.read_table(plug / "turns").to_pandas()
    tb = pq.read_table(comp / "turns").to_pandas()
    assert len(ta) > 0 and ta.equals(tb)


def test_solo_and_ladder_accept_every_kind(weights_file):
    for spec in (f"tuned@{weights_file}", "search:2", PLUGIN, "tuned"):
        g = play_solo(spec, 2, seed=1)
        assert len(g.human) == 2 and g.tom.min() > 0
    results = play_ladder([f"portal@{weights_file}", "search:2", PLUGIN], 2, 1, seed=2)
    assert len(results) == 6  # 3 lineups x 2 seatings
    assert {s for r in results for s in r.strategies} == \
        {f"portal@{weights_file}", "search:2", PLUGIN}


# ---- the commands ------------------------------------------------------------------------
def cli(*args: str):
    res = CliRunner().invoke(main, list(args))
    assert res.exit_code == 0, res.output
    return res.output


def test_cli_run_ladder_solo_and_experiment_take_every_kind(tmp_path, weights_file,
                                                              monkeypatch):
    specs = f"tuned@{weights_file},search:2,{PLUGIN},portal"
    cli("run", "--games", "4", "--players", "4", "--strategies", specs, "--seat-rotation",
        "--out", str(tmp_path / "run"), "--chunk-size", "2")
    assert len(read_manifest(tmp_path / "run")["seat_players"]) == 4

    out = cli("ladder", "--players", "2", "--games", "1", "--strategies", specs,
              "--format", "json")
    assert {r["strategy"] for r in json.loads(out)} == set(split_specs(specs))

    out = cli("solo", "--strategies", specs, "--games", "2")
    for spec in split_specs(specs):
        assert f"{spec} vs Tom" in out

    # an experiment file's paths are relative to the folder it is run from
    monkeypatch.chdir(tmp_path)
    exp = tmp_path / "e.toml"
    exp.write_text(f'[run]\ngames = 2\nplayers = 2\nstrategies = ["tuned@{weights_file.name}", '
                   f'"{PLUGIN}"]\nout = "exp"\n')
    cli("experiment", str(exp), "--no-report")
    players = read_manifest(tmp_path / "exp")["seat_players"]
    assert players[PLUGIN]["kind"] == "plugin"
    assert players[f"tuned@{weights_file.name}"]["weights_file"] == weights_file.name


def test_cli_rejects_a_bad_spec_in_one_line():
    for cmd in (["run", "--games", "2", "--strategies", "search:-1"],
                ["ladder", "--strategies", "portal,nope"],
                ["solo", "--strategies", "tuned,nope", "--games", "2"]):
        res = CliRunner().invoke(main, cmd)
        assert res.exit_code == 2 and res.output.startswith("Error: "), res.output
        assert "Traceback" not in res.output


def test_the_report_names_every_runs_players(tmp_path):
    from bonfire_sim.report.build import build_report

    out = run(RunConfig(games=4, players=2, strategies=("tuned", "search:2"), seed=1),
              tmp_path / "r")
    page = build_report([out], tmp_path / "r.html").read_text()
    assert "Players of each run" in page and "search:2" in page and "budget 2" in page


def test_tuned_beats_portal_in_most_seat_rotated_two_player_games():
    """The issue's bar is 60%; measured 82.1% on 2,000 games (docs/explanation/players.md)."""
    results = play_ladder(["tuned", "portal"], 2, 40, seed=99)
    wins = sum(r.won[r.strategies.index("tuned")] for r in results)
    assert len(results) == 80 and wins / 80 >= 0.6


def test_search_ref_names_the_flat_search_it_replaced():
    from bonfire_sim.strategies.plugin import is_plugin_spec

    ref = parse_player("search_ref")
    assert ref.kind == "search" and ref.sid == SEARCH_ID and ref.budget == SE.REF_BUDGET
    assert ref.weight_row()[SE.R_MODE] == SE.MODE_FLAT and ref.record()["mode"] == "flat"
    new = parse_player("search:16")
    assert new.weight_row()[SE.R_MODE] == SE.MODE_HALVING
    assert new.record()["mode"] == "halving"
    assert parse_player("search_ref:8").budget == 8
    assert not is_plugin_spec("search_ref:8") and check_stored_spec("search_ref:8")
    with pytest.raises(ConfigError, match="budget must be an integer"):
        parse_player("search_ref:0")
    assert "search_ref" in dict(describe())


def test_search_expert_is_the_search_with_experts_rollouts():
    from bonfire_sim.strategies.weights import WEIGHT_NAMES

    nw = len(WEIGHT_NAMES)
    exp = parse_player("search_expert:16")
    assert exp.kind == "search" and exp.sid == SEARCH_ID and exp.budget == 16
    assert exp.record()["rollout_policy"] == "expert"
    assert np.array_equal(exp.weight_row()[:nw], weights_for("expert")[:nw])
    plain = parse_player("search:16")
    assert plain.record()["rollout_policy"] == "tuned"
    assert np.array_equal(plain.weight_row()[:nw], weights_for("tuned")[:nw])
    assert not np.array_equal(exp.weight_row()[:nw], plain.weight_row()[:nw])
    assert check_stored_spec("search_expert:4") == "search_expert:4"
