"""Data safety: verified loading, engine fingerprints, repair on resume, strict settings,
atomic writes, workers that die with their parent."""

from __future__ import annotations

import errno
import json
import os
import shutil
import signal
import subprocess
import sys
import textwrap
import time
from dataclasses import replace
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from bonfire_sim import config as CF
from bonfire_sim.errors import (
    BonfireError,
    ConfigError,
    DataError,
    EngineMismatchError,
    OutputError,
)
from bonfire_sim.infra import fileio
from bonfire_sim.infra.fingerprint import engine_fingerprint
from bonfire_sim.pipelines.experiment import load_sweep, run_experiment
from bonfire_sim.sim import runner as R
from bonfire_sim.sim.load import load
from bonfire_sim.sim.runconfig import RunConfig
from bonfire_sim.sim.runner import resolve_jobs, run

CFG = RunConfig(games=12, players=2, seed=3, chunk_size=5, turn_log="all")
FINALS = ("games.parquet", "players.parquet")


@pytest.fixture(scope="module")
def ref(tmp_path_factory) -> Path:
    return run(CFG, tmp_path_factory.mktemp("safety") / "ref")


def _copy(ref: Path, dst: Path) -> Path:
    shutil.copytree(ref, dst)
    return dst


def _flip(path: Path, pos: int) -> bytes:
    data = path.read_bytes()
    flipped = bytearray(data)
    flipped[pos] ^= 1 << (pos % 8)
    path.write_bytes(bytes(flipped))
    return data


