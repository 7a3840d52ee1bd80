"""Report statistics on synthetic data with known answers (fixed seeds, stated tolerances)."""

from __future__ import annotations

import inspect

import numpy as np
import pandas as pd
import pytest

from bonfire_sim.report import compare as CMP
from bonfire_sim.report import stats as S
from bonfire_sim.rules import components as C

PRINTED = {t.id: t.points for t in C.TASKS}


def synthetic_players(games: int, seed: int, seat0_rate: float = 0.25,
                      task_bonus: dict[str, float] | None = None,
                      gnome_effect: dict[str, float] | None = None) -> pd.DataFrame:
    """4-player games: each task lit w.p. 4%, each gnome owned w.p. 8%; score = 20 + the
    true value of every lit task (printed + bonus) + gnome effects + seat bump + noise; the
    winner is drawn so the start seat wins w.p. ``seat0_rate``."""
    rng = np.random.default_rng(seed)
    n = games * 4
    lit = rng.random((n, len(S.TASK_IDS))) < 0.04
    own = rng.random((n, len(S.GNOME_IDS))) < 0.08
    true_task = np.array([PRINTED[t] + (task_bonus or {}).get(t, 0.0) for t in S.TASK_IDS])
    true_gnome = np.array([(gnome_effect or {}).get(g, 0.0) for g in S.GNOME_IDS])
    seat = np.tile(np.arange(4), games)
    strategy = np.where(rng.random(n) < 0.5, "greedy", "tempo")
    score = (20 + lit @ true_task + own @ true_gnome + (strategy == "tempo") * 2.0
             + rng.normal(0, 4, n))
    others = (1 - seat0_rate) / 3
    winner = rng.choice(4, size=games, p=[seat0_rate, others, others, others])
    won = seat == np.repeat(winner, 4)
    return pd.DataFrame({
        "run": "syn", "game_id": np.repeat(np.arange(games), 4), "n_players": 4,
        "solo": False, "rotated": True, "seat": seat, "strategy": strategy,
        "score": np.round(score).astype(int), "won": won, "win_share": won.astype(float),
        "bonfire_task_ids": [[S.TASK_IDS[j] for j in np.flatnonzero(r)] for r in lit],
        "unlit_task_ids": [[] for _ in range(n)],
        "gnome_ids": [[S.GNOME_IDS[j] for j in np.flatnonzero(r)] for r in own],
    })


def test_a_wide_interval_gets_a_warning_with_the_games_needed():
    est = pd.DataFrame({"lo": [0.1, 0.2], "hi": [0.18, 0.28]})  # half-width 0.04
    w = S.precision_warning(est, 500, 0.02, "Rates")
    assert w["games_needed"] == 2000 and "2,000 games" in w["text"]
    assert S.precision_warning(est, 500, 0.05, "Rates") is None


def test_the_precision_table_gives_the_observations_a_wide_row_needs():
    from bonfire_sim.report.build import precision_table

    rows = pd.DataFrame({"players": [3, 3, 3, 4], "card": ["B1", "B2", "B3", "B1"],
                         "n": [400, 100, 50, 900], "lo": [-2.0, -1.5, -0.5, np.nan],
                         "hi": [2.0, 1.5, 0.5, np.nan], "imprecise": [True, True, False, True],
                         "flag": ["", "weak", "", ""]})
    t = precision_table(rows, "card", 1.0).set_index("players")
    # B1: 400 forks at ±2 need 1,600 for ±1, B2: 100 at ±1.5 need 225; median 912.5
    assert t.loc[3, "wide"] == 2 and t.loc[3, "need"] == pytest.approx(912.5)
    assert t.loc[3, "widest"] == 2.0 and t.loc[3, "flagged"] == "card B2"
    assert list(t.index) == [3]  # no interval at 4 players: no row


# ---- start player -----------------------------------------------------------------------
@pytest.fixture(scope="module")
def seat_players() -> pd.DataFrame:
    return synthetic_players(20000, seed=11, seat0_rate=0.30)


def test_a_planted_five_point_start_player_edge_is_found_inside_its_interval(seat_players):
    seats = S.seat_advantage(seat_players).set_index("seat")
    s0 = seats.loc[0]
    assert s0["lo"] <= 0.30 <= s0["hi"]
    assert s0["lo"] > 0.25  # the fair share is excluded
    assert s0["excess"] == pytest.approx(0.05, abs=0.01)
    assert s0["hi"] - s0["lo"] < 0.015


def test_the_chi_square_test_rejects_equal_seats_for_the_planted_edge(seat_players):
    t = S.seat_test(seat_players).iloc[0]
    assert t["df"] == 3 and t["p_value"] < 1e-6


def test_the_chi_square_test_accepts_fair_seats():
    fair = synthetic_players(4000, seed=12, seat0_rate=0.25)
    assert S.seat_test(fair).iloc[0]["p_value"] > 0.01


