"""Findings checked across populations: the marks (holds when populations agree, not when a
planted difference makes them disagree), the populations in one place, experiment files
that ask for populations, and the answers section carrying the marks."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from bonfire_sim.analysis import populations as P
from bonfire_sim.cli.main import main
from bonfire_sim.errors import ConfigError
from bonfire_sim.pipelines.experiment import POPULATION_AXIS, plan_experiment
from bonfire_sim.strategies import DEFAULT_MIX, OLD_MIX, POPULATIONS


def _players(seed: int, shift: float = 0.0, games: int = 400) -> pd.DataFrame:
    """A players frame of 2-player games: winners score ~80 (+ shift), losers ~60; each
    game has its own ``game_id`` (every players frame has one), no deal shared."""
    rng = np.random.default_rng(seed)
    win = rng.normal(80 + shift, 8, games)
    lose = rng.normal(60, 8, games)
    return pd.DataFrame({"game_id": np.r_[np.arange(games), np.arange(games)],
                         "n_players": 2, "won": np.r_[np.ones(games), np.zeros(games)] > 0,
                         "score": np.r_[win, lose]})


def test_the_default_populations_are_defined_in_one_place():
    assert len(POPULATIONS) >= 2
    assert POPULATIONS["strong"] == DEFAULT_MIX
    assert POPULATIONS["old_mix"] == OLD_MIX
    assert P.resolve_population("strong") == ("strong", POPULATIONS["strong"])
    assert P.resolve_population("portal, planner") == ("portal+planner", ("portal", "planner"))
    for bad in ("", "nope", "portal,nope"):
        with pytest.raises(ConfigError):
            P.resolve_population(bad)


def test_a_figure_holds_when_two_populations_agree_and_not_when_a_difference_is_planted():
    same = P.win_score_rows(_players(1), "A") + P.win_score_rows(_players(2), "B")
    marked = P.marks(pd.DataFrame(same, columns=P.FIGURE_COLUMNS))
    assert marked["mark"].tolist() == [P.HOLDS]
    assert list(marked.columns[3:]) == ["A", "B"]  # the figures side by side
    planted = P.win_score_rows(_players(1), "A") + P.win_score_rows(_players(2, 12.0), "B")
    marked = P.marks(pd.DataFrame(planted, columns=P.FIGURE_COLUMNS))
    assert marked["mark"].tolist() == [P.DIFFERS] and " vs B " in marked["detail"].item()
    few = (P.win_score_rows(_players(1, games=8), "A")
           + P.win_score_rows(_players(2, games=8), "B"))
    assert P.marks(pd.DataFrame(few, columns=P.FIGURE_COLUMNS))["mark"].item() == P.UNDECIDED


def test_the_winning_score_interval_is_clustered_by_the_deal_across_runs():
    """Games of one deal (seat rotations) tell no more than one game: the same 400 games
    played twice on their deals give the interval of the 400 once, not one sqrt(2)
    narrower.  The report's frame carries ``deal`` (restarting in every run) and
    ``deal_key`` (unique across its runs): the interval clusters by ``deal_key``."""
    def width(rows: list[dict]) -> float:
        return rows[0]["hi"] - rows[0]["lo"]

    once = _players(1)
    twice = pd.concat([once, once.assign(game_id=once["game_id"] + 400)], ignore_index=True)
    alone = width(P.win_score_rows(once, "A"))
    by_game = width(P.win_score_rows(twice, "A"))
    assert by_game == pytest.approx(alone / np.sqrt(2), rel=0.01)
    by_deal = width(P.win_score_rows(
        twice.assign(deal=twice["game_id"], deal_key=twice["game_id"] % 400), "A"))
    assert by_deal == pytest.approx(alone, rel=1e-9)


def test_number_mark_needs_every_pair_within_the_tolerance():
    assert P.number_mark({"A": (0.30, 0.29, 0.31), "B": (0.305, 0.295, 0.315)}, 0.03)[0] \
        == P.HOLDS
    assert P.number_mark({"A": (0.30, 0.29, 0.31), "B": (0.40, 0.39, 0.41)}, 0.03)[0] \
        == P.DIFFERS
    mark, detail = P.number_mark({"A": (0.3, 0.29, 0.31), "B": (np.nan,) * 3}, 0.03)
    assert mark == P.UNDECIDED and "fewer than two" in detail


def test_flags_hold_only_when_every_population_raises_them():
    assert P.flag_mark({"A": "high", "B": "high"})[0] == P.HOLDS
    assert P.flag_mark({"A": "high", "B": ""})[0] == "only with A"
    assert P.flag_mark({"A": "high", "B": "low"})[0] == P.DIFFERS
    mark, detail = P.flag_mark({"A": "high", "B": None})
    assert mark == P.UNDECIDED and "not measured with B" in detail


def test_seat_rows_mark_the_start_player_advantage():
    def sa(v0: float) -> pd.DataFrame:
        return pd.DataFrame({"players": [2, 2], "seat": [0, 1], "value": [v0, 1 - v0],
                             "lo": [v0 - 0.01, 0.99 - v0], "hi": [v0 + 0.01, 1.01 - v0],
                             "fair": [0.5, 0.5], "compensation": [0.0, 2.0],
                             "c_lo": [0.0, 1.8], "c_hi": [0.0, 2.2]})
    rows = P.seat_rows(sa(0.6), "A") + P.seat_rows(sa(0.6), "B")
    marked = P.marks(pd.DataFrame(rows, columns=P.FIGURE_COLUMNS)).set_index("figure")
    assert marked.loc["2 players: start-player advantage", "mark"] == P.HOLDS
    assert marked.loc["2 players: start player's win share", "mark"] == P.HOLDS
    assert marked.loc["2 players: compensation of seat 1", "mark"] == P.HOLDS
    rows = P.seat_rows(sa(0.6), "A") + P.seat_rows(sa(0.5), "B")
    marked = P.marks(pd.DataFrame(rows, columns=P.FIGURE_COLUMNS)).set_index("figure")
    assert marked.loc["2 players: start-player advantage", "mark"] == "only with A"
    assert marked.loc["2 players: start player's win share", "mark"] == P.DIFFERS


def _experiment(tmp_path, body: str):
    path = tmp_path / "e.toml"
    path.write_text(body)
    return path


def test_an_experiment_file_asks_for_populations(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    path = _experiment(tmp_path, '[run]\ngames = 10\nplayers = 2\nseat_rotation = true\n'
                                 'populations = ["strong", "old_mix", "portal,tempo"]\n'
                                 'out = "runs/pop"\n')
    plan = plan_experiment(path)
    assert plan.by_population and plan.axes == (POPULATION_AXIS,)
    assert [p.config.strategies for p in plan.points] == [
        DEFAULT_MIX[:2], OLD_MIX[:2], ("portal", "tempo")]
    assert [p.out.name for p in plan.points] == [
        "population=strong", "population=old_mix", "population=portal+tempo"]
    assert all(p.config.seed == plan.points[0].config.seed for p in plan.points)


def test_default_stands_for_every_default_population(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    path = _experiment(tmp_path, '[run]\ngames = 10\nplayers = 4\npopulations = ["default"]\n')
    plan = plan_experiment(path)
    assert [p.values[POPULATION_AXIS] for p in plan.points] == list(POPULATIONS)


@pytest.mark.parametrize("run, match", [
    ('populations = ["strong", "nope"]', "nope"),
    ('populations = ["strong"]', "at least two"),
    ('populations = ["strong", "strong"]', "twice"),
    ('populations = ["strong", "old_mix"]\nstrategies = ["tuned"]', "one of them"),
])
def test_bad_populations_are_one_error_line(tmp_path, monkeypatch, run, match):
    monkeypatch.chdir(tmp_path)
    path = _experiment(tmp_path, f"[run]\ngames = 10\nplayers = 2\n{run}\n")
    with pytest.raises(ConfigError, match=match):
        plan_experiment(path)
    res = CliRunner().invoke(main, ["experiment", str(path), "--quiet"])
    assert res.exit_code == 2, res.output
    assert res.output.strip().splitlines()[-1].startswith("Error:")


def test_populations_cannot_join_an_overrides_sweep(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    path = _experiment(tmp_path, '[run]\ngames = 10\nplayers = 2\npopulations = ["strong", '
                                 '"old_mix"]\n[overrides]\nportal_points = [2, 3]\n')
    with pytest.raises(ConfigError, match="overrides sweep"):
        plan_experiment(path)


def test_the_answers_carry_the_marks_for_two_populations(tmp_path):
    """Two 2-player runs that differ only in their players: one configuration, two
    populations; the answers section marks each headline figure."""
    from bonfire_sim.report.build import build_report
    from bonfire_sim.sim.runconfig import RunConfig
    from bonfire_sim.sim.runner import run

    a = run(RunConfig(games=120, players=2, strategies=DEFAULT_MIX[:2], seat_rotation=True,
                      seed=4, chunk_size=120), tmp_path / "strong")
    b = run(RunConfig(games=120, players=2, strategies=OLD_MIX[:2], seat_rotation=True,
                      seed=4, chunk_size=120), tmp_path / "mix")
    page = build_report([a, b], tmp_path / "r.html", probes=20, views=False)
    html = page.read_text()
    answers = html[html.index('<section id="answers">'):html.index('<section id="overview">')]
    assert "Do the answers hold for other players?" in answers
    assert "Headline figures per population" in answers
    assert "2 players: winning score" in answers and "strong" in answers
    assert "old_mix" in answers
    assert "Across populations" in answers
    assert any(m in answers for m in (P.HOLDS, P.DIFFERS, P.UNDECIDED))


def test_a_single_population_says_how_to_check_more(tmp_path):
    from bonfire_sim.report.build import build_report
    from bonfire_sim.sim.runconfig import RunConfig
    from bonfire_sim.sim.runner import run

    a = run(RunConfig(games=60, players=2, strategies=("tuned",), seat_rotation=True,
                      seed=4, chunk_size=60), tmp_path / "only")
    html = build_report([a], tmp_path / "r.html", probes=10, views=False).read_text()
    assert "played by one population" in html and "populations = " in html


def test_the_solo_players_of_one_setting_are_marked_on_their_win_rate_against_tom():
    from bonfire_sim.report import groups as G
    from bonfire_sim.report.marks import tom_figures

    groups = [G.Group("solo steady · default game", "default game", 1, "steady", ("a",), 900),
              G.Group("solo tuned · default game", "default game", 1, "tuned", ("b",), 900),
              G.Group("solo tuned · tom_deck = gnome", "tom_deck = gnome", 1, "tuned",
                      ("c",), 900)]

    def by_id(rates: list[float]) -> dict:
        tom = pd.DataFrame({"strategy": [g.label for g in groups], "win_rate": rates,
                            "lo": [r - 0.01 for r in rates], "hi": [r + 0.01 for r in rates]})
        return {"tom": {"data": {"tom": tom}}}

    figs = tom_figures(by_id([0.20, 0.205, 0.5]), groups)
    assert [s for s, _ in figs] == ["default game"]  # the gnome deck has one solo player
    marked = P.marks(pd.DataFrame(figs[0][1], columns=P.FIGURE_COLUMNS))
    assert marked["mark"].item() == P.HOLDS and list(marked.columns[3:]) == ["steady", "tuned"]
    figs = tom_figures(by_id([0.20, 0.30, 0.5]), groups)
    assert P.marks(pd.DataFrame(figs[0][1], columns=P.FIGURE_COLUMNS))["mark"].item() \
        == P.DIFFERS


def test_each_player_count_of_a_population_reads_its_own_frames():
    """`tuned` at 2 and 4 players are two settings ("tuned, tuned" vs four names): the
    4-player figures must come from the 4-player setting, not show as not measured."""
    from bonfire_sim.report import groups as G
    from bonfire_sim.report.marks import figures_of

    def sa(n: int, v0: float) -> pd.DataFrame:
        return pd.DataFrame({"players": [n], "seat": [0], "value": [v0], "lo": [v0 - 0.01],
                             "hi": [v0 + 0.01], "fair": [1 / n], "compensation": [0.0],
                             "c_lo": [0.0], "c_hi": [0.0]})

    groups = {"strong": [G.Group("2", "players = tuned, tuned", 2, "tuned, tuned", ("s2",), 9),
                         G.Group("4", "players = tuned x4", 4, "tuned x4", ("s4",), 9)],
              "old_mix": [G.Group("2m", "default game", 2, "default mix", ("m2",), 9),
                          G.Group("4m", "default game", 4, "default mix", ("m4",), 9)]}
    by_setting = [("players = tuned, tuned", {"compensation": sa(2, 0.55)}),
                  ("players = tuned x4", {"compensation": sa(4, 0.32)}),
                  ("default game", {"compensation": pd.concat([sa(2, 0.55), sa(4, 0.32)])})]
    by_id = {"seats": {"data": {"by_setting": by_setting}}}
    # the columns the report's frame (report.stats.combine) gives marks
    players = pd.DataFrame({"run": ["s2"], "solo": [False], "strategy": ["tuned"],
                            "game_id": [0], "deal": [0], "deal_key": [0],
                            "won": [True], "n_players": [2], "score": [80.0]})
    figs = figures_of(by_id, players, groups)
    marked = P.marks(pd.DataFrame(figs["seats"], columns=P.FIGURE_COLUMNS)).set_index("figure")
    assert "not measured" not in marked.loc["4 players: start player's win share", "strong"]
    assert marked.loc["4 players: start player's win share", "mark"] == P.HOLDS


def test_card_rows_carry_the_surplus_the_flag_is_about_and_mark_wide_rows():
    from bonfire_sim.report.marks import card_rows

    tasks = pd.DataFrame({"players": [4, 4, 0], "task": ["R3", "B1", "R3"],
                          "value": [12.5, 5.0, 12.0], "lo": [11.6, 4.0, 11.0],
                          "hi": [13.4, 6.0, 13.0], "surplus": [4.2, 0.3, 4.0],
                          "s_lo": [3.3, -1.5, 3.0], "s_hi": [5.1, 2.1, 5.0],
                          "status": ["measured", "not measured", "measured"],
                          "flag": ["strong", "", "strong"]})
    rows = card_rows(tasks, "task", "strong")
    assert [r["figure"] for r in rows] == ["4 players: task R3", "4 players: task B1"]
    assert (rows[0]["value"], rows[0]["lo"], rows[0]["flag"]) == (4.2, 3.3, "strong")
    assert rows[1]["flag"] is None and np.isnan(rows[1]["value"])  # not measured
    gnomes = pd.DataFrame({"players": [2], "gnome": ["S4"], "value": [-0.8], "lo": [-1.6],
                           "hi": [0.1], "relative": [2.2], "rel_lo": [1.4], "rel_hi": [3.1],
                           "status": ["measured"], "flag": ["strong"]})
    (row,) = card_rows(gnomes, "gnome", "strong")
    assert (row["value"], row["hi"]) == (2.2, 3.1)


def test_the_flag_marks_say_how_far_apart_the_populations_are():
    figures = pd.DataFrame([
        P.figure_row("Y14 value", "flag", 0, "strong", 4.0, 2.0, 6.0, "too cheap"),
        P.figure_row("Y14 value", "flag", 0, "old_mix", 0.5, -1.5, 2.5, ""),
    ], columns=P.FIGURE_COLUMNS)
    row = P.marks(figures).iloc[0]
    assert row["mark"] == "only with strong"
    # The difference with its interval: 3.5 ± 1.96 * hypot(1.02, 1.02).
    assert "strong - old_mix = +3.5 (+0.7 to +6.3)" in row["detail"]


def test_seat_shares_and_winning_scores_are_clustered_by_deal():
    from bonfire_sim.analysis.intervals import (
        clustered_mean_ci,
        clustered_wilson,
        mean_ci,
        wilson,
    )

    # Two rotations of each deal share the deal's luck: seat 0 wins both or neither.
    rng = np.random.default_rng(0)
    deal_won = (rng.random(500) < 0.4).astype(float)
    share, deals = np.repeat(deal_won, 2), np.repeat(np.arange(500), 2)
    m, lo, hi = clustered_wilson(share, deals)
    plain_lo, plain_hi = wilson(share.sum(), len(share))
    assert m == pytest.approx(share.mean())
    assert (hi - lo) / (plain_hi - plain_lo) == pytest.approx(np.sqrt(2), rel=0.05)
    score = np.repeat(rng.normal(100, 15, 500), 2)
    _, clo, chi = clustered_mean_ci(score, deals)
    _, plo, phi = mean_ci(score)
    assert (chi - clo) / (phi - plo) == pytest.approx(np.sqrt(2), rel=0.05)
    # And the population marks read them: the winning score of duplicated deals.
    players = pd.DataFrame({"won": True, "n_players": 2, "score": score, "deal": deals})
    (row,) = P.win_score_rows(players, "strong")
    assert (row["hi"] - row["lo"]) == pytest.approx(chi - clo)
