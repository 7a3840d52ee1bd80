"""``bonfire-sim errata`` on real games: the command end to end on tiny runs, its
refusals, the report's first screen with the sheet, both pages in headless Chromium (a
screenshot kept under ``test-artefacts/``), and (``heavy``) the issue's held-out start."""

from __future__ import annotations

import json
import os
import re
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from bonfire_sim.cli.main import main
from bonfire_sim.sim.runconfig import RunConfig
from bonfire_sim.sim.runner import run

ARTEFACTS = Path(os.environ.get("BONFIRE_TEST_ARTEFACTS",
                                Path(__file__).resolve().parent.parent / "test-artefacts"))
CHROMIUM = "/usr/bin/chromium" if Path("/usr/bin/chromium").exists() else (
    shutil.which("chromium") or shutil.which("chromium-browser"))
SMALL = ["--probe-games", "40", "--games", "200", "--fork-games", "40", "--focus-games",
         "80", "--rounds", "1", "--tom-games", "60", "--jobs", "1", "--top-ups", "0"]


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> dict[str, Path]:
    base = tmp_path_factory.mktemp("errata_runs")
    return {
        "p2": run(RunConfig(games=240, players=2, seat_rotation=True, seed=2, chunk_size=120),
                  base / "p2"),
        "solo": run(RunConfig(games=80, players=1, strategies=("greedy",), seed=3,
                              chunk_size=80), base / "solo"),
    }