def test_shared_wins_count_fractionally():
    p = pd.DataFrame({"run": "r", "game_id": [0, 0, 1, 1], "n_players": 2, "seat": [0, 1, 0, 1],
                      "strategy": "x", "score": [5, 5, 7, 3], "won": [True, True, True, False],
                      "solo": False, "n_turns": 1, "end_reason": "e", "rotated": True})
    games = pd.DataFrame({"game_id": [0, 1], "n_players": 2, "solo": False, "n_turns": 1,
                          "end_reason": "e"})
    run = type("R", (), {"games": games, "players": p.drop(columns=["run", "n_players",
                                                                    "solo", "n_turns",
                                                                    "end_reason",
                                                                    "rotated"]),
                         "manifest": {"config": {"seat_rotation": True}}})()
    _, players = S.combine([("r", run)])
    assert players["win_share"].tolist() == [0.5, 0.5, 1.0, 0.0]
    seats = S.seat_advantage(players).set_index("seat")
    assert seats.loc[0, "wins"] == 1.5 and seats.loc[1, "wins"] == 0.5


def test_the_seat_intervals_are_clustered_by_deal():
    # Seat rotation: both games of a deal share its cards; here seat 0 wins both or
    # neither, so the deal, not the game, is the independent unit: the interval is
    # sqrt(2) wider than a Wilson interval that counts every game.
    rng = np.random.default_rng(5)
    deals = 400
    seat0_wins = np.repeat(rng.random(deals) < 0.5, 2)
    gid = np.arange(2 * deals)
    p = pd.DataFrame({"game_id": np.repeat(gid, 2), "seat": np.tile([0, 1], 2 * deals),
                      "strategy": "x", "score": np.repeat(rng.integers(60, 120, deals), 4),
                      "won": np.stack([seat0_wins, ~seat0_wins], 1).ravel()})
    games = pd.DataFrame({"game_id": gid, "deal": gid // 2, "n_players": 2, "solo": False,
                          "n_turns": 1, "end_reason": "e"})
    run = type("R", (), {"games": games, "players": p,
                         "manifest": {"config": {"seat_rotation": True}}})()
    _, players = S.combine([("r", run)])
    s0 = S.seat_advantage(players).set_index("seat").loc[0]
    lo, hi = S.wilson(s0["wins"], s0["games"])
    assert (s0["hi"] - s0["lo"]) / (hi - lo) == pytest.approx(np.sqrt(2), rel=0.05)
    assert s0["score_hi"] - s0["score_lo"] > 1.3 * (
        np.subtract(*S.mean_ci(players.loc[players["seat"] == 0, "score"])[2:0:-1]))


# ---- tasks and gnomes -----------------------------------------------------------------
@pytest.fixture(scope="module")
def effect_players() -> pd.DataFrame:
    return synthetic_players(6000, seed=21, task_bonus={"B1": 4.0},
                             gnome_effect={"S1": 3.0, "E2": -3.0})


def test_a_planted_valuable_task_is_flagged_under_valued(effect_players):
    tv = S.task_lit_regression(effect_players).set_index("id")
    b1 = tv.loc["B1"]
    assert b1["flag"] == "under-valued"
    assert b1["value_lo"] <= 6.0 <= b1["value_hi"]  # printed 2 + planted 4


def test_a_task_worth_its_printed_points_is_not_flagged(effect_players):
    tv = S.task_lit_regression(effect_players).set_index("id")
    assert tv.loc["B2", "flag"] == ""
    assert tv.loc["B2", "value_lo"] <= PRINTED["B2"] <= tv.loc["B2", "value_hi"]
    # false flags stay near the 5% the intervals allow
    assert (tv["flag"] != "").sum() <= 1 + 0.10 * len(tv)


def test_take_and_light_rates_count_lit_and_unlit_tasks():
    p = synthetic_players(50, seed=3)
    p["unlit_task_ids"] = [["Y1"]] * len(p)
    tv = S.task_lit_regression(p, min_count=1_000_000).set_index("id")
    assert tv.loc["Y1", "take_rate"] == 1.0
    assert tv["value"].isna().all()  # below min_count: no estimate, no flag
    assert (tv["flag"] == "").all()


def test_task_points_follow_an_override():
    assert S.task_points({"task_points": {"B1": 9}}).set_index("id").loc["B1", "printed"] == 9


def test_the_report_and_the_card_table_read_one_printed_price():
    """The report's task table, the card table and the runs' check read the overrides
    through ``runs.printed_points_under``: the same price for every task."""
    from bonfire_sim.analysis.cards.table import printed_points
    from bonfire_sim.analysis.runs import printed_points_under
    from bonfire_sim.rules import components as C
    from bonfire_sim.sim.runconfig import RunConfig

    over = {"task_points": {"B1": 9, "Y14": 5}}
    under = printed_points_under(over)
    assert under["B1"] == 9 and under["Y14"] == 5
    assert {k: v for k, v in under.items() if k not in ("B1", "Y14")} == {
        t.id: t.points for t in C.TASKS if t.id not in ("B1", "Y14")}
    report = S.task_points(over).set_index("id")["printed"].to_dict()
    assert report == under == printed_points(RunConfig(games=1, players=3, overrides=over))
    assert S.task_points().set_index("id")["printed"].to_dict() == printed_points_under()


