"""Answers against strength: the rungs come from the registry, the marks can fail, and a
tiny ladder is played, measured and reported end to end."""

from __future__ import annotations

import json
import math
from typing import Any

import pandas as pd
import pytest

from bonfire_sim import lineup
from bonfire_sim.errors import ConfigError
from bonfire_sim.studies import strength as ST


def _curve(values: list[tuple[float, float, float]], kind: str = "share",
           figure: str = "2 players: start player's win share") -> pd.DataFrame:
    rows = [ST._row("start player", figure, kind, f"r{i}", i, v, lo, hi, f"player {i}", 100)
            for i, (v, lo, hi) in enumerate(values)]
    return pd.DataFrame(rows, columns=ST.ANSWER_COLUMNS)


def test_the_rungs_come_from_the_registry_weakest_first():
    rungs = ST.ladder(8)
    assert [r.name for r in rungs] == ["old_mix", "tuned_mix", "default", "search:8"]
    assert rungs[0].seats == lineup.OLD_MIX and rungs[1].seats == lineup.TUNED_MIX
    assert rungs[2].seats == lineup.DEFAULT_MIX and rungs[2].solo == lineup.RECOMMENDED_SOLO
    assert rungs[3].seats == ("search:8",)
    # against Tom the top rung stays above the recommended solo player (search:16 today)
    top = max(8, 2 * ST._budget(lineup.RECOMMENDED_SOLO))
    assert rungs[3].solo == f"search:{top}" and ST._budget(rungs[3].solo) > ST._budget(
        rungs[2].solo)


def test_top_two_rungs_that_agree_tightly_are_converged():
    mark, detail = ST.convergence(_curve([(0.40, 0.35, 0.45), (0.52, 0.51, 0.53),
                                          (0.521, 0.511, 0.531)]))
    assert mark == ST.CONVERGED, detail


def test_a_planted_difference_at_the_top_rung_flips_the_mark_to_still_moving():
    flat = _curve([(0.52, 0.51, 0.53), (0.52, 0.51, 0.53), (0.52, 0.51, 0.53)])
    planted = _curve([(0.52, 0.51, 0.53), (0.52, 0.51, 0.53), (0.62, 0.61, 0.63)])
    assert ST.convergence(flat)[0] == ST.CONVERGED
    assert ST.convergence(planted)[0] == ST.MOVES
    # a difference at the lower rungs only does not move the mark: the top two decide
    low = _curve([(0.30, 0.29, 0.31), (0.52, 0.51, 0.53), (0.52, 0.51, 0.53)])
    assert ST.convergence(low)[0] == ST.CONVERGED


def test_wide_intervals_at_the_top_are_undecided_and_a_missing_rung_is_said():
    wide = _curve([(0.52, 0.51, 0.53), (0.52, 0.30, 0.74), (0.55, 0.30, 0.80)])
    assert ST.convergence(wide)[0] == ST.UNDECIDED
    gap = _curve([(0.52, 0.51, 0.53), (math.nan, math.nan, math.nan)])
    assert ST.convergence(gap)[0] == ST.NOT_MEASURED


def test_marks_put_the_rungs_side_by_side_in_ladder_order():
    answers = pd.concat([_curve([(0.5, 0.49, 0.51), (0.6, 0.59, 0.61)]),
                         _curve([(1.0, 0.8, 1.2), (1.1, 0.9, 1.3)], "points",
                                "2 players: compensation of seat 1")])
    m = ST.marks(answers)
    assert list(m.columns) == ["answer", "figure", "mark", "detail", "r0", "r1"]
    assert m.set_index("figure").loc["2 players: start player's win share", "mark"] == ST.MOVES
    assert m.set_index("figure").loc["2 players: compensation of seat 1", "mark"] == (
        ST.CONVERGED)


def test_a_value_that_rounds_to_zero_reads_zero_in_the_marks():
    """The stored ladder's search rung: a compensation of -1.4e-15 (-9.7 to 9.7) read
    "-0.0", a sign nobody measured; the marks write it as the report does (numtext)."""
    answers = _curve([(1.3, -0.3, 3.0), (-1.3673962563944185e-15, -9.738, 9.738)],
                     "points", "3 players: compensation of seat 1")
    cells = ST.marks(answers).iloc[0]
    assert cells["r1"] == "0.0 (-9.7 to 9.7)" and cells["r0"] == "1.3 (-0.3 to 3.0)"
    share = ST.marks(_curve([(0.5, -0.0004, 0.6), (0.5, 0.4, 0.6)])).iloc[0]
    assert share["r0"] == "0.500 (0.000 to 0.600)"