@pytest.fixture(scope="module")
def sheet_dir(runs, tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("errata") / "sheet"
    result = CliRunner().invoke(main, ["errata", str(runs["p2"]), str(runs["solo"]),
                                       "--out", str(out), *SMALL])
    assert result.exit_code == 0, result.output
    assert "change(s)" in result.output and f"wrote {out / 'errata.html'}" in result.output
    return out


def test_the_command_writes_the_four_outputs_and_plays_fresh_deals(sheet_dir, runs):
    for name in ("errata.html", "errata.md", "errata.json", "edition.toml"):
        assert (sheet_dir / name).is_file()
    doc = json.loads((sheet_dir / "errata.json").read_text())
    assert [s["players"] for s in doc["seats"]] == [2]
    assert doc["loop"]["check_seed"] is not None
    assert doc["loop"]["check_seed"] not in (2, 3)  # fresh: never a seed of the runs
    assert [t["item"] for t in doc["tom"]] == ["tom_deck = task1, greedy"]
    fresh = sorted(p.name for p in (sheet_dir / "fresh").iterdir())
    assert fresh and all(name.endswith("-2p") for name in fresh)
    reasons = {x["reason"] for x in doc["unchanged"]}
    assert reasons <= {"within the margin", "not measured", "no price fixes it"}
    # 40 forked games cannot measure every task: those say so, never "no change"
    assert any(x["reason"] == "not measured" and "not enough play to tell" in x["detail"]
               for x in doc["unchanged"] if x["component"] == "tasks")


def test_the_edition_file_is_a_valid_experiment(sheet_dir, tmp_path, monkeypatch):
    from bonfire_sim.pipelines.experiment import load_sweep

    monkeypatch.chdir(tmp_path)
    shutil.copy(sheet_dir / "edition.toml", tmp_path / "edition.toml")
    points = load_sweep(tmp_path / "edition.toml")
    assert points and points[0][1].seat_rotation


def test_the_command_shows_progress_of_every_step(runs, tmp_path):
    result = CliRunner().invoke(main, ["errata", str(runs["p2"]), "--out",
                                       str(tmp_path / "e"), *SMALL, "--tom-games", "0"])
    assert result.exit_code == 0, result.output
    for step in ("errata: task forks of 2-player run(s) p2", "errata: gnome forks",
                 "errata: check:", "fresh games"):
        assert step in result.output, (step, result.output[-3000:])


@pytest.mark.parametrize("args, message", [
    (["--seed", "1"], "include the seed(s) [2] of the runs"),
    (["--targets", "nope.toml"], "targets file nope.toml not found"),
])
def test_bad_input_is_one_error_line(runs, tmp_path, args, message):
    result = CliRunner().invoke(main, ["errata", str(runs["p2"]), "--out",
                                       str(tmp_path / "e"), *SMALL, *args])
    assert result.exit_code == 2 and message in result.output, result.output
    assert "Traceback" not in result.output


def test_a_bad_targets_table_is_refused(runs, tmp_path):
    (tmp_path / "t.toml").write_text("[targets]\nseat_tolerance = -2\n")
    result = CliRunner().invoke(main, ["errata", str(runs["p2"]), "--out",
                                       str(tmp_path / "e"), "--targets",
                                       str(tmp_path / "t.toml")])
    assert result.exit_code == 2 and "seat_tolerance" in result.output


def test_the_report_opens_with_the_sheets_four_cards(runs, sheet_dir, tmp_path):
    from bonfire_sim.report.build import build_report

    page = build_report([runs["p2"], runs["solo"]], tmp_path / "r.html", probes=40,
                        errata=sheet_dir / "errata.json", views=False)
    html = page.read_text()
    answers = re.search(r'<section id="answers">(.*?)</section>', html, re.S)[1]
    assert answers.index('class="cards"') < answers.index("1.1 Task values")
    assert answers.count('<article class="card ') == 4
    headings = re.findall(r"<h3[^>]*>(1\.\d) ", answers)
    assert headings == ["1.1", "1.2", "1.3", "1.4", "1.5", "1.6"]
    with pytest.raises(Exception, match="not an errata sheet"):
        (tmp_path / "bad.json").write_text("{}")
        build_report([runs["p2"]], tmp_path / "r2.html", probes=40,
                     errata=tmp_path / "bad.json", views=False)


def test_the_sheet_and_the_report_in_chromium(runs, sheet_dir, tmp_path):
    playwright = pytest.importorskip("playwright.sync_api")
    assert CHROMIUM, "no chromium at /usr/bin/chromium or on PATH: run scripts/ensure-chromium"
    from bonfire_sim.report.build import build_report

    report = build_report([runs["p2"], runs["solo"]], tmp_path / "r.html", probes=40,
                          errata=sheet_dir / "errata.json", views=False)
    doc = json.loads((sheet_dir / "errata.json").read_text())
    ARTEFACTS.mkdir(parents=True, exist_ok=True)
    errors: list[str] = []
    with playwright.sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=[
            "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"])
        try:
            page = browser.new_page(viewport={"width": 1200, "height": 1000})
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
            for name, path in (("errata-sheet", sheet_dir / "errata.html"),
                               ("errata-report", report)):
                page.goto(path.as_uri())
                cards = page.query_selector_all("article.card")
                assert len(cards) == 4, name
                titles = [c.query_selector("h3").inner_text() for c in cards]
                assert titles == ["Start player", "Tasks", "Gnomes", "Tom"]
                for c in cards:
                    figure = c.query_selector(".figure").inner_text()
                    verdict = c.query_selector(".verdict").inner_text()
                    assert figure.strip() and figure.strip() != "–", (name, figure)
                    assert re.search(r"verified|not enough play|nothing to verify|"
                                     r"no ability variant|within the margin", verdict), verdict
                seat = cards[0].query_selector(".figure").inner_text()
                assert "pp" in seat and "2 players" in seat
                assert f"{doc['seats'][0]['proposed']}" in cards[0].inner_text()
                page.screenshot(path=str(ARTEFACTS / f"{name}.png"), full_page=False)
            page.goto((sheet_dir / "errata.html").as_uri())
            page.emulate_media(media="print")
            page.pdf(path=str(ARTEFACTS / "errata-sheet.pdf"), format="A4")
        finally:
            browser.close()
    assert not errors, errors
    assert (ARTEFACTS / "errata-sheet.png").stat().st_size > 10_000


