"""A run directory belongs to its run, one writer at a time, and writes are safe.

* Every command whose output would land inside an existing run (or tuning study) refuses
  in one line before doing anything: nothing is written anywhere and the run still loads.
* A sweep replaces only a ``sweep.csv`` it wrote itself.
* A second writer of a run (or a study) is refused naming the first one's pid; a lock
  left by a killed process is taken over.
* A full disk in ``report``'s or ``tune``'s writes is one line naming the file and leaves
  no ``.tmp`` behind.
* ``report`` writes nothing inside the runs it reads (the fork cache lives in the user
  cache directory, or nowhere when that cannot be written).
* Every JSON written is strict (no NaN or infinity).
"""

from __future__ import annotations

import errno
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from bonfire_sim.cli.main import main
from bonfire_sim.errors import OutputError
from bonfire_sim.infra import fileio, ownership
from bonfire_sim.sim.load import load
from bonfire_sim.sim.runconfig import RunConfig
from bonfire_sim.sim.runner import run

ROOT = Path(__file__).resolve().parents[1]
RUN = ["--games", "4", "--players", "2"]
TUNE = ["tune", "--deals2", "1", "--games4", "0", "--popsize", "2", "--generations", "1",
        "--quiet"]
SWEEP = ('[run]\ngames = 4\nplayers = 2\nchunk_size = 2\nout = "{out}"\n'
         '[overrides]\nportal_points = [1, 2]\n')


