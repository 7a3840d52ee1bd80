"""Named variants of the uncertain facts: registry, fate-area geometry, complete games.

A variant (or any component value) is data: switching it must change the parameter slots
of its own fact and nothing else, and complete games under every variant must keep every
invariant of ``rules/invariants.py`` after every decision, at every player count.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
from numba import config as numba_config

from bonfire_sim import strategies as S
from bonfire_sim.catalog import cards_table, variants_line
from bonfire_sim.errors import ConfigError
from bonfire_sim.rules import components as C
from bonfire_sim.rules import fate as F
from bonfire_sim.rules import fate_capacity as FC
from bonfire_sim.rules import layout as L
from bonfire_sim.rules import tables as T
from bonfire_sim.rules.invariants import MESSAGES
from bonfire_sim.rules.setup import new_game
from bonfire_sim.rules.state import StateBuilder
from bonfire_sim.sim.loop import new_buffer, no_weights, play_checked
from bonfire_sim.sim.play import play
from bonfire_sim.sim.runconfig import RunConfig
from bonfire_sim.strategies import features as FE

PB = L.player_base(0)
NON_DEFAULT = [(fact, v.name) for fact, vs in C.VARIANTS.items() for v in vs[1:]]
N_RANDOM = 2 if numba_config.DISABLE_JIT else 12
N_SCRIPTED = 1 if numba_config.DISABLE_JIT else 6

# Parameter slots each fact owns: switching its variant may change these and no others.
FACT_SLOTS = {
    "tom_deck": [(T.TOM_CARD, C.TOM_DECK_SIZE), (T.TOM_REVEAL, C.TOM_DECK_SIZE)],
    "guardian_points": [(T.GUARD_PTS, 7)],
    "fate_area": [(T.FATE_ROWS, 1), (T.FATE_COLS, 1), (T.FATE_CAP, 1),
                  (T.FATE_PRINT, T.NCELL), (T.FATE_SET, 3 * T.NCELL), (T.FATE_START, 3),
                  (T.FATE_RUN_N, 3), (T.FATE_RUN, 3 * T.MAX_RUNS * 4)],
}


# ---- the registry -----------------------------------------------------------------------
def test_every_fact_has_a_default_and_every_variant_a_provenance_and_a_reason():
    assert set(C.VARIANTS) >= {"tom_deck", "fate_area"}
    assert C.default_variants() == {"tom_deck": "task1", "fate_area": "5x5-centre",
                                    "guardian_points": "2+k"}
    assert {v.name for v in C.VARIANTS["tom_deck"]} == {"task1", "gnome", "path", "guardian"}
    for vs in C.VARIANTS.values():
        assert len({v.name for v in vs}) == len(vs)
        for v in vs:
            assert v.provenance in C.PROVENANCE and len(v.why) > 40


def test_tom_deck_variants_differ_only_in_the_eighth_card():
    decks = {v.name: v.value for v in C.VARIANTS["tom_deck"]}
    assert all(len(d) == C.TOM_DECK_SIZE for d in decks.values())
    assert [c for c, _ in decks["task1"]].count("task1") == 2
    assert [c for c, _ in decks["task1"]].count("great_bonfire") == 2  # [text]
    assert [c for c, _ in decks["task1"]].count("task2") == 1  # [text]
    assert decks["gnome"].count(("gnome", True)) == 2
    assert decks["path"].count(("path", True)) == 2
    assert decks["guardian"].count(("guardian", False)) == 2
    for name in ("gnome", "path", "guardian"):
        assert sum(a != b for a, b in zip(decks["task1"], decks[name], strict=True)) == 1


def test_unknown_facts_and_names_are_refused_with_the_allowed_ones():
    with pytest.raises(ValueError, match="gnome, path, guardian"):
        C.resolve_variants({"tom_deck": "elf"})
    with pytest.raises(ValueError, match="expected one of tom_deck"):
        C.parse_variant("deck=gnome")
    with pytest.raises(ValueError, match="FACT=NAME"):
        C.parse_variant("tom_deck")
    assert C.parse_variant(" fate_area = 4x6 ") == ("fate_area", "4x6")
    with pytest.raises(ConfigError, match="fate_area variant"):
        RunConfig(games=4, players=2, variants={"fate_area": "9x9"})


def test_a_run_records_every_fact_and_an_explicit_default_is_the_same_configuration():
    a = RunConfig(games=4, players=2)
    b = RunConfig(games=4, players=2, variants={"tom_deck": "task1"})
    c = RunConfig(games=4, players=2, variants={"tom_deck": "gnome"})
    assert a.to_json()["variants"] == C.default_variants()
    assert a.to_json() == b.to_json()
    assert c.to_json() != a.to_json()


@pytest.mark.parametrize("fact, name", NON_DEFAULT)
def test_a_variant_changes_only_the_parameter_slots_of_its_own_fact(fact, name):
    base = T.build_params()
    p = T.build_params(variants={fact: name})
    changed = np.flatnonzero(p != base)
    assert len(changed), f"{fact}={name} changes nothing"
    own = set()
    for start, n in FACT_SLOTS[fact]:
        own |= set(range(start, start + n))
    assert set(changed.tolist()) <= own


def test_an_override_applies_on_top_of_a_variant():
    p = T.build_params({"guardian_points": [1] * 7}, {"guardian_points": "8-k"})
    assert p[T.GUARD_PTS:T.GUARD_PTS + 7].tolist() == [1] * 7
    p = T.build_params(variants={"guardian_points": "8-k"})
    assert p[T.GUARD_PTS:T.GUARD_PTS + 7].tolist() == [8, 7, 6, 5, 4, 3, 2]


# ---- fate-area geometry -----------------------------------------------------------------
def test_the_default_area_is_the_one_rulings_8_lists():
    a = C.FATE_AREA_5X5
    assert (a.rows, a.cols) == (5, 5)
    assert a.start_cells == ((2, 1), (2, 2), (2, 3))
    assert set(a.gold_cells) == {(0, 0), (0, 4), (4, 0), (4, 4)}
    assert set(a.yellow_cells) == {(0, 2), (4, 2), (2, 0), (2, 4)}
    assert set(a.highlighted) == {(1, 1), (1, 2), (1, 3), (3, 1), (3, 2), (3, 3), (2, 0), (2, 4)}
    assert a.outer_columns == (0, 4)


def test_the_4x6_area_follows_the_same_rules():
    a = C.FATE_AREA_4X6
    assert (a.rows, a.cols) == (4, 6)
    assert a.start_cells == ((1, 1), (1, 2), (1, 3))  # a middle row
    assert set(a.gold_cells) == {(0, 0), (0, 5), (3, 0), (3, 5)}  # corners
    assert set(a.yellow_cells) == {(0, 2), (3, 2), (1, 0), (1, 5)}  # in line with the middle
    assert set(a.highlighted) == {(0, 1), (0, 2), (0, 3), (2, 1), (2, 2), (2, 3), (1, 0),
                                  (1, 4)}  # touching the starting tile
    assert a.outer_columns == (0, 5)


def _exhaustive_max(area: C.FateArea) -> int:
    """Most non-overlapping 1x3 tiles beside the starting tile, by brute force over every
    subset of placements (independent of fate_capacity's pruned search)."""
    free = frozenset(area.cells()) - frozenset(area.start_cells)
    pieces = [pc for pc in FC.pieces(area) if pc <= free]
    best = 0

    def go(i: int, used: frozenset, n: int) -> None:
        nonlocal best
        best = max(best, n)
        if i == len(pieces) or n + (len(free) - len(used)) // 3 <= best:
            return
        if not (pieces[i] & used):
            go(i + 1, used | pieces[i], n + 1)
        go(i + 1, used, n)

    go(0, frozenset(), 0)
    return best


def test_exhaustive_search_5x5_centre_holds_6_more_tiles_and_4x6_all_7():
    assert _exhaustive_max(C.FATE_AREA_5X5) == 6
    assert _exhaustive_max(C.FATE_AREA_4X6) == 7
    assert FC.max_extra_tiles(C.FATE_AREA_5X5, 7) == 6
    assert FC.max_extra_tiles(C.FATE_AREA_4X6, 7) == 7
    assert T.build_params(variants={"fate_area": "4x6"})[T.FATE_CAP] == 7
    assert T.DEFAULT_PARAMS[T.FATE_CAP] == 6


def test_all_8_fate_tiles_can_be_placed_in_the_4x6_area_by_the_engine_rules():
    p = T.build_params(variants={"fate_area": "4x6"})
    s = StateBuilder(params=p).build()
    F.place_start_tile(s, p, PB, 0)
    order = FC.placement_order(C.FATE_AREA_4X6, FC.best_packing(C.FATE_AREA_4X6, 7))
    assert order is not None and len(order) == 7
    for k, piece in enumerate(order, start=1):
        (r, c), (r2, _) = min(piece), max(piece)
        orient = 0 if r == r2 else 2
        assert F.can_place(s, p, PB, r, c, orient), f"tile {k} at {sorted(piece)}"
        F.place_tile(s, p, PB, k, r, c, orient)
    assert s[PB + L.P_FATE_PLACED] == C.N_FATE_TILES
    assert not F.has_legal_placement(s, p, PB)
    for set_id in range(3):
        assert F.cells_covered(s, p, PB, set_id)


def test_the_4x6_area_prints_gold_and_yellow_where_its_variant_says():
    p = T.build_params(variants={"fate_area": "4x6"})
    s = StateBuilder(params=p).build()
    F.place_start_tile(s, p, PB, 0)
    F.place_tile(s, p, PB, 1, 0, 0, 0)  # row 0, columns 0-2: gold (0,0), yellow (0,2)
    assert s[PB + L.P_RES + C.GOLD] == 1
    assert s[PB + L.P_TILES + C.YELLOW] == 1
    assert F.can_place(s, p, PB, 0, 3, 0)  # columns 3-5 lie inside 6 columns
    assert not F.can_place(s, T.DEFAULT_PARAMS, PB, 0, 3, 0)  # ... but not in 5 columns
    assert not F.can_place(s, p, PB, 4, 1, 0)  # row 4 is outside a 4-row area
    assert not F.in_area(p, 4, 1) and F.in_area(p, 3, 5) and not F.in_area(p, 0, 6)


def test_strategy_estimates_read_the_area_of_the_variant():
    p = T.build_params(variants={"fate_area": "4x6"})
    s = StateBuilder(params=p).build()
    F.place_start_tile(s, p, PB, 0)
    for i in range(C.N_FATE_TILES):
        s[PB + L.P_FATE_SUP + i] = i
    s[PB + L.P_FATE_LO], s[PB + L.P_FATE_HI] = 1, C.N_FATE_TILES
    assert FE.placeable(s, p, PB) == 7  # every column tile fits
    assert FE.placeable(s, T.DEFAULT_PARAMS, PB) == 6
    # outer columns 0 and 5, 4 cells each spanning the area: 3 + 1 across = 2 tiles each
    assert FE.placements_for_cells(s, p, PB, 1) == 4
    assert FE.placements_for_cells(s, p, PB, 2) == 4  # four corners
    # highlighted: rows 0 and 2 (one tile each) and the two end cells (1, 0), (1, 4)
    assert FE.placements_for_cells(s, p, PB, 0) == 4
    assert FE.uncovered(s, p, PB, 0) == 8


# ---- complete games under every variant ------------------------------------------------------
@pytest.mark.parametrize("fact, name", NON_DEFAULT + [("custom", "5x6")])
@pytest.mark.parametrize("players", [1, 2, 3, 4])
def test_complete_games_under_a_variant_keep_every_invariant(fact, name, players,
                                                             monkeypatch):
    if fact == "custom":  # a component value a designer adds: a 5 x 6 area, start in row 2
        area = C.FateArea.by_rules(5, 6, (2, 1))
        monkeypatch.setitem(C.VARIANTS, "fate_area", (
            *C.VARIANTS["fate_area"], C.Variant("fate_area", "5x6", area, "assumed", "test")))
        fact = "fate_area"
    p = T.build_params(variants={fact: name})
    buf = new_buffer()
    scripted = np.array([S.strategy_id(n) for n in ("portal", "planner", "tempo",
                                                      "gnome_engine", "greedy")], np.int64)
    for k in range(N_RANDOM + N_SCRIPTED):
        strat = np.zeros(L.NP, np.int64) if k < N_RANDOM else np.roll(scripted, k)
        if players == 1:
            strat[1] = 0  # Tom's seat takes no strategy
        s = new_game(1000 + k, players, p)
        code = play_checked(s, p, strat, no_weights(), buf)
        assert code == 0, (f"{fact}={name}, {players}p, game {k}, decision "
                           f"{int(s[L.G_DECISIONS])}: {MESSAGES[code]}")
        assert s[L.G_OVER] == 1 and int(s[L.G_END]) != L.END_LIMIT


@pytest.mark.skipif(numba_config.DISABLE_JIT, reason="40 scripted games: jitted suite only")
def test_only_the_4x6_area_lets_scripted_players_place_all_8_fate_tiles():
    buf = new_buffer()
    scripted = np.array([S.strategy_id(n) for n in ("portal", "planner", "tempo",
                                                      "gnome_engine", "greedy")], np.int64)
    full = {}
    for name in ("5x5-centre", "4x6"):
        p = T.build_params(variants={"fate_area": name})
        full[name] = 0
        for k in range(20):
            s = new_game(2000 + k, 4, p)
            assert play_checked(s, p, np.roll(scripted, k), no_weights(), buf) == 0
            for q in range(4):
                pb = L.player_base(q)
                if s[pb + L.P_FATE_PLACED] == C.N_FATE_TILES:
                    full[name] += 1
                    # in the default area only specialist 27 (tiles protrude) gets there
                    assert name == "4x6" or s[pb + L.P_GNOME + 26] == 1
    assert full["4x6"] >= 2


def test_play_and_the_catalog_take_variants():
    a = play(5, 1, "greedy")
    b = play(5, 1, "greedy", variants={"tom_deck": "guardian"})
    assert a.scores != b.scores or a.events != b.events
    with pytest.raises(ConfigError, match="tom_deck variant"):
        play(5, 1, "greedy", variants={"tom_deck": "elf"})
    rows = cards_table("variants", {"fate_area": "4x6"})
    assert {(r["fact"], r["variant"]) for r in rows if r["in_force"]} == {
        ("tom_deck", "task1"), ("fate_area", "4x6"), ("guardian_points", "2+k")}
    assert "holds 7 of the 7" in next(r["value"] for r in rows if r["variant"] == "4x6")
    tom = cards_table("tom", {"tom_deck": "path"})
    assert [r["action"] for r in tom].count("path") == 2
    assert variants_line({"tom_deck": "gnome"}).startswith("tom_deck=gnome, fate_area=5x5")


def test_an_experiment_file_selects_variants_and_resume_refuses_a_mismatch(tmp_path):
    from bonfire_sim.pipelines.experiment import load_experiment
    from bonfire_sim.sim.runner import run

    f = tmp_path / "x.toml"
    f.write_text('[run]\ngames = 2\nplayers = 2\nstrategies = ["random"]\n'
                 '[variants]\nfate_area = "4x6"\n')
    config, _ = load_experiment(f)
    assert config.variants["fate_area"] == "4x6"
    f.write_text('[run]\ngames = 2\n[variants]\nfate_area = 4\n')
    with pytest.raises(ConfigError, match="variants"):
        load_experiment(f)
    out = tmp_path / "run"
    run(config, out)
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["config"]["variants"] == {**C.default_variants(), "fate_area": "4x6"}
    with pytest.raises(ConfigError, match="different configuration"):
        run(RunConfig(games=2, players=2, strategies=("random",)), out, resume=True)
    run(config, out, resume=True)  # the same variants: accepted


def test_a_manifest_from_before_variants_resumes_as_the_defaults(tmp_path):
    from bonfire_sim.sim.runner import run

    config = RunConfig(games=2, players=2, strategies=("random",))
    out = tmp_path / "run"
    run(config, out)
    path = out / "manifest.json"
    manifest = json.loads(path.read_text())
    del manifest["config"]["variants"]
    path.write_text(json.dumps(manifest))
    run(config, out, resume=True)
    with pytest.raises(ConfigError, match="different configuration"):
        run(RunConfig(games=2, players=2, strategies=("random",),
                      variants={"tom_deck": "path"}), out, resume=True)
