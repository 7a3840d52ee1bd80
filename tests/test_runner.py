"""Batch runner: determinism across workers and resumption, safety, loading, backends."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner
from helpers_runs import interrupted_run, played_chunks

from bonfire_sim.cli.main import main
from bonfire_sim.errors import ConfigError, DataError
from bonfire_sim.lineup import RECOMMENDED_SOLO
from bonfire_sim.sim.load import load
from bonfire_sim.sim.runconfig import RunConfig
from bonfire_sim.sim.runner import read_manifest, run

CFG = RunConfig(games=60, players=4, seed=5, chunk_size=16, turn_log="sample:0.5")


def _bytes(d: Path) -> dict[str, bytes]:
    return {n: (d / n).read_bytes() for n in ("games.parquet", "players.parquet")}


@pytest.fixture(scope="module")
def reference(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("ref") / "run"
    return run(CFG, out, jobs=1)


def test_two_workers_write_byte_identical_tables(reference, tmp_path):
    out = run(CFG, tmp_path / "j2", jobs=2)
    assert _bytes(out) == _bytes(reference)
    a, b = load(reference), load(out)
    assert a.turns.equals(b.turns)


def test_an_interrupted_run_resumes_to_byte_identical_tables(reference, tmp_path,
                                                             monkeypatch):
    out = tmp_path / "int"
    interrupted_run(CFG, out, 2)
    manifest = read_manifest(out)  # the manifest with the chunk log folded in
    assert len(manifest["chunks"]) == 2 and not manifest["complete"]
    with pytest.raises(ConfigError, match="--resume"):
        run(CFG, out)
    played = played_chunks(monkeypatch)
    run(CFG, out, resume=True)
    assert _bytes(out) == _bytes(reference)
    assert played == [2, 3]  # finished chunks were not recomputed


def test_a_corrupt_chunk_is_recomputed_on_resume(reference, tmp_path, monkeypatch):
    out = tmp_path / "corrupt"
    interrupted_run(CFG, out, 3)
    chunk = out / "chunks" / "players-00001.parquet"
    chunk.write_bytes(chunk.read_bytes()[:100])
    played = played_chunks(monkeypatch)
    run(CFG, out, resume=True)
    assert _bytes(out) == _bytes(reference)
    assert played == [1, 3]


def test_a_different_configuration_is_refused_in_a_used_directory(reference):
    other = RunConfig(games=60, players=4, seed=6, chunk_size=16, turn_log="sample:0.5")
    with pytest.raises(ConfigError, match="different configuration"):
        run(other, reference, resume=True)


def test_a_foreign_non_empty_directory_is_refused(tmp_path):
    (tmp_path / "notes.txt").write_text("mine")
    with pytest.raises(ConfigError, match="not a bonfire_sim run"):
        run(CFG, tmp_path)
    assert (tmp_path / "notes.txt").read_text() == "mine"


def test_an_unwritable_directory_is_a_clear_error(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    with pytest.raises(ConfigError, match="cannot create run directory"):
        run(CFG, blocker / "run")


def test_load_names_a_truncated_parquet_file(reference, tmp_path):
    out = tmp_path / "trunc"
    shutil.copytree(reference, out)
    f = out / "players.parquet"
    f.write_bytes(f.read_bytes()[:200])
    with pytest.raises(DataError, match="players.parquet"):
        load(out)


def test_load_refuses_a_foreign_manifest(tmp_path):
    (tmp_path / "manifest.json").write_text('{"format": "something-else"}')
    with pytest.raises(DataError, match="not a bonfire_sim run manifest"):
        load(tmp_path)


def test_load_gives_pandas_and_polars_frames_with_the_documented_columns(reference):
    pdf = load(reference)
    pl_data = load(reference, engine="polars")
    assert len(pdf.games) == 60 and len(pdf.players) == 240
    assert pl_data.players.shape == pdf.players.shape
    cols = set(pdf.players.columns)
    lines = ["score_bonfires", "score_guardians", "score_portals", "score_paths",
             "score_common", "score_fate_supply", "score_leftovers", "score_ingame"]
    assert set(lines) <= cols and {"gnome_ids", "bonfire_task_ids", "rank", "won"} <= cols
    assert (pdf.players[lines].sum(axis=1) == pdf.players["score"]).all()
    assert {"game_id", "seed", "n_players", "solo", "n_rounds", "n_turns", "end_reason",
            "trigger_turn", "winner_seat"} <= set(pdf.games.columns)
    assert set(pdf.turns["option"]) <= {"fate", "action", "ignite", "pass", "bonus", "skip"}


def test_seat_rotation_plays_each_deal_in_every_rotation(tmp_path):
    cfg = RunConfig(games=12, players=3, strategies=("random",), seat_rotation=True,
                    chunk_size=5)
    data = load(run(cfg, tmp_path / "rot"))
    g = data.games
    assert (g.groupby("deal")["seed"].nunique() == 1).all()
    assert all(sorted(r) == [0, 1, 2] for r in g.groupby("deal")["rotation"].apply(list))
    p = data.players.merge(g[["game_id", "deal", "rotation"]], on="game_id")
    assert (p.groupby(["deal", "seat"])["strategy"].nunique() == 1).all()  # one strategy


def test_solo_runs_add_a_tom_row(tmp_path):
    data = load(run(RunConfig(games=8, players=1, chunk_size=4), tmp_path / "solo"))
    assert data.games["solo"].all()
    assert list(data.players.groupby("game_id")["strategy"].apply(list).iloc[0]) == [
        RECOMMENDED_SOLO, "tom"]  # the recommended solo player, not a mix style


def test_the_dask_backend_on_a_local_cluster_gives_the_same_tables(reference, tmp_path):
    from dask.distributed import LocalCluster

    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                      dashboard_address=None) as cluster:
        out = run(CFG, tmp_path / "dask", jobs=2, backend="dask",
                  scheduler=cluster.scheduler_address)
    assert _bytes(out) == _bytes(reference)


@pytest.mark.parametrize("args, message", [
    (["--players", "5"], "players must be 1..4"),
    (["--strategies", "nope"], "unknown strategy 'nope'"),
    (["--turn-log", "some"], "turn_log must be"),
    (["--games", "0"], "games must be 1..10000000, got 0"),
    (["--seat-rotation", "--games", "7"], "multiple of 4"),
])
def test_cli_run_rejects_bad_input_with_one_line(args, message, tmp_path):
    res = CliRunner().invoke(main, ["run", "--out", str(tmp_path / "x"), *args])
    assert res.exit_code != 0
    assert message in res.output
    assert "Traceback" not in res.output


def test_cli_run_writes_a_loadable_run(tmp_path):
    res = CliRunner().invoke(main, ["run", "--games", "10", "--players", "2", "--out",
                                    str(tmp_path / "c")])
    assert res.exit_code == 0, res.output
    assert len(load(tmp_path / "c").games) == 10
