"""The report never pools runs that play different games: configuration groups.

A baseline run and a ``seat_points`` run are two groups, shown side by side; four solo
runs under the four Tom decks are four rows with their own win rate and handicap; a mix
that cannot be reported (the same deals twice) is refused in one line within a second,
before any table is read or fork computed.
"""

from __future__ import annotations

import re
import time
from pathlib import Path

import pandas as pd
import pytest
from click.testing import CliRunner

import bonfire_sim.analysis.cards.views as values  # where task_values forks
import bonfire_sim.sim.load as loader
from bonfire_sim.cli.main import main
from bonfire_sim.errors import ConfigError
from bonfire_sim.report import groups as G
from bonfire_sim.report.build import build_report
from bonfire_sim.rules import components as C
from bonfire_sim.sim.runconfig import RunConfig
from bonfire_sim.sim.runner import read_manifest, run

TOM_DECKS = tuple(v.name for v in C.VARIANTS["tom_deck"])


@pytest.fixture(scope="module")
def seat_runs(tmp_path_factory) -> tuple[Path, Path]:
    base = tmp_path_factory.mktemp("seat_runs")
    baseline = run(RunConfig(games=40, players=4, seat_rotation=True, seed=11, chunk_size=40),
                   base / "baseline")
    points = run(RunConfig(games=40, players=4, seat_rotation=True, seed=11, chunk_size=40,
                           overrides={"seat_points": [0, 1, 2, 3]}), base / "points")
    return baseline, points


@pytest.fixture(scope="module")
def tom_runs(tmp_path_factory) -> list[Path]:
    base = tmp_path_factory.mktemp("tom_runs")
    return [run(RunConfig(games=30, players=1, strategies=("steady",), seed=5, chunk_size=30,
                          variants={"tom_deck": deck}), base / f"solo-{deck}")
            for deck in TOM_DECKS]


def _section(html: str, sid: str) -> str:
    m = re.search(rf'<section id="{sid}">(.*?)</section>', html, re.S)
    assert m, f"no section {sid}"
    return m[1]


def _table_rows(html: str, caption_start: str) -> list[list[str]]:
    """The body rows of the table whose caption starts with ``caption_start``."""
    m = re.search(rf"<caption>{re.escape(caption_start)}.*?</caption>.*?<tbody>(.*?)</tbody>",
                  html, re.S)
    assert m, f"no table {caption_start!r}"
    return [re.findall(r"<td>(.*?)</td>", r) for r in re.findall(r"<tr[^>]*>(.*?)</tr>", m[1],
                                                                  re.S)]


def test_a_baseline_and_a_seat_points_run_are_two_groups_side_by_side(seat_runs, tmp_path):
    groups = G.group_dirs(seat_runs, ["baseline", "points"])
    assert [g.runs for g in groups] == [("baseline",), ("points",)]
    assert groups[0].setting == "default game"
    assert "seat_points = [0, 1, 2, 3]" in groups[1].setting
    steps: list[str] = []
    html = build_report(list(seat_runs), tmp_path / "seats.html", probes=8,
                        status=steps.append).read_text()
    # progress names every step: the groups, each run loaded, each section per setting
    # with its forks
    assert steps[0].startswith("2 configuration group(s)")
    assert sum(s.startswith("loading run ") for s in steps) == 2
    assert any(s.startswith("section tasks (seat_points") and "forks in the first 8 games"
               in s for s in steps)
    # the page, then (after it, so a page that fails leaves none) its example-game views
    assert steps[-2].startswith("writing ") and steps[-1] == "view pages of the example games"
    rows = _table_rows(html, "Groups in this report")
    assert [r[0] for r in rows] == [g.label for g in groups]
    seats = _section(html, "seats")
    # each setting has its own heading and its own seat table: nothing pooled
    assert seats.count("<h3") == 2 and "default game" in seats and "seat_points" in seats
    assert len(re.findall(r"<caption>Seats \(0 = start player", seats)) == 2
    for sid in ("tasks", "gnomes"):
        assert _section(html, sid).count("<h3") == 2
    # each group's seat 0 win rate is its own: the two tables differ
    tables = re.findall(r"<caption>Seats \(0 = start player.*?<tbody>(.*?)</tbody>", seats,
                        re.S)
    assert tables[0] != tables[1]
    answers = _section(html, "answers")
    assert "default game" in answers and "seat_points = [0, 1, 2, 3]" in answers
    assert "already prints seat_points = [0, 1, 2, 3]" in answers


