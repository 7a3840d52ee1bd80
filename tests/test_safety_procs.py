"""Issue 21: worker processes die with their parent, and plug-ins fail cleanly.

Each parallel command is started with ``--jobs 2`` in its own session; once its loky
workers exist the command's own process (only) is SIGKILLed, and 5 s later none of its
descendants may be alive.  Plug-in failures (import, constructor, move, ``SystemExit``,
a move past ``--move-timeout``) must each end in one ``Error:`` line and exit 2, with the
run left incomplete so that ``--resume`` can finish it once the plug-in is fixed.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
LINUX = Path("/proc/self/stat").exists()
DEATH_S = 5.0
START_S = 240.0  # the parent compiles before it starts workers; the machine may be busy


# ---- processes ------------------------------------------------------------------------------
def _stat(pid: int) -> tuple[str, int] | None:
    """(state, parent pid) of a process, None if it is gone."""
    try:
        fields = (Path("/proc") / str(pid) / "stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None
    return fields[0], int(fields[1])


def _cmdline(pid: int) -> str:
    try:
        return (Path("/proc") / str(pid) / "cmdline").read_bytes().replace(b"\0", b" ").decode()
    except OSError:
        return ""


def _descendants(root: int) -> set[int]:
    """Every live process below ``root`` (by walking /proc's parent links)."""
    parent = {}
    for d in Path("/proc").iterdir():
        if d.name.isdigit():
            st = _stat(int(d.name))
            if st is not None and st[0] != "Z":
                parent[int(d.name)] = st[1]
    out: set[int] = set()
    frontier = {root}
    while frontier:
        frontier = {p for p, pp in parent.items() if pp in frontier and p not in out}
        out |= frontier
    return out


def _alive(pid: int, cmd: str) -> bool:
    st = _stat(pid)
    return st is not None and st[0] != "Z" and _cmdline(pid) == cmd  # not a reused pid


def _env(*extra_path: Path) -> dict[str, str]:
    path = os.pathsep.join([str(ROOT), *map(str, extra_path)])
    return {**os.environ, "PYTHONPATH": path, "NUMBA_NUM_THREADS": "1"}


def _cli(*args: str) -> list[str]:
    return [sys.executable, "-m", "bonfire_sim", *args]


def _kill_leaves_no_worker(cmd: list[str], cwd: Path, workers: int = 2) -> None:
    """Start ``cmd``, wait for ``workers`` loky workers below it, SIGKILL it alone and
    assert that nothing it started outlives it by ``DEATH_S`` seconds."""
    proc = subprocess.Popen(cmd, cwd=cwd, env=_env(), start_new_session=True,
                            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE)
    tracked: dict[int, str] = {}
    try:
        deadline = time.monotonic() + START_S
        while time.monotonic() < deadline and proc.poll() is None:
            below = _descendants(proc.pid)
            if sum("loky" in _cmdline(p) and "resource_tracker" not in _cmdline(p)
                   for p in below) >= workers:
                break
            time.sleep(0.1)
        assert proc.poll() is None, (f"{cmd[3]} ended before its workers were seen: "
                                     f"{proc.stderr.read().decode()[-2000:]}")
        below = _descendants(proc.pid)
        tracked = {p: _cmdline(p) for p in below}
        assert len(tracked) >= workers, f"{cmd[3]} started no worker processes"
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        time.sleep(DEATH_S)
        left = {p: c for p, c in tracked.items() if _alive(p, c)}
        assert not left, f"{cmd[3]}: still alive {DEATH_S} s after SIGKILL: {left}"
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        for p, c in tracked.items():  # never leave our own test's processes behind
            if _alive(p, c):
                os.kill(p, signal.SIGKILL)
        proc.stderr.close()


def _experiment(path: Path, out: Path, games: int = 20000, chunk: int = 20,
                strategies: str = '["random"]', extra: str = "",
                cwd: Path | None = None) -> Path:
    # an experiment file's paths are relative to (and inside) the folder it is run from
    rel = os.path.relpath(out, cwd or path.parent)
    path.write_text(f"[run]\ngames = {games}\nplayers = 2\nstrategies = {strategies}\n"
                    f"seed = 7\nchunk_size = {chunk}\nout = \"{rel}\"\n{extra}\n")
    return path


# ---- every parallel command's workers die with it --------------------------------------------
needs_proc = pytest.mark.skipif(not LINUX, reason="walks Linux /proc")


@needs_proc
def test_run_workers_die_with_a_killed_parent(tmp_path):
    _kill_leaves_no_worker(_cli("run", "--games", "20000", "--players", "2", "--strategies",
                                "random", "--chunk-size", "20", "--jobs", "2", "--out",
                                str(tmp_path / "run"), "-q"), tmp_path)


@needs_proc
def test_report_fork_workers_die_with_a_killed_parent(tmp_path):
    from bonfire_sim.sim.runconfig import RunConfig
    from bonfire_sim.sim.runner import run

    run(RunConfig(games=400, players=2, strategies=("greedy",), chunk_size=100, seed=3),
        tmp_path / "run")
    _kill_leaves_no_worker(_cli("report", str(tmp_path / "run"), "--out",
                                str(tmp_path / "page.html"), "--probe-games", "400",
                                "--jobs", "2", "-q"), tmp_path)


@needs_proc
def test_tune_workers_die_with_a_killed_parent(tmp_path):
    _kill_leaves_no_worker(_cli("tune", "--field", "portal,planner", "--generations", "50",
                                "--jobs", "2", "--out", str(tmp_path / "study"), "-q"),
                           tmp_path)


@needs_proc
def test_ladder_workers_die_with_a_killed_parent(tmp_path):
    _kill_leaves_no_worker(_cli("ladder", "--players", "2", "--games", "400", "--strategies",
                                "greedy,portal,planner", "--jobs", "2", "-q"), tmp_path)


@needs_proc
def test_sequential_workers_die_with_a_killed_parent(tmp_path):
    a = _experiment(tmp_path / "a.toml", tmp_path / "a", games=200000, chunk=200,
                    strategies='["greedy", "portal"]')
    b = _experiment(tmp_path / "b.toml", tmp_path / "b", games=200000, chunk=200,
                    strategies='["greedy", "portal"]',
                    extra="[overrides]\nportal_points = 7")
    # A tiny H1 keeps the test undecided for thousands of deals.
    _kill_leaves_no_worker(_cli("sequential", str(a), str(b), "--h1", "0.01", "--jobs", "2",
                                "-q"), tmp_path)


@needs_proc
def test_sensitivity_workers_die_with_a_killed_parent(tmp_path):
    _kill_leaves_no_worker(_cli("sensitivity", "--games", "4000", "--solo-games", "200",
                                "--jobs", "2", "--work", str(tmp_path / "work"), "-q"),
                           tmp_path)


@needs_proc
def test_experiment_workers_die_with_a_killed_parent(tmp_path):
    exp = _experiment(tmp_path / "e.toml", tmp_path / "e")
    _kill_leaves_no_worker(_cli("experiment", str(exp), "--jobs", "2", "--no-report", "-q"),
                           tmp_path)


# ---- plug-ins fail cleanly ------------------------------------------------------------------
PLUGINS = '''
import os, time

class Good:
    def choose(self, view, moves):
        return 0

class BadInit:
    def __init__(self):
        raise ValueError("no settings file")

    def choose(self, view, moves):
        return 0

class FailsOnCall:
    """Raises on its Nth decision (N from the environment, default 3)."""
    def __init__(self):
        self.calls = 0

    def choose(self, view, moves):
        self.calls += 1
        if self.calls == int(os.environ.get("BONFIRE_TEST_FAIL_AT", "3")):
            raise ZeroDivisionError("planned failure")
        return 0

class Exits:
    def choose(self, view, moves):
        raise SystemExit(0)

class Interrupts:
    def choose(self, view, moves):
        raise KeyboardInterrupt

class Illegal:
    def choose(self, view, moves):
        return len(moves)

class Sleeps:
    def choose(self, view, moves):
        time.sleep(60)
        return 0
'''


def _plugin_dir(tmp_path: Path) -> Path:
    """A folder outside the project holding the test plug-ins (named on PYTHONPATH,
    never found through the current folder)."""
    d = tmp_path / "plugins"
    d.mkdir()
    (d / "bonfire_test_bots.py").write_text(PLUGINS)
    (d / "bonfire_test_broken.py").write_text("raise RuntimeError('broken at import')\n")
    return d


def _run_cli(args: list[str], tmp_path: Path, plugins: Path,
             timeout: float = 240) -> subprocess.CompletedProcess[str]:
    work = tmp_path / "cwd"  # an empty working folder: nothing importable from it
    work.mkdir(exist_ok=True)
    return subprocess.run(_cli(*args), cwd=work, env=_env(plugins), capture_output=True,
                          text=True, timeout=timeout)


def _one_error_line(res: subprocess.CompletedProcess[str]) -> str:
    assert res.returncode == 2, (res.returncode, res.stderr[-2000:])
    lines = [line for line in res.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("Error: "), res.stderr[-2000:]
    assert "Traceback" not in res.stderr + res.stdout
    return lines[0]


def _manifest(run_dir: Path) -> dict | None:
    path = run_dir / "manifest.json"
    return json.loads(path.read_text()) if path.exists() else None


@pytest.mark.parametrize("spec, jobs, extra, expected", [
    ("bonfire_test_broken:Bot", 1, [],
     r"seat 0: plug-in 'bonfire_test_broken:Bot' failed to import, before its first move: "
     r"RuntimeError: broken at import"),
    ("bonfire_test_bots:BadInit", 1, [],
     r"seat 0: plug-in 'bonfire_test_bots:BadInit' failed to construct BadInit\(\), before "
     r"its first move: ValueError: no settings file"),
    ("bonfire_test_bots:FailsOnCall", 1, [],
     r"plug-in 'bonfire_test_bots:FailsOnCall' \(FailsOnCall.choose\) failed at seat 0, "
     r"game 0, turn \d+, phase \w+, \d+ legal moves: ZeroDivisionError: planned failure"),
    ("bonfire_test_bots:FailsOnCall", 2, [],
     r"plug-in 'bonfire_test_bots:FailsOnCall' \(FailsOnCall.choose\) failed at seat 0, "
     r"game \d+, turn \d+, .*ZeroDivisionError: planned failure"),
    ("bonfire_test_bots:Exits", 1, [],
     r"plug-in 'bonfire_test_bots:Exits' \(Exits.choose\) failed at seat 0, game 0, turn "
     r"\d+, .*SystemExit: 0"),
    ("bonfire_test_bots:Interrupts", 2, [],
     r"plug-in 'bonfire_test_bots:Interrupts' .* failed at seat 0, game \d+, turn \d+, .*"
     r"KeyboardInterrupt"),
    ("bonfire_test_bots:Illegal", 1, [],
     r"plug-in 'bonfire_test_bots:Illegal' .* returned \d+ at seat 0, game 0, turn \d+"),
    ("bonfire_test_bots:Sleeps", 2, ["--move-timeout", "0.5"],
     r"plug-in 'bonfire_test_bots:Sleeps' \(Sleeps.choose\) took longer than the move time "
     r"limit of 0.5 s at seat 0, game \d+, turn \d+"),
])
def test_a_failing_plugin_stops_the_run_with_one_line_and_leaves_it_resumable(
        tmp_path, spec, jobs, extra, expected):
    plugins = _plugin_dir(tmp_path)
    out = tmp_path / "run"
    started = time.monotonic()
    res = _run_cli(["run", "--games", "20", "--players", "2", "--strategies",
                    f"{spec},random", "--chunk-size", "5", "--jobs", str(jobs), "--out",
                    str(out), "-q", *extra], tmp_path, plugins)
    line = _one_error_line(res)
    assert re.search(expected, line), line
    assert time.monotonic() - started < 120  # a sleeping plug-in did not run for its 60 s
    manifest = _manifest(out)
    assert manifest is None or not manifest["complete"]
    if manifest is not None:  # fixed plug-in, same spec: --resume finishes the run
        bots = plugins / "bonfire_test_bots.py"
        bots.write_text(bots.read_text() + f"\n{spec.split(':')[1]} = Good\n")
        res = _run_cli(["run", "--games", "20", "--players", "2", "--strategies",
                        f"{spec},random", "--chunk-size", "5", "--out", str(out), "--resume",
                        "-q"], tmp_path, plugins)
        assert res.returncode == 0, res.stderr[-2000:]
        assert _manifest(out)["complete"]


def test_a_ladder_plugin_past_the_move_time_limit_is_one_line(tmp_path):
    res = _run_cli(["ladder", "--players", "2", "--games", "2", "--strategies",
                    "bonfire_test_bots:Sleeps,random", "--move-timeout", "0.3", "--jobs", "2"],
                   tmp_path, _plugin_dir(tmp_path))
    line = _one_error_line(res)
    assert re.search(r"plug-in 'bonfire_test_bots:Sleeps' .* took longer than the move time "
                     r"limit of 0.3 s at seat \d, seed \d+, turn \d+", line), line


_LEAKS_A_SEMAPHORE = (
    "from joblib.externals.loky.backend import resource_tracker as t\n"
    "t.register('/bonfire-test-never-created', 'semlock')\n")  # exits without unregistering


@pytest.mark.parametrize("quiet", [False, True])
def test_the_resource_trackers_cleanup_lines_stay_off_stderr_once_a_pool_is_made(quiet):
    # CI saw loky's tracker append two warnings after the ladder's one-line error (a worker
    # stopped mid-task leaves a semaphore for the tracker to unlink); the pool now names
    # the tracker's warnings in the environment it passes on.  The unquiet case proves
    # the leak still speaks, so the quiet case is not silent by accident.
    from bonfire_sim.infra import workers
    env = {k: v for k, v in os.environ.items() if k != "PYTHONWARNINGS"}
    if quiet:
        saved = os.environ.pop("PYTHONWARNINGS", None)
        try:
            workers._quiet_resource_tracker()
            env["PYTHONWARNINGS"] = os.environ["PYTHONWARNINGS"]
        finally:
            os.environ.pop("PYTHONWARNINGS")
            if saved is not None:
                os.environ["PYTHONWARNINGS"] = saved
    res = subprocess.run([sys.executable, "-c", _LEAKS_A_SEMAPHORE], env=env,
                         capture_output=True, text=True, timeout=60)
    assert res.returncode == 0, res.stderr
    # the tracker holds the inherited stderr until it has cleaned up, so run() sees its lines
    assert ("leaked semlock" in res.stderr) is not quiet, res.stderr


def test_the_move_time_limit_comes_from_an_experiment_file_and_is_checked(tmp_path):
    plugins = _plugin_dir(tmp_path)
    work = tmp_path / "cwd"
    work.mkdir(exist_ok=True)
    exp = _experiment(tmp_path / "e.toml", work / "e", games=4, chunk=2,
                      strategies='["bonfire_test_bots:Sleeps", "random"]',
                      extra="move_timeout = 0.4", cwd=work)
    line = _one_error_line(_run_cli(["experiment", str(exp), "--no-report", "-q"], tmp_path,
                                    plugins))
    assert "took longer than the move time limit of 0.4 s" in line
    for bad in ("nan", "0", "-1", "inf"):
        line = _one_error_line(_run_cli(["run", "--games", "2", "--players", "2",
                                         "--strategies", "bonfire_test_bots:Good,random",
                                         "--move-timeout", bad, "--out",
                                         str(tmp_path / f"r{bad}"), "-q"], tmp_path, plugins))
        assert "move_timeout" in line
        assert not (tmp_path / f"r{bad}").exists()


def test_sequential_takes_the_move_time_limit_from_its_experiment_files(tmp_path):
    plugins = _plugin_dir(tmp_path)
    spec = '["bonfire_test_bots:Sleeps", "random"]'
    work = tmp_path / "cwd"
    work.mkdir(exist_ok=True)
    # 100 games: the least budget sequential accepts; the first move already times out
    a = _experiment(tmp_path / "a.toml", work / "a", games=100, chunk=2, strategies=spec,
                    extra="move_timeout = 0.3", cwd=work)
    b = _experiment(tmp_path / "b.toml", work / "b", games=100, chunk=2, strategies=spec,
                    extra="[overrides]\nportal_points = 7", cwd=work)
    line = _one_error_line(_run_cli(["sequential", str(a), str(b), "--jobs", "2", "-q"],
                                    tmp_path, plugins))
    assert re.search(r"'bonfire_test_bots:Sleeps' .* took longer than the move time limit of "
                     r"0.3 s at seat 0, game \d+, turn \d+", line), line


def test_the_move_clock_beats_a_plugin_that_catches_everything_and_restores_sigalrm():
    from bonfire_sim.errors import PluginError
    from bonfire_sim.sim.pyloop import play_mixed

    class Stubborn:  # swallows every Exception: the limit must still stop it
        def choose(self, view, moves):
            for _ in range(200):
                try:
                    time.sleep(0.05)
                except Exception:
                    pass
            return 0

    previous = signal.getsignal(signal.SIGALRM)
    started = time.monotonic()
    with pytest.raises(PluginError, match=r"Stubborn.choose took longer than the move time "
                                          r"limit of 0.2 s at seat 1, seed 3, turn"):
        play_mixed(3, 2, ["random", Stubborn()], move_timeout=0.2)
    assert time.monotonic() - started < 5
    assert signal.getsignal(signal.SIGALRM) is previous
    assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)


def test_a_plugin_error_crosses_the_process_boundary_as_its_one_line():
    import pickle

    from bonfire_sim.errors import PluginError
    from bonfire_sim.sim.pyloop import play_mixed

    class Exits:
        def choose(self, view, moves):
            raise SystemExit(0)

    with pytest.raises(PluginError) as caught:
        play_mixed(1, 2, [Exits(), "random"])
    again = pickle.loads(pickle.dumps(caught.value))
    assert type(again) is PluginError and str(again) == str(caught.value)
    assert "SystemExit: 0" in str(again) and "\n" not in str(again)


def test_a_plugin_that_ends_its_worker_process_is_one_line(tmp_path):
    plugins = _plugin_dir(tmp_path)
    (plugins / "bonfire_test_exit.py").write_text(
        "import os\n\nclass Dies:\n    def choose(self, view, moves):\n        os._exit(7)\n")
    out = tmp_path / "run"
    line = _one_error_line(_run_cli(["run", "--games", "20", "--players", "2", "--strategies",
                                     "bonfire_test_exit:Dies,random", "--chunk-size", "5",
                                     "--jobs", "2", "--out", str(out), "-q"],
                                    tmp_path, plugins))
    assert re.search(r"a worker process ended unexpectedly \(exit codes \{EXIT\(7\)"
                     r"(, EXIT\(7\))?\}\)", line), line
    assert not _manifest(out)["complete"]
