"""``bonfire-sim check``: balance assertions decided by sequential tests, for CI."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from click.testing import CliRunner

from bonfire_sim.analysis import check as CK
from bonfire_sim.cli.main import main
from bonfire_sim.errors import ConfigError

CHECKS = Path(__file__).resolve().parents[1] / "experiments" / "checks"


def _strict(text: str) -> dict:
    """json.loads that refuses NaN and Infinity (strict JSON)."""
    def refuse(name: str) -> None:
        raise ValueError(f"non-standard JSON constant {name}")

    return json.loads(text, parse_constant=refuse)


def _write(tmp_path: Path, text: str) -> str:
    path = tmp_path / "check.toml"
    path.write_text(text)
    return str(path)


@pytest.mark.parametrize("name, code, verdicts", [
    ("holds", 0, ["holds", "holds", "holds"]),
    ("fails", 1, ["holds", "fails", "fails"]),
    ("undecided", 3, ["undecided"]),
])
def test_the_example_files_exit_0_1_and_3(name, code, verdicts):
    res = CliRunner().invoke(main, ["check", str(CHECKS / f"{name}.toml"), "--quiet"])
    assert res.exit_code == code, res.output
    lines = res.output.strip().splitlines()
    assert lines[0].split()[:2] == ["assertion", "measure"]
    rows = lines[2:-1]
    assert [r.split()[-1] for r in rows] == verdicts
    assert lines[-1].startswith({0: "pass", 1: "fail", 3: "undecided"}[code])


def test_json_output_is_strict_and_says_why_each_assertion_failed():
    res = CliRunner().invoke(main, ["check", str(CHECKS / "fails.toml"), "--json", "-q"])
    assert res.exit_code == 1, res.output
    doc = _strict(res.output)
    assert doc["format"] == "bonfire_sim-check" and doc["verdict"] == "fail"
    assert doc["exit_code"] == 1
    gnome, seat = doc["assertions"][1], doc["assertions"][2]
    assert gnome["verdict"] == "fails" and gnome["estimate"] > gnome["max"]
    assert [b["decision"] for b in gnome["bounds"]] == ["inside", "outside"]
    # One-sided: no upper bound, written as null (never Infinity).
    assert seat["max"] is None and seat["baseline"] is True
    assert seat["estimate"] < seat["min"] and seat["ci_hi"] < seat["min"]
    assert [b["bound"] for b in seat["bounds"]] == ["min"]


def _plan(tmp_path: Path, body: str) -> CK.CheckPlan:
    return CK.load_checks(_write(tmp_path, body))


def test_the_bounds_are_decided_on_the_right_side(tmp_path):
    """A seat's score moves by exactly its starting points (the players ignore the score),
    so B - A is exactly 4: inside 3.5..4.5, above 2..3, below 5..9."""
    base = """
[[assert]]
measure = "seat_score"
players = 2
seat = 1
overrides = { seat_points = [0, 4] }
baseline = {}
budget = 200
chunk_size = 100
"""
    verdicts = {}
    for lo, hi in ((3.5, 4.5), (2, 3), (5, 9)):
        plan = _plan(tmp_path, base + f"min = {lo}\nmax = {hi}\n")
        r = CK.run_assertion(plan.assertions[0])
        assert r.estimate == pytest.approx(4.0)
        verdicts[(lo, hi)] = (r.verdict, [b["decision"] for b in r.bounds])
    assert verdicts == {(3.5, 4.5): ("holds", ["inside", "inside"]),
                        (2, 3): ("fails", ["inside", "outside"]),
                        (5, 9): ("fails", ["outside", "inside"])}


def test_task_measures_come_from_the_public_task_values(tmp_path):
    """task_value and task_surplus read the same batches from ``analysis.values.
    task_values``: the lit value, and the surplus over the other tasks of its colour (the
    card value the report shows), each equal to task_values on the same batch run."""
    from dataclasses import replace

    import numpy as np

    from bonfire_sim.analysis.cards.probes import ProbeSettings
    from bonfire_sim.analysis.cards.views import task_values
    from bonfire_sim.sim.runner import run

    body = """