def test_four_tom_deck_solo_runs_are_four_rows(tom_runs, tmp_path):
    html = build_report(tom_runs, tmp_path / "tom.html").read_text()
    tom = _section(html, "tom")
    rows = _table_rows(tom, "Solo games against Tom")
    assert len(rows) == 4
    for deck in TOM_DECKS[1:]:
        assert sum(f"tom_deck = {deck}" in r[0] for r in rows) == 1
    # each row holds only its own run's games (30), never the pooled 120
    assert [r[1] for r in rows] == ["30"] * 4
    # and each row's win rate is that run's own
    for r in rows:
        deck = next((d for d in TOM_DECKS[1:] if f"tom_deck = {d}" in r[0]), TOM_DECKS[0])
        p = loader.load(next(d for d in tom_runs if d.name == f"solo-{deck}")).players
        human = p[p["strategy"] != "tom"]
        assert float(r[2]) == pytest.approx(human["won"].mean(), abs=5e-4)
    # the settle point per solo group (5 P(win) - 2 P(loss) = 0): one row per deck too
    handicaps = _table_rows(tom, "Handicap where the challenge settles")
    assert len(handicaps) == 4
    answers = _section(html, "answers")
    assert answers.count("Tom needs a head start of") == 4


def test_a_meaningless_mix_is_refused_in_a_second_before_any_fork(tmp_path, monkeypatch):
    cfg = RunConfig(games=4, players=2, seed=3, chunk_size=4)
    a, b = run(cfg, tmp_path / "a"), run(cfg, tmp_path / "b")
    calls: list[str] = []

    def forbidden(name):
        def fail(*args, **kwargs):
            calls.append(name)
            raise AssertionError(f"{name} called before the refusal")
        return fail

    monkeypatch.setattr(values, "probe_values", forbidden("probe_values"))
    monkeypatch.setattr(values, "probe_table", forbidden("probe_table"))
    monkeypatch.setattr(loader, "load", forbidden("load"))
    start = time.monotonic()
    with pytest.raises(ConfigError, match="play the same deals"):
        build_report([a, b], tmp_path / "r.html", probes=4)
    assert time.monotonic() - start < 1.0
    assert calls == []
    assert not (tmp_path / "r.html").exists()
    result = CliRunner().invoke(main, ["report", str(a), str(b), "--out",
                                       str(tmp_path / "c.html")])
    assert result.exit_code == 2
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("Error:") and "same deals" in lines[0]


def test_runs_of_one_game_pool_and_multiplayer_runs_ignore_the_tom_deck():
    def manifest(seed, **extra):
        cfg = RunConfig(games=8, players=2, seed=seed, chunk_size=8, **extra).to_json()
        return {"config": cfg, "fingerprint": {"source_hash": "x"}}

    groups = G.group_manifests([("s1", manifest(1)), ("s2", manifest(2)),
                                ("deck", manifest(3, variants={"tom_deck": "gnome"})),
                                ("area", manifest(4, variants={"fate_area": "4x6"}))])
    assert [g.runs for g in groups] == [("s1", "s2", "deck"), ("area",)]
    assert groups[0].games == 24 and "fate_area = 4x6" in groups[1].label
    table = G.groups_table(groups)
    assert isinstance(table, pd.DataFrame) and list(table["games"]) == [24, 8]


def test_groups_come_from_the_manifests_alone(seat_runs):
    manifests = [(p.name, read_manifest(p)) for p in seat_runs]
    assert [g.label for g in G.group_manifests(manifests)] == [
        g.label for g in G.group_dirs(seat_runs, [p.name for p in seat_runs])]


def test_the_analysis_refuses_mixed_task_points_before_any_fork(tmp_path, monkeypatch):
    from bonfire_sim import analysis as A
    from bonfire_sim.errors import DataError

    a = run(RunConfig(games=4, players=2, seed=3, chunk_size=4), tmp_path / "a")
    b = run(RunConfig(games=4, players=2, seed=4, chunk_size=4,
                      overrides={"task_points": {"Y14": 5}}), tmp_path / "b")

    def fail(*args, **kwargs):
        raise AssertionError("forks computed before the refusal")

    monkeypatch.setattr(values, "probe_table", fail)
    with pytest.raises(DataError, match="different task points"):
        A.task_values([a, b], probes=4)
    # the report keeps them apart instead: two groups
    assert len(G.group_dirs([a, b], ["a", "b"])) == 2
