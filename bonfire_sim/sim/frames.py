"""Arrow schemas of a run's tables and the conversion from ``batch`` matrices.

SCHEMA_VERSION changes whenever a column is added, removed or changes meaning; ``load``
refuses runs written with another version instead of mis-reading them.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pyarrow as pa

from bonfire_sim.rules import components as C
from bonfire_sim.rules import layout as L
from bonfire_sim.sim.batch import GAME_COLS, PLAYER_COLS, TURN_COLS

SCHEMA_VERSION = 1
TASK_IDS = tuple(t.id for t in C.TASKS)
GNOME_IDS = tuple(f"S{i}" for i in range(1, C.N_SPECIALISTS + 1)) + tuple(
    f"E{i}" for i in range(1, C.N_ELDERS + 1))
BOOL_PLAYER = {"won", "passed_at_countdown"}

GAMES_SCHEMA = pa.schema(
    [("game_id", pa.int64()), ("deal", pa.int64()), ("rotation", pa.int16()),
     ("seed", pa.int64()), ("n_players", pa.int16()), ("solo", pa.bool_())]
    + [(c, pa.string() if c == "end_reason" else pa.int64()) for c in GAME_COLS]
)
PLAYERS_SCHEMA = pa.schema(
    [("game_id", pa.int64()), ("strategy", pa.string())]
    + [(c, pa.bool_() if c in BOOL_PLAYER else pa.int64()) for c in PLAYER_COLS]
    + [("gnome_ids", pa.list_(pa.string())), ("gnome_turns", pa.list_(pa.int64())),
       ("bonfire_task_ids", pa.list_(pa.string())), ("bonfire_taken_turns", pa.list_(pa.int64())),
       ("bonfire_lit_turns", pa.list_(pa.int64())), ("unlit_task_ids", pa.list_(pa.string())),
       ("unlit_taken_turns", pa.list_(pa.int64())), ("ability_effects", pa.list_(pa.int64()))]
)
OPTION_OF_KIND = {L.M_FATE: "fate", L.M_IGNITE: "ignite", L.M_PASS: "pass",
                  L.M_BONUS: "bonus", L.M_SKIP: "skip"}
TURNS_SCHEMA = pa.schema(
    [("game_id", pa.int64()), ("option", pa.string()), ("action", pa.string())]
    + [(c, pa.int64()) for c in TURN_COLS if c not in ("kind", "a")]
    + [("arg", pa.int64())]
)


def games_table(game_ids: np.ndarray, deals: np.ndarray, rotations: np.ndarray,
                seeds: np.ndarray, humans: int, games: np.ndarray) -> pa.Table:
    n = len(game_ids)
    cols: dict[str, object] = {
        "game_id": game_ids, "deal": deals, "rotation": rotations.astype(np.int16),
        "seed": seeds, "n_players": np.full(n, humans, np.int16),
        "solo": np.full(n, humans == 1),
    }
    for j, c in enumerate(GAME_COLS):
        col = games[:, j]
        cols[c] = [L.END_NAMES[int(v)] for v in col] if c == "end_reason" else col
    return pa.table(cols, schema=GAMES_SCHEMA)


def players_table(game_ids: np.ndarray, seat_names: Sequence[Sequence[str]], nseats: int,
                  players: np.ndarray, tasks: np.ndarray, gnomes: np.ndarray,
                  abilities: np.ndarray) -> pa.Table:
    """One row per (game, seat); ``seat_names[g][seat]`` is the seat's strategy name.

    List columns are aligned: ``gnome_turns[i]`` is the turn ``gnome_ids[i]`` joined;
    ``bonfire_taken_turns``/``bonfire_lit_turns`` go with ``bonfire_task_ids``;
    ``ability_effects[a - 1]`` counts outcomes specialist ability a changed.
    """
    g_idx = np.repeat(np.arange(len(game_ids)), nseats)
    flat = players[:, :nseats, :].reshape(-1, players.shape[2])
    names = np.array([list(row[:nseats]) for row in seat_names], dtype=object)
    cols: dict[str, object] = {
        "game_id": game_ids[g_idx],
        "strategy": names.reshape(-1),
    }
    for j, c in enumerate(PLAYER_COLS):
        cols[c] = flat[:, j].astype(bool) if c in BOOL_PLAYER else flat[:, j]
    # List columns straight from masks (row-major order = the per-row order), not Python
    # lists per row: building them was a quarter of a random-player chunk's time.
    t = tasks[:, :nseats, :].reshape(-1, tasks.shape[2])
    gn = gnomes[:, :nseats, :].reshape(-1, gnomes.shape[2])
    ab = abilities[:, :nseats, 1:].reshape(-1, abilities.shape[2] - 1)
    rows, ks = np.nonzero(gn)
    cols["gnome_ids"] = _lists(rows, len(gn), _GNOME_ARR[ks])
    cols["gnome_turns"] = _lists(rows, len(gn), gn[rows, ks])
    held = t[:, :7] >= 0
    for name, mask in (("bonfire", held & (t[:, 7:14] != 0)), ("unlit", held & (t[:, 7:14] == 0))):
        rows, ks = np.nonzero(mask)
        cols[f"{name}_task_ids"] = _lists(rows, len(t), _TASK_ARR[t[rows, ks]])
        cols[f"{name}_taken_turns"] = _lists(rows, len(t), t[rows, 14 + ks])
        if name == "bonfire":
            cols["bonfire_lit_turns"] = _lists(rows, len(t), t[rows, 21 + ks])
    cols["ability_effects"] = pa.FixedSizeListArray.from_arrays(
        ab.reshape(-1), ab.shape[1]).cast(pa.list_(pa.int64()))
    return pa.table(cols, schema=PLAYERS_SCHEMA)


_TASK_ARR = np.array(TASK_IDS, dtype=object)
_GNOME_ARR = np.array(GNOME_IDS, dtype=object)


def _lists(rows: np.ndarray, n: int, values: np.ndarray) -> pa.ListArray:
    """A list column of n rows; ``values`` are in row order, ``rows[i]`` is value i's row."""
    offsets = np.zeros(n + 1, np.int32)
    np.cumsum(np.bincount(rows, minlength=n), out=offsets[1:])
    return pa.ListArray.from_arrays(pa.array(offsets), pa.array(values))


def turns_table(game_ids: np.ndarray, turns: np.ndarray, turn_game: np.ndarray) -> pa.Table:
    kinds = turns[:, TURN_COLS.index("kind")]
    cols: dict[str, object] = {
        "game_id": game_ids[turn_game],
        "option": [OPTION_OF_KIND.get(int(k), "action") for k in kinds],
        "action": [L.MOVE_NAMES[int(k)] for k in kinds],
    }
    for j, c in enumerate(TURN_COLS):
        if c not in ("kind", "a"):
            cols[c] = turns[:, j]
    cols["arg"] = turns[:, TURN_COLS.index("a")]
    return pa.table(cols, schema=TURNS_SCHEMA)