def test_flagged_cards_keep_only_cards_flagged_at_some_rung():
    rows = pd.DataFrame([
        {**ST._row("tasks", "2 players: task B1", "points", "a", 0, 2.0, 1.5, 2.5, "w", 9),
         "flag": ""},
        {**ST._row("tasks", "2 players: task B1", "points", "b", 1, 2.0, 1.5, 2.5, "w", 9),
         "flag": "strong"},
        {**ST._row("tasks", "2 players: task R3", "points", "a", 0, 0.1, -0.5, 0.7, "w", 9),
         "flag": ""},
        {**ST._row("start player", "2 players: start player's win share", "share", "a", 0,
                   0.5, 0.4, 0.6, "w", 9), "flag": None}])
    kept = ST.flagged_cards(rows)
    assert set(kept["figure"]) == {"2 players: task B1", "2 players: start player's win share"}


def test_a_bad_ladder_is_refused():
    with pytest.raises(ConfigError, match="players"):
        ST.StrengthConfig(players=(1,))
    with pytest.raises(ConfigError, match="Tom deck"):
        ST.StrengthConfig(decks=("nope",))
    with pytest.raises(ConfigError, match="two rungs"):
        ST.StrengthConfig(rungs=(ST.Rung("a", ("tuned",), "tuned"),))


def test_a_rung_with_the_players_of_an_earlier_rung_reuses_its_games():
    cfg = ST.StrengthConfig(players=(2,), decks=("task1",), games=8, solo_games=4,
                            rungs=(ST.Rung("a", ("greedy",), "greedy"),
                                   ST.Rung("b", ("tuned",), "steady"),
                                   ST.Rung("c", ("tuned",), "tuned")))
    by = {(j["rung"], j["key"]): j["same_as"] for j in ST.plan(cfg)}
    assert by[("c", "players=2")] == "b" and by[("b", "players=2")] is None
    assert by[("c", "solo-task1")] is None  # another solo player: its own games


def test_only_a_mix_is_seat_rotated_one_player_in_every_seat_plays_distinct_deals():
    """A rotation of a deal with one (deterministic) player in every seat replays the same
    game: the search rung's 48 rotated games at 4 players were 12 distinct games."""
    cfg = ST.StrengthConfig(players=(2, 4), decks=("task1",), games=8, solo_games=4,
                            rungs=(ST.Rung("mix", ("tuned_portal", "tuned_planner"), "steady"),
                                   ST.Rung("one", ("search:4",), "search:4")))
    rotated = {(j["rung"], j["key"]): j["config"].seat_rotation for j in ST.plan(cfg)
               if j["key"].startswith("players")}
    assert rotated == {("mix", "players=2"): True, ("mix", "players=4"): True,
                       ("one", "players=2"): False, ("one", "players=4"): False}


@pytest.fixture(scope="module")
def tiny_ladder(tmp_path_factory):
    """Three rungs at 2 players and one Tom deck; the top two share their players."""
    cfg = ST.StrengthConfig(players=(2,), decks=("task1",), games=200, solo_games=30,
                            seed=5, rungs=(ST.Rung("greedy", ("greedy",), "greedy"),
                                           ST.Rung("steady", ("steady",), "steady"),
                                           ST.Rung("steady_again", ("steady",), "steady")))
    out = tmp_path_factory.mktemp("ladder")
    return cfg, out, ST.play_ladder(cfg, out)


def test_a_tiny_ladder_measures_every_answer_at_every_rung(tiny_ladder):
    cfg, out, dirs = tiny_ladder
    assert dirs["steady_again"] == dirs["steady"]  # the same players: the same games
    assert (out / "rung=greedy" / "players=2" / "manifest.json").is_file()
    answers = ST.strength_answers(dirs)
    figures = set(answers["figure"])
    assert {"2 players: start player's win share", "2 players: compensation of seat 1",
            "Tom, task1 deck: win rate", "Tom, task1 deck: handicap"} <= figures
    assert (answers.groupby("figure")["rung"].nunique() == 3).all()
    tom = answers[answers["figure"] == "Tom, task1 deck: win rate"].set_index("rung")
    assert tom.loc["steady", "who"] == "steady against Tom"
    assert tom.loc["greedy", "games"] == 30
    share = answers[answers["figure"] == "2 players: start player's win share"]
    assert share["who"].tolist()[0] == "greedy, greedy at 2 players"