def test_the_estimate_tops_up_the_rows_it_cannot_tell_on_seeds_no_other_step_plays(
        runs, tmp_path):
    """Issue 36: today's task and gnome rows are topped up as ``values`` and ``reprice``
    survey them (``cards.top_up_runs``): rows 'not measured' on the runs' 40 forked games
    are forked again on fresh deals and measured; without top-ups (``--top-ups 0``, the
    sheet before) they stay 'not measured'.  The top-ups take the seeds after the check's
    looks, none of them a seed of the rounds, the check, its looks or Tom's check, and
    the edition file plays the seed after them.  (A 3-point margin keeps it small.)"""
    (tmp_path / "t.toml").write_text("[targets]\ntask_margin = 3.0\ngnome_margin = 3.0\n")
    docs = {}
    for name, extra in (("none", ["--top-ups", "0"]),
                        ("survey", ["--top-ups", "2", "--max-games", "240"])):
        out = tmp_path / name
        result = CliRunner().invoke(main, ["errata", str(runs["p2"]), "--out", str(out),
                                           "--targets", str(tmp_path / "t.toml"), *SMALL,
                                           "--tom-games", "0", "--games", "100",
                                           "--check-games", "100", *extra])
        assert result.exit_code == 0, result.output
        docs[name] = json.loads((out / "errata.json").read_text())
        docs[name]["toml"] = (out / "edition.toml").read_text()
        docs[name]["output"] = result.output

    def open_rows(doc, kind):
        return doc["loop"]["estimate"][kind]["2"]["not_measured"]

    def unmeasured(doc, kind):
        return {x["item"] for x in doc["unchanged"]
                if x["component"] == kind and x["reason"] == "not measured"}

    none, survey = docs["none"], docs["survey"]
    assert none["loop"]["estimate"]["seeds"] == [] and open_rows(none, "tasks") > 0
    for kind in ("tasks", "gnomes"):
        assert open_rows(survey, kind) < open_rows(none, kind), (kind, survey["loop"])
        assert unmeasured(survey, kind) < unmeasured(none, kind)  # a proper subset
        assert survey["loop"]["estimate"][kind]["2"]["games"] > 0
    # each round says what it forks (its progress bar shows only while it plays: a
    # cached pass has none)
    assert re.search(r"errata: 2 players, top-up 1: \d+ row\(s\) wider than ±1\.8, "
                     r"each forked on the games it needs \([\d,-]+\) of seed 9",
                     survey["output"]), survey["output"]
    # the seeds: runs 2 (and 3 for the solo run, not given here); rounds 3, check 4,
    # its looks 5-8, then the estimate's top-ups, then the edition file's seed
    seeds = survey["loop"]["estimate"]["seeds"]
    check = survey["loop"]["check_seed"]
    taken = ({r["seed"] for r in survey["loop"]["rounds"]} | {check}
             | set(range(check + 1, check + 1 + 4)) | {t["seed"] for t in
                                                     survey["loop"]["top_ups"]})
    assert seeds and not set(seeds) & taken, (seeds, taken)
    assert seeds == list(range(check + 5, check + 5 + len(seeds)))
    assert f"seed = {check + 5 + 2}" in survey["toml"]
    assert f"seed = {check + 5}" in none["toml"]  # no top-ups: the seed after the looks
    assert "Today's values:" in (tmp_path / "survey" / "errata.md").read_text()


def test_a_flagged_gnome_change_is_planted_on_fresh_deals_and_its_recruit_value_forked(
        runs, tmp_path):
    """``errata_gnomes.try_changes`` on a gnome flagged strong: each change plays its own
    fresh games with the override (the manifest records it) and the gnome is forked there;
    the trial's verdict follows from its interval as for tasks."""
    import pandas as pd

    from bonfire_sim.analysis.errata import _resolved
    from bonfire_sim.analysis.errata_gnomes import try_changes
    from bonfire_sim.sim.runner import read_manifest

    gv = pd.DataFrame([{"gnome": "E6", "players": 2, "flag": "strong", "relative": 2.5,
                        "rel_lo": 1.8, "rel_hi": 3.2, "value": 9.0, "lo": 8.5, "hi": 9.5,
                        "status": "measured", "forks_needed": 50.0}])
    base = RunConfig(games=40, players=2, seat_rotation=True, seed=2, chunk_size=40)
    seen: list[tuple[int, int]] = []
    trials = try_changes(gv, {2: base}, 40, 1.0, 0.05, tmp_path, 9,
                         progress=lambda d, n: seen.append((d, n)))
    tried = trials["E6"]
    assert [t.candidate.value for t in tried][:1] == [0]  # 1 point per gnome -> 0
    assert seen[0] == (0, 1) and seen[-1] == (1, 1)
    folder = next(tmp_path.glob("gnome-E6-elder_points-0-seed9*-2p"))
    assert read_manifest(folder)["config"]["overrides"] == {"elder_points": {"E6": 0}}
    row = tried[0].rows[2]
    assert row["n"] > 0 and row["lo"] <= row["relative"] <= row["hi"]
    # E6 at 0 points gives nothing: its recruit value falls well below today's 9 points
    assert row["relative"] < 2.5
    assert tried[0].verified == _resolved(row["lo"], row["hi"], 1.0)


