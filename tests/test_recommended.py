"""One solo recommendation everywhere: every command plays ``lineup.RECOMMENDED_SOLO``
against Tom when no player is named, and its help says so (generated from the name)."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from bonfire_sim.cli.commands import COMMANDS
from bonfire_sim.cli.main import load_command, main
from bonfire_sim.lineup import DEFAULT_MIX, RECOMMENDED_SOLO, default_seats

COMMANDS_WITH_A_DEFAULT_PLAYER = ("run", "coverage", "solo", "replay", "view")


def _invoke(*args: str) -> str:
    res = CliRunner().invoke(main, list(args))
    assert res.exit_code == 0, res.output
    return res.output


@pytest.mark.parametrize("name", COMMANDS_WITH_A_DEFAULT_PLAYER)
def test_every_help_names_the_recommended_solo_player(name):
    helps = " ".join(p.help or "" for p in load_command(COMMANDS[name]).params
                     if "--strategies" in p.opts or "--strategy" in p.opts)
    assert RECOMMENDED_SOLO in helps and "recommended solo player" in helps, name


def test_the_default_seats_are_the_recommended_solo_player_and_the_default_mix():
    assert default_seats(1) == (RECOMMENDED_SOLO,)
    assert default_seats(4) == DEFAULT_MIX
    assert default_seats(3) == DEFAULT_MIX[:3]


def test_play_uses_the_recommended_solo_player():
    from bonfire_sim.sim.play import play

    assert play(3, 1).strategies == (RECOMMENDED_SOLO, "tom")


def test_run_uses_the_recommended_solo_player(tmp_path):
    _invoke("run", "--players", "1", "--games", "2", "--seed", "1",
            "--out", str(tmp_path / "r"), "--quiet")
    manifest = json.loads((tmp_path / "r" / "manifest.json").read_text())
    assert manifest["config"]["strategies"] == [RECOMMENDED_SOLO]


def test_coverage_uses_the_recommended_solo_player():
    out = _invoke("coverage", "--players", "1", "--games", "2", "--search-games", "0",
                  "--quiet")
    assert f"who played: {RECOMMENDED_SOLO} against Tom" in out


def test_solo_uses_the_recommended_solo_player():
    out = _invoke("solo", "--games", "2", "--quiet")
    assert f"2 solo games, {RECOMMENDED_SOLO} vs Tom" in out


def test_replay_uses_the_recommended_solo_player():
    out = _invoke("replay", "--players", "1", "--seed", "2", "--json", "-")
    assert json.loads(out)["result"]["strategies"] == [RECOMMENDED_SOLO, "tom"]


def test_view_uses_the_recommended_solo_player(tmp_path, monkeypatch):
    from bonfire_sim.report import view as V

    seen = {}
    original = V.view_game

    def spy(**kwargs):
        game = original(**kwargs)
        seen["strategies"] = game.record.strategies
        return game

    monkeypatch.setattr(V, "view_game", spy)
    _invoke("view", "--players", "1", "--seed", "2", "--out", str(tmp_path / "v.html"),
            "--quiet")
    assert seen["strategies"] == (RECOMMENDED_SOLO, "tom")


def test_who_played_names_the_mixes_once_per_card():
    """A report card says 'default mix (2, 3 and 4 players)', not one seat list per
    configuration (the example report listed eleven seat names per card)."""
    from bonfire_sim.lineup import OLD_MIX, short_who

    seats = [", ".join(DEFAULT_MIX[i % len(DEFAULT_MIX)] for i in range(n)) for n in (2, 3, 4)]
    text = short_who([*seats, ", ".join(OLD_MIX), "tuned, tuned"])
    assert text == "default mix (2, 3 and 4 players); old mix (4 players); tuned, tuned"
    assert short_who([seats[0], seats[0]]) == "default mix (2 players)"