def test_planted_gnome_effects_are_found_and_a_neutral_gnome_is_not_flagged(effect_players):
    gs = S.gnome_owned_regression(effect_players).set_index("id")
    assert gs.loc["S1", "flag"] == "strong" and gs.loc["S1", "lo"] <= 3.0 <= gs.loc["S1", "hi"]
    assert gs.loc["E2", "flag"] == "weak"
    assert gs.loc["S2", "flag"] == ""
    assert gs.loc["S2", "lo"] <= 0.0 <= gs.loc["S2", "hi"]
    assert len(gs) == 33


# ---- Tom --------------------------------------------------------------------------------
def test_solo_statistics_and_the_two_sevenths_handicap():
    rng = np.random.default_rng(5)
    n = 2000
    human = rng.normal(60, 10, n).round()
    tom = rng.normal(60, 10, n).round()
    rows = []
    for i in range(n):
        rows.append({"run": "s", "game_id": i, "solo": True, "strategy": "greedy",
                     "score": human[i], "won": human[i] > tom[i], "pts_tom": 0})
        rows.append({"run": "s", "game_id": i, "solo": True, "strategy": "tom",
                     "score": tom[i], "won": tom[i] >= human[i], "pts_tom": 5})
    p = pd.DataFrame(rows)
    solo = S.solo_games(p)
    td = S.solo_figures(solo).iloc[0]
    assert td["lo"] <= 0.5 <= td["hi"] and td["games"] == n
    eq, path = S.handicaps(solo, n_boot=100)
    # margin ~ N(0, 14.1): P(margin > H) = 2/7 at H = 14.1 * 0.566 = 8.0
    assert eq.iloc[0]["lo"] - 1 <= 8.0 <= eq.iloc[0]["hi"] + 1
    assert len(path) == n + 1 and path["handicap"].iloc[0] == C.HANDICAP_START
    lines = S.tom_line_means(p).set_index("line")
    assert lines.loc["pts_tom", "mean"] == 5


# ---- caveats ----------------------------------------------------------------------------
def test_assumed_facts_lists_the_assumed_component_values():
    facts = S.assumed_facts(inspect.getsource(C))
    names = set(facts["name"])
    assert {"GUARDIAN_POINTS_RISING", "FATE_AREA_5X5", "TASKS"} <= names
    assert not facts["note"].str.contains(r"^\[text\]$").any()


# ---- comparing runs ---------------------------------------------------------------------
def test_compare_tasks_and_end_reasons_find_a_planted_change():
    a = synthetic_players(2000, seed=31)
    b = synthetic_players(2000, seed=32)
    b["bonfire_task_ids"] = [ids + ["Y5"] if i % 2 else ids
                             for i, ids in enumerate(b["bonfire_task_ids"])]
    tasks = CMP.compare_tasks(a, b).set_index("item")
    assert CMP.significant(tasks).loc["Y5"] and tasks.loc["Y5", "diff"] == pytest.approx(
        0.5, abs=0.03)
    ga = pd.DataFrame({"end_reason": ["countdown"] * 90 + ["stalled"] * 10})
    gb = pd.DataFrame({"end_reason": ["countdown"] * 100})
    ends = CMP.compare_end_reasons(ga, gb).set_index("item")
    assert ends.loc["stalled", "diff"] == pytest.approx(-0.1)


def test_the_seat_edge_by_strategy_is_measured_against_the_strategys_own_rate():
    p = synthetic_players(4000, seed=41, seat0_rate=0.25)
    by = S.seat_advantage(p, by=("strategy",))
    overall = S.seat_advantage(p)
    assert overall["edge"].to_numpy() == pytest.approx(overall["excess"].to_numpy())
    for _, g in by.groupby("strategy"):
        assert (g["wins"].sum() / g["games"].sum()) == pytest.approx(
            (g["win_rate"] - g["edge"]).iloc[0])


def test_seat_analysis_prefers_rotated_runs_and_says_when_a_run_was_not_rotated():
    from bonfire_sim.report.build import seat_data

    rotated = synthetic_players(100, seed=51)
    fixed = synthetic_players(100, seed=52).assign(run="fixed", rotated=False)
    data, notes = seat_data(pd.concat([rotated, fixed]))
    assert set(data["run"]) == {"syn"} and "not rotated" in notes[0] and "fixed" in notes[0]
    data, notes = seat_data(fixed)
    assert set(data["run"]) == {"fixed"} and "no run was seat-rotated" in notes[0]


def test_relative_flags_compare_each_task_with_the_average_surplus(effect_players):
    tv = S.task_lit_regression(effect_players).set_index("id")
    assert tv.attrs["mean_surplus"] == pytest.approx(0.0, abs=0.3)
    assert tv.loc["B1", "relative_flag"] == "above par"
    assert tv.loc["B2", "relative_flag"] == ""
