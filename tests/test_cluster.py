"""Every parallel command on a dask cluster: the same results as loky, and one-line refusals.

One ``LocalCluster`` of two worker processes is shared by the whole module (starting one
costs seconds); every workload is a few games, so the file stays well under three minutes.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from bonfire_sim.cli.main import main
from bonfire_sim.errors import ConfigError, EngineMismatchError, PluginError, WorkerError
from bonfire_sim.infra import cluster as CL
from bonfire_sim.infra import workers
from bonfire_sim.sim.runconfig import RunConfig

distributed = pytest.importorskip("distributed")

CFG = RunConfig(games=8, players=2, chunk_size=2, seed=11, seat_rotation=True)


@pytest.fixture(scope="module")
def address():
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  host="127.0.0.1", dashboard_address=None) as c:
        yield c.scheduler_address


def _on_both(address, fn):
    """``fn()`` on loky (two local workers) and on the cluster."""
    with workers.using("loky"):
        loky = fn()
    with workers.using("dask", address):
        assert workers.on_cluster()
        dask = fn()
    assert not workers.on_cluster()
    return loky, dask


def _digest(run_dir: Path) -> list[str]:
    return [hashlib.sha256((run_dir / f"{t}.parquet").read_bytes()).hexdigest()
            for t in ("games", "players")]


def test_run_and_the_python_api_give_the_same_tables(address, tmp_path):
    import bonfire_sim
    from bonfire_sim.sim.runner import run

    loky, dask = _on_both(address, lambda: None)
    assert loky is dask is None
    a = run(CFG, tmp_path / "loky", jobs=2)
    b = run(CFG, tmp_path / "dask", jobs=2, backend="dask", scheduler=address)
    assert _digest(a) == _digest(b)
    one = bonfire_sim.run(games=4, players=2, seed=3, chunk_size=1, jobs=1)
    two = bonfire_sim.run(games=4, players=2, seed=3, chunk_size=1, jobs=1,
                          backend="dask", scheduler=address)
    assert one.players.equals(two.players)
    s1 = bonfire_sim.sweep({"task_points": {"Y14": [3, 6]}}, games=2, players=2,
                           chunk_size=1, jobs=2)
    s2 = bonfire_sim.sweep({"task_points": {"Y14": [3, 6]}}, games=2, players=2,
                           chunk_size=1, jobs=2, backend="dask", scheduler=address)
    assert all(x.players.equals(y.players) for x, y in zip(s1.runs, s2.runs, strict=True))


def test_report_forks_are_the_same_in_the_same_order(address):
    from bonfire_sim.analysis.cards.probes import ProbeSettings, probe_values

    settings = ProbeSettings(games=8, chunk_size=2)
    loky, dask = _on_both(address, lambda: probe_values(CFG, settings, jobs=2))
    assert len(loky) > 20 and loky.equals(dask)


def test_ladder_gives_the_same_games(address):
    from bonfire_sim.studies.ladder import play_ladder

    loky, dask = _on_both(address, lambda: play_ladder(("random", "greedy"), 2, 4, 7, jobs=2))
    assert len(loky) == 8 and loky == dask


def test_tune_gives_the_same_study(address, tmp_path):
    from bonfire_sim.studies.tune import TuneConfig, tune

    config = TuneConfig(generations=1, deals2=1, games4=1, popsize=3, seed=5)
    runs = iter(("loky", "dask"))
    loky, dask = _on_both(address, lambda: tune(config, tmp_path / next(runs), jobs=2))
    assert loky.games > 0 and loky.best == dask.best
    assert [h["best"] for h in loky.history] == [h["best"] for h in dask.history]


def test_sequential_gives_the_same_decision_and_trace(address):
    from bonfire_sim.analysis.sequential import sequential_compare

    # the smallest budget sequential accepts (MIN_DEALS deals of two rotated games)
    a = RunConfig(games=200, players=2, chunk_size=20, seed=11, seat_rotation=True)
    b = RunConfig(games=200, players=2, chunk_size=20, seed=11, seat_rotation=True,
                  overrides={"seat_points": [0, 4]})
    loky, dask = _on_both(address, lambda: sequential_compare(
        a, b, metric="score", seat=1, h1=1.0, budget=200, jobs=2))
    assert loky.games == dask.games and loky.trace.equals(dask.trace)
    assert (loky.decision, loky.llr) == (dask.decision, dask.llr)


def test_check_gives_the_same_verdicts(address, tmp_path):
    from bonfire_sim.analysis.check import load_checks, run_checks

    f = tmp_path / "c.toml"
    f.write_text('[[assert]]\nmeasure = "seat_score"\nplayers = 2\nseat = 1\n'
                 'overrides = { seat_points = [0, 4] }\nbaseline = {}\nmin = 3.5\nmax = 4.5\n'
                 'budget = 8\nchunk_size = 2\n')
    plan = load_checks(f)
    def results() -> list[dict]:
        rows = json.loads(run_checks(plan, jobs=2).to_json())["assertions"]
        return [{k: v for k, v in r.items() if k != "seconds"} for r in rows]

    loky, dask = _on_both(address, results)
    assert loky[0]["games"] == 8 and loky == dask


def test_solo_gives_the_same_scores(address):
    from bonfire_sim.analysis.solo import play_solo

    loky, dask = _on_both(address, lambda: play_solo("greedy", 6, 4, jobs=2, chunk_size=2))
    assert (loky.human == dask.human).all() and (loky.tom == dask.tom).all()


def test_sensitivity_gives_the_same_table(address, tmp_path):
    from bonfire_sim.pipelines import sensitivity as SE

    plan = SE.SensitivityPlan(games=4, solo_games=2, players=(1, 2), seed=9,
                              variants=SE.parse_arms(["fate_area=4x6"]))
    works = iter(("loky", "dask"))
    loky, dask = _on_both(address, lambda: SE.run_sensitivity(plan, tmp_path / next(works),
                                                              jobs=2)[0])
    assert len(loky) and loky.equals(dask)


def test_experiment_gives_the_same_runs_and_forks(address, tmp_path, monkeypatch):
    from bonfire_sim.analysis.cards import probes
    from bonfire_sim.pipelines.experiment import run_experiment

    monkeypatch.chdir(tmp_path)
    tops = []
    for backend in ("loky", "dask"):  # own runs and fork caches: nothing is reused
        f = tmp_path / f"{backend}.toml"
        f.write_text(f'[run]\ngames = 4\nplayers = 2\nchunk_size = 2\nseed = 5\n'
                     f'out = "runs/{backend}"\n[overrides]\ntask_points = {{ Y14 = [5, 7] }}\n'
                     f'[report]\nout = "{backend}.html"\nprobe_games = 4\n')
        monkeypatch.setattr(probes, "fork_cache_dir", lambda b=backend: tmp_path / f"c-{b}")
        with workers.using(backend, address if backend == "dask" else None):
            top, _ = run_experiment(f, jobs=2)
        tops.append((top / "response.csv").read_text())
    assert "surplus:Y14" in tops[0] and tops[0] == tops[1]
    assert (tmp_path / "c-dask").is_dir()


def test_the_cli_runs_on_the_cluster(address, tmp_path):
    args = ["ladder", "--players", "2", "--games", "2", "--strategies", "random,greedy",
            "--format", "csv", "--jobs", "2", "-q"]
    loky = CliRunner().invoke(main, args)
    dask = CliRunner().invoke(main, [*args, "--backend", "dask", "--scheduler", address])
    assert loky.exit_code == dask.exit_code == 0, dask.output
    assert loky.output == dask.output and "random" in dask.output


def test_reprice_and_coverage_give_the_same_output_on_the_cluster(address, tmp_path,
                                                                 monkeypatch):
    from bonfire_sim.analysis.cards import probes
    from bonfire_sim.sim.runner import run

    src = run(CFG, tmp_path / "run", jobs=1)
    outs = []
    for backend in ("loky", "dask"):  # own fork caches: the second reuses nothing
        monkeypatch.setattr(probes, "fork_cache_dir", lambda b=backend: tmp_path / f"c-{b}")
        (tmp_path / backend).mkdir()
        monkeypatch.chdir(tmp_path / backend)
        extra = ["--backend", "dask", "--scheduler", address] if backend == "dask" else []
        # one small top-up round: the survey's fresh forks go through the backend too
        rep = CliRunner().invoke(main, ["reprice", str(src), "--out", "r.toml", "--jobs",
                                        "2", "--max-games", "40", "--top-ups", "1", "-q",
                                        *extra])
        cov = CliRunner().invoke(main, ["coverage", "--games", "8", "--players", "2",
                                        "--seed", "4", "--jobs", "2", "-q", *extra])
        assert rep.exit_code == cov.exit_code == 0, rep.output + cov.output
        # coverage's first line names its temporary run directory
        outs.append((rep.output, Path("r.toml").read_text(), cov.output.split("\n", 1)[1]))
    assert outs[0] == outs[1] and "tasks the players ignited" in outs[0][2]
    assert (tmp_path / "c-dask").is_dir() and "65 tasks at 2 players" in outs[0][0]
    assert "1 top-up round(s)" in outs[0][0]


@pytest.mark.parametrize("command", ["run", "report", "compare", "ladder", "tune",
                                     "sequential", "check", "solo", "sensitivity",
                                     "experiment", "reprice", "coverage"])
def test_a_scheduler_without_the_dask_backend_is_refused_in_one_line(command, tmp_path):
    # --help would pass without running: give each command placeholders it parses, the
    # refusal comes before any of them is opened
    extra = {"report": ["x"], "compare": ["x", "y"], "sequential": ["a.toml", "b.toml"],
             "check": ["c.toml"], "experiment": ["e.toml"],
             "reprice": ["x", "--out", "o.toml"]}.get(command, [])
    res = CliRunner().invoke(main, [command, *extra, "--scheduler", "tcp://127.0.0.1:1"])
    assert res.exit_code == 2
    lines = res.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error:") and "--backend dask" in lines[0]


def test_the_python_api_refuses_a_scheduler_without_dask(tmp_path):
    import bonfire_sim

    with pytest.raises(ConfigError, match="needs the dask backend"):
        bonfire_sim.run(games=2, players=2, scheduler="tcp://127.0.0.1:1")
    with pytest.raises(ConfigError, match="backend must be one of loky, dask"):
        bonfire_sim.run(games=2, players=2, backend="ray")


# Run on the workers by ``client.run``: code as text (a function of this test module
# would be pickled by reference, and the workers cannot import the tests).
FAKE_ENGINE = ("import bonfire_sim.infra.cluster as c; "
               "c._FP[:] = ['{\"bonfire_sim\": \"0.0\", \"source_hash\": \"other\"}']")
REAL_ENGINE = "import bonfire_sim.infra.cluster as c; c._FP.clear()"


def test_a_worker_running_another_engine_is_refused_before_any_result(address, tmp_path):
    from bonfire_sim.analysis.cards.probes import ProbeSettings, probe_values

    with distributed.Client(address) as client:
        client.run(exec, FAKE_ENGINE)
        try:
            # at connection: every connected worker is asked
            with pytest.raises(EngineMismatchError, match="runs another engine") as e:
                with workers.using("dask", address):
                    pass
            assert "source_hash other ->" in str(e.value)
            # per task: a worker that turns up later is refused by the task itself
            session = CL.Session(client, address)
            pool = session.pool(2, return_as="generator")
            from joblib import delayed

            with pytest.raises(EngineMismatchError, match="dask worker tcp://"):
                list(pool(delayed(probe_values)(CFG, ProbeSettings(games=2)) for _ in "ab"))
            res = CliRunner().invoke(main, ["run", "--games", "4", "--players", "2",
                                            "--chunk-size", "2", "--out",
                                            str(tmp_path / "r"), "--backend", "dask",
                                            "--scheduler", address])
            assert res.exit_code == 2 and res.output.count("\n") == 1, res.output
            assert res.output.startswith("Error: dask worker") and "another engine" in res.output
            assert not (tmp_path / "r" / "games.parquet").exists()
        finally:
            client.run(exec, REAL_ENGINE)


def test_a_plugin_missing_on_the_workers_is_one_line(address, tmp_path, monkeypatch):
    """A plug-in importable here (on sys.path) but not on the workers."""
    from bonfire_sim.sim.runner import run

    (tmp_path / "only_here_bot.py").write_text(
        "class Bot:\n    def choose(self, view, moves):\n        return 0\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    cfg = RunConfig(games=2, players=2, chunk_size=1, strategies=("only_here_bot:Bot",))
    with pytest.raises(ConfigError, match=r"^dask worker tcp://\S+: plug-in 'only_here_bot:Bot'"
                                          r": module 'only_here_bot' not found") as e:
        run(cfg, tmp_path / "r", jobs=2, backend="dask", scheduler=address)
    assert "\n" not in str(e.value)
    # a task that carries a plug-in's object itself: the worker cannot even open it
    import only_here_bot
    from joblib import delayed

    with workers.using("dask", address):
        with pytest.raises(PluginError, match=r"^dask worker \S+ cannot import "
                                              r"'only_here_bot' \(a plug-in module\?\)"):
            workers.pool(1)([delayed(only_here_bot.Bot().choose)(None, [0])])


def test_losing_every_worker_gives_heartbeats_then_a_clear_error(monkeypatch, capsys):
    from joblib import delayed

    monkeypatch.setattr(CL, "HEARTBEAT_S", 0.3)
    monkeypatch.setattr(CL, "LOST_TIMEOUT_S", 1.0)
    with distributed.LocalCluster(n_workers=0, processes=True, host="127.0.0.1",
                                  dashboard_address=None) as empty:
        with workers.using("dask", empty.scheduler_address):
            with pytest.raises(WorkerError, match="no dask worker connected to tcp://"):
                workers.pool(2)(delayed(abs)(-i) for i in range(3))
    # the pool keeps --jobs (2) of the 3 tasks in flight
    beats = [ln for ln in capsys.readouterr().err.splitlines() if ln.startswith("dask:")]
    assert beats and "2 task(s) waiting" in beats[0] and "giving up in" in beats[0]


def test_jobs_bounds_the_tasks_in_flight(address):
    """``--jobs`` on dask: never more than ``n_jobs`` tasks submitted and unfinished."""
    from joblib import delayed

    with workers.using("dask", address):
        pool = workers.pool(2, return_as="generator")
        assert list(pool(delayed(abs)(-i) for i in range(6))) == list(range(6))
    assert pool.peak == 2


def test_dask_without_an_address_starts_a_local_cluster_for_the_command(tmp_path):
    import bonfire_sim

    one = bonfire_sim.run(games=4, players=2, seed=8, chunk_size=2, jobs=2)
    two = bonfire_sim.run(games=4, players=2, seed=8, chunk_size=2, jobs=2, backend="dask")
    assert one.players.equals(two.players) and not workers.on_cluster()
