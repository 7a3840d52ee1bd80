"""Built-in strategies, their registry and weights, and pure-Python plug-ins."""

from __future__ import annotations

import numpy as np
import pytest
from numba import config as numba_config

from bonfire_sim.errors import ConfigError, PluginError
from bonfire_sim.rules import layout as L
from bonfire_sim.rules import tables as T
from bonfire_sim.rules.invariants import MESSAGES
from bonfire_sim.rules.setup import new_game
from bonfire_sim.sim.loop import W, new_buffer, play_checked
from bonfire_sim.sim.pyloop import play_mixed
from bonfire_sim.strategies import (
    BUILTIN,
    STRATEGY_IDS,
    describe,
    load_weights,
    strategy_id,
    weight_table,
    weights_for,
)
from bonfire_sim.strategies.plugin import StateView, load_plugin
from bonfire_sim.strategies.weights import WEIGHT_NAMES

P = T.DEFAULT_PARAMS
# The evaluator styles (the search player has its own tests: tests/test_search.py).
SCRIPTED = sorted(n for n in STRATEGY_IDS if n not in ("random", "search"))
# Jitted: 4,000 checked games over every built-in, seat and player count (~35 s).
N_SEEDS = 8 if numba_config.DISABLE_JIT else 1000


# ---- registry and weights ------------------------------------------------------------------
def test_at_least_six_scripted_strategies_are_registered_with_descriptions():
    assert len(SCRIPTED) >= 6
    names = [n for n, _ in describe()]
    # search_ref / search_expert: the search's strategy id with another row (not own ids)
    assert set(names) == set(BUILTIN) | {"search_ref", "search_expert"}
    assert all(d for _, d in describe())


def test_unknown_strategy_names_list_the_valid_ones():
    with pytest.raises(ValueError, match="choose from"):
        strategy_id("nope")


def test_weights_for_builds_a_row_of_w_values_from_base_defaults_and_overrides():
    row = weights_for("tempo")
    assert row.shape == (W,) and row.dtype == np.float64
    i = WEIGHT_NAMES.index("max_open")
    assert row[i] == 2.0  # tempo's DEFAULTS
    assert weights_for("tempo", {"max_open": 5})[i] == 5.0
    assert weights_for("greedy")[i] == weight_table("greedy")["max_open"]
    with pytest.raises(ValueError, match="unknown weight"):
        weights_for("greedy", {"bogus": 1})


def test_greedy_weights_load_from_toml_and_json(tmp_path):
    toml = tmp_path / "w.toml"
    toml.write_text("[weights]\nignite = 12.5\nportal = 0.1\n")
    js = tmp_path / "w.json"
    js.write_text('{"ignite": 3.0}')
    row = weights_for("greedy", load_weights(toml))
    assert row[WEIGHT_NAMES.index("ignite")] == 12.5
    assert row[WEIGHT_NAMES.index("portal")] == 0.1
    assert weights_for("greedy", load_weights(js))[WEIGHT_NAMES.index("ignite")] == 3.0
    bad = tmp_path / "bad.toml"
    bad.write_text("ignite = [")
    with pytest.raises(ValueError, match="not valid"):
        load_weights(bad)


# ---- legality over thousands of seeds -------------------------------------------------------
@pytest.mark.parametrize("players", [1, 2, 3, 4])
def test_every_builtin_strategy_plays_only_legal_moves_with_all_invariants_holding(players):
    """``play_checked`` checks every invariant after every decision; strategies rotate
    over the seats so each plays each seat."""
    buf = new_buffer()
    names = SCRIPTED + ["random"]
    for seed in range(N_SEEDS):
        s = new_game(seed, players)
        strat = np.zeros(L.NP, np.int64)
        w = np.zeros((L.NP, W), np.float64)
        for seat in range(players):
            name = names[(seed + seat * 3) % len(names)]
            strat[seat] = STRATEGY_IDS[name]
            w[seat] = weights_for(name)
        code = play_checked(s, P, strat, w, buf)
        assert code == 0, (
            f"seed {seed}, {players}p: "
            f"{MESSAGES[code] if code < len(MESSAGES) else 'no legal move'}"
        )
        assert s[L.G_OVER] == 1 and s[L.G_END] != L.END_LIMIT