def test_a_planted_start_player_bonus_at_the_top_rung_flips_its_mark(tiny_ladder, tmp_path):
    from bonfire_sim.sim.runconfig import RunConfig
    from bonfire_sim.sim.runner import run

    _cfg, _out, dirs = tiny_ladder
    figure = "2 players: start player's win share"

    def mark(answers: pd.DataFrame) -> str:
        answers = answers.assign(tolerance=0.2)
        return ST.marks(answers).set_index("figure").loc[figure, "mark"]

    plain = ST.strength_answers(dirs)
    # the unplanted top rungs are the same player: never compared (it read converged)
    assert mark(plain) == ST.SAME_PLAYER
    top = RunConfig(games=200, players=2, strategies=("tuned",), seat_rotation=True,
                    seed=7, overrides={"seat_points": [40, 0]})
    planted = {**dirs, "steady_again": {**dirs["steady_again"],
                                        "players=2": run(top, tmp_path / "planted")}}
    answers = ST.strength_answers(planted)
    won = answers[(answers["figure"] == figure) & (answers["rung"] == "steady_again")]
    assert float(won["value"].iloc[0]) > 0.9  # 40 points ahead: the start player wins
    assert mark(answers) == ST.MOVES


def _strength_file(tmp_path, monkeypatch, name: str, text: str) -> Any:
    """``bonfire-sim strength NAME.toml`` run in ``tmp_path`` on ``text``."""
    from click.testing import CliRunner

    from bonfire_sim.cli.main import main

    monkeypatch.chdir(tmp_path)
    (tmp_path / f"{name}.toml").write_text(text)
    return CliRunner().invoke(main, ["strength", f"{name}.toml", "--quiet"])


def test_the_ladder_file_plays_and_writes_the_report(tmp_path, monkeypatch):
    from click.testing import CliRunner

    from bonfire_sim.cli.main import main

    res = _strength_file(
        tmp_path, monkeypatch, "ladder",
        "[strength]\nplayers = [2]\ngames = 8\nsearch_games = 2\nsolo_games = 4\n"
        "search_solo_games = 1\nsearch_budget = 1\ndecks = [\"task1\"]\nseed = 3\n"
        "out = \"runs/sl\"\n\n[report]\nout = \"sl.html\"\n")
    assert res.exit_code == 0, res.output
    page = (tmp_path / "sl.html").read_text()
    assert "Answers against strength" in page and "search:1" in page
    meta = json.loads((tmp_path / "runs" / "sl" / "ladder.json").read_text())
    assert [r["name"] for r in meta["rungs"]] == [r.name for r in ST.ladder(1)]
    marks = pd.read_csv(tmp_path / "runs" / "sl" / "marks.csv")
    assert set(marks["mark"]) <= {ST.CONVERGED, ST.MOVES, ST.UNDECIDED, ST.NOT_MEASURED}
    bad = tmp_path / "bad.toml"
    bad.write_text("[strength]\nout = \"/etc/x\"\n")
    res = CliRunner().invoke(main, ["strength", "bad.toml"])
    assert res.exit_code == 2 and "leads outside" in res.output
    bad.write_text("[strength]\nsearch_solo_games = \"lots\"\n")
    res = CliRunner().invoke(main, ["strength", "bad.toml"])
    assert res.exit_code == 2 and "search_solo_games" in res.output and "auto" in res.output
    assert "Traceback" not in res.output
    bad.write_text("[strength]\nplayers = []\ndecks = []\n")
    res = CliRunner().invoke(main, ["strength", "bad.toml"])
    assert res.exit_code == 2 and "measures nothing" in res.output


def test_a_ladder_of_tom_decks_alone_plays(tmp_path, monkeypatch):
    """``players = []``: Tom's answers only (no multiplayer run is played or named)."""
    res = _strength_file(
        tmp_path, monkeypatch, "tom",
        "[strength]\nplayers = []\nsolo_games = 4\nsearch_solo_games = 2\n"
        "search_budget = 1\ndecks = [\"task1\"]\nseed = 3\nout = \"runs/t\"\n\n"
        "[report]\nout = \"t.html\"\n")
    assert res.exit_code == 0, res.output
    marks = pd.read_csv(tmp_path / "runs" / "t" / "marks.csv")
    assert set(marks["answer"]) == {"tom"}
    assert not list((tmp_path / "runs" / "t").glob("rung=*/players=*"))
    page = (tmp_path / "t.html").read_text()
    assert "solo only" in page
    # the top rung is named after its multiplayer budget; against Tom it plays search:32
    assert "search:1 (solo: search:32)" in page and "default (solo: search:16)" in page


def test_an_answer_missing_at_the_top_rung_is_not_marked_from_the_lower_rungs():
    curve = _curve([(0.5, 0.49, 0.51), (0.5, 0.49, 0.51)])  # rungs r0, r1 measured
    assert ST.convergence(curve)[0] == ST.CONVERGED
    mark, detail = ST.convergence(curve, ["r0", "r1", "search:16"])
    assert mark == ST.NOT_MEASURED and "search:16" in detail


