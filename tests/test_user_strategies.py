"""The top-level ``strategies/`` folder: the users' place for their own players."""

from __future__ import annotations

import os
import runpy
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SYNC = runpy.run_path(str(ROOT / "scripts" / "sync_strategies.py"))


def test_the_weight_copies_are_in_sync_with_the_shipped_rows():
    assert SYNC["stale"]() == []
    rows = sorted(p.name for p in (ROOT / "bonfire_sim" / "strategies" / "rows").glob("*.toml"))
    assert sorted(p.name for p in (ROOT / "strategies" / "weights").glob("*.toml")) == rows


def test_a_stale_copy_is_found(tmp_path, monkeypatch):
    copies = tmp_path / "weights"
    copies.mkdir()
    for path, text in SYNC["expected"]().items():
        (copies / path.name).write_text(text, encoding="utf-8")
    stale = SYNC["stale"]
    monkeypatch.setitem(stale.__globals__, "COPIES", copies)
    assert stale() == []
    edited = copies / "tuned_portal.toml"
    edited.write_text(edited.read_text().replace("tile = ", "tile = 9"), encoding="utf-8")
    (copies / "orphan.toml").write_text("[weights]\n", encoding="utf-8")
    assert stale() == [edited, copies / "orphan.toml"]


def test_the_package_does_not_ship_the_users_folder():
    import tomllib

    find = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"][
        "packages"]["find"]
    assert find["include"] == ["bonfire_sim*"]


def test_a_copied_weight_file_plays_exactly_as_its_style(tmp_path):
    from bonfire_sim.sim.load import load
    from bonfire_sim.sim.runconfig import RunConfig
    from bonfire_sim.sim.runner import run

    copy = ROOT / "strategies" / "weights" / "tuned_planner.toml"
    scores = []
    for spec in ("tuned_planner", f"tuned_planner@{copy}"):
        cfg = RunConfig(games=4, players=2, strategies=(spec, "steady"), seed=3)
        scores.append(load(run(cfg, tmp_path / str(len(scores))), turns=False)
                      .players.sort_values(["game_id", "seat"])["score"].tolist())
    assert scores[0] == scores[1]


@pytest.mark.parametrize("players", [1, 2])
def test_the_example_plugin_loads_by_path_and_plays(tmp_path, players):
    specs = "strategies.example_player:Firekeeper" + (",steady" if players == 2 else "")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    res = subprocess.run([sys.executable, "-m", "bonfire_sim", "run", "--players",
                          str(players), "--games", "2", "--seed", "4", "--strategies", specs,
                          "--out", str(tmp_path / "r"), "--quiet"],
                         cwd=ROOT, env=env, capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    from bonfire_sim.sim.load import load

    p = load(tmp_path / "r", turns=False).players
    mine = p[p["strategy"] == "strategies.example_player:Firekeeper"]
    assert len(mine) == 2 and mine["score"].notna().all()
