"""The whole card table to a margin (``analysis.cards.survey``, ``bonfire-sim values``):
top-ups go where the intervals need them, never past the cap, never fork a card twice on
one deal, pool only one game, and give the same table for any number of workers.

Sizes are small (2 players, tens of games) so the file stays around a minute on one core;
the speed figure (the whole table at 2, 3 and 4 players) is measured by ``bench card-table``.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from bonfire_sim.analysis.cards import survey as CS
from bonfire_sim.analysis.cards.probes import GNOME_IDS, TASK_IDS
from bonfire_sim.cli.main import main
from bonfire_sim.errors import ConfigError, DataError
from bonfire_sim.sim.runconfig import RunConfig
from bonfire_sim.sim.runner import run

TWO = RunConfig(games=40, players=2, seed=21, seat_rotation=True)


def _row(card, n, needed, status="not measured"):
    return {"card": card, "n": n, "forks_needed": needed, "status": status}


def test_the_plan_asks_each_wide_row_for_the_games_its_interval_needs():
    tab = pd.DataFrame([_row("B1", 100, 400), _row("B2", 10, 40),
                        _row("B3", 50, 20, "measured"), _row("Y15", 0, math.nan),
                        _row("Y16", 5, 10_000)])
    played = {"B1": 200, "B2": 200, "B3": 200, "Y15": 200, "Y16": 200}
    plan = CS.top_up_plan(tab, played, max_games=2_000)
    got = {c: g for g, cards in plan.items() for c in cards}
    assert "B3" not in got  # measured: nothing more
    # B1: 1.1 * 400 - 100 = 340 more forks at 0.5 per game = 680 games, on the grid
    assert got["B1"] == 688  # 680 rounded up to a multiple of 16
    assert got["B2"] == 688  # 1.1 * 40 - 10 = 34 more forks at 0.05 per game: one batch
    assert got["Y15"] == 800  # no fork yet: four times its games so far
    assert got["Y16"] == 1_800  # the cap: 2,000 games in all
    assert CS.top_up_plan(tab, {**played, "Y16": 2_000}, 2_000).get(1_800) is None


def test_the_cap_is_the_same_seat_games_at_every_count():
    assert [CS.games_cap(32_000, n) for n in (2, 3, 4)] == [64_000, 42_666, 32_000]


def test_batch_sizes_are_multiples_of_sixteen_and_at_least_thirty_two():
    assert [CS._batch_size(x) for x in (1, 32, 33, 48, 49, 1000)] == [32, 32, 48, 48, 64,
                                                                       1008]


@pytest.fixture(scope="module")
def survey():
    # a 3-point margin: at these sizes a 1-point one would leave every row wide
    return CS.survey_cards({2: TWO}, games=40, max_games=400, rounds=2, seed=30, margin=3.0,
                           cache=False)


def test_a_survey_measures_more_rows_than_its_first_stage_and_keeps_every_row(survey):
    t = survey.table
    # Y2 is not dealt in 2-player games: no row (the rules take it out of the deck)
    assert len(t) == 65 + 33 and set(t["card"]) == set(TASK_IDS + GNOME_IDS) - {"Y2"}
    first = CS.survey_cards({2: TWO}, games=40, rounds=0, seed=30, margin=3.0,
                            cache=False).table
    assert (first["status"] == "measured").sum() + 20 < (t["status"] == "measured").sum()
    assert t["half"].median() < 0.7 * first["half"].median()
    # max_games=400 four-player games: 800 two-player games (as many seat-games)
    assert (t["games"] <= 800).all() and (t["games"] >= 40).all()
    assert t["who"].iloc[0] == "tuned_portal, tuned_planner"
    # every measured row meets the margin; every flag rests on 10+ deals, beyond the margin
    m = t[t["status"] == "measured"]
    assert len(m) and (m["half"] <= 3.0).all()
    f = t[t["flag"] != ""]
    assert (f["deals"] >= 10).all() and (f["surplus"].abs() > 3.0).all()
    # stage 0 forks every card, top-ups fork only the cards they list, on fresh seeds
    assert survey.batches[0].cards == ("all",) and survey.batches[0].seed == 21
    assert {b.seed for b in survey.batches[1:]} <= {30, 31}


def test_top_ups_fork_only_their_cards_in_their_games_and_each_once_per_game(monkeypatch):
    seen = []
    real = CS.probe_staggered

    def spy(config, games, **kw):
        t = real(config, games, **kw)
        seen.append((config.seed, dict(games), t))
        return t

    monkeypatch.setattr(CS, "probe_staggered", spy)
    CS.survey_cards({2: TWO}, games=40, max_games=400, rounds=2, seed=30, margin=3.0,
                    cache=False)
    assert [s for s, _, _ in seen] == [30, 31]
    for _seed, games, t in seen:
        assert len(t) and set(t["item"]) <= set(games)
        # a card is forked in its first games[card] games only, once per game and kind
        assert (t["game_id"] < t["item"].map(games)).all()
        assert not t.duplicated(["item", "kind", "game_id"]).any()
        # top-ups fork what the value rests on (the default measure, the receipt value:
        # take forks), not the lit value's light and forced forks
        assert set(t["kind"]) <= {"take", "gnome"}


def test_the_same_survey_with_two_workers_is_the_same_table(survey):
    two = CS.survey_cards({2: TWO}, games=40, max_games=400, rounds=2, seed=30, margin=3.0,
                          jobs=2, cache=False)
    pd.testing.assert_frame_equal(survey.table, two.table)


def test_seeds_that_overlap_the_first_stage_and_mixed_games_are_refused(tmp_path):
    with pytest.raises(DataError, match="disjoint seed"):
        CS.survey_cards({2: TWO}, games=40, rounds=2, seed=20)
    with pytest.raises(ConfigError, match="RunConfig of 3 players"):
        CS.survey_cards({3: TWO})
    a = run(RunConfig(games=4, players=2, seed=1), tmp_path / "a")
    b = run(RunConfig(games=4, players=2, seed=2, strategies=("greedy",)), tmp_path / "b")
    with pytest.raises(DataError, match="differ in their players"):
        CS.survey_cards([a, b])
    c = run(RunConfig(games=4, players=2, seed=3), tmp_path / "c")
    with pytest.raises(DataError, match="one run per player count"):
        CS.survey_cards([a, c])


def test_the_values_command_prints_the_table_and_writes_it(tmp_path):
    out = tmp_path / "v.csv"
    res = CliRunner().invoke(main, ["values", "--players", "2", "--games", "40",
                                    "--max-games", "200", "--rounds", "1", "--seed", "21",
                                    "--out", str(out), "-q"])
    assert res.exit_code == 0, res.output
    assert "2 players (tuned_portal, tuned_planner):" in res.output
    assert "tasks measured" in res.output and "not measured" in res.output
    assert "65 tasks measured (Y2 is not dealt at 2 players)" in res.output
    t = pd.read_csv(out)
    assert len(t) == 98 and {"surplus", "s_lo", "s_hi", "forks_needed", "games"} <= set(t)


@pytest.mark.parametrize("args, message", [
    (["--players", "1"], "counts among 2, 3 and 4"),
    (["--players", "two"], "player counts like 2,3,4"),
    (["--out", "v.txt"], ".csv, .parquet, .json"),
    (["--strategies", "tuned,greedy"], "one per seat of 4 players"),
    (["--margin", "nan"], "--margin"),
    (["--strategies", "nobody"], "nobody"),
])
def test_bad_values_input_is_one_error_line(args, message, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    res = CliRunner().invoke(main, ["values", "--games", "4", "--rounds", "0", *args])
    assert res.exit_code == 2, res.output
    lines = res.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error:") and message in lines[0]


def test_card_values_with_a_survey_top_up_the_wide_rows_of_a_run(tmp_path, monkeypatch):
    from bonfire_sim.analysis.cards.probes import ProbeSettings
    from bonfire_sim.analysis.cards.survey import card_forks, card_values
    from bonfire_sim.analysis.runs import as_runs

    monkeypatch.setattr(CS, "MAX_GAMES", 200)  # at most 200 games per card: seconds
    src = run(RunConfig(games=40, players=2, seed=8, seat_rotation=True), tmp_path / "r")
    plain = card_values(src, probes=ProbeSettings(games=40), margin=3.0)
    topped = card_values(src, probes=ProbeSettings(games=40, survey=True), margin=3.0)
    assert (topped["status"] == "measured").sum() > (plain["status"] == "measured").sum() + 20
    assert topped["who"].iloc[0] == plain["who"].iloc[0]
    forks = card_forks(as_runs([src]), ProbeSettings(games=40, survey=True), kinds=("gnome",),
                       margin=3.0)
    extra = forks[forks["run"] == "top-up"]
    assert len(extra) and set(extra["kind"]) == {"gnome"}  # a gnome survey forks gnomes
    assert extra["cluster"].str.match(r"s\d+\|").all()
    assert not extra["cluster"].str.startswith("s8|").any()  # never the run's own seed


def test_the_report_measures_cards_when_asked(tmp_path, monkeypatch):
    monkeypatch.setattr(CS, "MAX_GAMES", 120)
    src = run(RunConfig(games=40, players=2, seed=8, seat_rotation=True), tmp_path / "r")
    out = tmp_path / "r.html"
    res = CliRunner().invoke(main, ["report", str(src), "--probe-games", "40",
                                    "--measure-cards", "--margin", "3", "--out", str(out),
                                    "-q"])
    assert res.exit_code == 0, res.output
    html = out.read_text()
    assert "topped up on fresh deals of the same game" in html
    assert "at most 120 four-player games per card" in html
    # rows still wide after the top-ups are not sent back to --probe-games
    assert "stayed wider after the top-ups" in html


@pytest.mark.parametrize("measure, kinds", [("lit", ["light/forced", "gnome"]),
                                            ("receipt", ["take", "light/forced", "gnome"])])
def test_bench_card_table_prints_every_player_count_and_each_fork_kind(monkeypatch, measure,
                                                                       kinds):
    monkeypatch.setattr(CS, "FIRST_GAMES", 12)
    monkeypatch.setattr(CS, "MAX_GAMES", 24)
    seen = []
    real = CS.survey_cards
    monkeypatch.setattr(CS, "survey_cards",
                        lambda *a, **k: seen.append(k["measure"]) or real(*a, **k))
    res = CliRunner().invoke(main, ["bench", "card-table", "--jobs", "1", "-q",
                                    "--measure", measure])
    assert res.exit_code == 0, res.output
    assert seen == [measure]
    lines = res.output.splitlines()
    rows = [ln.split() for ln in lines if ln.strip()[:1] in "234"]
    assert [r[0] for r in rows] == ["2", "3", "4"]
    # Y2 is not dealt at 2 players
    assert [r[1].split("/")[1] for r in rows] == ["65", "66", "66"]
    assert all(r[2].endswith("/33") for r in rows)
    assert "at most 24 four-player games per card (48 two-player)" in res.output
    # one line per fork kind the measure uses: forks, forks/s, forks per CPU second;
    # the kinds' forks (from the table's rows) add up to the forks the probes played
    # (each fork counted once: under lit a task's value forks are its lit forks)
    by_kind = {ln.split()[0]: ln.split()[1:] for ln in lines
               if ln.split()[:1] and ln.split()[0] in ("take", "light/forced", "gnome")}
    assert list(by_kind) == kinds
    assert all(float(v[1].replace(",", "")) > 0 and float(v[2].replace(",", "")) > 0
               for v in by_kind.values())
    total = sum(int(v[0].replace(",", "")) for v in by_kind.values())
    assert total == sum(int(r[3].replace(",", "")) for r in rows)
    assert f"measure {measure}" in res.output and "CPU s" in res.output


def test_bench_card_table_refuses_an_unknown_measure_in_one_line():
    res = CliRunner().invoke(main, ["bench", "card-table", "--measure", "worth"])
    assert res.exit_code == 2, res.output
    lines = res.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error:") and "--measure" in lines[0]


def test_values_of_a_run_start_from_its_forks_and_refuse_new_game_options(tmp_path):
    src = run(RunConfig(games=40, players=2, seed=8, seat_rotation=True), tmp_path / "r")
    res = CliRunner().invoke(main, ["values", str(src), "--games", "40", "--max-games", "80",
                                    "--rounds", "1", "--margin", "3", "--format", "csv",
                                    "-q"])
    assert res.exit_code == 0, res.output
    rows = res.output.strip().splitlines()
    assert len(rows) == 1 + 98 and "surplus" in rows[0]
    bad = CliRunner().invoke(main, ["values", str(src), "--players", "2,3"])
    assert bad.exit_code == 2 and bad.output.startswith("Error:")
    assert "the runs say who played" in bad.output


def test_a_top_up_is_cached_by_its_plan_and_replayed_only_without_the_cache(tmp_path,
                                                                           monkeypatch):
    from bonfire_sim.analysis.cards import probes

    monkeypatch.setattr(probes, "fork_cache_dir", lambda: tmp_path / "forks")
    calls = []
    real = probes._execute
    monkeypatch.setattr(probes, "_execute", lambda *a, **k: calls.append(1) or real(*a, **k))
    plan = {"B1": 16, "S4": 32}
    a = probes.probe_staggered(TWO, plan, kinds=CS.kinds_of())
    b = probes.probe_staggered(TWO, plan, kinds=CS.kinds_of())
    assert len(calls) == 1 and a.equals(b) and len(list((tmp_path / "forks").glob("*")))
    c = probes.probe_staggered(TWO, {**plan, "B1": 32}, kinds=CS.kinds_of())  # another plan
    d = probes.probe_staggered(TWO, plan, kinds=CS.kinds_of(), cache=False)
    assert len(calls) == 3 and d.equals(a) and len(c) >= len(a)


@pytest.mark.heavy
def test_the_whole_four_player_table_is_measured_and_retests_within_a_point_heavy():
    """Full size (``make test-heavy``, about 4 minutes on 2 cores): two independent surveys
    of the default population at 4 players measure every task and gnome row to ±1 point
    (or mark it) and propose the same printed value within 1 point for at least 90% of
    the tasks; a flag rests on 10+ deals, beyond the margin.  Pinned to the lit value, the
    measure it was written for: under the receipt value (the default since 2026-11-29)
    the two surveys' own per-count proposals agreed for 84.8% of the tasks (make
    test-heavy, 2026-11-29 12:55 UTC): a receipt row's proposal divides by a slope below
    one.  The receipt value's test-retest is the price loop's
    (``test_test_retest_on_two_seeds_heavy``, a study test: 60 of 66, 91%)."""
    tabs = []
    for seed in (501, 601):
        cfg = RunConfig(games=400, players=4, seed=seed, seat_rotation=True)
        t = CS.survey_cards({4: cfg}, seed=seed + 1, jobs=2, cache=False,
                            measure="lit").table
        assert (t["status"] == "measured").sum() >= 97  # of 99
        f = t[t["flag"] != ""]
        assert (f["deals"] >= 10).all() and (f["surplus"].abs() > 1).all()
        tabs.append(t[t["kind"] == "task"].set_index("card"))
    a, b = tabs
    agree = ((a["proposed"] - b["proposed"]).abs() <= 1).mean()
    assert agree >= 0.9, agree


@pytest.mark.heavy
# Not run by `make test-heavy` (run=False): an expected failure that runs asserts nothing
# to CI (neither its failure nor a pass fails the build) and cost minutes of its budget;
# run it by hand with `pytest -m heavy --runxfail -k NAME` when its reason may be gone.
@pytest.mark.xfail(strict=False, run=False, reason=(
    "open, measured 2026-11-27 21:29 UTC: since the players stopped paying a yellow joker "
    "while holding the tile asked (issue 39, d9e1a31) they light Y16 and Y17 at 2 players "
    "too rarely for the 64,000-game cap: 294 of 296 rows measured, the two say 'not "
    "measured' with the forks they need.  Re-measure the cap (card_survey.games_cap) on "
    "today's players and restore the assertion"))
def test_the_whole_table_at_every_count_is_measured_with_the_defaults_heavy():
    """Full size (``make test-heavy``, about 4 minutes on 2 cores): ``bench card-table``'s
    survey (the default population, first stage, rounds and cap) measures every one of the
    296 rows (66 tasks, 65 at 2 players, and 33 gnomes at 2, 3 and 4 players) to ±1."""
    configs = {n: RunConfig(games=CS.whole_games(CS.FIRST_GAMES, n), players=n, seed=11,
                            seat_rotation=True) for n in (2, 3, 4)}
    t = CS.survey_cards(configs, seed=12, jobs=2, cache=False).table
    assert len(t) == 296 and (t["status"] == "measured").all(), t[t["status"] != "measured"]
    assert (t["half"] <= 1.0).all()
    assert (t.groupby("players")["games"].max() <= [64_000, 42_666, 32_000]).all()


def test_a_card_survey_of_runs_that_play_two_games_is_refused(tmp_path):
    from bonfire_sim.analysis.cards.probes import ProbeSettings
    from bonfire_sim.analysis.cards.survey import card_values

    a = run(RunConfig(games=4, players=2, seed=1), tmp_path / "a")
    b = run(RunConfig(games=4, players=2, seed=2, variants={"fate_area": "4x6"}),
            tmp_path / "b")
    with pytest.raises(DataError, match="differ in their variants"):
        card_values([a, b], probes=ProbeSettings(games=4, survey=True))


def test_a_survey_hands_each_count_over_as_it_goes_and_resumes_from_its_cache(
        tmp_path, monkeypatch):
    """An interrupted ``values`` loses nothing it finished: each count's rows are handed
    to ``checkpoint`` (``values --out`` writes them) and every probe is cached, so the
    same survey started again replays nothing."""
    from bonfire_sim.analysis.cards import probes

    monkeypatch.setattr(probes, "fork_cache_dir", lambda: tmp_path / "forks")
    cfgs = {2: TWO, 3: RunConfig(games=12, players=3, seed=21, seat_rotation=True)}
    seen: list[list[int]] = []
    a = CS.survey_cards(cfgs, games=12, max_games=40, rounds=1, seed=30, margin=3.0,
                        checkpoint=lambda t: seen.append(sorted(set(t["players"]))))
    assert seen == [[2], [2, 3]]
    calls = []
    real = probes._execute
    monkeypatch.setattr(probes, "_execute", lambda *a, **k: calls.append(1) or real(*a, **k))
    b = CS.survey_cards(cfgs, games=12, max_games=40, rounds=1, seed=30, margin=3.0)
    assert calls == []
    pd.testing.assert_frame_equal(a.table, b.table)


@pytest.mark.parametrize("players, measure, plan", [
    (2, "receipt", {"Y15": 96, "R9": 48}), (3, "lit", {"B1": 96, "B3": 48})])
def test_a_top_up_skips_the_games_that_deal_none_of_its_tasks_and_forks_the_same(
        monkeypatch, players, measure, plan):
    """A task reaches the players only from the islands it is dealt to, so a top-up of a
    few tasks need not play the games that deal none of them: the same forks, row for
    row, from far fewer games (about a third at 2 players)."""
    from bonfire_sim.analysis.cards import kernel, probes

    cfg = RunConfig(games=96, players=players, seed=23, seat_rotation=True)
    played = []
    real_kernel = kernel.probe_games
    monkeypatch.setattr(kernel, "probe_games",
                        lambda *a: played.append(len(a[4][0])) or real_kernel(*a))
    new = probes.probe_staggered(cfg, plan, kinds=CS.kinds_of(measure), cache=False)
    skipped = sum(played)
    monkeypatch.setattr(probes, "games_dealing", lambda config, settings, ids: ids)
    played.clear()
    old = probes.probe_staggered(cfg, plan, kinds=CS.kinds_of(measure), cache=False)
    assert sum(played) == 96 and skipped < 0.75 * 96
    assert len(old) > 10 and new.equals(old)
    # a chunk that forks a gnome plays every game (gnomes are not dealt to islands)
    settings = probes.ProbeSettings(kinds=("take", "gnome"), tasks=("Y15",), gnomes=("S4",))
    ids = np.arange(24, dtype=np.int64)
    monkeypatch.undo()
    assert (probes.games_dealing(cfg, settings, ids) == ids).all()


def test_a_fork_branch_that_goes_where_the_game_went_ends_as_the_game_did(monkeypatch):
    """A fork branch whose first move leads to exactly the state the game itself reached
    from the forked decision is the game's own play-out, so the kernel takes the game's
    end instead of playing it again: the same forks, row for row, of every kind, as when
    nothing is reused.  (The kernel reuses only when the forks play under the game's
    rules; the reference hands it the same rules with one unread entry appended, which
    turns the reuse off and nothing else.)"""
    from bonfire_sim.analysis.cards import kernel, probes

    kinds = ("take", "light", "gnome", "forced")
    real = kernel.probe_games
    for n in (2, 4):
        cfg = RunConfig(games=8 * n, players=n, seed=930 + n, seat_rotation=True)
        ids = np.arange(cfg.games, dtype=np.int64)
        new = probes.probe_chunk(cfg, probes.ProbeSettings(kinds=kinds), ids)
        monkeypatch.setattr(kernel, "probe_games", lambda t, p, pf, *a: real(
            t, p, np.append(pf, pf[:1]), *a))
        old = probes.probe_chunk(cfg, probes.ProbeSettings(kinds=kinds), ids)
        monkeypatch.setattr(kernel, "probe_games", real)
        assert set(new["kind"]) == set(kinds) and len(new) > 100
        assert new.equals(old)


def test_a_process_that_has_forked_sends_every_chunk_of_a_parallel_probe_to_the_workers(
        monkeypatch):
    """The first chunk of a parallel probe is played in the calling process only until
    that process has forked once (it compiles or loads the kernels for the workers);
    after that it would only keep a worker idle.  The table is the same either way."""
    from bonfire_sim.analysis.cards import probes

    cfg = RunConfig(games=16, players=2, seed=41, seat_rotation=True)
    settings = probes.ProbeSettings(kinds=("take", "gnome"), chunk_size=4)
    here = []
    real = probes._timed_chunk
    monkeypatch.setattr(probes, "_timed_chunk", lambda *a: here.append(1) or real(*a))
    tables = []
    for forked in (False, True):
        monkeypatch.setattr(probes, "FORKED_HERE", [forked])
        here.clear()
        tables.append(probes.probe_values(cfg, settings, jobs=2))
        assert len(here) == (0 if forked else 1)
    assert tables[0].equals(tables[1]) and len(tables[0]) > 0
