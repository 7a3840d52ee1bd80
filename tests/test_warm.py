"""Compiling once: batch commands warm the cache in the parent before any worker starts,
say so once, and ``replay`` needs no compiling at all on a cold cache."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from bonfire_sim.cli.main import main
from bonfire_sim.sim import runner, warm
from bonfire_sim.sim.narrate import narrate
from bonfire_sim.sim.play import play
from bonfire_sim.studies.ladder import play_ladder

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def cold(tmp_path, monkeypatch):
    """A cold cache in tmp_path whose 'compile' only records that it ran."""
    calls: list[str] = []
    monkeypatch.setattr(warm, "cache_dir", lambda: tmp_path / "cache")
    monkeypatch.setattr(warm, "jit_disabled", lambda: False)
    monkeypatch.setattr(warm, "compile_kernels", lambda step=None: calls.append("compile"))
    return calls


def test_ensure_warm_compiles_once_and_says_so_once(cold):
    said: list[str] = []
    assert not warm.is_warm()
    warm.ensure_warm(said.append)
    assert warm.is_warm()
    warm.ensure_warm(said.append)
    assert cold == ["compile"]
    assert len(said) == 2
    assert said[0].startswith("compiling the engine") and "minutes" in said[0]
    assert said[1].startswith("compiled in")


def test_the_runner_warms_in_the_parent_before_starting_workers(cold, tmp_path, monkeypatch):
    order: list[str] = []
    real_execute = runner.play_chunks

    def execute(jobs, n_jobs):
        order.append(f"workers:{n_jobs}")
        yield from real_execute(jobs, 1)

    monkeypatch.setattr(runner, "play_chunks", execute)
    monkeypatch.setattr(warm, "compile_kernels", lambda step=None: order.append("compile"))
    cfg = runner.RunConfig(games=4, players=2, strategies=("random",), chunk_size=2)
    runner.run(cfg, tmp_path / "run", jobs=2)
    assert order == ["compile", "workers:2"]


def test_a_cold_batch_command_says_compiling_once_on_stderr(cold, tmp_path):
    result = CliRunner().invoke(main, ["run", "--games", "4", "--players", "2",
                                       "--strategies", "random", "--chunk-size", "2",
                                       "--out", str(tmp_path / "r")])
    assert result.exit_code == 0, result.output
    assert result.stderr.count("compiling the engine") == 1
    assert "compiling" not in result.stdout
    again = CliRunner().invoke(main, ["run", "--games", "4", "--players", "2",
                                      "--strategies", "random", "--chunk-size", "2",
                                      "--out", str(tmp_path / "r2")])
    assert "compiling" not in again.stderr
    assert cold == ["compile"]


def test_quiet_silences_progress_and_the_compile_message(cold, tmp_path):
    result = CliRunner().invoke(main, ["run", "--games", "4", "--players", "2", "--quiet",
                                       "--strategies", "random", "--out", str(tmp_path / "r")])
    assert result.exit_code == 0, result.output
    assert result.stderr == ""


def test_ladder_results_do_not_depend_on_jobs():
    names = ["greedy", "random", "tempo"]
    one = play_ladder(names, 2, 3, seed=5, jobs=1)
    two = play_ladder(names, 2, 3, seed=5, jobs=2)
    assert one == two
    assert len(one) == 3 * 3 * 2  # deals x lineups x seatings


def test_replay_on_a_cold_cache_starts_at_once_without_compiling(tmp_path):
    env = {**os.environ, "BONFIRE_SIM_CACHE_DIR": str(tmp_path), "PYTHONPATH": str(ROOT)}
    env.pop("NUMBA_DISABLE_JIT", None)
    t0 = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "bonfire_sim", "replay", "--seed", "1",
                           "--players", "4", "--no-warm"], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=120)
    seconds = time.perf_counter() - t0
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0].startswith("Variants in force: ")  # replay names the assumptions first
    assert lines[1:] == narrate(play(1, 4))
    assert seconds < 30
    compiled = [p for p in tmp_path.rglob("*") if p.suffix in (".nbi", ".nbc")]
    assert compiled == []  # nothing was compiled (and --no-warm started no compile)


def test_a_cold_replay_starts_the_compile_in_the_background(cold, monkeypatch):
    started: list[list[str]] = []

    class FakePopen:
        def __init__(self, cmd, **kwargs):
            started.append(cmd)
            assert "NUMBA_DISABLE_JIT" not in kwargs["env"]

    monkeypatch.setattr(warm.subprocess, "Popen", FakePopen)
    monkeypatch.setattr(warm, "jit_disabled", lambda: True)  # as in a cold replay
    warm.warm_in_background()
    assert started == [[sys.executable, "-m", "bonfire_sim.sim.warm"]]
    (warm.cache_dir()).mkdir(parents=True, exist_ok=True)
    warm.mark()
    warm.warm_in_background()
    assert len(started) == 1  # warm already: nothing started


def test_a_second_process_waits_for_a_compile_in_progress_and_says_so(cold):
    import fcntl
    import threading

    lock = warm.cache_dir() / warm.LOCK
    lock.parent.mkdir(parents=True)
    said: list[str] = []
    result: list[float] = []
    with open(lock, "a") as held:  # "another process" is compiling
        fcntl.flock(held, fcntl.LOCK_EX)
        waiter = threading.Thread(target=lambda: result.append(warm.ensure_warm(said.append)))
        waiter.start()
        for _ in range(200):
            if said:
                break
            time.sleep(0.01)
        assert len(said) == 1 and said[0].startswith("waiting for the engine compile")
        warm.mark()  # it finishes
        fcntl.flock(held, fcntl.LOCK_UN)
        waiter.join(10)
    assert result == [0.0] and cold == [] and len(said) == 1
