"""The append-only chunk log: one O(1) update per chunk, still atomic and resumable.

The manifest used to be rewritten in full after every chunk (quadratic in a run's chunk
count); now a chunk appends one line to ``chunks.jsonl`` and the manifest is written at
the start and at the merge only.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from helpers_runs import interrupted_run

from bonfire_sim.cli.main import main
from bonfire_sim.errors import DataError
from bonfire_sim.infra import fileio
from bonfire_sim.sim import chunklog
from bonfire_sim.sim.bench import time_manifest_updates
from bonfire_sim.sim.load import load
from bonfire_sim.sim.runconfig import RunConfig
from bonfire_sim.sim.runner import MANIFEST, read_manifest, run

CFG = RunConfig(games=16, players=2, seed=11, chunk_size=4, turn_log="all")


def _interrupted(out: Path, after: int) -> Path:
    """Run CFG into ``out`` and stop it once ``after`` chunks are written."""
    return interrupted_run(CFG, out, after)


@pytest.fixture(scope="module")
def whole(tmp_path_factory) -> Path:
    return run(CFG, tmp_path_factory.mktemp("log") / "whole")


def test_a_finished_run_lists_every_chunk_in_order_and_keeps_no_log(whole):
    manifest = json.loads((whole / MANIFEST).read_text())
    assert list(manifest["chunks"]) == [str(i) for i in range(CFG.n_chunks)]
    assert manifest["complete"] is True
    assert not (whole / chunklog.LOG).exists()


def test_the_manifest_is_written_twice_whatever_the_chunk_count(tmp_path, monkeypatch):
    writes = []
    real = fileio.write_json

    def counting(path, obj):
        if Path(path).name == MANIFEST:
            writes.append(len(obj.get("chunks", {})))
        return real(path, obj)

    monkeypatch.setattr(fileio, "write_json", counting)
    run(CFG, tmp_path / "a")
    run(RunConfig(games=40, players=2, seed=11, chunk_size=2), tmp_path / "b")
    # start (no chunks) and merge (all chunks), for 4 chunks and for 20 alike
    assert writes == [0, 4, 0, 20]


def test_an_interrupted_run_keeps_its_chunks_in_the_log_and_resumes_byte_for_byte(
        whole, tmp_path):
    out = _interrupted(tmp_path / "cut", after=2)
    on_disk = json.loads((out / MANIFEST).read_text())
    assert on_disk["chunks"] == {} and not on_disk["complete"]
    lines = (out / chunklog.LOG).read_text().splitlines()
    assert len(lines) == 2
    assert len(read_manifest(out)["chunks"]) == 2  # the log folded in
    run(CFG, out, resume=True)
    for name in ("games.parquet", "players.parquet"):
        assert (out / name).read_bytes() == (whole / name).read_bytes()
    assert not (out / chunklog.LOG).exists()
    assert len(load(out).games) == CFG.games


def test_a_torn_last_line_is_a_chunk_played_again(whole, tmp_path):
    out = _interrupted(tmp_path / "torn", after=2)
    with open(out / chunklog.LOG, "ab") as f:
        f.write(b'{"index": 2, "games": {"fi')  # a crash in the middle of an append
    assert len(read_manifest(out)["chunks"]) == 2
    run(CFG, out, resume=True)
    assert (out / "games.parquet").read_bytes() == (whole / "games.parquet").read_bytes()


@pytest.mark.parametrize("bad", [b"not json", b'{"no_index": 1}', b'{"index": true}',
                                 b"[1, 2]"])
def test_an_edited_line_is_refused_naming_it(tmp_path, bad):
    out = _interrupted(tmp_path / "edited", after=2)
    lines = (out / chunklog.LOG).read_bytes().split(b"\n")
    lines[0] = bad
    (out / chunklog.LOG).write_bytes(b"\n".join(lines))
    with pytest.raises(DataError, match=r"chunks.jsonl line 1 is not a chunk entry"):
        read_manifest(out)
    result = CliRunner().invoke(main, ["run", "--games", "16", "--players", "2", "--seed",
                                       "11", "--chunk-size", "4", "--turn-log", "all",
                                       "--resume", "--out", str(out), "--quiet"])
    assert result.exit_code == 2
    assert result.output.count("Error:") == 1 and "line 1" in result.output


def test_a_later_line_for_a_chunk_replaces_an_earlier_one(tmp_path):
    out = tmp_path / "r"
    out.mkdir()
    chunklog.append(out, {"index": 3, "games": {"file": "a"}})
    chunklog.append(out, {"index": 3, "games": {"file": "b"}})
    assert chunklog.read(out) == {"3": {"index": 3, "games": {"file": "b"}}}


def test_a_non_finite_entry_is_never_written(tmp_path):
    with pytest.raises(ValueError):
        chunklog.append(tmp_path, {"index": 0, "x": float("nan")})
    assert not (tmp_path / chunklog.LOG).exists() or (tmp_path / chunklog.LOG).read_bytes() == b""


def test_the_benchmark_measures_both_update_kinds():
    rows = time_manifest_updates((20, 200), sample=10)
    assert [r.chunks for r in rows] == [20, 200]
    assert all(r.append_ms > 0 and r.rewrite_ms > 0 for r in rows)