def test_the_ladder_progress_counts_a_search_game_by_its_cost(tmp_path, monkeypatch):
    """The search rung's games come last and cost a hundred fast games each: the progress
    counts work, so 'time left' is not 'about 3 s' for minutes (it was)."""
    from bonfire_sim.sim import runner

    def fake_run(cfg, out, progress=None, **_kw):
        if progress is not None:
            progress(cfg.games, cfg.games)
        return out

    monkeypatch.setattr(runner, "run", fake_run)
    cfg = ST.StrengthConfig(players=(2,), decks=("task1",), games=100, solo_games=10,
                            search_games=4, search_solo_games=2, seed=5,
                            rungs=(ST.Rung("greedy", ("greedy",), "greedy"),
                                   ST.Rung("search:8", ("search:8",), "search:8")))
    seen: list[tuple[int, int]] = []
    ST.play_ladder(cfg, tmp_path, progress=lambda d, t: seen.append((d, t)))
    total = seen[-1][1]
    fast = 100 + 10  # the greedy rung's games, 1 each
    assert seen[-1][0] == total
    from bonfire_sim.sim.runconfig import RunConfig

    two = ST.game_cost(RunConfig(games=4, players=2, strategies=("search:8",)))
    assert two == 1 + 2 * 8 * ST.SEARCH_COST_PER_BUDGET  # both seats search
    assert total == round(fast + 4 * two + 2 * (1 + 8 * ST.SEARCH_COST_PER_BUDGET))
    assert seen[1][0] == fast  # after the fast rung: a small share of the work
    assert fast / total < 0.15  # by game count it would be 110 of 116


def test_two_rungs_of_the_same_player_at_the_top_are_never_marked():
    """The top solo rung was once the recommended solo player itself (search:16 against
    search:16): the Tom marks compared a player with itself.  Tight agreement then read
    'converged' and a noisy gap 'still moves'; now neither is marked."""
    for values in ([(0.4, 0.35, 0.45), (0.52, 0.51, 0.53), (0.521, 0.511, 0.531)],
                   [(0.4, 0.35, 0.45), (0.52, 0.51, 0.53), (0.62, 0.61, 0.63)]):
        curve = _curve(values)
        assert ST.convergence(curve)[0] != ST.SAME_PLAYER  # different players: marked
        same = curve.assign(who=["a", "search:16 against Tom", "search:16 against Tom"])
        mark, detail = ST.convergence(same)
        assert mark == ST.SAME_PLAYER and "search:16 against Tom" in detail
    # the shipped ladder never does it: against Tom its top rung out-searches the default
    for budget in (1, 8, 16, 64):
        rungs = ST.ladder(budget)
        assert rungs[-1].solo != rungs[-2].solo
        assert ST._budget(rungs[-1].solo) > ST._budget(lineup.RECOMMENDED_SOLO)


def test_the_default_rung_plays_fast_games_at_2_to_4_players_and_search_against_tom():
    """Its solo player searches, its seats do not: ladder.json said the default rung
    played search_games at 2-4 players (it plays, and reuses, the fast rung's games)."""
    from bonfire_sim.pipelines.strength import describe

    cfg = ST.StrengthConfig(games=600, search_games=24, solo_games=500,
                            search_solo_games=30, search_budget=16)
    by = {r["name"]: r for r in describe(cfg)["rungs"]}
    assert by["default"]["games"] == 600 and by["default"]["solo_games"] == 30
    assert by["search:16"]["games"] == 24 and by["tuned_mix"]["solo_games"] == 500
    auto = ST.StrengthConfig(search_games="auto", search_solo_games="auto", pilot_games=12)
    assert auto.games_for(auto.rungs[-1], 3) == 12 and auto.solo_for(auto.rungs[2]) == 12
    assert auto.auto(auto.rungs[2], solo=True) and not auto.auto(auto.rungs[2], solo=False)
    with pytest.raises(ConfigError, match="auto"):
        ST.StrengthConfig(search_games="many")


def _pilot(rows: list[tuple[str, str, str, float, float]]) -> pd.DataFrame:
    """Answer rows (figure, kind, rung, half-width, setting) at rungs below and top."""
    out = [ST._row("x", figure, kind, rung, int(rung == "top"), 0.5, 0.5 - h, 0.5 + h,
                   rung, 48, setting) for figure, kind, rung, h, setting in rows]
    return pd.DataFrame(out, columns=ST.ANSWER_COLUMNS)


