"""What a notebook user meets: the batch API, sweeps, reprs, long helper tables, and an
import that changes nothing outside the package."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
from click.testing import CliRunner

import bonfire_sim
from bonfire_sim.cli.main import main
from bonfire_sim.sim.load import load

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def data():
    return bonfire_sim.run(games=12, players=3, seed=4, chunk_size=6)


def test_run_without_out_returns_tables_and_leaves_no_directory(data):
    assert data.path is None and len(data.games) == 12 and len(data.players) == 36
    assert "in memory" in repr(data) and len(repr(data)) < 300
    assert "<table>" in data._repr_html_()


def test_categorical_strings_and_nullable_sentinels(data):
    assert isinstance(data.players["strategy"].dtype, pd.CategoricalDtype)
    assert isinstance(data.games["end_reason"].dtype, pd.CategoricalDtype)
    assert str(data.games["winner_seat"].dtype) == "Int64"
    assert (data.games["winner_seat"].dropna() >= 0).all()
    assert (data.players["pass_turn"].dropna() >= 0).all()


def test_player_gnomes_answers_who_owns_a_gnome(data):
    g = data.player_gnomes
    owners = set(map(tuple, g.loc[g["gnome"] == "S15", ["game_id", "seat"]].to_numpy()))
    expected = {(r.game_id, r.seat) for r in data.players.itertuples()
                if "S15" in list(r.gnome_ids)}
    assert owners == expected
    assert len(g) == sum(len(x) for x in data.players["gnome_ids"])


def test_player_tasks_holds_every_task_with_its_lit_flag(data):
    t = data.player_tasks
    lit = data.players["bonfire_task_ids"].map(len).sum()
    unlit = data.players["unlit_task_ids"].map(len).sum()
    assert len(t) == lit + unlit and t["lit"].sum() == lit
    assert t.loc[~t["lit"], "lit_turn"].isna().all()


def test_a_sweep_runs_one_point_per_value_with_a_tidy_index():
    sw = bonfire_sim.sweep({"task_points": {"Y14": [1, 9]}}, games=4, players=2, seed=1)
    assert list(sw.points["task_points.Y14"]) == [1, 9]
    assert sw.points.index.name == "point"
    p = sw.players
    assert set(p["task_points.Y14"]) == {1, 9} and len(p) == 16
    assert [r.config["overrides"] for r in sw.runs] == [{"task_points": {"Y14": 1}},
                                                       {"task_points": {"Y14": 9}}]


def test_an_experiment_file_with_list_values_runs_every_point(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "sw.toml").write_text(
        '[run]\ngames = 4\nplayers = 2\nchunk_size = 2\nout = "runs/sw"\n'
        '[overrides]\nportal_points = [1, 3]\n[report]\nout = "sw.html"\n')
    res = CliRunner().invoke(main, ["experiment", "sw.toml"])
    assert res.exit_code == 0, res.output
    for v in (1, 3):
        d = load(tmp_path / "runs" / "sw" / f"portal_points={v}")
        assert d.config["overrides"] == {"portal_points": v}
    assert (tmp_path / "sw.html").is_file()
    index = pd.read_csv(tmp_path / "runs" / "sw" / "sweep.csv")
    assert index.to_dict("list") == {"point": [0, 1], "portal_points": [1, 3],
                                     "run": ["portal_points=1", "portal_points=3"]}


def test_a_game_record_repr_is_short_and_has_an_html_table():
    rec = bonfire_sim.play(seed=3, players=2, strategies="random")
    assert len(repr(rec)) < 400 and f"events=<{len(rec.events)} events>" in repr(rec)
    assert rec._repr_html_().count("<tr>") == 3


def test_import_changes_neither_numba_settings_nor_the_matplotlib_backend():
    code = (
        "import os, sys, json\n"
        "import matplotlib\n"
        "matplotlib.use('svg')\n"
        "import bonfire_sim\n"
        "env_after_import = os.environ.get('NUMBA_CACHE_DIR')\n"
        "numba_after_import = 'numba' in sys.modules\n"
        "import bonfire_sim.report.figures\n"
        "from bonfire_sim.sim.runner import RunConfig\n"
        "import numba\n"
        "print(json.dumps([env_after_import, numba_after_import, matplotlib.get_backend(),\n"
        "                  os.environ.get('NUMBA_CACHE_DIR'), numba.config.CACHE_DIR,\n"
        "                  'matplotlib.pyplot' in sys.modules]))\n"
    )
    env = {k: v for k, v in __import__("os").environ.items() if k != "NUMBA_CACHE_DIR"}
    env["PYTHONPATH"] = str(ROOT)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env=env, check=True).stdout
    env_var, numba_loaded, backend, env_later, numba_dir, pyplot = json.loads(out)
    assert env_var is None and not numba_loaded
    assert backend == "svg" and not pyplot
    assert env_later is None and not numba_dir  # the user's numba cache is untouched


def test_the_engine_cache_is_still_keyed_by_the_kernel_sources():
    import bonfire_sim.rules.moves  # noqa: F401  (the engine is loaded)
    from bonfire_sim.infra import _jitcache

    assert _jitcache._INSTALLED == [_jitcache.cache_dir()]
    assert _jitcache.source_hash() in _jitcache.cache_dir()


def test_lazy_frames_give_the_same_helper_tables(tmp_path):
    out = bonfire_sim.run(games=6, players=2, seed=2, chunk_size=3, out=tmp_path / "r").path
    eager, lazy = load(out), load(out, lazy=True, categorical=False)
    assert lazy.player_gnomes.collect().height == len(eager.player_gnomes)
    tasks = lazy.player_tasks.collect()
    assert tasks.height == len(eager.player_tasks)
    assert tasks["lit"].sum() == int(eager.player_tasks["lit"].sum())
    assert lazy.players.collect_schema()["strategy"] == __import__("polars").String