[[assert]]
measure = "{m}"
players = 2
task = "Y14"
overrides = {{ task_points = {{ Y14 = 6 }} }}
min = -50
max = 50
budget = 500
chunk_size = 100
seed = 5
"""
    value = CK.run_assertion(_plan(tmp_path, body.format(m="task_value")).assertions[0])
    surplus = CK.run_assertion(_plan(tmp_path, body.format(m="task_surplus")).assertions[0])
    assert value.observations == surplus.observations == 5
    assert value.verdict == "holds" and value.games == 500
    a = _plan(tmp_path, body.format(m="task_surplus")).assertions[0]
    direct = {"value": [], "surplus": []}
    yellow = tuple(f"Y{i}" for i in range(1, 23))
    for i in range(5):
        cfg = replace(a.config, games=100, chunk_size=100, seed=CK.batch_seed(5, i))
        r = run(cfg, tmp_path / f"d{i}")
        for k, tasks in (("value", ("Y14",)), ("surplus", yellow)):
            tv = task_values(r, probes=ProbeSettings(kinds=("light", "forced"),
                                                     tasks=tasks), measure="lit").set_index("task")
            assert tv.loc["Y14", "printed"] == 6
            direct[k].append(tv.loc["Y14", k])
    assert value.estimate == pytest.approx(np.mean(direct["value"]))
    assert surplus.estimate == pytest.approx(np.mean(direct["surplus"]))
    assert abs(value.estimate - surplus.estimate) > 0.01  # the colour mean, not 0


GOOD = """
[[assert]]
measure = "solo_win"
strategies = ["steady"]
min = 0.1
max = 0.2
budget = 100
"""


@pytest.mark.parametrize("bad, message", [
    ('measure = "seat_wins"\nplayers = 2\nmin = 0.1', "unknown measure 'seat_wins'"),
    ('measure = "seat_win"\nplayers = 2\nmax = inf', "finite number"),
    ('measure = "seat_win"\nplayers = 2\nmin = nan', "finite number"),
    ('measure = "seat_win"\nplayers = 2\nmin = 0.6\nmax = 0.4', "must be below max"),
    ('measure = "seat_win"\nplayers = 2\nmin = 0.4\nmax = 0.6\nresolution = 0.2',
     "at most half"),
    ('measure = "seat_win"\nplayers = 2', "give the interval"),
    ('measure = "seat_win"\nplayers = 2\ntarget = 0.5', "target and within go together"),
    ('measure = "seat_win"\nplayers = 2\nseat = 2\nmin = 0.1', "seat must be 0..1"),
    ('measure = "seat_win"\nplayers = 1\nmin = 0.1', "needs players among 2, 3, 4"),
    ('measure = "seat_win"\nplayers = 2\nstrategies = ["nobody"]\nmin = 0.1',
     "unknown strategy"),
    ('measure = "strategy_win"\nplayers = 2\nstrategy = "greedy"\nmin = 0.1',
     "does not play here"),
    ('measure = "task_surplus"\nplayers = 2\ntask = "Z99"\nmin = 0.1', "unknown task"),
    ('measure = "seat_win"\nplayers = 2\nmin = 0.1\nhandicap = 3', "unknown key 'handicap'"),
    ('measure = "seat_win"\nplayers = 2\nmin = 0.1\nbudget = 0', "budget"),
    ('measure = "seat_win"\nplayers = 2\nmin = 0.1\nalpha = 0.7', "alpha and beta"),
    ('measure = "seat_win"\nplayers = 2\nmin = 0.1\nvariants = { tom_deck = "x" }', "x"),
    ('measure = "seat_win"\nplayers = 2\nmin = 0.1\noverrides = { task_points = '
     '{ Y14 = [5, 7] } }', "Y14"),
    ('measure = "seat_win"\nplayers = 2\nmin = 0.1\noverrides = { specialist_points = '
     '{ S5 = 1 } }', "unknown key 'S5'; valid: S4, S18"),
    ('measure = "seat_win"\nplayers = 2\nmin = 0.1\noverrides = { elder_points = '
     '{ E1 = -1 } }', "elder_points.E1 must be 0..9"),
    ('measure = "seat_win"\nplayers = 2\nmin = 0.1\nbaseline = { games = 3 }',
     "unknown key 'games'"),
])
def test_a_bad_assertion_exits_2_in_one_line_before_any_game(tmp_path, monkeypatch, bad,
                                                             message):
    played = []
    monkeypatch.setattr(CK, "play_chunks", lambda *a, **k: played.append(1))
    path = _write(tmp_path, GOOD + "\n[[assert]]\n" + bad + "\n")
    res = CliRunner().invoke(main, ["check", path, "--quiet"])
    assert res.exit_code == 2, res.output
    lines = res.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: ") and message in lines[0]
    assert lines[0].count("[[assert]] #2") == 1  # names the assertion, once
    assert not played  # the good first assertion was not played either


@pytest.mark.parametrize("text, message", [
    ("", "no assertion"),
    ("[check]\nbudget = 10\n", "no assertion"),
    ("[[assert]\n", "not valid TOML"),
    ("[run]\ngames = 3\n", "unknown table [run]"),
    ("[check]\nspeed = 3\n" + GOOD, "unknown key 'speed'"),
    ("[check]\njobs = 0\n" + GOOD, "jobs"),
])
def test_a_bad_file_exits_2(tmp_path, text, message):
    res = CliRunner().invoke(main, ["check", _write(tmp_path, text), "-q"])
    assert res.exit_code == 2 and message in res.output, res.output
    missing = CliRunner().invoke(main, ["check", str(tmp_path / "none.toml"), "-q"])
    assert missing.exit_code == 2 and "not found" in missing.output


def test_intervals_budgets_and_defaults_are_read_as_documented(tmp_path):
    plan = _plan(tmp_path, """
