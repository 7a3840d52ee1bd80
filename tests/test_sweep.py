"""Sweep experiments: every point checked before any game, progress naming the point and
the step, and a response figure per headline measure from each point's own games."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pandas as pd
import pytest
from click.testing import CliRunner

from bonfire_sim.analysis.cards.probes import fork_cache_dir, run_identity
from bonfire_sim.analysis.intervals import clustered_wilson
from bonfire_sim.cli.main import main
from bonfire_sim.pipelines.experiment import plan_experiment
from bonfire_sim.sim.runconfig import RunConfig

# The Y14 x players sweep of experiments/y14_sweep.toml at a size a test can afford.
TINY = """[run]
games = 12
players = [2, 4]
seat_rotation = true
chunk_size = 4
seed = 5
out = "runs/y14"
[overrides]
task_points = {{ Y14 = [5, 7] }}
[report]
out = "y14.html"
{report}
"""
POINTS = {(2, 5), (2, 7), (4, 5), (4, 7)}


def _write(folder: Path, text: str, name: str = "e.toml") -> Path:
    f = folder / name
    f.write_text(text)
    return f


def test_a_y14_by_players_sweep_reports_each_measure_per_point_never_pooled(
        tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    _write(tmp_path, TINY.format(report="probe_games = 8"))
    res = CliRunner().invoke(main, ["experiment", "e.toml"])
    assert res.exit_code == 0, res.output
    for step in ("point 1/4 (players=2,task_points.Y14=5): games",
                 "point 4/4 (players=4,task_points.Y14=7): games",
                 "point 3/4 (players=4,task_points.Y14=5): forks (Y14)",
                 "sweep: figures"):
        assert step in res.stderr
    top = tmp_path / "runs" / "y14"
    resp = pd.read_csv(top / "response.csv")
    assert set(resp["measure"]) == {"start_advantage", "winning_score", "surplus:Y14"}
    for _, m in resp.groupby("measure"):
        pairs = list(zip(m["players"], m["task_points.Y14"], strict=True))
        assert len(pairs) == len(set(pairs)) and set(pairs) == POINTS  # one per point
    # Each value is its own point's: recomputed here from that run's players table alone.
    for (n, v), row in resp[resp["measure"] == "start_advantage"].groupby(
            ["players", "task_points.Y14"]):
        point = top / f"players={n},task_points.Y14={v}"
        p = pd.read_parquet(point / "players.parquet")
        deal = pd.read_parquet(point / "games.parquet").set_index("game_id")["deal"]
        seat0 = p[p["seat"] == 0]
        winners = p.groupby("game_id")["won"].transform("sum")
        shares = seat0["won"] / winners[seat0.index].clip(lower=1)
        # the seat rotations of a deal share its cards: Wilson clustered by deal
        # (docs/howto/sweep.md), here from the games table's deal of each game
        share, lo, hi = clustered_wilson(shares.to_numpy(float),
                                         deal.reindex(seat0["game_id"]).to_numpy())
        assert deal.reindex(seat0["game_id"]).nunique() < len(seat0)  # deals are shared
        assert row["value"].item() == pytest.approx(share - 1 / n)
        assert row["lo"].item() == pytest.approx(lo - 1 / n)
        assert row["hi"].item() == pytest.approx(hi - 1 / n)
        assert row["n"].item() == len(seat0) == 12
    # [report] probe_games reached the forks: 8 of the 12 games probed at each point, and
    # each surplus is the card surplus (card_table) of that point's own light and forced
    # forks of the yellow tasks (Y14's colour: its reference).
    from bonfire_sim.analysis.cards.table import card_table, printed_points

    yellow = {f"Y{i}" for i in range(1, 23)}
    surplus = resp[resp["measure"] == "surplus:Y14"].set_index(["players", "task_points.Y14"])
    for n, v in POINTS:
        # the fork cache lives in the user cache directory, keyed by the run's identity
        ident = run_identity(top / f"players={n},task_points.Y14={v}")
        metas = [m for m in fork_cache_dir().glob("probes-*.json")
                 if json.loads(m.read_text())["run"] == json.loads(json.dumps(ident))]
        # (an earlier test session may have cached this run under other probe settings)
        meta = next(m for m in metas if json.loads(m.read_text())["games"] == 8
                    and json.loads(m.read_text())["settings"]["kinds"] == ["light", "forced"])
        forks = pd.read_parquet(meta.with_suffix(".parquet"))
        assert set(forks["item"]) <= yellow and set(forks["kind"]) <= {"light", "forced"}
        assert surplus.loc[(n, v), "n"] == (forks["item"] == "Y14").sum()
        printed = printed_points(RunConfig(games=4, players=n,
                                           overrides={"task_points": {"Y14": v}}))
        tab = card_table(forks.assign(cluster=forks["deal"].astype(str)), {n: printed})
        assert surplus.loc[(n, v), "value"] == pytest.approx(
            tab.set_index("card").loc["Y14", "surplus"], nan_ok=True)
    assert (surplus["n"] > 0).sum() >= 2  # this seed forks Y14 at several points
    page = (tmp_path / "y14.html").read_text()
    assert page.count("data:image/png;base64,") == 3  # one response figure per measure
    assert "surplus" in page and "task_points.Y14" in page
    # Again, quietly: the runs are reused, nothing is printed, the page is rebuilt.
    mtime = (top / "players=4,task_points.Y14=7" / "games.parquet").stat().st_mtime_ns
    quiet = CliRunner().invoke(main, ["experiment", "e.toml", "--quiet"])
    assert quiet.exit_code == 0 and quiet.stderr == ""
    assert (top / "players=4,task_points.Y14=7" / "games.parquet").stat().st_mtime_ns == mtime


def _refuse_play(*args, **kwargs):
    raise AssertionError("a game or fork ran before the experiment was checked")


@pytest.mark.parametrize("change, message", [
    (("games = 12", "games = 14"),  # fine at 2 players, not at 4
     "point players=4,task_points.Y14=5.*games must be a multiple of 4"),
    (("Y14 = [5, 7]", "Y14 = [5, 7000]"), "overrides.task_points.Y14 must be 0..1000, got 7000"),
    (("seat_rotation = true", 'seat_rotation = true\nstrategies = ["greedy", "planner"]'),
     "point players=4,task_points.Y14=5.*2 strategies for 4 seats"),
    (("Y14 = [5, 7]", "Y14 = [5, 5]"), "holds the point players=2,task_points.Y14=5 twice"),
    (("players = [2, 4]", "players = [2, 5]"), "run.players\\[1\\] must be 1..4"),
    (("players = [2, 4]", "players = []"), "run.players: a sweep needs at least one value"),
    (('out = "y14.html"', 'out = "y14.html"\nruns = ["runs/other"]'),
     "\\[report\\] runs cannot join a sweep"),
    (('out = "y14.html"', 'out = "adir"'), "cannot write adir: it is a directory"),
    (("[report]", "[report]\nprobe_games = 0"), "probe_games must be 1..10000000"),
    (("[report]", "[report]\njobs = 0"), "jobs must be 1..256 or -1"),
    (("Y14 = [5, 7] }", "Y14 = [5, 7] }\nspecialist_points = { S5 = [1, 2] }"),
     "overrides.specialist_points: unknown key 'S5'; valid: S4, S18"),
    (("Y14 = [5, 7] }", "Y14 = [5, 7] }\nspecialist_ability = { S23 = [0, 28] }"),
     "specialist_ability.S23 must be 0..27, got 28"),
])
def test_a_bad_point_or_output_is_refused_before_any_game(tmp_path, monkeypatch, change,
                                                          message):
    import bonfire_sim.analysis.cards.probes as P
    import bonfire_sim.sim.runner as R

    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(R, "run", _refuse_play)
    monkeypatch.setattr(P, "probe_values", _refuse_play)
    (tmp_path / "adir").mkdir()
    _write(tmp_path, TINY.format(report="").replace(*change))
    res = CliRunner().invoke(main, ["experiment", "e.toml"])
    assert res.exit_code == 2, res.output
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: ")
    assert re.search(message, lines[0]), lines[0]
    assert not (tmp_path / "runs").exists()  # nothing created for any point


def test_a_gnome_knob_and_an_ability_switch_are_sweep_axes(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    f = _write(tmp_path, TINY.format(report="").replace(
        "task_points = { Y14 = [5, 7] }",
        "specialist_points = { S4 = [1, 3] }\nspecialist_ability = { S23 = [23, 0] }"))
    plan = plan_experiment(f)
    assert plan.axes == ("players", "specialist_points.S4", "specialist_ability.S23")
    assert len(plan.points) == 8
    overrides = [dict(p.config.overrides) for p in plan.points]
    assert {"specialist_points": {"S4": 3}, "specialist_ability": {"S23": 0}} in overrides


def test_checking_a_whole_sweep_plays_no_game_and_writes_nothing(tmp_path, monkeypatch):
    # The check runs before any game (so a bad point refuses the sweep at once); it was
    # a wall-clock bound (< 0.5 s) that failed on a loaded machine: what it guards is
    # that nothing is played or written, which does not depend on the machine.
    from bonfire_sim.sim import runner

    monkeypatch.chdir(tmp_path)  # an experiment file's paths stay inside this folder
    f = _write(tmp_path, TINY.format(report="").replace('"runs/y14"', '"r"')
               .replace("Y14 = [5, 7]", "Y14 = [3, 4, 5, 6, 7]"))

    def no_game(*_a, **_k):
        raise AssertionError("the check played a game")

    monkeypatch.setattr(runner, "play_chunks", no_game)
    monkeypatch.setattr(runner, "run", no_game)
    before = sorted(p.name for p in tmp_path.rglob("*"))
    plan = plan_experiment(f)
    assert len(plan.points) == 10 and plan.axes == ("players", "task_points.Y14")
    assert sorted(p.name for p in tmp_path.rglob("*")) == before


def test_report_probe_games_and_jobs_come_from_the_file_and_the_cli_overrides(tmp_path):
    f = _write(tmp_path, "[run]\ngames = 8\nplayers = 2\njobs = 1\nout = 'r'\n"
                         "[report]\nprobe_games = 7\njobs = 2\n")
    plan = plan_experiment(f)
    assert (plan.probe_games, plan.report_jobs, plan.run_jobs) == (7, 2, 1)
    plan = plan_experiment(f, probe_games=3, jobs=1)
    assert (plan.probe_games, plan.report_jobs, plan.run_jobs) == (3, 1, 1)
    bare = _write(tmp_path, "[run]\ngames = 8\nplayers = 2\njobs = 2\nout = 'r'\n", "b.toml")
    plan = plan_experiment(bare)
    assert (plan.probe_games, plan.report_jobs, plan.run_jobs) == (2000, 2, 2)


def test_the_cli_passes_probe_games_and_jobs_to_the_report(tmp_path, monkeypatch):
    import bonfire_sim.report.build as B
    import bonfire_sim.sim.runner as R

    seen = {}

    def fake_run(config, out, **kw):
        seen["run_jobs"] = kw["jobs"]
        return Path(out)

    def fake_report(run_dirs, out, **kw):
        seen.update(probes=kw["probes"], jobs=kw["jobs"])
        return Path(out)

    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(R, "run", fake_run)
    monkeypatch.setattr(B, "build_report", fake_report)
    _write(tmp_path, "[run]\ngames = 8\nplayers = 2\nout = 'r'\n"
                     "[report]\nprobe_games = 7\njobs = 2\n")
    res = CliRunner().invoke(main, ["experiment", "e.toml", "--quiet"])
    assert res.exit_code == 0, res.output
    assert seen == {"run_jobs": 1, "probes": 7, "jobs": 2}
    res = CliRunner().invoke(main, ["experiment", "e.toml", "--probe-games", "5",
                                    "--jobs", "1", "--quiet"])
    assert res.exit_code == 0, res.output
    assert seen == {"run_jobs": 1, "probes": 5, "jobs": 1}


def test_the_example_sweep_file_is_a_real_study():
    root = Path(__file__).resolve().parents[1]
    plan = plan_experiment(root / "experiments" / "y14_sweep.toml", report=True)
    assert plan.axes == ("players", "task_points.Y14")
    assert {(p.config.players, p.values["task_points.Y14"]) for p in plan.points} >= POINTS
    assert min(p.config.games for p in plan.points) >= 4000 and plan.probe_games >= 1000


def test_a_players_only_sweep_draws_against_the_player_count_with_solo_against_tom(
        tmp_path, monkeypatch):
    from bonfire_sim.pipelines.experiment import run_experiment

    monkeypatch.chdir(tmp_path)
    f = _write(tmp_path, "[run]\ngames = 6\nplayers = [1, 2]\nchunk_size = 3\nseed = 2\n"
                         "out = 'runs/p'\n[report]\nout = 'p.html'\n")
    steps = []
    top, page = run_experiment(f, step=lambda d, t, u: steps.append(d) or (lambda a, b: None))
    assert steps == ["point 1/2 (players=1): games", "point 2/2 (players=2): games",
                     "sweep: figures"]  # no task swept: no forks
    resp = pd.read_csv(top / "response.csv")
    assert sorted(zip(resp["players"], resp["measure"], strict=True)) == [
        (1, "tom_win_rate"), (2, "start_advantage"), (2, "winning_score")]
    solo = pd.read_parquet(top / "players=1" / "players.parquet")
    human = solo[solo["strategy"] != "tom"]
    assert resp.loc[resp["measure"] == "tom_win_rate", "value"].item() == pytest.approx(
        human["won"].mean())
    text = page.read_text()
    assert text.count("data:image/png;base64,") == 3 and "against players" in text
    assert "No task&#39;s printed points are swept" in text


def test_the_start_advantage_is_the_seat_tables_seat_0_share(tmp_path):
    """One computation of seat 0's share (``values.seat_figures``): the sweep's start
    advantage is the seat table's seat 0 win share - 1/n, with its interval clustered by
    deal, on the same seat-rotated games (three starting seats a deal)."""
    from bonfire_sim.analysis.runs import as_runs
    from bonfire_sim.analysis.sweep import game_measures
    from bonfire_sim.analysis.values import seat_advantage
    from bonfire_sim.sim.runner import run

    out = run(RunConfig(games=30, players=3, seed=11, seat_rotation=True), tmp_path / "r")
    (r,) = as_runs([out])
    row = next(m for m in game_measures(r) if m["measure"] == "start_advantage")
    seat0 = seat_advantage([r]).set_index("seat").loc[0]
    assert row["n"] == seat0["n"] == 30
    assert row["value"] == pytest.approx(seat0["value"] - 1 / 3)
    assert (row["lo"], row["hi"]) == pytest.approx((seat0["lo"] - 1 / 3,
                                                    seat0["hi"] - 1 / 3))
    assert row["hi"] - row["lo"] > 0 and row["ref"] == 0.0
