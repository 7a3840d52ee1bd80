"""The game viewer (``bonfire-sim view``) and "when is the game decided" (analysis.decided).

The viewer replays a game's recorded decisions with the engine and must end in the
game's own score table; the page embeds its frames as JSON, which these tests rebuild
and compare with the run's players table.  The browser test steps through a whole game
by key presses in headless Chromium.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pandas as pd
import pytest
from click.testing import CliRunner

from bonfire_sim.analysis import decided as AD
from bonfire_sim.cli.main import main
from bonfire_sim.errors import DataError
from bonfire_sim.report import decided as DC
from bonfire_sim.report.view import deltas
from bonfire_sim.rules import components as C
from bonfire_sim.sim.load import load
from bonfire_sim.sim.runconfig import RunConfig
from bonfire_sim.sim.runner import run

CHROMIUM = "/usr/bin/chromium" if Path("/usr/bin/chromium").exists() else (
    shutil.which("chromium") or shutil.which("chromium-browser"))
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu",
                 "--disable-background-networking", "--disable-component-update",
                 "--disable-sync"]
DATA = re.compile(r'<script id="data" type="application/json">(.*?)</script>', re.S)


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> dict[int, Path]:
    """Tiny runs with a turn log for 1-4 players."""
    base = tmp_path_factory.mktemp("view_runs")
    out = {}
    for n, games in ((1, 3), (2, 6), (3, 6), (4, 8)):
        out[n] = run(RunConfig(games=games, players=n, seat_rotation=n > 1, seed=11,
                               turn_log="all"), base / f"p{n}")
    return out


def page_data(path: Path) -> dict:
    m = DATA.search(path.read_text(encoding="utf-8"))
    assert m, "the page embeds its frames"
    assert "<" not in m.group(1), "no '<' inside the script element"
    return json.loads(m.group(1))


def last_board(data: dict) -> dict:
    board: dict = {}
    for d in data["frames"]:
        board.update(d)
    return board


def view(args: list[str]) -> tuple[int, str]:
    res = CliRunner().invoke(main, ["view", *args])
    return res.exit_code, res.output


# ---- the viewer -------------------------------------------------------------------------
@pytest.mark.parametrize("players", [1, 2, 3, 4])
def test_a_run_game_views_and_ends_in_the_runs_score_table(runs, tmp_path, players):
    out = tmp_path / "g.html"
    gid = 1
    code, text = view(["--run", str(runs[players]), "--game", str(gid), "--out", str(out),
                       "-q"])
    assert code == 0, text
    html = out.read_text(encoding="utf-8")
    # self-contained: nothing fetched from elsewhere
    assert not re.search(r'(src|href)="(https?:)?//', html)
    assert "<link" not in html
    data = page_data(out)
    table = load(runs[players], turns=False).players
    table = table[table["game_id"] == gid].sort_values("seat")
    board = last_board(data)
    nseats = len(table)
    assert [board[f"s{k}.total"] for k in range(nseats)] == table["score"].tolist()
    assert [r["total"] for r in data["table"]] == table["score"].tolist()
    assert len(data["frames"]) == len(data["lines"]) == len(data["meta"]) > 10
    assert data["solo"] is (players == 1)
    if players == 1:
        assert "g.tom_deck" in data["frames"][0] and len(data["frames"][0]["g.tom_deck"]) == 8
    rounds = [m[1] for m in data["meta"]]
    assert rounds == sorted(rounds) and rounds[-1] <= data["result"]["n_rounds"]


@pytest.mark.parametrize("fact,name", [(f, v.name) for f, vs in C.VARIANTS.items()
                                       for v in vs])
def test_every_variant_views_with_its_own_components(tmp_path, fact, name):
    players = 1 if fact == "tom_deck" else 2
    out = tmp_path / "v.html"
    code, text = view(["--seed", "5", "--players", str(players), "--variant",
                       f"{fact}={name}", "--out", str(out), "-q"])
    assert code == 0, text
    data = page_data(out)
    assert data["variants"] == {fact: name}
    value = C.variant(fact, name).value
    if fact == "fate_area":
        assert (data["static"]["fate_rows"], data["static"]["fate_cols"]) == (
            value.rows, value.cols)
    if fact == "guardian_points":
        assert data["static"]["guard_points"] == list(value)
    board = last_board(data)
    assert [board[f"s{k}.total"] for k in range(len(data["table"]))] == \
        data["result"]["scores"]


def test_a_seeded_view_is_the_same_page_every_time(tmp_path):
    a, b = tmp_path / "a.html", tmp_path / "b.html"
    for out in (a, b):
        assert view(["--seed", "9", "--players", "3", "--strategies", "greedy",
                     "--out", str(out), "-q"])[0] == 0
    assert a.read_bytes() == b.read_bytes()
    other = tmp_path / "c.html"
    assert view(["--seed", "10", "--players", "3", "--strategies", "greedy", "--out",
                 str(other), "-q"])[0] == 0
    assert other.read_bytes() != a.read_bytes()


def test_frames_are_stored_as_the_keys_that_changed():
    boards = [{"a": 1, "b": [1]}, {"a": 1, "b": [2]}, {"a": 3, "b": [2]}]
    assert deltas(boards) == [{"a": 1, "b": [1]}, {"b": [2]}, {"a": 3}]


@pytest.mark.parametrize("case,needle", [("too big", "game 99 is not in"),
                                          ("negative", "game -1 is not in"),
                                          ("missing run", "nope")])
def test_a_bad_game_id_or_run_is_one_error_line(runs, tmp_path, case, needle):
    run_dir, gid = {"too big": (runs[4], "99"), "negative": (runs[4], "-1"),
                    "missing run": (tmp_path / "nope", "0")}[case]
    code, text = view(["--run", str(run_dir), "--game", gid, "--out",
                       str(tmp_path / "x.html")])
    assert code == 2
    lines = text.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error:"), text
    assert needle in lines[0]
    assert not (tmp_path / "x.html").exists()


def test_a_foreign_directory_is_not_a_run(tmp_path):
    (tmp_path / "manifest.json").write_text("{not json")
    code, text = view(["--run", str(tmp_path), "--game", "0", "--out",
                       str(tmp_path / "x.html")])
    assert code == 2 and text.startswith("Error:") and len(text.strip().splitlines()) == 1


def test_run_and_game_go_together(runs, tmp_path):
    code, text = view(["--run", str(runs[2]), "--out", str(tmp_path / "x.html")])
    assert code == 2 and "--run and --game go together" in text


# ---- when is the game decided -----------------------------------------------------------
def test_standings_end_in_the_final_scores_and_never_fall(runs):
    data = load(runs[4], categorical=False)
    st = AD.standings(data)
    fin = st[st["final"]].merge(data.players, on=["game_id", "seat"])
    assert (fin["score_x"] == fin["score_y"]).all()
    assert (fin["bonfires"] == fin["n_bonfires"]).all()
    during = st[~st["final"]].sort_values(["game_id", "seat", "round"])
    assert (during["score"] == during[["ingame", "bonfire_pts", "fate_pts",
                                       "leftover_pts"]].sum(axis=1)).all()
    kept = during.assign(kept=during["ingame"] + during["bonfire_pts"])
    steps = kept.groupby(["game_id", "seat"])["kept"].diff().dropna()
    assert (steps >= 0).all(), "in-game and bonfire points are never lost during play"
    # after the last round the parts that the final scoring repeats are its own lines
    last = during[during["round"] == during["n_rounds"]].merge(
        data.players, on=["game_id", "seat"])
    assert (last["fate_pts"] == last["score_fate_supply"]).all()
    assert (last["ingame"] == last["score_ingame"]).all()
    # a game has one row per seat for rounds 1..n_rounds and the final
    per_game = st.groupby("game_id").size()
    g = data.games.set_index("game_id")
    assert (per_game == 4 * (g.loc[per_game.index, "n_rounds"] + 1)).all()


def test_the_final_leader_is_the_winner_and_shares_are_shares(runs):
    for n in (2, 3, 4):
        lw = AD.leader_wins(runs[n])
        assert lw["share"].between(0, 1).all() and lw["winner_leads"].between(0, 1).all()
        fin = lw[lw["stage"] == "final"]
        assert len(fin) == 1 and fin["share"].iloc[0] == 1.0
        assert fin["winner_leads"].iloc[0] == 1.0
        dr = AD.decided_rounds(runs[n])
        assert dr["decided_round"].between(1, dr["n_rounds"] + 1).all()
        tr = AD.trajectories(runs[n])
        assert (tr["q10"] <= tr["q50"]).all() and (tr["q50"] <= tr["q90"]).all()
        s = AD.summary(runs[n])
        assert s["final_share"].iloc[0] == 1.0 and s["games"].iloc[0] == len(dr)


def test_ties_for_the_lead_are_broken_by_bonfires_and_else_shared():
    st = pd.DataFrame({
        "game_id": [0, 0, 0, 1, 1, 1], "n_players": 3, "n_rounds": 5, "round": 2,
        "seat": [0, 1, 2, 0, 1, 2], "final": False,
        "score": [10, 10, 4, 7, 7, 7], "bonfires": [1, 2, 0, 1, 1, 0],
        "won": [True, False, False, True, False, False]})
    lc = AD.leader_credit(st).set_index("game_id")
    assert lc.loc[0, "leaders"] == 1 and lc.loc[0, "credit"] == 0.0  # seat 1 has more bonfires
    assert lc.loc[1, "leaders"] == 2 and lc.loc[1, "credit"] == 0.5  # level: shared lead


def test_decided_needs_a_turn_log(tmp_path):
    bare = run(RunConfig(games=2, players=2, seed=1), tmp_path / "bare")
    with pytest.raises(DataError, match="turn log"):
        AD.standings(bare)


def test_the_decided_section_draws_one_figure_per_player_count(runs):
    from bonfire_sim.analysis.runs import as_runs

    sec = DC.section_decided(as_runs([runs[2], runs[4], runs[1]]))
    assert sec["id"] == "decided" and sec["absent"] is None
    figs = [b for b in sec["blocks"] if b["kind"] == "figure"]
    assert len(figs) == 2  # the solo run has no race to decide
    table = next(b for b in sec["blocks"] if b["kind"] == "table")
    assert [r["cells"][1] for r in table["rows"]] == ["2", "4"]


def test_example_game_ids_link_to_view_pages(runs, tmp_path):
    section = {"id": "x", "blocks": [{"kind": "table", "headers": ["players",
                                                                    "example games"],
                                      "rows": [{"cells": ["4", "1, 3"]},
                                               {"cells": ["0", "2"]}]}]}
    data = [("p4", load(runs[4], turns=False))]
    out = tmp_path / "report.html"
    write = DC.link_example_games([section], data, [runs[4]], out)
    assert not (tmp_path / "views").exists()  # written only when asked (after the page)
    assert write() == 2
    cells = section["blocks"][0]["rows"]
    assert 'href="views/p4-game-1.html"' in str(cells[0]["cells"][1])
    assert 'href="views/p4-game-3.html"' in str(cells[0]["cells"][1])
    assert cells[1]["cells"][1] == "2"  # pooled rows (players 0) stay text
    page = tmp_path / "views" / "p4-game-3.html"
    table = data[0][1].players
    scores = table[table["game_id"] == 3].sort_values("seat")["score"].tolist()
    board = last_board(page_data(page))
    assert [board[f"s{k}.total"] for k in range(4)] == scores


# ---- in a browser -----------------------------------------------------------------------
def test_stepping_through_a_game_by_keys_in_chromium(runs, tmp_path):
    playwright = pytest.importorskip("playwright.sync_api")
    assert CHROMIUM, "no chromium at /usr/bin/chromium or on PATH: install it (make test does)"
    gid = 2
    out = tmp_path / "game.html"
    assert view(["--run", str(runs[4]), "--game", str(gid), "--out", str(out), "-q"])[0] == 0
    n_frames = len(page_data(out)["frames"])
    table = load(runs[4], turns=False).players
    scores = table[table["game_id"] == gid].sort_values("seat")["score"].tolist()
    shots = tmp_path / "frames"
    shots.mkdir()
    errors: list[str] = []
    with playwright.sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            page = browser.new_page(viewport={"width": 1400, "height": 1000})
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
            page.goto(out.as_uri())
            assert page.inner_text("#pos").startswith(f"decision 0 / {n_frames - 1}")
            seen = {page.inner_html("#seats") + page.inner_html("#boardsvg")}
            changed = 0
            for i in range(1, n_frames):
                before = page.inner_html("#seats") + page.inner_html("#boardsvg")
                page.keyboard.press("ArrowRight")
                assert page.evaluate("document.body.dataset.frame") == str(i)
                after = page.inner_html("#seats") + page.inner_html("#boardsvg")
                changed += after != before
                seen.add(after)
                # The board's round header names the round the control bar names.
                bar = re.search(r"round (\d+)", page.inner_text("#pos")).group(1)
                header = page.text_content("#roundhdr")
                assert header.startswith(f"Round {bar}"), (i, header, bar)
                if i in (1, n_frames // 2, n_frames - 1):
                    page.screenshot(path=str(shots / f"frame-{i:04d}.png"), full_page=True)
            page.keyboard.press("ArrowRight")  # past the end: stays on the last frame
            assert page.evaluate("document.body.dataset.frame") == str(n_frames - 1)
            on_screen = [int(page.inner_text(f'.seat[data-seat="{k}"] .total'))
                         for k in range(len(scores))]
            page.keyboard.press("Home")
            assert page.evaluate("document.body.dataset.frame") == "0"
        finally:
            browser.close()
    assert on_screen == scores
    # almost every decision changes the board (a declined island action may not)
    assert changed >= 0.9 * (n_frames - 1) and len(seen) >= 0.9 * n_frames
    assert not errors, errors
    assert len(list(shots.glob("*.png"))) == 3
