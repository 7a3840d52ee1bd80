"""``bonfire_sim.play``: one traced game, its narration and ``bonfire-sim replay``."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest
from click.testing import CliRunner

import bonfire_sim
from bonfire_sim.cli.main import main
from bonfire_sim.errors import ConfigError
from bonfire_sim.rules import components as C
from bonfire_sim.rules import layout as L
from bonfire_sim.rules.scoring import LINE_NAMES
from bonfire_sim.sim.narrate import narrate
from bonfire_sim.sim.play import GameRecord, play
from bonfire_sim.sim.trace import STOCK_NAMES
from bonfire_sim.strategies import DEFAULT_MIX, RECOMMENDED_SOLO

ROOT = Path(__file__).resolve().parents[1]
GAMES = [(seed, players) for players in (1, 2, 3, 4) for seed in (1, 2, 3, 177)]


@pytest.fixture(scope="module")
def records() -> dict[tuple[int, int], GameRecord]:
    return {case: play(*case) for case in GAMES}


def test_bonfire_sim_play_is_the_traced_play():
    assert bonfire_sim.play is play


def test_a_record_survives_its_json_and_narrates_without_the_engine(records):
    rec = records[(177, 1)]
    assert GameRecord.from_dict(json.loads(rec.to_json())) == rec
    code = ("import sys; from bonfire_sim.sim.narrate import narrate; "
            "assert 'numba' not in sys.modules")
    subprocess.run([sys.executable, "-c", code], cwd=ROOT, check=True)


def test_the_same_seed_gives_the_same_events_and_result():
    a, b = play(5, 4), play(5, 4)
    assert a == b
    assert a.to_json() == b.to_json()
    assert play(6, 4).events != a.events


@pytest.mark.parametrize("seed, players", [(1, 4), (177, 1)])
def test_the_game_is_the_same_without_the_jit(seed, players):
    code = ("import bonfire_sim, sys; "
            f"sys.stdout.write(bonfire_sim.play({seed}, {players}).to_json())")
    env = {**os.environ, "NUMBA_DISABLE_JIT": "1"}
    out = subprocess.run([sys.executable, "-c", code], env=env, cwd=ROOT, check=True,
                         capture_output=True, text=True).stdout
    assert json.loads(out) == json.loads(play(seed, players).to_json())


def test_every_seat_scores_the_sum_of_its_lines(records):
    for rec in records.values():
        assert len(rec.scores) == len(rec.lines) == len(rec.strategies)
        for total, lines in zip(rec.scores, rec.lines, strict=True):
            assert list(lines) == list(LINE_NAMES)
            assert total == sum(lines.values())


def test_ranks_and_winners_follow_the_scores(records):
    for rec in records.values():
        best = max(rec.scores)
        for rank, score, won in zip(rec.ranks, rec.scores, rec.won, strict=True):
            assert (rank == 1) <= (score == best)  # a tie on points may split on bonfires
            assert won <= (rank == 1)
        assert any(rec.won) or rec.solo


def test_solo_names_tom_at_seat_1_and_records_his_turns(records):
    rec = records[(1, 1)]
    assert rec.solo and rec.strategies == (RECOMMENDED_SOLO, "tom")  # the solo default
    # Random players run out early, so Tom plays his deck to its end: check his turn count
    ended_by_deck = 0
    for seed in (1, 2, 3, 177):
        rec = play(seed, 1, "random")
        toms = [e for e in rec.events if e["kind"] == "tom"]
        assert toms and all(e["seat"] == 1 for e in toms)
        kinds = {"gnome", "path", "task1", "task2", "guardian", "great_bonfire", "?"}
        assert all(set(e["cards"]) <= kinds and len(e["cards"]) == e["turns"] for e in toms)
        if rec.end_reason == "tom_deck":
            ended_by_deck += 1
            assert sum(e["turns"] for e in toms) == C.TOM_DECK_PASSES * C.TOM_DECK_SIZE
    assert ended_by_deck > 0


def test_move_events_hold_the_move_row_and_named_stock_changes(records):
    for rec in records.values():
        assert [e["i"] for e in rec.events] == list(range(len(rec.events)))
        for ev in rec.events:
            if ev["kind"] != "move":
                continue
            assert len(ev["move"]) == L.MOVE_W and ev["move_text"]
            assert ev["phase"] in L.PHASE_NAMES
            for stock in (ev["paid"], ev["gained"]):
                assert set(stock) <= set(STOCK_NAMES)
                assert all(isinstance(n, int) and n > 0 for n in stock.values())
        assert rec.events[-1]["kind"] == "end"
        json.dumps(rec.to_dict())


def test_paid_and_gained_account_for_every_stock_change(records):
    """Start stock + every move's gains - payments = the stock at the end."""
    for (seed, players), rec in records.items():
        humans = 1 if rec.solo else players
        for seat in range(humans):
            stock = Counter(dict(zip(C.RESOURCES, C.START_RESOURCES, strict=True)))
            for ev in rec.events:
                if ev["kind"] == "move" and ev["seat"] == seat:
                    stock.update(ev["gained"])
                    stock.subtract(ev["paid"])
            final = rec.events[-1]["board"]["seats"][seat]["stock"]
            assert +stock == Counter(final), (seed, players, seat)