def test_sizing_scales_the_pilot_with_games_needed_and_respects_the_cap():
    from bonfire_sim.analysis.intervals import games_needed
    from bonfire_sim.studies import strength_sizing as SZ

    pilot = _pilot([("win", "share", "below", 0.10, "solo-a"),
                    ("win", "share", "top", 0.10, "solo-a"),
                    ("hc", "handicap", "below", 4.0, "solo-a"),
                    ("hc", "handicap", "top", 3.0, "solo-a"),
                    ("comp", "points", "below", 0.9, "players=3"),
                    ("comp", "points", "top", 5.0, "players=3"),
                    ("share", "share", "below", 0.01, "players=3"),
                    ("share", "share", "top", 0.2, "players=3")])
    sized = {"below": {"solo-a"}, "top": {"solo-a", "players=3"}}
    needs = SZ.figure_needs(pilot, sized, 48, cap=2000).set_index("figure")
    # both top rungs grow (Tom): the difference's pilot width scales to half the tolerance
    assert needs.loc["hc", "games_needed"] == games_needed(48, 5.0, 1.0) == 1200
    assert needs.loc["win", "games_needed"] == games_needed(48, math.hypot(0.1, 0.1), 0.015)
    assert needs.loc["hc", "affordable"] and not needs.loc["win", "affordable"]
    # a fast rung wider than the aim leaves nothing to size; a narrower one leaves the rest
    assert math.isnan(needs.loc["comp", "games_needed"]) and not needs.loc["comp",
                                                                           "affordable"]
    left = math.sqrt(0.015 ** 2 - 0.01 ** 2)
    assert needs.loc["share", "games_needed"] == games_needed(48, 0.2, left)
    sizes = SZ.run_sizes(needs.reset_index(), 48, SZ._players_of)
    assert sizes == {"solo-a": 1200, "players=3": 48}  # the unaffordable stay at the pilot
    # the marks then say what each figure cost or would cost
    marked = pd.DataFrame({"figure": ["hc", "win"], "detail": ["d", "d"]})
    text = SZ.with_costs(marked, needs.reset_index())["detail"].tolist()
    assert "1,200 games a run" in text[0] and "played" in text[0]
    # "win" is over the cap, but its run (solo-a) was sized to 1,200 games for "hc": it
    # is read there, and its detail says so instead of "not played"
    assert "over the run cap" in text[1] and "read on the 1,200 games" in text[1]
    assert "not played" not in text[1]
    only = needs.reset_index().query("figure == 'win'")
    alone = SZ.with_costs(marked.iloc[[1]], only)["detail"].iloc[0]
    assert "over the run cap, not played" in alone  # no other figure sized its run


def test_a_sized_ladder_plays_the_sized_runs_in_place_of_the_pilots(tmp_path, monkeypatch):
    from bonfire_sim.studies import strength as ST2
    from bonfire_sim.studies import strength_sizing as SZ

    cfg = ST.StrengthConfig(players=(2,), decks=("task1",), games=8, solo_games=4,
                            search_solo_games="auto", pilot_games=4, search_max_games=50,
                            seed=3, rungs=(ST.Rung("a", ("greedy",), "greedy"),
                                           ST.Rung("b", ("greedy",), "search:1"),
                                           ST.Rung("c", ("steady",), "search:2")))
    assert SZ.sized_settings(cfg) == {"b": {"solo-task1"}, "c": {"solo-task1"}}
    dirs = ST2.play_ladder(cfg, tmp_path)

    figure_needs = SZ.figure_needs

    def needs(answers, sized, pilot, cap):  # a need the pilot cannot meet, within the cap
        real = figure_needs(answers, sized, pilot, cap)
        assert set(real["setting"]) == {"solo-task1"}
        return real.assign(games_needed=10.0, affordable=True)

    monkeypatch.setattr(SZ, "figure_needs", needs)
    new, table, played = SZ.top_up(cfg, dirs, tmp_path)
    assert played == {"b": {"solo-task1": 10}, "c": {"solo-task1": 10}}
    assert new["c"]["solo-task1"] == tmp_path / "rung=c" / "sized" / "solo-task1"
    assert new["b"]["players=2"] == dirs["a"]["players=2"]  # reused, not sized
    answers = ST.strength_answers(new)
    tom = answers[answers["figure"] == "Tom, task1 deck: win rate"].set_index("rung")
    assert tom.loc["c", "games"] == 10 and tom.loc["a", "games"] == 4
    assert tom.loc["c", "who"] == "search:2 against Tom"

    # sized again for fewer games (a narrower paired width): the finished run is read as
    # played, never replayed; for more, the larger run goes beside it
    def fewer(answers, sized, pilot, cap):
        return figure_needs(answers, sized, pilot, cap).assign(games_needed=6.0,
                                                               affordable=True)

    monkeypatch.setattr(SZ, "figure_needs", fewer)
    stamp = (tmp_path / "rung=c" / "sized" / "solo-task1" / "manifest.json").stat().st_mtime
    again, _, played = SZ.top_up(cfg, dirs, tmp_path)
    assert played == {"b": {"solo-task1": 10}, "c": {"solo-task1": 10}}
    assert again["c"]["solo-task1"] == new["c"]["solo-task1"]
    assert (tmp_path / "rung=c" / "sized" / "solo-task1" / "manifest.json"
            ).stat().st_mtime == stamp
    monkeypatch.setattr(SZ, "figure_needs", lambda *a: figure_needs(*a).assign(
        games_needed=12.0, affordable=True))
    more, _, played = SZ.top_up(cfg, dirs, tmp_path)
    assert played == {"b": {"solo-task1": 12}, "c": {"solo-task1": 12}}
    assert more["c"]["solo-task1"] == tmp_path / "rung=c" / "sized" / "solo-task1-games=12"


