"""The players table's list columns, built from masks, equal a per-row construction."""

from __future__ import annotations

import numpy as np

from bonfire_sim.rules import layout as L
from bonfire_sim.sim.batch import PLAYER_COLS, TASK_W
from bonfire_sim.sim.frames import GNOME_IDS, TASK_IDS, players_table


def test_list_columns_match_a_row_by_row_reading():
    rng = np.random.default_rng(5)
    g, nseats = 40, 3
    players = rng.integers(0, 5, (g, L.NP, len(PLAYER_COLS)))
    tasks = np.full((g, L.NP, TASK_W), -1, np.int64)
    tasks[:, :, :7] = np.where(rng.random((g, L.NP, 7)) < 0.6,
                               rng.integers(0, len(TASK_IDS), (g, L.NP, 7)), -1)
    tasks[:, :, 7:14] = rng.integers(0, 2, (g, L.NP, 7))
    tasks[:, :, 14:28] = rng.integers(1, 90, (g, L.NP, 14))
    gnomes = np.where(rng.random((g, L.NP, L.NGNOME)) < 0.2,
                      rng.integers(1, 90, (g, L.NP, L.NGNOME)), 0)
    abilities = rng.integers(0, 3, (g, L.NP, 28))
    names = [["greedy", "tempo", "portal"][r:] + ["greedy", "tempo", "portal"][:r]
             for r in rng.integers(0, 3, g)]
    table = players_table(np.arange(100, 100 + g), names, nseats, players, tasks, gnomes,
                          abilities).to_pydict()
    row = 0
    for gi in range(g):
        for seat in range(nseats):
            t, gn = tasks[gi, seat], gnomes[gi, seat]
            lit = [k for k in range(7) if t[k] >= 0 and t[7 + k]]
            unlit = [k for k in range(7) if t[k] >= 0 and not t[7 + k]]
            owned = np.flatnonzero(gn)
            assert table["game_id"][row] == 100 + gi
            assert table["strategy"][row] == names[gi][seat]
            assert table["gnome_ids"][row] == [GNOME_IDS[k] for k in owned]
            assert table["gnome_turns"][row] == gn[owned].tolist()
            assert table["bonfire_task_ids"][row] == [TASK_IDS[t[k]] for k in lit]
            assert table["bonfire_taken_turns"][row] == [t[14 + k] for k in lit]
            assert table["bonfire_lit_turns"][row] == [t[21 + k] for k in lit]
            assert table["unlit_task_ids"][row] == [TASK_IDS[t[k]] for k in unlit]
            assert table["unlit_taken_turns"][row] == [t[14 + k] for k in unlit]
            assert table["ability_effects"][row] == abilities[gi, seat, 1:].tolist()
            row += 1
    assert row == len(table["game_id"])
