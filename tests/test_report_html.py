"""The HTML report end to end: a small run and a tiny solo run -> one page, opened in
headless Chromium: the answers section first, every section present, every image loads,
the configuration groups listed, no console errors."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner

from bonfire_sim.cli.main import main
from bonfire_sim.report.build import build_report
from bonfire_sim.sim.runconfig import RunConfig
from bonfire_sim.sim.runner import run

SECTIONS = ("answers", "overview", "seats", "tasks", "gnomes", "tom", "decided", "method")
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")

# Appended to a test copy of the page: records every image's load state and any error
# into the DOM, which --dump-dom then prints.
PROBE = """
<script>
window.__errors = [];
window.addEventListener("error", e => window.__errors.push(String(e.message)));
const _err = console.error;
console.error = (...a) => { window.__errors.push(a.join(" ")); _err(...a); };
window.addEventListener("load", () => {
  const imgs = Array.from(document.images);
  const out = document.createElement("pre");
  out.id = "probe";
  out.textContent = "images=" + imgs.length + ";loaded=" +
    imgs.filter(i => i.complete && i.naturalWidth > 0).length +
    ";sections=" + Array.from(document.querySelectorAll("section")).map(s => s.id).join(",") +
    ";errors=" + window.__errors.length +
    ";answer_images=" + Array.from(document.querySelectorAll("#answers img"))
      .filter(i => i.complete && i.naturalWidth > 0).length +
    ";answer_links=" + Array.from(document.querySelectorAll("#answers a"))
      .filter(a => document.getElementById(a.getAttribute("href").slice(1))).length +
    ";groups=" + Array.from(document.querySelectorAll("#overview table"))
      .filter(t => (t.caption || {}).textContent?.startsWith("Groups in this report"))
      .map(t => Array.from(t.tBodies[0].rows).map(r => r.cells[0].textContent).join("|"))
      .join("") +
    ";first=" + document.querySelector("section").id +
    ";folded=" + document.querySelectorAll("details.table").length +
    ";rows_in_folded=" + Array.from(document.querySelectorAll("details.table tbody tr")).length;
  const closed = document.querySelectorAll("details.table:not([open])").length;
  window.dispatchEvent(new Event("beforeprint"));  // what printing does first
  out.textContent += ";closed=" + closed + ";open_in_print=" +
    document.querySelectorAll("details.table[open]").length;
  document.body.appendChild(out);
});
</script>
"""


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> tuple[Path, Path]:
    base = tmp_path_factory.mktemp("report_runs")
    multi = run(RunConfig(games=240, players=4, seat_rotation=True, seed=2, chunk_size=120),
                base / "p4")
    solo = run(RunConfig(games=60, players=1, strategies=("greedy",), seed=3, chunk_size=60),
               base / "solo")
    return multi, solo


@pytest.fixture(scope="module")
def page(runs, tmp_path_factory) -> Path:
    return build_report(list(runs), tmp_path_factory.mktemp("report") / "r.html", probes=60)


def test_the_report_is_one_self_contained_file_with_every_section(page):
    html = page.read_text()
    for sid in SECTIONS:
        assert f'<section id="{sid}">' in html
    assert "<link" not in html and "http://" not in html and "https://" not in html
    assert re.search(r'<img src="data:image/png;base64,', html)
    assert "No solo run" not in html
    # example game ids link to view pages written beside the report
    links = re.findall(r'<a href="(views/[^"]+\.html)">\d+</a>', html)
    assert links and all((page.parent / link).is_file() for link in links)


def test_a_report_without_solo_games_says_so_instead_of_failing(runs, tmp_path):
    html = build_report([runs[0]], tmp_path / "multi.html", probes=60).read_text()
    assert "No solo run" in html
    html = build_report([runs[1]], tmp_path / "solo.html").read_text()
    for sid in ("seats", "tasks", "gnomes"):
        body = re.search(rf'<section id="{sid}">(.*?)</section>', html, re.S)[1]
        assert "No multiplayer games" in body
    answers = re.search(r'<section id="answers">(.*?)</section>', html, re.S)[1]
    assert answers.count("No multiplayer games") == 2  # tasks and gnomes
    assert "Start-player advantage: no multiplayer games in these runs" in answers


def test_the_report_command_writes_the_page(runs, tmp_path, monkeypatch):
    from bonfire_sim.infra import progress

    # a log holds its step lines back until its first beat (LOG_EVERY seconds), so a report
    # faster than that (forks already in the cache: a second `make test`) printed none and
    # this test failed by timing; beat at once so it reads the step lines every time
    monkeypatch.setattr(progress, "LOG_EVERY", 0.01)
    out = tmp_path / "cli.html"
    result = CliRunner().invoke(main, ["report", str(runs[0]), "--out", str(out),
                                       "--probe-games", "60"])
    assert result.exit_code == 0, result.output
    assert out.is_file() and "wrote" in result.output
    # progress names each step: the run loaded, each section, the forks it computes
    assert f"report: loading run {runs[0].name}" in result.output
    assert "report: section tasks: forks in the first 60 games of each of 1 run(s)" in \
        result.output


def test_the_report_command_fails_cleanly_on_a_missing_run(tmp_path):
    result = CliRunner().invoke(main, ["report", str(tmp_path / "nope")])
    assert result.exit_code == 2 and "Error:" in result.output


def test_every_image_loads_in_headless_chromium_without_console_errors(page, tmp_path):
    assert CHROMIUM, "no chromium on PATH: run scripts/ensure-chromium (make test does)"
    probe = tmp_path / "probe.html"
    probe.write_text(page.read_text().replace("</body>", PROBE + "</body>"))
    proc = subprocess.run(
        [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--no-first-run", "--disable-dev-shm-usage", f"--user-data-dir={tmp_path / 'profile'}",
         "--enable-logging=stderr", "--v=0", "--virtual-time-budget=10000", "--dump-dom",
         probe.as_uri()],
        capture_output=True, text=True, timeout=120)
    m = re.search(r'<pre id="probe">images=(\d+);loaded=(\d+);sections=([^;]*);errors=(\d+)'
                  r';answer_images=(\d+);answer_links=(\d+);groups=([^;]*);first=([^;]*)'
                  r';folded=(\d+);rows_in_folded=(\d+);closed=(\d+);open_in_print=(\d+)',
                  proc.stdout)
    assert m, proc.stderr[-2000:]
    images, loaded, sections, errors = int(m[1]), int(m[2]), m[3].split(","), int(m[4])
    assert images >= 10 and loaded == images
    assert sections == list(SECTIONS) and m[8] == "answers"  # the answers come first
    assert errors == 0
    assert int(m[5]) >= 2  # the answers' own figures render (seats, Tom)
    assert int(m[6]) >= 5  # and link to existing detail sections
    assert m[7].split("|") == ["4 players · default game", "solo greedy · default game"]
    # long tables are folded, with every row in the page (the print CSS opens them)
    assert int(m[9]) >= 1 and int(m[10]) > 25 * int(m[9])
    assert int(m[11]) == int(m[9]) and int(m[12]) == int(m[9])  # folded on screen, open in print
    console = [line for line in proc.stderr.splitlines() if "CONSOLE" in line]
    assert not console, console


def test_compare_writes_differences_of_two_runs(runs, tmp_path):
    other = run(RunConfig(games=120, players=4, seat_rotation=True, seed=9, chunk_size=120,
                          overrides={"task_points": {"B1": 5}}), tmp_path / "b1")
    out = tmp_path / "cmp.html"
    result = CliRunner().invoke(main, ["compare", str(runs[0]), str(other), "--out", str(out),
                                       "--probe-games", "30"])
    assert result.exit_code == 0, result.output
    html = out.read_text()
    for sid in ("runs", "scores", "tasks", "ends", "method"):
        assert f'<section id="{sid}">' in html
    assert "B1" in html and "task_points" in html


def test_an_experiment_runs_then_reports_and_reuses_its_run(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # an experiment file's paths are relative to this folder
    toml = tmp_path / "tiny.toml"
    toml.write_text("""