def test_a_corrupt_manifest_in_a_sized_run_folder_is_one_data_error(tmp_path):
    """A sized run's folder is read through the run's own manifest reader: a corrupt (or
    linked, or foreign) manifest is a DataError (one ``Error:`` line), not a traceback."""
    from bonfire_sim.errors import DataError
    from bonfire_sim.sim.runconfig import RunConfig
    from bonfire_sim.studies.strength_sizing import _finished_games

    assert _finished_games(tmp_path, RunConfig(games=4, players=2)) == 0  # none there
    (tmp_path / "manifest.json").write_text("{not json")
    with pytest.raises(DataError, match="corrupt"):
        _finished_games(tmp_path, RunConfig(games=4, players=2))


def test_a_ladder_without_tom_decks_names_no_solo_player():
    """A ladder of player counts only (``decks = []``) says so, and its rungs name the
    seats it played, not a solo player it never seated (and the reverse)."""
    from bonfire_sim.report import strength as RS

    rung = {"name": "a", "seats": ["tuned"], "solo": "search:16", "games": 10,
            "solo_games": 4}
    multi = RS._rung_lines({"rungs": [rung], "players": [2], "decks": []})
    assert "search:16" not in multi and "Tom deck" not in multi and "10 games" in multi
    solo = RS._rung_lines({"rungs": [rung | {"same_as": "b"}], "players": [],
                           "decks": ["task1"]})
    assert "solo search:16" in solo and "player count" not in solo and "tuned" not in solo
    assert "same" not in solo  # a rung reuses another's multiplayer games, not its solo ones
    both = RS._rung_lines({"rungs": [rung], "players": [2], "decks": ["task1"]})
    assert "solo: search:16" in both and "4 per Tom deck" in both


def test_the_tom_curves_name_each_rung_by_its_solo_player(monkeypatch):
    """Against Tom the top rung plays ``search:32``, not the ``search:16`` it is named
    after: the curves' ticks say so, as the table's columns do (the seat curves do not)."""
    from bonfire_sim.report import strength as RS

    answers = pd.DataFrame([ST._row(answer, figure, "share", rung, step, v, v - 0.1,
                                    v + 0.1, "someone", 100)
                            for answer, figure in (("tom", "Tom, task1 deck: win rate"),
                                                   ("start player", "2 players: start "
                                                    "player's win share"))
                            for step, (rung, v) in enumerate((("default", 0.5),
                                                              ("search:16", 0.6)))])
    meta = {"players": [2], "decks": ["task1"],
            "rungs": [{"name": name, "solo": solo, "seats": [name], "games": 100,
                       "solo_games": 100}
                      for name, solo in (("default", "search:16"), ("search:16", "search:32"))]}
    ticks: dict[str, list[str]] = {}
    drawn = RS.curves

    def spy(part, marked, ax=None, labels=None):
        first = drawn(part, marked, ax, labels=labels)
        ticks[part["answer"].iloc[0]] = [t.get_text() for t in first.get_xticklabels()]
        return first

    monkeypatch.setattr(RS, "curves", spy)
    RS.section(answers, meta)
    assert ticks["tom"] == ["default (solo: search:16)", "search:16 (solo: search:32)"]
    assert ticks["start player"] == ["default", "search:16"]


def test_the_search_rungs_card_forks_play_the_card_budget_on_the_rungs_deals():
    """A fork plays the rest of a game twice, so the search rung's card values are
    played by a cheaper search (card_budget) on the deals of the rung's own run."""
    cfg = ST.StrengthConfig(players=(2, 3), decks=(), games=8, search_games=6,
                            probe_games=40, search_budget=16, card_budget=4, seed=5)
    top, fast = cfg.rungs[-1], cfg.rungs[1]
    runs = {(j["rung"], j["key"]): j["config"] for j in ST.plan(cfg)}
    source = ST.card_source(cfg, top, 3, "runs/top")
    forked, played = source[3], runs[(top.name, "players=3")]
    assert set(forked.strategies) == {"search:4"} and set(played.strategies) == {"search:16"}
    assert (forked.seed, forked.seat_rotation) == (played.seed, played.seat_rotation)
    assert (forked.games, forked.players) == (40, 3)
    # a fast rung, or no card budget: the rung's own run is forked
    assert ST.card_source(cfg, fast, 3, "runs/fast") == ["runs/fast"]
    own = ST.StrengthConfig(players=(2,), decks=(), probe_games=40, search_budget=16)
    assert ST.card_source(own, own.rungs[-1], 2, "runs/top") == ["runs/top"]
    with pytest.raises(ConfigError, match="card_budget"):
        ST.StrengthConfig(card_budget=-1)


