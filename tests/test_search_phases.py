"""The per-phase search (``search:N:phases=...``) searches where it is told and plays its
rollout policy, ``tuned``, everywhere else (issue 35's ablation)."""

from __future__ import annotations

import numpy as np
import pytest

from bonfire_sim.errors import ConfigError
from bonfire_sim.rules import layout as L
from bonfire_sim.rules import tables as T
from bonfire_sim.rules.moves import apply_move, legal_moves
from bonfire_sim.rules.setup import new_game
from bonfire_sim.sim.loop import choose, new_buffer, no_weights, play_out
from bonfire_sim.sim.runconfig import RunConfig
from bonfire_sim.sim.runner import run
from bonfire_sim.strategies import evaluate, weights_for
from bonfire_sim.strategies import search as SE
from bonfire_sim.strategies.specs import parse_player
from bonfire_sim.studies.phases import arm_summary, decision_counts

P = T.DEFAULT_PARAMS


def final_state(seed: int, specs: tuple[str, str]) -> np.ndarray:
    """The last state of a two-player game with these seat players."""
    s = new_game(seed, 2, P)
    players = [parse_player(x) for x in specs]
    w = no_weights()
    for k, pl in enumerate(players):
        w[k] = pl.weight_row()
    play_out(s, P, np.array([pl.sid for pl in players] + [0] * (L.NP - 2)), w, new_buffer())
    return s


@pytest.mark.parametrize("seed", [3, 11])
def test_a_search_restricted_to_no_phase_plays_exactly_tuneds_games(seed):
    tuned = final_state(seed, ("tuned", "tuned"))
    assert np.array_equal(final_state(seed, ("search:8:phases=none", "tuned")), tuned)
    assert np.array_equal(final_state(seed, ("tuned", "search:8:phases=none")), tuned)
    # the comparison can fail: searching the turn's option changes the game
    assert not np.array_equal(final_state(seed, ("search:8:phases=main", "tuned")), tuned)


def test_a_search_restricted_to_all_phases_is_the_search():
    assert parse_player("search:16:phases=all").row == parse_player("search:16").row
    assert np.array_equal(final_state(5, ("search:4:phases=all", "tuned")),
                          final_state(5, ("search:4", "tuned")))


def test_outside_its_phases_the_hybrid_plays_tuneds_choice_and_inside_it_searches():
    hybrid = parse_player("search:8:phases=council")
    row, w_tuned = hybrid.weight_row(), weights_for("tuned")
    buf = new_buffer()
    same = {True: 0, False: 0}  # council decisions where tuned's choice was kept / not
    for seed in (1, 2, 3, 4):
        s = new_game(seed, 2, P)
        while s[L.G_OVER] == 0:
            n = legal_moves(s, P, buf)
            i = 0 if n == 1 else int(choose(s, P, buf, n, hybrid.sid, row))
            if n > 1 and s[L.G_CUR] == 0:
                base = int(evaluate.choose(s, P, buf, n, w_tuned))
                if s[L.G_PHASE] == L.PH_COUNCIL:
                    same[i == base] += 1
                else:
                    assert i == base, f"searched outside the council (phase {s[L.G_PHASE]})"
            apply_move(s, P, buf[i])
    assert same[False] > 0, "the council's search never departed from tuned"


@pytest.mark.parametrize("spec, message", [
    ("search:16:phases=fire", "unknown phase 'fire'"),
    ("search:16:phases=", "names phases"),
    ("search:16:phases=main+", "names phases"),
    ("search:16:depth=2", "only phases=a\\+b and turns=A-B"),
    ("search:16:phases=main:phases=post", "each once"),
    ("search:16:turns=20-10", "0 <= A < B"),
    ("search:16:turns=5", "0 <= A < B"),
    ("search:0:phases=main", "budget must be an integer"),
])
def test_bad_phase_specs_are_refused(spec, message):
    with pytest.raises(ConfigError, match=message):
        parse_player(spec)


def test_phase_names_combine_into_the_mask_and_the_record_names_them():
    pl = parse_player("search:16:phases=council+main:turns=4-30")
    assert int(pl.row[SE.R_PHASES]) == (1 << L.PH_COUNCIL) | (1 << L.PH_MAIN)
    assert pl.record()["phases"] == ["main", "council"]
    assert pl.record()["turns"] == [4, 30]
    assert parse_player("search:16").record()["phases"] == list(SE.PHASE_NAMES)
    assert parse_player("search:16").row == parse_player("search:16:turns=0-").row


def test_a_turn_window_searches_only_inside_it():
    """Outside turns 10..19 the windowed hybrid plays exactly tuned's move."""
    hybrid = parse_player("search:4:phases=main:turns=10-20")
    row, w_tuned = hybrid.weight_row(), weights_for("tuned")
    buf = new_buffer()
    inside = {True: 0, False: 0}  # main decisions inside the window: tuned's move kept?
    s = new_game(2, 2, P)
    while s[L.G_OVER] == 0:
        n = legal_moves(s, P, buf)
        i = 0 if n == 1 else int(choose(s, P, buf, n, hybrid.sid, row))
        if n > 1 and s[L.G_CUR] == 0:
            base = int(evaluate.choose(s, P, buf, n, w_tuned))
            if s[L.G_PHASE] == L.PH_MAIN and 10 <= s[L.G_TURN] < 20:
                inside[i == base] += 1
            else:
                assert i == base, f"searched outside the window (turn {s[L.G_TURN]})"
        apply_move(s, P, buf[i])
    assert inside[False] > 0, "the window's search never departed from tuned"


def test_an_arm_counts_only_the_searched_phases_as_searched(tmp_path):
    spec = "search:2:phases=council+swap"
    out = run(RunConfig(games=4, players=2, strategies=(spec, "tuned"), seat_rotation=True,
                        seed=7, chunk_size=4), tmp_path / "arm")
    counts = decision_counts(out, spec, 4).set_index("phase")
    assert counts.loc["main", "choices"] > 10 and counts.loc["main", "searched"] == 0
    assert counts.loc["council", "searched"] == counts.loc["council", "choices"] > 0
    assert counts.loc["swap", "searched"] == 1.0  # one starting fate tile per seat-game
    summary = arm_summary(out, spec)
    assert summary.games == 4 and summary.deals == 2
    assert summary.wilson[0] <= summary.share <= summary.wilson[1]
    # a turn window counts too: each seat chooses its starting fate tile at its first turn
    # (game turn 1 or 2)
    windowed = "search:2:phases=council+swap:turns=3-"
    out = run(RunConfig(games=2, players=2, strategies=(windowed, "tuned"),
                        seat_rotation=True, seed=7, chunk_size=2), tmp_path / "window")
    counts = decision_counts(out, windowed, 2).set_index("phase")
    assert counts.loc["swap", "choices"] == 1.0 and counts.loc["swap", "searched"] == 0
    assert counts.loc["council", "searched"] > 0