@pytest.fixture(scope="module")
def world(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("owned")
    run(RunConfig(games=4, players=2, seed=1, chunk_size=2), root / "run")
    run(RunConfig(games=4, players=2, seed=2, chunk_size=2), root / "run_b")
    return root


@pytest.fixture
def box(world, tmp_path, monkeypatch) -> Path:
    """A fresh copy of the world as the working directory; forks cached beside it."""
    box = tmp_path / "box"
    shutil.copytree(world, box)
    monkeypatch.chdir(box)
    monkeypatch.delenv("BONFIRE_SIM_TRACEBACK", raising=False)
    monkeypatch.setattr("bonfire_sim.infra.progress.LOG_EVERY", float("inf"))
    monkeypatch.setattr("bonfire_sim.analysis.cards.probes.fork_cache_dir",
                        lambda: tmp_path / "cache" / "forks")
    return box


def _state(root: Path) -> dict[str, tuple[int, int, bytes]]:
    """Every path under ``root`` with its mode, mtime and bytes: any write shows."""
    out = {}
    for p in sorted(root.rglob("*")):
        st = p.lstat()
        out[p.relative_to(root).as_posix()] = (
            st.st_mode, st.st_mtime_ns, b"" if p.is_dir() else p.read_bytes())
    return out


def _refused(args: list[str], expect: str) -> str:
    result = CliRunner().invoke(main, args)
    lines = result.output.splitlines()
    assert result.exit_code == 2, (result.exit_code, result.output, result.exception)
    assert len(lines) == 1 and lines[0].startswith("Error: "), result.output
    assert expect in lines[0], (expect, lines[0])
    return lines[0]


# ---- outputs inside a run -------------------------------------------------------------------
INTO_RUN: list[tuple[str, list[str]]] = [
    ("run-out-inside-a-run", ["run", *RUN, "--out", "run/sub"]),
    ("run-out-deep-inside-a-run", ["run", *RUN, "--out", "run/chunks/a/b"]),
    ("report-out", ["report", "run_b", "--out", "run/page.html"]),
    ("compare-out", ["compare", "run", "run_b", "--out", "run/compare.html"]),
    ("replay-json", ["replay", "--seed", "1", "--players", "2", "--json", "run/game.json"]),
    ("ladder-csv", ["ladder", "--games", "1", "--strategies", "greedy,tempo",
                    "--csv", "run/ladder.csv"]),
    ("solo-path-csv", ["solo", "--games", "4", "--path-csv", "run/path.csv"]),
    ("sensitivity-work", ["sensitivity", "--games", "4", "--solo-games", "4",
                          "--work", "run"]),
    ("sensitivity-work-inside", ["sensitivity", "--games", "4", "--solo-games", "4",
                                 "--work", "run/sens"]),
    ("experiment-out", ["experiment", "{exp_in_run}"]),
    ("experiment-report-out", ["experiment", "{exp_report_in_run}"]),
    ("sweep-out", ["experiment", "{sweep_in_run}"]),
    ("tune-out", [*TUNE, "--out", "run/study"]),
    ("tune-out-is-a-run", [*TUNE, "--out", "run"]),
    ("tune-weights-out", [*TUNE, "--out", "study", "--weights-out", "run/w.toml"]),
    ("run-into-a-study", ["run", *RUN, "--out", "study_done/run"]),
]


def _experiments(box: Path) -> dict[str, str]:
    base = '[run]\ngames = 4\nplayers = 2\nchunk_size = 2\n'
    files = {"exp_in_run": base + 'out = "run/exp"\n',
             "exp_report_in_run": base + 'out = "exp"\n[report]\nout = "run/page.html"\n',
             "sweep_in_run": SWEEP.format(out="run/sweep")}
    for name, text in files.items():
        (box / f"{name}.toml").write_text(text)
    return {name: f"{name}.toml" for name in files}


@pytest.mark.parametrize("case, args", INTO_RUN, ids=[c for c, _ in INTO_RUN])
def test_no_command_writes_inside_a_run(case, args, box):
    names = _experiments(box)
    study = box / "study_done"
    study.mkdir()
    (study / ownership.STUDY).write_text('{"format": "bonfire_sim-tune"}')
    before = _state(box)
    line = _refused([a.format(**names) for a in args], "inside the ")
    assert ("run directory run" in line) or ("tuning study study_done" in line), line
    assert _state(box) == before, "the refused command wrote something"
    assert len(load(box / "run").games) == 4  # and the run still loads


def test_a_run_may_still_be_resumed_and_an_output_beside_it_is_fine(box):
    assert CliRunner().invoke(main, ["run", *RUN, "--seed", "1", "--chunk-size", "2",
                                     "--out", "run", "--resume", "-q"]).exit_code == 0
    res = CliRunner().invoke(main, ["replay", "--seed", "1", "--players", "2",
                                    "--json", "game.json"])
    assert res.exit_code == 0 and json.loads((box / "game.json").read_text())["events"]
    assert ownership.owner("run/chunks/x.parquet") == ("run", (box / "run").resolve())
    assert ownership.owner("run", own="run", own_kind="run") is None
    assert ownership.owner("run", own="run", own_kind="study") is not None
    load(box / "run")


def test_a_symlink_into_a_run_is_inside_the_run(box):
    (box / "link").symlink_to(box / "run")
    before = _state(box / "run")
    _refused(["replay", "--seed", "1", "--players", "2", "--json", "link/game.json"],
             "inside the run directory run")
    assert _state(box / "run") == before


# ---- a sweep's index ------------------------------------------------------------------------
def test_a_sweep_never_overwrites_a_sweep_csv_it_did_not_write(box):
    (box / "mine").mkdir()
    (box / "mine" / "sweep.csv").write_text("my own notes\n")
    (box / "sweep.toml").write_text(SWEEP.format(out="mine"))
    before = _state(box)
    _refused(["experiment", "sweep.toml", "--no-report"], "mine/sweep.csv")
    assert _state(box) == before
    # its own index it rewrites: a sweep run twice
    (box / "again.toml").write_text(SWEEP.format(out="ours"))
    for _ in range(2):
        res = CliRunner().invoke(main, ["experiment", "again.toml", "--no-report", "-q"])
        assert res.exit_code == 0, res.output
    assert (box / "ours" / "sweep.csv").read_text().startswith("point,portal_points,run")


# ---- the writer's lock ----------------------------------------------------------------------
HOLD = ("import sys, time\nfrom bonfire_sim.infra import ownership\n"
        "with ownership.locked(sys.argv[1]):\n    print('locked', flush=True)\n"
        "    time.sleep(120)\n")


def _holder(folder: Path) -> subprocess.Popen:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen([sys.executable, "-c", HOLD, str(folder)], env=env,
                            stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None and proc.stdout.readline().strip() == "locked"
    return proc


def test_a_second_writer_is_refused_and_a_dead_writers_lock_is_recovered(box):
    resume = ["run", *RUN, "--seed", "1", "--chunk-size", "2", "--out", "run", "--resume",
              "-q"]
    proc = _holder(box / "run")
    try:
        line = _refused(resume, f"in use by process {proc.pid}")
        assert "bonfire.lock" in line
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    # the killed holder left its lock file behind: it is stale, not a reason to refuse
    assert (box / "run" / ownership.LOCK).read_text().split()[0] == str(proc.pid)
    res = CliRunner().invoke(main, resume)
    assert res.exit_code == 0, res.output
    assert not (box / "run" / ownership.LOCK).exists()
    assert len(load(box / "run").games) == 4


def test_two_concurrent_resumes_of_one_run_the_second_is_refused(tmp_path, monkeypatch):
    """The issue's case with two real ``run --resume`` processes; then the first is
    killed and its lock file, left behind, does not stop a third."""
    monkeypatch.chdir(tmp_path)
    args = ["run", "--games", "300", "--players", "2", "--chunk-size", "1", "--out", "big",
            "-q"]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    first = subprocess.Popen([sys.executable, "-m", "bonfire_sim", *args, "--resume"],
                             env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        lock = tmp_path / "big" / ownership.LOCK
        deadline = time.monotonic() + 120
        while not (lock.is_file() and lock.read_text().strip()):
            assert first.poll() is None and time.monotonic() < deadline, "no lock taken"
            time.sleep(0.05)
        first.send_signal(signal.SIGSTOP)  # mid-run, however fast the machine
        second = subprocess.run([sys.executable, "-m", "bonfire_sim", *args, "--resume"],
                                env=env, capture_output=True, text=True)
        lines = second.stderr.splitlines()
        assert second.returncode == 2 and len(lines) == 1, second.stderr
        assert lines[0] == (f"Error: big is in use by process {first.pid} (lock file "
                            f"bonfire.lock); wait for it to finish, or stop it")
    finally:
        first.kill()
        first.wait()
    assert lock.is_file()  # SIGKILL: no clean-up, a stale lock
    res = CliRunner().invoke(main, [*args, "--resume"])
    assert res.exit_code == 0, res.output
    assert len(load(tmp_path / "big").games) == 300 and not lock.exists()


def test_a_locked_study_is_refused_before_any_game(box):
    proc = _holder(box / "study")
    try:
        _refused([*TUNE, "--out", "study"], f"in use by process {proc.pid}")
    finally:
        proc.kill()
        proc.wait()


def _second_writer_refused(folder: Path) -> None:
    assert ownership.lock_holder(folder) == f"process {os.getpid()}"
    with pytest.raises(OutputError, match=f"in use by process {os.getpid()}"):
        with ownership.locked(folder):
            pass


def test_run_and_tune_hold_their_lock_while_they_write(tmp_path):
    seen: list[int] = []

    def during_run(done: int, total: int) -> None:
        _second_writer_refused(tmp_path / "r")
        seen.append(done)

    run(RunConfig(games=4, players=2, chunk_size=2), tmp_path / "r", progress=during_run)
    assert seen == [0, 2, 4] and not (tmp_path / "r" / ownership.LOCK).exists()
    from bonfire_sim.studies.tune import TuneConfig, tune

    studies = []
    tune(TuneConfig(deals2=1, games4=0, popsize=2, generations=1), tmp_path / "t",
         progress=lambda study: (_second_writer_refused(tmp_path / "t"),
                                 studies.append(study.generation)))
    assert studies == [1] and not (tmp_path / "t" / ownership.LOCK).exists()


def test_a_stale_lock_file_in_a_run_does_not_stop_it_loading(box):
    (box / "run" / ownership.LOCK).write_text("999999 somewhere\n")
    assert len(load(box / "run").games) == 4
    with ownership.locked(box / "run"):
        assert ownership.lock_holder(box / "run") == f"process {os.getpid()}"
    assert not (box / "run" / ownership.LOCK).exists()


def test_a_refused_lock_creates_no_folder(tmp_path):
    target = tmp_path / "a" / "b"
    with ownership.locked(target):
        assert target.is_dir()
        with pytest.raises(OutputError, match="in use by process"):
            with ownership.locked(target):
                pass
    assert not (tmp_path / "a").exists()


# ---- a full disk ----------------------------------------------------------------------------
def _enospc_for(monkeypatch, suffix: str) -> None:
    """Make flushing the temporary of any file whose name ends with ``suffix`` fail as on
    a full disk."""
    real = os.fsync

    def fsync(fd: int) -> None:
        if (fileio.temp_target(Path(os.readlink(f"/proc/self/fd/{fd}")).name) or
                "").endswith(suffix):
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        real(fd)

    monkeypatch.setattr(fileio.os, "fsync", fsync)


def _tmp_files(root: Path) -> list[Path]:
    return [p for p in root.rglob("*") if p.name.endswith(fileio.TMP_SUFFIX)]


@pytest.mark.skipif(not Path("/proc/self/fd").is_dir(), reason="needs /proc")
def test_a_full_disk_in_report_names_the_page_and_leaves_no_tmp(box, monkeypatch, tmp_path):
    _enospc_for(monkeypatch, "page.html")
    _refused(["report", "run", "--probe-games", "2", "--out", "out/page.html", "-q"],
             "cannot write out/page.html: No space left on device")
    assert _tmp_files(tmp_path) == [] and not (box / "out" / "page.html").exists()


@pytest.mark.skipif(not Path("/proc/self/fd").is_dir(), reason="needs /proc")
@pytest.mark.parametrize("suffix, name", [("study.json", "study/study.json"),
                                          ("w.toml", "w.toml")])
def test_a_full_disk_in_tune_names_the_file_and_leaves_no_tmp(suffix, name, box,
                                                              monkeypatch, tmp_path):
    _enospc_for(monkeypatch, suffix)
    _refused([*TUNE, "--out", "study", "--weights-out", "w.toml"],
             f"cannot write {name}: No space left on device")
    assert _tmp_files(tmp_path) == []
    assert not (box / "study" / ownership.LOCK).exists()


def test_weights_out_is_checked_before_the_study_starts(box):
    (box / "adir").mkdir()
    _refused([*TUNE, "--out", "study", "--weights-out", "adir"], "is a directory")
    assert not (box / "study").exists()


# ---- analysing a run writes nothing into it ---------------------------------------------------
def test_report_writes_nothing_in_the_run_and_caches_forks_elsewhere(box, tmp_path,
                                                                      monkeypatch):
    before = _state(box / "run")
    args = ["report", "run", "--probe-games", "2", "--out", "page.html", "-q"]
    res = CliRunner().invoke(main, args)
    assert res.exit_code == 0, res.output
    assert _state(box / "run") == before
    assert list((tmp_path / "cache" / "forks").glob("probes-*.parquet"))
    # an unwritable cache (its folder would be under a file; root can write anywhere else)
    (tmp_path / "blocker").write_text("")
    monkeypatch.setattr("bonfire_sim.analysis.cards.probes.fork_cache_dir",
                        lambda: tmp_path / "blocker" / "forks")
    (box / "page.html").unlink()
    res = CliRunner().invoke(main, args)
    assert res.exit_code == 0, res.output
    assert (box / "page.html").is_file() and _state(box / "run") == before
    assert _tmp_files(tmp_path) == []


# ---- strict JSON ----------------------------------------------------------------------------
def _strict(text: str) -> object:
    def refuse(token: str) -> None:
        raise AssertionError(f"non-standard JSON token {token}")

    return json.loads(text, parse_constant=refuse)


def test_manifests_and_records_are_strict_json(box):
    _strict((box / "run" / "manifest.json").read_text())
    res = CliRunner().invoke(main, ["replay", "--seed", "1", "--players", "2",
                                    "--json", "game.json"])
    assert res.exit_code == 0
    _strict((box / "game.json").read_text())


def test_a_nan_is_refused_by_the_json_writer_and_nothing_is_left(tmp_path):
    with pytest.raises(OutputError, match="not a finite number"):
        fileio.write_json(tmp_path / "m.json", {"x": [1.0, float("nan")]})
    with pytest.raises(OutputError, match="m.json"):
        fileio.write_json(tmp_path / "m.json", {"x": float("inf")})
    assert list(tmp_path.iterdir()) == []