def test_an_unset_weight_row_falls_back_to_the_strategy_defaults():
    buf = new_buffer()
    strat = np.full(L.NP, STRATEGY_IDS["greedy"], np.int64)
    a = new_game(5, 2)
    b = new_game(5, 2)
    play_checked(a, P, strat, np.zeros((L.NP, W)), buf)
    w = np.zeros((L.NP, W))
    w[:] = weights_for("greedy")
    play_checked(b, P, strat, w, buf)
    assert np.array_equal(a, b)


# ---- plug-ins -----------------------------------------------------------------------------
class FirstLegal:
    """A tiny plug-in: the first legal move, but never option I with a big hand."""

    def __init__(self) -> None:
        self.calls = 0
        self.phases: set[str] = set()

    def choose(self, view: StateView, moves: np.ndarray) -> int:
        self.calls += 1
        self.phases.add(view.phase)
        assert not moves.flags.writeable and not view.state.flags.writeable
        assert set(view.resources()) >= {"gold"} and "yellow" in view.tiles()
        if sum(view.tiles().values()) > 1:
            for i, mv in enumerate(moves):
                if mv[0] != L.M_FATE:
                    return i
        return len(moves) - 1


NotAStrategy = 42


def test_a_tiny_python_plugin_plays_full_games_against_builtins():
    for seed in range(3):
        bot = FirstLegal()
        s = play_mixed(seed, 3, [bot, "greedy", "tempo"])
        assert s[L.G_OVER] == 1
        assert bot.calls > 10 and "main" in bot.phases
    s = play_mixed(7, 2, ["tests.test_strategies:FirstLegal", "random"])
    assert s[L.G_OVER] == 1


def test_the_same_seed_gives_the_same_game_in_the_python_loop():
    a = play_mixed(11, 2, ["greedy", "planner"])
    b = play_mixed(11, 2, ["greedy", "planner"])
    assert np.array_equal(a, b)


def test_state_view_reports_the_acting_seats_stock_and_score():
    s = new_game(3, 2)
    v = StateView(s)
    assert v.seat == 0 and v.phase == "swap" and v.players == 2
    assert v.resources() == {r: 1 for r in ("blossom", "fruit", "herb", "shell", "root", "gold")}
    assert v.tasks() == [] and v.fate_left() == 7 and v.score() >= 0


@pytest.mark.parametrize("path, message", [
    ("no_such_module_xyz:Bot", "not found"),
    ("tests.test_strategies:Missing", "has no"),
    ("tests.test_strategies:NotAStrategy", "not a strategy"),
    ("tests.test_strategies", "expected"),
])
def test_plugin_loader_errors_are_clear(path, message):
    with pytest.raises(ConfigError, match=message):
        load_plugin(path)


def test_a_plugin_returning_a_bad_index_is_reported():
    class Bad:
        def choose(self, view, moves):
            return len(moves)

    with pytest.raises(PluginError, match="returned 2 at seat 0, seed 1, turn 1"):
        play_mixed(1, 2, [Bad(), "random"])


def test_a_failing_plugin_is_reported_with_seat_seed_and_turn():
    class Broken:
        def choose(self, view, moves):
            return {}["oops"]

    with pytest.raises(PluginError, match="Broken.choose failed at seat 1, seed 5, turn .*"
                                          "KeyError"):
        play_mixed(5, 2, ["random", Broken()])


def test_the_default_mix_reaches_the_countdown_in_nearly_every_four_player_game():
    # 800 seat-rotated games (200 deals), fixed seed: 0.4% stall now (3 games), 1.5% with
    # the task-feasibility fixes alone, about 6% before them.
    from bonfire_sim.sim.chunk import ChunkJob, run_one
    from bonfire_sim.sim.runconfig import RunConfig

    cfg = RunConfig(games=800, players=4, seat_rotation=True, seed=31, chunk_size=800)
    games = run_one(ChunkJob(cfg, 0)).games.to_pandas()
    assert (games["end_reason"] == "stalled").mean() < 0.01


@pytest.mark.parametrize("name", SCRIPTED)
def test_every_scripted_strategy_beats_random_in_two_player_games(name):
    # 20 deals in both seat orders; the bar is 95% (measured: 100% on 720 games).
    from bonfire_sim.studies.ladder import play_ladder

    results = play_ladder([name, "random"], 2, 20, seed=17)
    wins = sum(r.won[r.strategies.index(name)] and not r.won[r.strategies.index("random")]
               for r in results)
    assert len(results) == 40 and wins / len(results) >= 0.95