# ---- the figures (heavy: tens of minutes on 2 cores) ---------------------------------
# `tuned` in every seat without seat rotation: rotating identical players replays each
# deal (a run's headline says so), so rotation would only divide the distinct deals.
# The planted tasks are within the margin in the default game (docs/findings/
# 2026-11-27-card-table.md flags R3 alone), so their original value is the right answer.
PLANTED = {"B20": 3, "R15": -2, "Y20": 4}  # held-out start: printed off by +3, -2, +4


@pytest.mark.heavy
@pytest.mark.xfail(strict=True, reason=(
    "measured 2026-11-29 (docs/findings/2026-11-28-errata-held-out.md, update): the 11-28 "
    "bar no longer holds; at 2 players the start seat sits on the 1.5 pp tolerance (+1.6 pp, "
    "1.44 to 1.79: not resolved) and 3 players is not resolved, and the check shows re-priced "
    "cards off; failed on main before and after the sheet's loop took reprice's rules"))
def test_a_held_out_start_is_brought_back_by_the_joint_loop(tmp_path):
    """Seat points removed and three tasks planted off: the sheet's joint verification
    puts every seat within 1.5 pp (verified: the whole interval inside) and the planted
    tasks within 1 point of their original value, and pushes no untouched card out of
    the margin; a second seed proposes the same sheet within 1 point for 90% of the lines.
    The command of docs/findings/2026-11-28-errata-held-out.md (about 8 minutes a sheet
    on the shared 2-core machine)."""
    from bonfire_sim.analysis.errata import lines_agree
    from bonfire_sim.analysis.errata_cards import printed_points
    from bonfire_sim.analysis.errata_measure import FreshPlan
    from bonfire_sim.pipelines.errata import errata

    original = printed_points(RunConfig(games=1, players=4))
    planted = {c: original[c] + d for c, d in PLANTED.items()}
    dirs = [run(RunConfig(games=2000, players=n, strategies=("tuned",),
                          seed=40 + n, overrides={"task_points": planted}),
                tmp_path / f"p{n}", jobs=2) for n in (2, 3, 4)]
    plan = FreshPlan(games=20000, fork_games=400, focus_games=1600, jobs=2)
    sheet, _ = errata(dirs, tmp_path / "sheet", probe_games=600, rounds=3, plan=plan)
    assert all(s["verified"] is True for s in sheet.seats), sheet.seats
    got = {t["item"]: t["proposed"] for t in sheet.tasks}
    for c in PLANTED:
        assert abs(got.get(c, planted[c]) - original[c]) <= 1, (c, got)
    # no other re-priced card shown off on the check round, none left as unfixable
    check = [t for t in sheet.tasks if t["item"] not in PLANTED]
    assert not [t for t in check if t["verified"] is False], check
    assert not [x for x in sheet.unchanged if x["component"] == "tasks"
                and x["reason"] == "no price fixes it"]
    again, _ = errata(dirs, tmp_path / "again", probe_games=600, rounds=3, plan=plan,
                      seed=5000)
    agree, lines = lines_agree(sheet, again)
    assert agree >= 0.9 * lines, (agree, lines)


@pytest.mark.heavy
def test_the_default_game_with_verified_seat_points_changes_nothing(tmp_path):
    """Once the seat points a sheet verified are printed, a sheet of the same game
    proposes no further seat change at those counts.  Only verified lines are printed
    (a line whose interval cannot tell is not a result), and 20,000 fresh games a round
    resolve the tolerance; at 3,000 nothing was verified and the 3-player proposal
    [0, 2, 4] overshot (measured 2026-11-27: the second sheet asked [0, 2, 2])."""
    from bonfire_sim.analysis.errata_measure import FreshPlan
    from bonfire_sim.pipelines.errata import errata

    plan = FreshPlan(games=20000, fork_games=0, focus_games=0, jobs=2, check_games=20000)
    dirs = [run(RunConfig(games=6000, players=n, strategies=("tuned",),
                          seed=60 + n), tmp_path / f"p{n}", jobs=2) for n in (2, 3, 4)]
    first, _ = errata(dirs, tmp_path / "first", probe_games=0, rounds=3, plan=plan)
    points = {s["players"]: s["proposed"] for s in first.seats if s["verified"] is True}
    assert points, [(s["players"], s["proposed"], s["effect"]) for s in first.seats]
    settled = [run(RunConfig(games=6000, players=n, strategies=("tuned",), seed=70 + n,
                             overrides={"seat_points": points[n]} if any(points[n]) else {}),
                   tmp_path / f"s{n}", jobs=2) for n in sorted(points)]
    second, _ = errata(settled, tmp_path / "second", probe_games=0, rounds=3, plan=plan)
    assert not [s for s in second.seats if s["changed"]], second.seats


