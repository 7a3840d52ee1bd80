"""Coverage tables over hand-made player rows."""

from __future__ import annotations

import pandas as pd

from bonfire_sim.analysis.coverage import ability_coverage, task_coverage


def _rows():
    base = {"score_guardians": 0, "ability_effects": [0] * 27}
    return pd.DataFrame([
        {**base, "strategy": "greedy", "bonfire_task_ids": ["B1", "R7"],
         "unlit_task_ids": ["Y2"], "gnome_ids": ["S18", "E2"], "score_guardians": 6,
         "ability_effects": [0] * 4 + [3] + [0] * 22},
        {**base, "strategy": "tempo", "bonfire_task_ids": ["B1"], "unlit_task_ids": [],
         "gnome_ids": ["S5"]},
        {**base, "strategy": "tom", "bonfire_task_ids": ["Y9"], "unlit_task_ids": [],
         "gnome_ids": ["S24"], "ability_effects": [0] * 23 + [9] + [0] * 3},
    ])


def test_task_coverage_counts_ignitions_and_takings_per_task():
    t = task_coverage(_rows()).set_index("task")
    assert len(t) == 66
    assert t.loc["B1", "ignited"] == 2 and t.loc["B1", "taken"] == 2
    assert t.loc["Y2", "ignited"] == 0 and t.loc["Y2", "taken"] == 1
    assert t.loc["Y9", "ignited"] == 0  # Tom's bonfires are his, not the players'
    assert t["dealt"].all()  # no player count given: every task counts as dealt


def test_task_coverage_marks_the_task_the_rules_take_out_at_1_2_players_as_not_dealt():
    for n, removed in ((1, {"Y2"}), (2, {"Y2"}), (3, set()), (4, set())):
        t = task_coverage(_rows(), n).set_index("task")
        assert set(t.index[~t["dealt"]]) == removed, n


def test_ability_coverage_counts_engine_effects_and_specialist_18_from_scoring():
    a = ability_coverage(_rows()).set_index("gnome")
    assert len(a) == 33
    assert a.loc["S5", "effects"] == 3 and a.loc["S5", "owned"] == 1
    assert a.loc["S18", "effects"] == 1  # owner with guardians next to bonfires
    assert a.loc["S24", "owned"] == 0 and a.loc["S24", "effects"] == 0  # Tom never uses them
    assert a.loc["E2", "effects"] == 1


def _mix_rows():
    base = {f"score_{line}": 0 for line in ("bonfires", "guardians", "portals", "paths",
                                            "common", "fate_supply", "leftovers", "ingame")}
    base.update(n_bonfires=0, n_paths=0, n_portals=0, n_guardians=0, n_elders=0, score=0)
    return pd.DataFrame([
        {**base, "game_id": 0, "seat": 0, "strategy": "steady", "gnome_ids": ["S1", "S2", "E1"],
         "n_elders": 1, "n_guardians": 2, "score_guardians": 6, "score": 40},
        {**base, "game_id": 1, "seat": 0, "strategy": "steady", "gnome_ids": [],
         "n_guardians": 0, "score": 20},
        {**base, "game_id": 0, "seat": 1, "strategy": "tom", "gnome_ids": ["S9", "S8"],
         "n_elders": 3, "n_guardians": 5, "score": 90},
    ])


def test_the_mechanism_mix_is_a_mean_per_seat_game_of_the_players_not_tom():
    from bonfire_sim.analysis.mechanisms import mechanism_mix

    mix = mechanism_mix(_mix_rows()).set_index(["player", "measure"])["value"]
    assert set(mix.index.get_level_values(0)) == {"steady"}
    assert mix[("steady", "specialists recruited")] == 1.0  # S1, S2 over 2 games
    assert mix[("steady", "elders recruited")] == 0.5
    assert mix[("steady", "guardians walked")] == 1.0
    assert mix[("steady", "points: guardians")] == 3.0
    assert mix[("steady", "score")] == 30.0
    assert not any(m.startswith("action") for m in mix.index.get_level_values(1))


def test_the_turn_log_adds_actions_per_game_and_the_great_bonfire_share_of_turns():
    from bonfire_sim.analysis.mechanisms import mechanism_mix, side_by_side

    turns = pd.DataFrame([
        # game 0: turn 1 fire (two decisions), turn 3 a path; game 1: turn 2 fire
        {"game_id": 0, "seat": 0, "turn": 1, "option": "action", "action": "fire"},
        {"game_id": 0, "seat": 0, "turn": 1, "option": "action", "action": "pay"},
        {"game_id": 0, "seat": 0, "turn": 3, "option": "action", "action": "path"},
        {"game_id": 0, "seat": 0, "turn": 3, "option": "fate", "action": "fate"},
        {"game_id": 1, "seat": 0, "turn": 2, "option": "action", "action": "fire"},
        {"game_id": 1, "seat": 0, "turn": 4, "option": "ignite", "action": "ignite"},
        {"game_id": 0, "seat": 1, "turn": 2, "option": "action", "action": "fire"},  # Tom
    ])
    mix = mechanism_mix(_mix_rows(), turns).set_index(["player", "measure"])["value"]
    assert mix[("steady", "action: fire")] == 1.0  # 2 fire actions over 2 seat-games
    assert mix[("steady", "action: path")] == 0.5
    assert ("steady", "action: fate") not in mix  # not an action
    assert mix[("steady", "share of turns at the Great Bonfire")] == 0.5  # 2 of 4 turns
    other = mechanism_mix(_mix_rows().assign(strategy=["search:16", "search:16", "tom"]))
    wide = side_by_side(mechanism_mix(_mix_rows(), turns), other)
    assert list(wide.columns) == ["steady", "search:16"]
    assert pd.isna(wide.loc["action: fire", "search:16"])
