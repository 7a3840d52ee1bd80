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
    assert t.loc["Y9", "ignited"] == 1  # Tom's bonfires count as ignited tasks


def test_ability_coverage_counts_engine_effects_and_specialist_18_from_scoring():
    a = ability_coverage(_rows()).set_index("gnome")
    assert len(a) == 33
    assert a.loc["S5", "effects"] == 3 and a.loc["S5", "owned"] == 1
    assert a.loc["S18", "effects"] == 1  # owner with guardians next to bonfires
    assert a.loc["S24", "owned"] == 0 and a.loc["S24", "effects"] == 0  # Tom never uses them
    assert a.loc["E2", "effects"] == 1