def test_points_of_the_events_add_up_to_the_in_game_line(records):
    for rec in records.values():
        for seat in range(len(rec.scores)):
            pts = sum(e.get("points", 0) for e in rec.events
                      if e["seat"] == seat and e["kind"] in ("move", "tom", "auto_pass"))
            assert pts == rec.lines[seat]["in_game"]


def test_a_snapshot_follows_every_ignite(records):
    for rec in records.values():
        ignites = sum(e["kind"] == "move" and e["move"][0] == L.M_IGNITE for e in rec.events)
        snaps = [e for e in rec.events if e["kind"] == "snapshot" and e["after"] == "ignite"]
        assert len(snaps) == ignites
        for snap in snaps:
            assert len(snap["board"]["seats"]) == len(rec.scores)


FIRE_LINEUPS = {1: "portal", 2: "portal,random", 3: "portal,greedy,random",
                4: "portal,tempo,random,gnome_engine"}


@pytest.mark.parametrize("players", [1, 2, 3, 4])
def test_no_great_bonfire_use_gains_points_on_spaces_0_to_5(players):
    """RULINGS 5/8: spaces 0-5 give their resource, only space 6 its 2 points."""
    uses = {False: 0, True: 0}
    for seed in (1, 2, 3, 4):
        rec = play(seed, players, FIRE_LINEUPS[players])
        lines = iter(narrate(rec))
        for ev in rec.events:
            if ev["kind"] != "move" or ev["move"][0] != L.M_FIRE:
                continue
            f = ev["facts"]
            points_space = f["space"] == 6
            uses[points_space] += 1
            assert ("2 points" in f["rewards"]) == (points_space and ev["points"] == 2)
            if not points_space:
                assert ev["points"] == 0 and f["space_resource"] is not None
            text = next(x for x in lines if "Tom: " not in x and (
                f"Great Bonfire for free to space {f['space']} " in x
                or f"Great Bonfire to space {f['space']} " in x))
            assert ("2 points" in text.split(": takes")[-1]) == ("2 points" in f["rewards"])
        fire_pts = sum(e["points"] for e in rec.events
                       if e["kind"] == "move" and e["move"][0] == L.M_FIRE)
        assert fire_pts == 2 * sum("2 points" in e["facts"]["rewards"] for e in rec.events
                                   if e["kind"] == "move" and e["move"][0] == L.M_FIRE)
    assert uses[False] > 0  # the resource spaces were used, so the test could fail


@pytest.mark.parametrize("players, lineup", [(1, "portal"), (2, "portal,tempo"),
                                              (4, "portal,tempo,planner,greedy")])
def test_a_snapshot_follows_its_movers_last_line_before_anyone_else_moves(players, lineup):
    before_tom = 0
    for seed in range(1, 7):
        rec = play(seed, players, lineup)
        totals = Counter()
        last_mover = None
        for i, ev in enumerate(rec.events):
            if ev["kind"] == "snapshot":
                assert last_mover == ev["seat"], (seed, i)
                # the board as the mover left it: nobody else has scored since
                shown = {st["seat"]: st["score"] for st in ev["board"]["seats"]}
                assert shown == {k: totals[k] for k in shown}, (seed, i)
                nxt = rec.events[i + 1]
                before_tom += nxt["kind"] == "tom"
            elif ev["kind"] in ("move", "tom", "auto_pass"):
                totals[ev["seat"]] += ev.get("points", 0)
                last_mover = ev["seat"] if ev["kind"] == "move" else None
        lines = narrate(rec)
        for i, line in enumerate(lines):
            if line.startswith("  Board after the "):
                mover = line.split(" of ", 1)[1].rstrip(":")
                head = next(x for x in reversed(lines[:i]) if x.startswith("Round "))
                assert head.split(": ", 1)[0].endswith(mover), (seed, line, head)
                assert not lines[i - 1].startswith("Round ") or mover in lines[i - 1]
    if players == 1:
        assert before_tom > 0  # the case of the bug: Tom's card right after the chain


def test_narration_ends_with_the_final_scoring_table(records):
    rec = records[(1, 4)]
    lines = narrate(rec)
    assert lines[0].startswith("Bonfire, seed 1, 4 players")
    at = lines.index("Final scoring:")
    header = lines[at + 1].split()
    assert header == ["seat", "who", *LINE_NAMES, "total", "rank"]
    for seat in range(4):
        cells = lines[at + 3 + seat].split()
        assert int(cells[0]) == seat
        assert [int(x) for x in cells[2:]] == [*rec.lines[seat].values(), rec.scores[seat],
                                               rec.ranks[seat]]
    assert lines[-1].startswith("Winner: ")