def _card_table() -> pd.DataFrame:
    base = {"players": 2, "who": "search:4, search:4", "deals": 300}
    return pd.DataFrame([
        {**base, "card": "R3", "kind": "task", "surplus": 4.0, "s_lo": 3.0, "s_hi": 5.0,
         "flag": "strong"},
        {**base, "card": "S4", "kind": "gnome", "surplus": -0.5, "s_lo": -2.0, "s_hi": 1.0,
         "flag": None},
        {**base, "card": "Y7", "kind": "task", "surplus": math.nan, "s_lo": math.nan,
         "s_hi": math.nan, "flag": None}])


def test_card_rows_carry_the_surveys_surplus_flag_and_players(monkeypatch):
    from bonfire_sim.analysis import cards
    from bonfire_sim.sim.runconfig import RunConfig

    seen: dict[str, Any] = {}
    config = RunConfig(games=500, players=2, strategies=("search:4",))

    def survey(source: Any, **options: Any) -> pd.DataFrame:
        seen.update(options, source=source)
        return _card_table()

    monkeypatch.setattr(cards, "measure", survey)
    notes: list[str] = []
    tables = ST.card_tables({2: {2: config}}, 500, status=notes.append, rung="search:16")
    rows = pd.DataFrame(ST.card_rows(tables, "search:16", 3)).set_index("figure")
    assert seen["games"] == 500 and seen["rounds"] == 0 and seen["source"] == {2: config}
    assert list(rows.index) == ["2 players: task R3", "2 players: gnome S4"]  # Y7: no value
    r3 = rows.loc["2 players: task R3"]
    assert (r3["answer"], r3["value"], r3["lo"], r3["hi"], r3["flag"]) == (
        "tasks", 4.0, 3.0, 5.0, "strong")
    assert rows.loc["2 players: gnome S4", "answer"] == "gnomes"
    assert rows.loc["2 players: gnome S4", "who"] == "search:4, search:4"
    assert rows["setting"].eq("players=2").all() and rows["tolerance"].eq(1.0).all()
    assert notes and "500 games of search:4" in notes[0]


def test_card_rows_at_the_top_rung_are_never_given_the_seats_pairing(tiny_ladder,
                                                                     monkeypatch):
    """Card rows share a setting and kind with the seat compensation (players=2, points):
    they took its 'fitted point' pairing note; their forks are unrelated draws."""
    from bonfire_sim.analysis import cards

    _cfg, _out, dirs = tiny_ladder
    monkeypatch.setattr(cards, "measure", lambda source, **_o: _card_table())
    answers = ST.strength_answers(dirs, tables=ST.ladder_card_tables(dirs, 10))
    top = answers[answers["rung"] == "steady_again"].set_index("figure")
    assert "no fork has a twin" in top.loc["2 players: task R3", "pairing"]
    assert math.isnan(top.loc["2 players: task R3", "d"])
    assert "fitted point" in top.loc["2 players: compensation of seat 1", "pairing"]
    # the gnome was flagged at no rung: only the flagged card is kept
    assert "2 players: gnome S4" not in set(answers["figure"])


def test_the_ladder_file_reads_the_card_budget(tmp_path, monkeypatch):
    from bonfire_sim.pipelines.strength import describe, read_strength_file

    monkeypatch.chdir(tmp_path)
    (tmp_path / "c.toml").write_text("[strength]\nprobe_games = 40\ncard_budget = 4\n")
    file = read_strength_file("c.toml")
    assert file.config.card_budget == 4 and describe(file.config)["card_budget"] == 4
    (tmp_path / "c.toml").write_text("[strength]\ncard_budget = -2\n")
    with pytest.raises(ConfigError, match="card_budget"):
        read_strength_file("c.toml")


def test_the_page_says_how_the_cards_were_measured_and_who_forked_the_search_rung():
    """With probe_games and no card flagged the page said the cards were 'not measured
    (its probe_games is 0)'; the search rung's card rows are played by card_budget."""
    from bonfire_sim.report import strength as RS

    meta = {"probe_games": 1000, "card_budget": 4,
            "rungs": [{"name": "default", "seats": ["tuned_portal"], "solo": "search:16"},
                      {"name": "search:16", "seats": ["search:16"], "solo": "search:32"}]}
    seats = _curve([(0.5, 0.49, 0.51), (0.52, 0.5, 0.54)])
    note = RS._card_note(seats, meta)
    assert "1,000 games" in note and "search:4" in note and "none was" in note
    assert "not measured" in RS._card_note(seats, {**meta, "probe_games": 0})
    assert RS._rung_labels("gnomes", meta) == {"search:16": "search:16 (cards: search:4)"}
    assert RS._rung_labels("start player", meta) == {}
    assert RS._rung_labels("tom", meta) == {"default": "default (solo: search:16)",
                                            "search:16": "search:16 (solo: search:32)"}
    assert RS._rung_labels("tasks", {**meta, "card_budget": 0}) == {}


