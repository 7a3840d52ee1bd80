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

SCHEMA_VERSION = 3  # 3: players.pts_seat (the starting score, fractional seat_points)
TASK_IDS = tuple(t.id for t in C.TASKS)
GNOME_IDS = tuple(f"S{i}" for i in range(1, C.N_SPECIALISTS + 1)) + tuple(
    f"E{i}" for i in range(1, C.N_ELDERS + 1))
BOOL_PLAYER = {"won", "passed_at_countdown"}
# Engine sentinels (-1) that mean "no value": stored as null.
NULL_IF_NEGATIVE = {"winner_seat", "trigger_turn", "pass_turn"}
LABEL = pa.dictionary(pa.int32(), pa.string())  # repeated names: dictionary-encoded

# Every column, with its meaning (the schema carries it; docs/data-dictionary.md is made
# from it by scripts/data_dictionary.py).
GAME_DOCS: dict[str, tuple[pa.DataType, str]] = {
    "game_id": (pa.int64(), "game index in the run, 0..games-1"),
    "deal": (pa.int64(), "deal index: the games of one deal share the seed (seat rotation)"),
    "rotation": (pa.int16(), "seat rotation r: seat i plays strategies[(i - r) % players]"),
    "seed": (pa.int64(), "the deal's game seed (from the master seed and the deal)"),
    "n_players": (pa.int16(), "human seats (1 = solo against Tom)"),
    "solo": (pa.bool_(), "a solo game against Tom"),
    "n_rounds": (pa.int64(), "rounds played"),
    "n_turns": (pa.int64(), "turns played, all seats"),
    "end_reason": (LABEL, "countdown, stalled, tom_deck or limit"),
    "trigger_turn": (pa.int64(), "turn at which the countdown started; null if it never did"),
    "winner_seat": (pa.int64(), "the single winner's seat; null when the win is shared"),
    "n_decisions": (pa.int64(), "decisions taken, all seats (sub-decisions included)"),
}
_LISTS: dict[str, tuple[pa.DataType, str]] = {
    "gnome_ids": (pa.list_(pa.string()), "gnomes owned at the end (S1..S27, E1..E6)"),
    "gnome_turns": (pa.list_(pa.int64()), "turn each of gnome_ids joined"),
    "bonfire_task_ids": (pa.list_(pa.string()), "tasks lit as bonfires"),
    "bonfire_taken_turns": (pa.list_(pa.int64()), "turn each bonfire task was taken"),
    "bonfire_lit_turns": (pa.list_(pa.int64()), "turn each bonfire task was lit"),
    "unlit_task_ids": (pa.list_(pa.string()), "tasks held but never lit"),
    "unlit_taken_turns": (pa.list_(pa.int64()), "turn each unlit task was taken"),
    "ability_effects": (pa.list_(pa.int64()),
                        "27 counts: ability_effects[a - 1] = outcomes specialist a changed"),
}
_PLAYER_TEXT = {
    "seat": "seat, 0 = starting player", "board": "player board 0..3 (portal notch order)",
    "score": "final score (the eight score_* lines sum to it)", "rank": "1 = best; ties share",
    "won": "won or shared the win", "score_bonfires": "final scoring: bonfires",
    "score_guardians": "final scoring: guardians", "score_portals": "final scoring: portals",
    "score_paths": "final scoring: paths", "score_common": "final scoring: common tasks",
    "score_fate_supply": "final scoring: fate tiles left in the supply",
    "score_leftovers": "final scoring: leftover resources",
    "score_ingame": "points scored during the game",
    "n_bonfires": "tasks lit", "n_tasks_unlit": "tasks held unlit", "n_paths": "paths built",
    "n_portals": "portals placed", "n_guardians": "guardians walked",
    "n_gnomes": "gnomes owned", "n_elders": "elders owned",
    "passed_at_countdown": "passed during the countdown",
    "pass_turn": "turn the player passed; null if never",
    "n_turns_played": "turns this seat played", "pts_elders": "in-game points from elders",
    "pts_council": "in-game points from the council", "pts_fire": "in-game points from fire",
    "pts_pass": "in-game points from passing", "pts_tom": "points Tom took (solo)",
    "pts_seat": "starting score (override seat_points; fractions drawn per deal)",
}
PLAYER_DOCS: dict[str, tuple[pa.DataType, str]] = {
    "game_id": (pa.int64(), "game index (joins games.game_id)"),
    "strategy": (LABEL, "the seat's strategy (tom = the solo automaton)"),
    **{c: (pa.bool_() if c in BOOL_PLAYER else pa.int64(), _PLAYER_TEXT[c])
       for c in PLAYER_COLS},
    **_LISTS,
}
_TURN_TEXT = {
    "turn": "game turn", "round": "round", "seat": "acting seat",
    "resources": "resources held before the decision", "tiles": "action tiles held",
    "yellow": "yellow action tiles held", "gold": "gold held",
    "score_ingame": "in-game points so far", "tasks_held": "tasks held",
    "bonfires": "tasks lit", "paths": "paths built", "portals": "portals placed",
    "guardians": "guardians walked", "gnomes": "gnomes owned",
    "fate_left": "fate tiles left to place", "council": "council spaces taken (all seats)",
    "countdown": "1 once the countdown runs", "turns_left": "countdown turns left (0 before)",
}
TURN_DOCS: dict[str, tuple[pa.DataType, str]] = {
    "game_id": (pa.int64(), "game index (joins games.game_id)"),
    "option": (LABEL, "fate, action, ignite, pass, bonus or skip"),
    "action": (LABEL, "the move's name"),
    **{c: (pa.int64(), _TURN_TEXT[c]) for c in TURN_COLS if c not in ("kind", "a")},
    "arg": (pa.int64(), "the move's first argument (see engine.describe_move)"),
}


def _schema(docs: dict[str, tuple[pa.DataType, str]]) -> pa.Schema:
    return pa.schema([pa.field(name, typ, nullable=True,
                               metadata={"description": text})
                      for name, (typ, text) in docs.items()])


GAMES_SCHEMA = _schema(GAME_DOCS)
PLAYERS_SCHEMA = _schema(PLAYER_DOCS)
OPTION_OF_KIND = {L.M_FATE: "fate", L.M_IGNITE: "ignite", L.M_PASS: "pass",
                  L.M_BONUS: "bonus", L.M_SKIP: "skip"}
TURNS_SCHEMA = _schema(TURN_DOCS)
SCHEMAS = {"games": GAMES_SCHEMA, "players": PLAYERS_SCHEMA, "turns": TURNS_SCHEMA}


def _nullable(name: str, col: np.ndarray) -> pa.Array | np.ndarray:
    if name in NULL_IF_NEGATIVE:
        return pa.array(col, type=pa.int64(), mask=np.asarray(col) < 0)
    return col


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
        cols[c] = ([L.END_NAMES[int(v)] for v in col] if c == "end_reason"
                   else _nullable(c, col))
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
        cols[c] = flat[:, j].astype(bool) if c in BOOL_PLAYER else _nullable(c, flat[:, j])
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