def test_narration_shows_payments_tom_and_rounds(records):
    text = "\n".join(narrate(records[(1, 1)]))
    assert f"Round 1, seat 0 ({RECOMMENDED_SOLO}): " in text
    assert "Round 1, Tom: plays card '" in text
    assert "paying 1 " in text


@pytest.mark.parametrize("kwargs, message", [
    ({"seed": 1, "players": 0}, "players must be 1..4"),
    ({"seed": 1, "players": 5}, "players must be 1..4"),
    ({"seed": -1, "players": 2}, "seed must be 0..18446744073709551615"),
    ({"seed": 1, "players": 2, "strategies": ["nope"]}, "unknown strategy 'nope'"),
    ({"seed": 1, "players": 3, "strategies": ["random", "random"]}, "1 per human seat"),
    ({"seed": 1, "players": 2, "strategies": ["tom"]}, "solo automaton"),
    ({"seed": 1.5, "players": 2}, "seed must be an integer"),
])
def test_bad_input_is_a_config_error(kwargs, message):
    with pytest.raises(ConfigError, match=message):
        play(**kwargs)


def test_one_strategy_name_plays_every_seat():
    assert play(2, 3, "random").strategies == ("random",) * 3
    assert play(2, 3, ["random"] * 3) == play(2, 3, "random")


def test_the_default_players_are_the_default_mix_and_the_solo_default():
    assert play(2, 4).strategies == DEFAULT_MIX
    assert play(2, 3).strategies == DEFAULT_MIX[:3]
    assert play(2, 2) == play(2, 2, list(DEFAULT_MIX[:2]))
    assert play(2, 1).strategies == (RECOMMENDED_SOLO, "tom")
    assert "random" not in DEFAULT_MIX and RECOMMENDED_SOLO != "random"
    # strong players light bonfires and reach the countdown; random players do not
    rec = play(1, 4)
    assert rec.end_reason == "countdown" and min(rec.bonfires) >= 1


# ---- the replay command ---------------------------------------------------------------
def test_replay_prints_the_narrated_game():
    result = CliRunner().invoke(main, ["replay", "--seed", "1", "--players", "4"])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[0] == ("Variants in force: tom_deck=task1, fate_area=5x5-centre, "
                        "guardian_points=2+k")
    assert lines[1:] == narrate(play(1, 4))


def test_replay_writes_the_trace_as_json(tmp_path):
    out = tmp_path / "game.json"
    result = CliRunner().invoke(main, ["replay", "--seed", "3", "--players", "1",
                                       "--json", str(out)])
    assert result.exit_code == 0, result.output
    data = json.loads(out.read_text(encoding="utf-8"))
    assert data == json.loads(play(3, 1).to_json())
    assert data["result"]["strategies"] == [RECOMMENDED_SOLO, "tom"]
    stdout = CliRunner().invoke(main, ["replay", "--seed", "3", "--players", "1", "--json", "-"])
    assert json.loads(stdout.output) == data


@pytest.mark.parametrize("args", [
    ["--players", "5"], ["--players", "0"], ["--seed", "-1"], ["--strategies", "nope"],
    ["--players", "2", "--strategies", "random,random,random"],
])
def test_replay_rejects_bad_input_with_one_line_and_no_traceback(args):
    proc = subprocess.run([sys.executable, "-m", "bonfire_sim", "replay", *args], cwd=ROOT,
                          capture_output=True, text=True)
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert proc.stderr.count("\n") == 1 and proc.stderr.startswith("Error: ")
    assert "Traceback" not in proc.stderr


TIMED = ("move", "tom", "out", "auto_pass", "countdown")


@pytest.mark.parametrize("seed", [1, 2, 3, 177])
def test_solo_narration_is_in_turn_order_with_one_line_per_tom_card(seed):
    # Issue 39: once the random player runs out, Tom plays alone; his turns were one
    # merged line ("plays 13 turns in a row"), and the human's countdown pass was printed
    # before Tom's turn that came before it.
    rec = play(seed, 1, "random")
    turns = [e["turn"] for e in rec.events if e["kind"] in TIMED]
    assert turns == sorted(turns)
    toms = [e for e in rec.events if e["kind"] == "tom"]
    assert toms and all(e["turns"] == 1 and len(e["cards"]) == 1 for e in toms)
    lines = narrate(rec)
    assert not any("turns in a row" in line for line in lines)
    assert sum(", Tom: plays card '" in line for line in lines) == len(toms)


def test_the_countdown_banner_follows_the_whole_turn_that_began_it(records):
    # The banner came right after the move that placed the 7th novice, so the rest of
    # that turn (its council chain, its snapshot) was narrated as if a new turn began.
    seen = 0
    for rec in records.values():
        events = rec.events
        for i, ev in enumerate(events):
            if ev["kind"] != "countdown":
                continue
            seen += 1
            before = [(e["turn"], e["seat"]) for e in events[:i] if e["kind"] == "move"]
            after = [(e["turn"], e["seat"]) for e in events[i + 1:] if e["kind"] == "move"]
            assert not before or before[-1] not in after
    assert seen > 0