# ---- load verifies ------------------------------------------------------------------------
def test_a_bit_flip_anywhere_in_a_final_file_is_detected_by_load(ref, tmp_path):
    out = _copy(ref, tmp_path / "flip")
    turn_chunk = sorted((out / "turns").glob("*.parquet"))[0]
    checked = 0
    for path in (out / "games.parquet", out / "players.parquet", turn_chunk):
        size = path.stat().st_size
        # a dense stride of each file (about 400 positions, the first and last byte too): the
        # checksum covers every byte alike, so every byte of the games table (some thousands
        # of loads, two minutes of CI) tested nothing the stride does not
        step = max(1, size // 400)
        for pos in [*range(0, size, step), size - 1]:
            original = _flip(path, pos)
            with pytest.raises(DataError, match=path.name):
                load(out)
            path.write_bytes(original)
            checked += 1
    assert checked > 1000
    assert len(load(out).games) == 12  # restored bytes load again


def test_a_table_copied_in_from_another_run_is_refused(ref, tmp_path):
    other = run(RunConfig(games=12, players=2, seed=4, chunk_size=5, turn_log="all"),
                tmp_path / "other")
    out = _copy(ref, tmp_path / "mixed")
    shutil.copy(other / "games.parquet", out / "games.parquet")
    with pytest.raises(DataError, match="games.parquet.*checksum"):
        load(out)


@pytest.mark.parametrize("stray", ["notes.txt", "turns/chunk-00000 (copy).parquet",
                                   "chunks/games-00099.parquet", "turns/extra/x.parquet"])
def test_an_unlisted_file_is_refused_with_its_name(ref, tmp_path, stray):
    out = _copy(ref, tmp_path / "stray")
    (out / stray).parent.mkdir(parents=True, exist_ok=True)
    (out / stray).write_bytes(b"x")
    with pytest.raises(DataError, match="does not list.*" + stray.split("/")[0]):
        load(out)
    with pytest.raises(DataError, match="does not write"):
        run(CFG, out, resume=True)


def test_a_deleted_turn_chunk_is_an_error_not_fewer_rows(ref, tmp_path):
    out = _copy(ref, tmp_path / "gone")
    (out / "turns" / "chunk-00001.parquet").unlink()
    with pytest.raises(DataError, match="chunk-00001.parquet is missing"):
        load(out)


def test_columns_and_lazy_polars(ref):
    lazy = load(ref, lazy=True, columns=["score", "strategy"])
    frame = lazy.players.collect()
    assert frame.columns == ["game_id", "strategy", "seat", "score"]
    assert lazy.games.collect().columns == ["game_id"]
    with pytest.raises(ConfigError, match="unknown column"):
        load(ref, columns=["no_such_column"])


# ---- metadata and fingerprint ------------------------------------------------------------
def test_every_parquet_file_carries_schema_config_and_fingerprint(ref):
    manifest = json.loads((ref / "manifest.json").read_text())
    assert manifest["fingerprint"] == engine_fingerprint()
    files = [ref / f for f in FINALS] + sorted((ref / "chunks").glob("*.parquet")) + sorted(
        (ref / "turns").glob("*.parquet"))
    for f in files:
        meta = json.loads(pq.read_schema(f).metadata[R.META_KEY])
        assert meta["fingerprint"] == manifest["fingerprint"]
        assert meta["config"] == manifest["config"]
        assert meta["schema_version"] == manifest["schema_version"]


def _other_engine(out: Path) -> None:
    m = json.loads((out / "manifest.json").read_text())
    m["fingerprint"]["source_hash"] = "0000000000000000"
    (out / "manifest.json").write_text(json.dumps(m))


def test_resume_refuses_a_run_made_by_another_engine(ref, tmp_path):
    out = _copy(ref, tmp_path / "old")
    _other_engine(out)
    before = {f: (out / f).read_bytes() for f in FINALS}
    with pytest.raises(EngineMismatchError, match="source_hash 0000000000000000 -> .*another "
                                                  "run directory"):
        run(CFG, out, resume=True)
    assert before == {f: (out / f).read_bytes() for f in FINALS}


def test_replace_stale_plays_a_run_of_another_engine_afresh(ref, tmp_path):
    out = _copy(ref, tmp_path / "stale")
    _other_engine(out)
    said: list[str] = []
    run(CFG, out, resume=True, replace_stale=True, status=said.append)
    assert any("made by another engine" in s and "played afresh" in s for s in said)
    for f in FINALS:  # the same games as the reference, by the current engine
        assert pq.read_table(out / f).equals(pq.read_table(ref / f))
    assert json.loads((out / "manifest.json").read_text())["fingerprint"] == json.loads(
        (ref / "manifest.json").read_text())["fingerprint"]
    # a run of the current engine is kept as it is: nothing replayed
    stamp = {f: (out / f).stat().st_mtime_ns for f in FINALS}
    run(CFG, out, resume=True, replace_stale=True)
    assert stamp == {f: (out / f).stat().st_mtime_ns for f in FINALS}


@pytest.mark.parametrize("case", ["stranger", "other-config"])
def test_replace_stale_deletes_nothing_it_would_otherwise_refuse(ref, tmp_path, case):
    out = _copy(ref, tmp_path / "keep")
    _other_engine(out)
    if case == "stranger":
        (out / "notes.txt").write_text("mine")
    before = sorted(p.relative_to(out).as_posix() for p in out.rglob("*"))
    cfg = CFG if case == "stranger" else replace(CFG, seed=4)
    with pytest.raises(BonfireError, match="does not write|different configuration"):
        run(cfg, out, resume=True, replace_stale=True)
    assert before == sorted(p.relative_to(out).as_posix() for p in out.rglob("*"))


def test_experiment_refuses_to_reuse_a_run_of_another_engine(ref, tmp_path, monkeypatch):
    out = _copy(ref, tmp_path / "exp_run")
    _other_engine(out)
    monkeypatch.chdir(tmp_path)  # an experiment file's paths are relative to this folder
    exp = tmp_path / "e.toml"
    exp.write_text('[run]\ngames = 12\nplayers = 2\nseed = 3\nchunk_size = 5\n'
                   'turn_log = "all"\nout = "exp_run"\n')
    with pytest.raises(EngineMismatchError, match="start afresh"):
        run_experiment(exp, report=False)


# ---- resume repairs -----------------------------------------------------------------------
@pytest.mark.parametrize("damage", ["delete", "truncate", "flip"])
@pytest.mark.parametrize("name", FINALS)
def test_resume_rebuilds_a_missing_or_corrupt_final_table(ref, tmp_path, damage, name):
    out = _copy(ref, tmp_path / "repair")
    f = out / name
    if damage == "delete":
        f.unlink()
    elif damage == "truncate":
        f.write_bytes(f.read_bytes()[:50])
    else:
        _flip(f, f.stat().st_size // 2)
    with pytest.raises(DataError):
        load(out)
    run(CFG, out, resume=True)
    assert f.read_bytes() == (ref / name).read_bytes()
    assert len(load(out).players) == 24


def test_resume_reruns_a_corrupt_chunk_of_a_finished_run(ref, tmp_path):
    # a finished run keeps only its chunks' turn logs (the games are in the final tables)
    out = _copy(ref, tmp_path / "chunk")
    _flip(out / "turns" / "chunk-00002.parquet", 10)
    run(CFG, out, resume=True)
    assert all((out / f).read_bytes() == (ref / f).read_bytes() for f in FINALS)
    assert (out / "turns" / "chunk-00002.parquet").read_bytes() == (
        ref / "turns" / "chunk-00002.parquet").read_bytes()


def test_resume_removes_temporary_files_an_interrupted_write_left(ref, tmp_path):
    out = _copy(ref, tmp_path / "tmpfiles")
    (out / "chunks" / "games-00001.parquet.tmp").write_bytes(b"half")
    (out / "manifest.json.tmp").write_text("{")
    run(CFG, out, resume=True)
    assert not list(out.rglob("*.tmp"))
    load(out)


# ---- the start of a run -------------------------------------------------------------------
def test_a_full_disk_at_start_leaves_nothing_behind(tmp_path, monkeypatch):
    def full(path, obj):
        raise fileio.os_error(path, OSError(errno.ENOSPC, "No space left on device"))

    monkeypatch.setattr(R, "_write_json_atomic", full)
    out = tmp_path / "new"
    with pytest.raises(OutputError, match="No space left"):
        run(CFG, out)
    assert not out.exists()
    existing = tmp_path / "empty"
    existing.mkdir()
    with pytest.raises(OutputError):
        run(CFG, existing)
    assert list(existing.iterdir()) == []
    monkeypatch.undo()
    (existing / "manifest.json.tmp").write_text("{")  # as an older version left it
    run(CFG, existing)
    load(existing)


def test_a_refused_directory_gets_nothing_created_in_it(tmp_path):
    (tmp_path / "mine.txt").write_text("x")
    with pytest.raises(ConfigError, match="not empty"):
        run(CFG, tmp_path)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["mine.txt"]


def test_atomic_write_keeps_the_old_file_when_writing_fails(tmp_path):
    target = tmp_path / "page.html"
    target.write_text("good")
    with pytest.raises(RuntimeError):
        with fileio.atomic_file(target) as f:
            f.write(b"half")
            raise RuntimeError("killed")
    assert target.read_text() == "good" and sorted(tmp_path.iterdir()) == [target]


# ---- settings -----------------------------------------------------------------------------
@pytest.mark.parametrize("kwargs, message", [
    ({"seed": 2**64}, "seed must be 0..18446744073709551615"),
    ({"seed": -1}, "seed must be"),
    ({"games": 40.7}, "games must be an integer"),
    ({"games": 10**12}, "games must be 1..10000000"),
    ({"seat_rotation": "false"}, "seat_rotation must be true or false"),
    ({"chunk_size": 0}, "chunk_size must be"),
    ({"overrides": {"portal_points": 2**63 - 1}}, "portal_points must be 0..1000"),
    ({"overrides": {"task_points": {"Z9": 1}}}, "unknown key 'Z9'"),
    ({"overrides": {"guardian_points": [1, 2]}}, "list of 7 integers"),
    ({"overrides": {"overide": 1}}, "unknown \\[overrides\\] key 'overide'; valid: task_points"),
])
def test_run_config_is_strict(kwargs, message):
    args = {"games": 8, "players": 2} | kwargs
    with pytest.raises(ConfigError, match=message):
        RunConfig(**args)


def test_the_largest_seed_is_accepted_and_differs_from_seed_zero(tmp_path):
    a = load(run(RunConfig(games=2, players=2, seed=2**64 - 1), tmp_path / "a"))
    b = load(run(RunConfig(games=2, players=2, seed=0), tmp_path / "b"))
    assert list(a.games["seed"]) != list(b.games["seed"])


@pytest.mark.parametrize("text, message", [
    ('[run]\nseat_rotation = "false"\n', "seat_rotation must be true or false"),
    ("[run]\ngames = 40.7\n", "games must be an integer"),
    ("[run]\nout = 5\n", "out must be a path"),
    ("[run]\n[overide]\nportal_points = 2\n", "unknown table \\[overide\\]; valid: \\[run\\]"),
    ("overrides = 5\n[run]\n", "\\[overrides\\] must be a table"),
    ("[run]\nbogus = 1\n", "unknown \\[run\\] key 'bogus'; valid: games, players"),
    ("[run]\njobs = 0\n", "jobs must be 1..256 or -1"),
    ("[report]\nout = 'x.html'\n", "has no \\[run\\] table"),
    ("[run]\ngames = \n", "not valid TOML"),
])
def test_experiment_files_are_strict(tmp_path, text, message):
    f = tmp_path / "e.toml"
    f.write_text(text)
    with pytest.raises(ConfigError, match=message):
        load_sweep(f)


def test_jobs_minus_one_is_every_core_and_zero_is_refused():
    assert resolve_jobs(-1) == (os.cpu_count() or 1)
    for bad in (0, -2, 10**6, True):
        with pytest.raises(ConfigError):
            resolve_jobs(bad)


def test_never_more_workers_than_chunks(tmp_path, monkeypatch):
    seen = []
    real = R.play_chunks

    def spy(jobs, n_jobs):
        seen.append(n_jobs)
        return real(jobs, 1)

    monkeypatch.setattr(R, "play_chunks", spy)
    run(RunConfig(games=4, players=2, chunk_size=2), tmp_path / "few", jobs=64)
    assert seen == [2]


def test_a_huge_run_streams_its_jobs_instead_of_building_them(tmp_path, monkeypatch):
    cfg = RunConfig(games=CF.MAX_GAMES, players=2, chunk_size=1)
    taken = []

    def first_two(jobs, n_jobs):
        for job in jobs:  # a generator: nothing like 10**7 objects exist at once
            taken.append(job.index)
            if len(taken) == 2:
                raise KeyboardInterrupt
        yield from ()

    monkeypatch.setattr(R, "play_chunks", first_two)
    with pytest.raises(KeyboardInterrupt):
        run(cfg, tmp_path / "huge")
    assert taken == [0, 1]


def test_the_schema_lists_every_field_with_help_and_known_kind():
    kinds = {"int", "bool", "str", "path", "strs", "paths", "ints", "num", "nums", "map"}
    rows = CF.schema_rows()
    assert {r["table"] for r in rows} == set(CF.TABLES)
    assert all(r["kind"] in kinds and r["help"] for r in rows)
    assert set(CF.OVERRIDE_FIELDS) >= {"task_points", "portal_points"}


def test_every_library_error_is_a_bonfire_error():
    for cls in (ConfigError, DataError, EngineMismatchError, OutputError):
        assert issubclass(cls, BonfireError)


# ---- workers die with their parent ----------------------------------------------------------
def _children(pid: int) -> set[int]:
    out = set()
    for d in Path("/proc").iterdir():
        if d.name.isdigit():
            try:
                ppid = int((d / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            if ppid == pid:
                out.add(int(d.name))
    return out


def _alive(pid: int) -> bool:
    try:
        state = (Path("/proc") / str(pid) / "stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs Linux /proc")
def test_loky_workers_exit_soon_after_their_parent_is_killed(tmp_path):
    script = textwrap.dedent(f"""
        from bonfire_sim.sim.runner import RunConfig, run
        run(RunConfig(games=4000, players=2, strategies=("random",), chunk_size=20),
            {str(tmp_path / 'run')!r}, jobs=2)
    """)
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])}
    parent = subprocess.Popen([sys.executable, "-c", script], env=env)
    workers: set[int] = set()
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and not (tmp_path / "run" / "chunks"
                                                   / "games-00003.parquet").exists():
            time.sleep(0.2)
        workers = {p for p in _children(parent.pid) if _alive(p)}
        assert workers, "the run started no worker processes"
        os.kill(parent.pid, signal.SIGKILL)
        parent.wait()
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and any(_alive(p) for p in workers):
            time.sleep(0.2)
        assert not any(_alive(p) for p in workers), "workers outlived their parent"
    finally:
        if parent.poll() is None:
            parent.kill()
        for pid in workers:  # never leave our own test's workers behind
            if _alive(pid):
                os.kill(pid, signal.SIGKILL)