def test_the_check_plays_a_count_it_cannot_resolve_again_on_more_games(tmp_path,
                                                                        monkeypatch):
    """The check round's ``top_up``: where some seat's interval crosses the tolerance, the
    count is played again on top_up x the games of the same seed, and its seat figures
    are the larger run's; a resolved count is not played again."""
    from bonfire_sim.analysis import errata_measure as EM
    from bonfire_sim.analysis.errata_loop import Edition
    from bonfire_sim.analysis.targets import Targets

    plan = EM.FreshPlan(games=60, fork_games=0, focus_games=0, jobs=1)
    bases = {2: RunConfig(games=60, players=2, strategies=("greedy",), seed=1)}
    fn = EM.fresh_measure(bases, plan, Targets(), tmp_path, top_up=3)
    wide = fn(Edition({}, {}), 77, ())  # 60 games: every interval crosses 1.5 pp
    assert (wide.seats["n"] == 180).all(), wide.seats
    assert len(list(tmp_path.iterdir())) == 2  # the 60-game run and the 180-game one
    # resolved (here: a tolerance no interval of 60 games can cross): no second run
    loose = EM.fresh_measure(bases, plan, Targets(seat_tolerance=60.0), tmp_path / "b",
                             top_up=3)
    assert (loose(Edition({}, {}), 77, ()).seats["n"] == 60).all()
    assert len(list((tmp_path / "b").iterdir())) == 1


def test_the_check_forks_a_task_row_it_cannot_resolve_again_on_the_seeds_after(tmp_path):
    """Issue 36: the sheet's check round (``task_top_ups``) forks a re-printed task whose
    row at some count crosses the margin again, on new games of the seeds after the
    check's (twice the focus games, then twice that), through the same step as
    ``reprice``'s check (``cards.top_up_check``); its row rests on every fork.  Without
    the top-ups the row has the check's forks alone."""
    from bonfire_sim.analysis import errata_measure as EM
    from bonfire_sim.analysis.errata_cards import printed_points
    from bonfire_sim.analysis.errata_loop import Edition
    from bonfire_sim.analysis.targets import Targets

    bases = {2: RunConfig(games=60, players=2, strategies=("greedy",), seed=1,
                          seat_rotation=True)}
    plan = EM.FreshPlan(games=60, fork_games=30, focus_games=40, jobs=1)
    edition = Edition({}, printed_points(bases[2]) | {"R3": 2})
    said: list[str] = []
    topped = EM.fresh_measure(bases, plan, Targets(), tmp_path / "a", task_top_ups=2,
                              status=said.append)(edition, 77, ["R3"])
    once = EM.fresh_measure(bases, plan, Targets(), tmp_path / "b")(edition, 77, ["R3"])
    # 40 games of forks cannot resolve a card to a point: a look on the seed after
    ups = [(t["seed"], t["rows"], t["games"]) for t in topped.top_ups]
    assert ups[:2] == [(78, [["R3", 2]], 80), (79, [["R3", 2]], 160)], ups
    assert [u[0] for u in ups] == list(range(78, 78 + len(ups))) and len(ups) <= 3
    assert once.top_ups == []
    r3 = {m: int(x.cards.loc[x.cards["card"] == "R3", "n"].iloc[0])
          for m, x in (("topped", topped), ("once", once))}
    assert r3["topped"] > r3["once"] > 0, r3
    other = {m: x.cards.loc[x.cards["card"] == "B1", "n"].iloc[0]
             for m, x in (("topped", topped), ("once", once))}
    assert other["topped"] == other["once"]  # not re-printed: never topped up
    assert any("check look 1 (seed 78)" in s and "R3 at 2p 80 more games" in s
               for s in said), said
    assert len(list((tmp_path / "a").iterdir())) == 1  # the top-ups keep no runs
