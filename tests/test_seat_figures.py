"""One statistic, one number: the report's seat table and its compensation table (the
analysis layer's ``seat_advantage``) show a seat's win share and mean score side by side,
and its Tom section shows what ``analysis.tom_difficulty`` returns; on the same games
they must be the same figures (``analysis.values.seat_figures`` / ``solo_figures``, the
one computation each reads), not two copies that drift apart."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from bonfire_sim.analysis import headline as H
from bonfire_sim.analysis import values as V
from bonfire_sim.analysis.runs import Run
from bonfire_sim.report import build as B
from bonfire_sim.report import data as RD
from bonfire_sim.report import rows as RW
from bonfire_sim.report import stats as S
from bonfire_sim.sim.runconfig import RunConfig
from bonfire_sim.sim.runner import run

SEAT_PAIRS = {"games": "n", "win_rate": "value", "lo": "lo", "hi": "hi", "score": "score",
              "score_lo": "score_lo", "score_hi": "score_hi"}


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """Two seat-rotated 3-player runs of one setting (other seeds: the report pools them,
    clustered by deal across both) and one not rotated (both tables leave it out), a
    seat-rotated 2-player run, and a solo run: each as the report loads it and as
    ``Run``."""
    base = tmp_path_factory.mktemp("seatfigures")
    mix = ("greedy", "random", "tempo")
    configs = {"a3": RunConfig(games=60, players=3, seed=4, seat_rotation=True,
                               strategies=mix),
               "b3": RunConfig(games=45, players=3, seed=9, seat_rotation=True,
                               strategies=mix),
               "d3": RunConfig(games=30, players=3, seed=2, strategies=mix),
               "c2": RunConfig(games=40, players=2, seed=3, seat_rotation=True,
                               strategies=("greedy", "random")),
               "s1": RunConfig(games=40, players=1, seed=5, strategies=("greedy",))}
    dirs = [run(cfg, base / label) for label, cfg in configs.items()]
    loaded = RD.load_runs(dirs, categories=True)
    return loaded, [Run(lab, Path(d), data) for (lab, data), d in zip(loaded, dirs,
                                                                       strict=True)]


def _report_seats(loaded, runs, labels):
    """The report's seat section of the runs ``labels``: its seat table and its
    compensation table, as ``build_report`` makes them."""
    _, players = S.combine(loaded, lists=False, lean=True)
    rs = [r for r in runs if r.label in labels]
    data = B.section_seats(RW.rows_of_runs(players, labels), rs)["data"]
    return data["seats"], data["compensation"]


@pytest.mark.parametrize("labels", [["a3", "b3", "d3"], ["c2"]])
def test_the_reports_seat_table_and_the_analysis_seat_table_agree(runs, labels):
    loaded, rs = runs
    seats, comp = _report_seats(loaded, rs, labels)
    n = 3 if "a3" in labels else 2
    rotated = [r for r in rs if r.label in labels and r.config.seat_rotation]
    assert len(seats) == len(comp) == n
    assert [r.label for r in rotated] == [lab for lab in labels if lab != "d3"]
    assert seats["games"].iloc[0] == sum(len(r.data.games) for r in rotated)
    analysis = V.seat_advantage(rotated)
    for table in (comp, analysis):  # the report's compensation table is the analysis one
        a, b = seats.set_index("seat"), table.set_index("seat")
        assert list(a.index) == list(b.index) == list(range(n))
        for mine, theirs in SEAT_PAIRS.items():
            assert a[mine].to_numpy() == pytest.approx(b[theirs].to_numpy(), rel=1e-12,
                                                       abs=0), mine


def test_seat_figures_of_a_group_without_rows_is_none():
    rows = (np.array([0, 0, 2]), np.array([0, 0, 1]), (np.array([1.0, 0, 0.5]),
                                                       np.array([5, 6, 7])))
    got = V.seat_figures(lambda: iter([rows]), 3)
    assert got[1] is None and got[0] is not None and got[2] is not None
    assert (got[0].games, got[0].wins, got[0].win_rate, got[0].score) == (2, 1.0, 0.5, 5.5)


def test_clustering_by_game_instead_of_deal_would_be_caught(runs):
    """The agreement above is not vacuous: the report's rows clustered by game (each game
    its own deal) give other intervals than the analysis's, clustered by deal."""
    loaded, rs = runs
    _, players = S.combine(loaded, lists=False, lean=True)
    data, _ = B.seat_data(RW.rows_of_runs(players, ["a3", "b3", "d3"]))
    by_game = S.seat_advantage(data.drop(columns="deal_key")).set_index("seat")
    analysis = V.seat_advantage([r for r in rs if r.label in ("a3", "b3")]).set_index("seat")
    assert by_game["win_rate"].to_numpy() == pytest.approx(analysis["value"].to_numpy())
    assert by_game["lo"].to_numpy() != pytest.approx(analysis["lo"].to_numpy(), rel=1e-6)


def test_the_reports_tom_table_and_tom_difficulty_agree(runs):
    loaded, rs = runs
    _, players = S.combine(loaded, lists=False, lean=True)
    section = B.section_tom(players)["data"]
    tom, eq = section["tom"], section["handicaps"]
    got = V.tom_difficulty([r for r in rs if r.label == "s1"])
    assert len(tom) == len(got) == 1 and got["n"].iloc[0] == 40
    pairs = {"games": "n", "win_rate": "value", "lo": "lo", "hi": "hi", "score": "score",
             "tom": "tom", "margin": "margin"}
    for mine, theirs in pairs.items():
        assert tom[mine].iloc[0] == pytest.approx(got[theirs].iloc[0], rel=1e-12), mine
    for mine, theirs in {"equilibrium": "handicap", "lo": "h_lo", "hi": "h_hi"}.items():
        assert eq[mine].iloc[0] == pytest.approx(got[theirs].iloc[0], rel=1e-12,
                                                 nan_ok=True), mine


def test_the_runs_headline_says_what_the_report_says(runs):
    """``bonfire-sim run`` ends with the start player's win share (the player's against
    Tom in a solo run) and its interval: the report's seat 0 and Tom rows, to the digit
    (it gave a clustered t interval: 32.5-46.6% where the report said 32.9-46.6% on 201
    seat-rotated 3-player games, seed 5)."""
    loaded, rs = runs
    seats, _ = _report_seats(loaded, rs, ["c2"])
    _, players = S.combine(loaded, lists=False, lean=True)
    tom = B.section_tom(players)["data"]["tom"]
    for label, want in (("c2", seats.set_index("seat").loc[0]), ("s1", tom.iloc[0])):
        r = next(r for r in rs if r.label == label)
        h = H.headline(r.path, r.config)
        assert (h.start_share, h.start_lo, h.start_hi) == pytest.approx(
            (want["win_rate"], want["lo"], want["hi"]), rel=1e-12), label