def _cards(values: Any, noise: float, rng: Any, flags: dict[str, str] | None = None
           ) -> pd.DataFrame:
    """A card table of 60 tasks measured with ``noise`` (the standard error) around
    ``values``."""
    import numpy as np

    names = [f"B{i}" for i in range(1, len(values) + 1)]
    return pd.DataFrame({"card": names, "kind": "task", "players": 2,
                         "surplus": np.asarray(values) + rng.normal(0, noise, len(values)),
                         "half": 1.96 * noise,
                         "flag": [(flags or {}).get(c, "") for c in names]})


def test_the_cards_order_is_kept_reshuffled_or_spread_as_planted():
    """The card agreement answers 'do strong players find the same cards off their
    tier, in the same order?': kept order reads ~1 after the noise correction, a
    reshuffle ~0, and doubled values a spread ratio of ~2."""
    import numpy as np

    from bonfire_sim.studies import strength_cards as SC

    rng = np.random.default_rng(1)
    true = rng.normal(0, 2.0, 60)
    below = _cards(true, 0.8, rng, {"B1": "strong", "B2": "weak"})
    same = SC.agreement(below, _cards(true, 0.8, rng, {"B2": "weak", "B3": "strong"})
                        ).iloc[0]
    # the raw correlation is held down by the noise; the corrected one is not
    assert same["r"] < same["corrected"] and same["c_lo"] > 0.85
    assert same["ratio_lo"] < 1 < same["ratio_hi"]
    assert (same["flagged_below"], same["flagged_top"], same["flagged_both"]) == (
        "B1 B2", "B2 B3", "B2")
    shuffled = SC.agreement(below, _cards(rng.permutation(true), 0.8, rng)).iloc[0]
    assert abs(shuffled["corrected"]) < 0.4 and shuffled["c_lo"] < 0 < shuffled["c_hi"]
    spread = SC.agreement(below, _cards(2 * true, 0.8, rng)).iloc[0]
    assert spread["ratio_lo"] > 1.5 and spread["ratio"] == pytest.approx(2, abs=0.3)
    assert spread["corrected"] > 0.85  # the same order, only wider
    # the same tables, the same intervals (a seeded bootstrap)
    again = SC.agreement(below, _cards(2 * true, 0.8, np.random.default_rng(9)))
    assert again.equals(SC.agreement(below, _cards(2 * true, 0.8, np.random.default_rng(9))))


def test_a_ladder_with_card_values_writes_the_cards_order(tmp_path, monkeypatch):
    """probe_games and card_budget from the file reach the survey (search:1's rung forked
    by search:2), and the cards' order at the top two rungs is written and shown."""
    import numpy as np

    from bonfire_sim.analysis import cards

    rng = np.random.default_rng(3)
    true = rng.normal(0, 2.0, 60)
    asked: list[Any] = []

    def survey(source: Any, **options: Any) -> pd.DataFrame:
        asked.append((source, options["games"]))
        return _cards(true, 0.8, rng, {"B1": "strong"}).assign(
            s_lo=lambda t: t["surplus"] - t["half"], s_hi=lambda t: t["surplus"] + t["half"],
            who="w", deals=30)

    monkeypatch.setattr(cards, "measure", survey)
    res = _strength_file(
        tmp_path, monkeypatch, "cards",
        "[strength]\nplayers = [2]\ngames = 8\nsearch_games = 2\nsearch_budget = 1\n"
        "probe_games = 6\ncard_budget = 2\ndecks = []\nseed = 3\nout = \"runs/c\"\n\n"
        "[report]\nout = \"c.html\"\n")
    assert res.exit_code == 0, res.output
    searched = [s for s, _g in asked if isinstance(s, dict)]
    assert searched and {set(s[2].strategies) == {"search:2"} for s in searched} == {True}
    assert {g for _s, g in asked} == {6}
    order = pd.read_csv(tmp_path / "runs" / "c" / "card-agreement.csv")
    assert order[["players", "kind", "cards"]].values.tolist() == [[2, "task", 60]]
    page = (tmp_path / "c.html").read_text()
    assert "Do the cards keep their order" in page and "search:1 (cards: search:2)" in page