[check]
budget = 1001
chunk_size = 150
seed = 9
[[assert]]
name = "seat"
measure = "seat_win"
players = 4
target = 0.25
within = 0.015
[[assert]]
measure = "solo_win"
strategies = "steady"
min = 0.1
budget = 50
""")
    a, b = plan.assertions
    assert (a.lo, a.hi) == pytest.approx((0.235, 0.265))
    assert a.resolution == pytest.approx(0.0075)  # a quarter of the width
    assert a.config.games == 1004 and a.config.chunk_size == 152  # whole 4-seat deals
    assert a.config.seat_rotation and a.config.seed == 9
    assert b.name == "solo_win #2" and b.hi == math.inf
    assert b.resolution == CK.DEFAULT_RESOLUTION["rate"] and b.config.games == 50
    assert b.config.strategies == ("steady",) and not b.config.seat_rotation
    with pytest.raises(ConfigError, match="must be below max"):
        _plan(tmp_path, GOOD.replace("max = 0.2", "max = 0.1"))


@pytest.mark.parametrize("path", sorted(CHECKS.glob("*.toml")), ids=lambda p: p.name)
def test_every_shipped_check_file_is_valid(path):
    plan = CK.load_checks(path)
    assert plan.assertions and all(a.name for a in plan.assertions)


def test_the_verdicts_do_not_depend_on_the_workers():
    plan = CK.load_checks(CHECKS / "fails.toml")
    one = CK.run_checks(plan, jobs=1)
    two = CK.run_checks(plan, jobs=2)
    strip = [{k: v for k, v in r.to_json().items() if k != "seconds"} for r in one.results]
    assert strip == [{k: v for k, v in r.to_json().items() if k != "seconds"}
                     for r in two.results]


def test_players_default_to_four_or_to_solo(tmp_path):
    plan = _plan(tmp_path, """
[[assert]]
measure = "task_surplus"
task = "Y14"
min = -1
[[assert]]
measure = "solo_margin"
min = -5
""")
    assert [a.config.players for a in plan.assertions] == [4, 1]


def _normal_stream(rng, mean: float, looks: int = 100, per_look: int = 20):
    for i in range(looks):
        yield (i + 1) * per_look, rng.normal(mean, 1.0, per_look)


def test_the_error_rates_are_near_alpha_and_beta():
    """Synthetic observations (sd 1) against the interval 0 .. 1 with resolution 0.25:
    a truth 0.25 below min passes in at most about alpha of the runs, a truth at the
    centre (0.25 inside both bounds) fails in at most about alpha + beta; far outside
    always fails, and everything is decided well within the 2,000 observations."""
    import numpy as np

    tests = [("min", 0.0, -0.25, 0.25), ("max", 1.0, 1.25, 0.75)]
    rng = np.random.default_rng(2026)

    def verdicts(mean: float, n: int = 300) -> dict[str, float]:
        v = [CK.decide_interval(_normal_stream(rng, mean), tests, 0.05, 0.05).verdict
             for _ in range(n)]
        return {k: v.count(k) / n for k in CK.VERDICTS}

    outside = verdicts(-0.25)
    assert outside["holds"] <= 0.08 and outside["undecided"] <= 0.02
    centre = verdicts(0.5)
    assert centre["fails"] <= 0.12 and centre["holds"] >= 0.85
    assert verdicts(3.0, 50)["fails"] == 1.0
    at_bound = verdicts(0.0, 200)  # exactly on min: a coin toss, as documented
    assert 0.35 <= at_bound["holds"] <= 0.65


def test_few_observations_decide_nothing():
    tests = [("min", 0.0, -0.25, 0.25)]
    r = CK.decide_interval(iter([(1, [5.0, 5.0]), (2, [5.0, 5.0])]), tests, 0.05, 0.05)
    assert r.verdict == "undecided" and len(r.observations) == 4  # below MIN_OBSERVATIONS
    r = CK.decide_interval(iter([(1, [5.0] * 5)]), tests, 0.05, 0.05)
    assert r.verdict == "holds" and r.decided == {"min": "inside"}


def test_an_undecided_assertion_says_how_far_outside_its_interval_it_lies(tmp_path):
    # An estimate of 44.1% against a 31.3-35.3% band is "undecided" when the budget runs
    # out; the table and the JSON say it lies 8.8 points above the max, with an interval.
    plan = _plan(tmp_path, """
[[assert]]
name = "seat 0 wins about a third"
measure = "seat_win"
players = 3
min = 0.313
max = 0.353
""")
    a = plan.assertions[0]
    r = CK.AssertionResult(a, "undecided", 200, 100, 0.441, 0.40, 0.48, (), 1.0)
    assert r.row()["off by [95%]"] == "+8.8 pts above max [+4.7, +12.7]"
    off = json.loads(json.dumps(r.to_json()))["off_by"]
    assert off["bound"] == "max" and off["value"] == pytest.approx(0.088)
    below = CK.AssertionResult(a, "fails", 200, 100, 0.25, 0.2, 0.3, (), 1.0)
    assert below.row()["off by [95%]"].startswith("-6.3 pts below min")
    inside = CK.AssertionResult(a, "undecided", 200, 100, 0.33, 0.3, 0.36, (), 1.0)
    assert inside.row()["off by [95%]"] == "inside" and inside.to_json()["off_by"] is None
