"""A finished run holds each game once, and a crash anywhere in its merge still resumes.

The chunks' games and players files are removed once the final tables are verified and
the manifest listing them is written; turn logs stay (they are nowhere else).
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from helpers_runs import played_chunks

from bonfire_sim.errors import DataError
from bonfire_sim.sim import chunklog, runner
from bonfire_sim.sim.load import load
from bonfire_sim.sim.runconfig import RunConfig
from bonfire_sim.sim.runner import MANIFEST, META_KEY, read_manifest, run

CFG = RunConfig(games=24, players=3, seed=38, chunk_size=5, turn_log="all")
FINALS = ("games.parquet", "players.parquet")


class Crash(Exception):
    pass


def _copies(out: Path) -> dict[str, Counter]:
    """How often each game (games table) and each seat's row (players table) appears
    across every Parquet file in ``out``."""
    seen: dict[str, Counter] = {"games": Counter(), "players": Counter()}
    for path in out.rglob("*.parquet"):
        table = json.loads(pq.read_metadata(path).metadata[META_KEY])["table"]
        if table == "games":
            seen["games"].update(pq.read_table(path, columns=["game_id"])["game_id"].to_pylist())
        elif table == "players":
            t = pq.read_table(path, columns=["game_id", "seat"])
            seen["players"].update(zip(t["game_id"].to_pylist(), t["seat"].to_pylist(),
                                       strict=True))
    return seen


def _assert_each_game_once(out: Path) -> None:
    seen = _copies(out)
    assert sorted(seen["games"]) == list(range(CFG.games))
    assert set(seen["games"].values()) == {1}
    assert len(seen["players"]) == CFG.games * CFG.players
    assert set(seen["players"].values()) == {1}


def _bytes(out: Path) -> dict[str, bytes]:
    files = [*FINALS, *(p.relative_to(out).as_posix() for p in (out / "turns").iterdir())]
    return {f: (out / f).read_bytes() for f in sorted(files)}


@pytest.fixture(scope="module")
def reference(tmp_path_factory) -> Path:
    return run(CFG, tmp_path_factory.mktemp("merged") / "ref")


def test_a_finished_run_holds_each_game_once(reference):
    _assert_each_game_once(reference)
    assert not any((reference / "chunks").iterdir())
    assert len(list((reference / "turns").iterdir())) == CFG.n_chunks  # turn logs stay
    manifest = read_manifest(reference)
    assert all(set(c) == {"index", "turns"} for c in manifest["chunks"].values())
    assert len(load(reference).games) == CFG.games


def test_a_second_run_of_a_finished_run_changes_nothing(reference, monkeypatch):
    before = _bytes(reference)
    played = played_chunks(monkeypatch)
    run(CFG, reference, resume=True)
    run(CFG, reference)
    assert played == [] and _bytes(reference) == before


def _crash_at(step: str, monkeypatch) -> None:
    """Make the merge stop at ``step`` (each a point between two of its writes)."""
    if step == "final tables written":
        def crash(*a, **k):
            raise Crash
        monkeypatch.setattr(runner, "_verify_merge", crash)
    elif step == "tables verified":
        real_write = runner._write_json_atomic

        def write(obj, path):
            if obj.get("complete"):
                raise Crash
            real_write(obj, path)
        monkeypatch.setattr(runner, "_write_json_atomic", write)
    elif step == "manifest written":
        def remove(out):
            raise Crash
        monkeypatch.setattr(chunklog, "remove", remove)
    else:  # part of the chunk files removed
        real_name = runner.merged_chunk_file
        seen = []

        def name(rel, n_chunks):
            seen.append(rel)
            if len(seen) > 3:
                raise Crash
            return real_name(rel, n_chunks)
        monkeypatch.setattr(runner, "merged_chunk_file", name)


STEPS = ["final tables written", "tables verified", "manifest written",
         "chunk files partly removed"]


@pytest.mark.parametrize("step", STEPS)
def test_a_crash_between_the_merge_steps_leaves_chunks_or_verified_tables(
        reference, tmp_path, monkeypatch, step):
    out = tmp_path / "crash"
    with monkeypatch.context() as m:
        _crash_at(step, m)
        with pytest.raises(Crash):
            run(CFG, out)
    manifest = read_manifest(out)
    if manifest["complete"]:  # the verified tables are the run; chunks may be left over
        assert step in STEPS[2:]
        for f in FINALS:
            assert (out / f).read_bytes() == (reference / f).read_bytes()
        with pytest.raises(DataError, match="--resume"):
            load(out)  # a leftover is named, with the way to finish
    else:  # the chunks are the run: every one of them, listed and whole
        assert step in STEPS[:2]
        assert len(manifest["chunks"]) == CFG.n_chunks
        for entry in manifest["chunks"].values():
            for part in ("games", "players", "turns"):
                assert (out / entry[part]["file"]).is_file()
    played = played_chunks(monkeypatch)
    run(CFG, out, resume=True)
    assert played == []  # nothing played again, whichever side the crash fell
    assert _bytes(out) == _bytes(reference)
    _assert_each_game_once(out)
    assert not (out / chunklog.LOG).exists()
    assert len(load(out).players) == CFG.games * CFG.players


def test_lost_final_tables_are_played_again_to_the_same_bytes(reference, tmp_path,
                                                              monkeypatch):
    out = tmp_path / "lost"
    run(CFG, out)
    (out / "players.parquet").write_bytes(b"damaged")
    played = played_chunks(monkeypatch)
    run(CFG, out, resume=True)
    assert played == list(range(CFG.n_chunks))
    assert _bytes(out) == _bytes(reference)
    _assert_each_game_once(out)


def test_a_damaged_turn_log_of_a_finished_run_replays_only_its_chunk(reference, tmp_path,
                                                                    monkeypatch):
    out = tmp_path / "turns"
    run(CFG, out)
    finals = {f: (out / f).stat().st_mtime_ns for f in FINALS}
    turns = out / "turns" / "chunk-00002.parquet"
    turns.write_bytes(turns.read_bytes()[:50])
    played = played_chunks(monkeypatch)
    run(CFG, out, resume=True)
    assert played == [2]
    assert _bytes(out) == _bytes(reference)
    assert {f: (out / f).stat().st_mtime_ns for f in FINALS} == finals  # not merged again
    _assert_each_game_once(out)
    assert len(load(out).turns) == len(load(reference).turns)


def test_a_run_that_kept_its_chunks_loads_and_sheds_them_when_run_again(reference, tmp_path,
                                                                        monkeypatch):
    out = tmp_path / "old"
    with monkeypatch.context() as m:  # as versions before one-copy runs wrote it
        m.setattr(runner, "MERGED", ())
        m.setattr(runner, "merged_chunk_file", lambda rel, n: False)
        run(CFG, out)
    assert len(list((out / "chunks").iterdir())) == 2 * CFG.n_chunks
    assert len(load(out).games) == CFG.games
    run(CFG, out, resume=True)
    _assert_each_game_once(out)
    assert _bytes(out) == _bytes(reference)
    assert json.loads((out / MANIFEST).read_text())["complete"] is True