[run]
games = 40
players = 4
seat_rotation = true
seed = 4
chunk_size = 20
out = "runs/tiny"

[overrides]
task_points = { B1 = 4 }

[report]
out = "tiny.html"
title = "Tiny experiment"
""")
    result = CliRunner().invoke(main, ["experiment", str(toml)])
    assert result.exit_code == 0, result.output
    games = tmp_path / "runs" / "tiny" / "games.parquet"
    mtime = games.stat().st_mtime_ns
    assert "Tiny experiment" in (tmp_path / "tiny.html").read_text()
    result = CliRunner().invoke(main, ["experiment", str(toml)])
    assert result.exit_code == 0, result.output
    assert games.stat().st_mtime_ns == mtime  # the finished run was reused, not replayed


@pytest.mark.parametrize("name", ["start_player", "task_values", "gnome_strength",
                                  "tom_difficulty"])
def test_the_shipped_experiment_files_are_valid(name):
    from bonfire_sim.pipelines.experiment import load_experiment

    root = Path(__file__).resolve().parents[1]
    config, extra = load_experiment(root / "experiments" / f"{name}.toml")
    assert extra["report"]["out"] == f"reports/{name}.html"
    assert config.games >= 1000


def test_figure_functions_draw_on_the_given_axes_and_return_it():
    import matplotlib.pyplot as plt
    import pandas as pd

    from bonfire_sim.report import figures as F

    seats = pd.DataFrame({"n_players": 2, "seat": [0, 1], "win_rate": [0.55, 0.45],
                          "lo": [0.5, 0.4], "hi": [0.6, 0.5], "score": [50.0, 49.0],
                          "score_lo": [49.0, 48.0], "score_hi": [51.0, 50.0],
                          "edge": [0.05, -0.05], "edge_lo": [0.0, -0.1],
                          "edge_hi": [0.1, 0.0], "strategy": "greedy"})
    for draw in (F.seat_win_rates, F.seat_scores, F.seat_excess_by_strategy):
        _, ax = plt.subplots()
        assert draw(seats, ax=ax) is ax
        assert F.to_png_base64(ax)
