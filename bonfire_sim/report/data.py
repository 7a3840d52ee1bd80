"""The report's data access: which runs, which columns, loaded how.

A report reads the games and players columns its sections use; the list
columns it keeps come as Arrow lists (``pd.ArrowDtype``), never Python objects, and the
files' checksums are remembered between loads (``sim.checksums``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from bonfire_sim.errors import ConfigError
from bonfire_sim.infra import memory


def run_labels(run_dirs: Sequence[str | Path]) -> list[str]:
    """Each run's label: its directory name, or the full path where names repeat."""
    labels = [Path(d).name or str(d) for d in run_dirs]
    if len(set(labels)) < len(labels):
        labels = [str(d) for d in run_dirs]
    return labels


# The players columns the report's and compare's sections read (the "decided" section
# loads its own, with the turn log).  A section that reads another column adds it here;
# the rest stay on disk, which is most of a players table (the turn lists, ability_effects
# and the score breakdown).  The task and gnome lists are counted from the file, run by
# run (``analysis.values``); compare, which tests them per row, asks for them
# (``lists=True``).  Solo runs also keep the score lines behind Tom's breakdown.
PLAYER_COLUMNS = ("game_id", "strategy", "seat", "score", "won", "n_bonfires")
LIST_COLUMNS = ("gnome_ids", "bonfire_task_ids", "unlit_task_ids")
SOLO_PREFIXES = ("score_", "pts_")
# Small integers held in the narrowest type that fits every game (a score is < 2**15; game
# ids and deals fit int32 below 2**31 games): at a million games each int64 column of the
# players rows is 32 MB.
COMPACT = {"seat": "int8", "rank": "int8", "n_bonfires": "int8", "score": "int16",
           "score_ingame": "int16", "n_rounds": "int16", "n_turns": "int16",
           "game_id": "int32", "deal": "int32"}
# The games columns the sections read; the rest (seed, trigger turn, decisions, winner
# seat: 34 bytes a game) stay on disk.  The view pages replay a game from its run.
GAME_COLUMNS = ("game_id", "deal", "rotation", "n_players", "solo", "n_rounds", "n_turns",
                "end_reason")


def report_columns(solo: bool = False, lists: bool = False) -> dict[str, list[str]]:
    """The columns a report loads: ``GAME_COLUMNS`` of games and ``PLAYER_COLUMNS`` of
    players (with the list columns if ``lists``, the score lines in a solo run).  List
    columns come as Arrow lists."""
    from bonfire_sim.sim.frames import SCHEMAS

    wanted = PLAYER_COLUMNS + (LIST_COLUMNS if lists else ())
    players = [c for c in SCHEMAS["players"].names
               if c in wanted or (solo and c.startswith(SOLO_PREFIXES))]
    games = [c for c in SCHEMAS["games"].names if c in GAME_COLUMNS]
    return {"games": games, "players": players}


def compact(players: Any) -> Any:
    """The players (or games) rows with ``COMPACT``'s columns narrowed, in place (checked:
    a value that does not fit keeps its column wide)."""
    import numpy as np

    for c, typ in COMPACT.items():
        if c in players:
            info = np.iinfo(typ)
            col = players[c]
            if len(col) == 0 or (col.min() >= info.min and col.max() <= info.max):
                players[c] = col.astype(typ)
    return players


def load_runs(run_dirs: Sequence[str | Path],
              status: Callable[[str], None] | None = None,
              lists: bool = False, categories: bool = False) -> list[tuple[str, Any]]:
    """Each run as ``(label, RunData)`` with the report's columns (``report_columns``),
    small integers narrowed (``compact``).  ``categories``: ``strategy`` and
    ``end_reason`` as categoricals (``sorted_categories``), a byte a row instead of an
    Arrow string (a million 4-player games: 56 MB of strategy names)."""
    from bonfire_sim.sim.load import finished_manifest, load

    check_distinct_runs(run_dirs)
    out = []
    for lab, d in zip(run_labels(run_dirs), run_dirs, strict=True):
        if status is not None:
            status(f"loading run {lab} ({d})")
        solo = finished_manifest(d).get("config", {}).get("players") == 1
        # narrowed in Arrow before pandas (not after: the wide columns were the load's
        # peak); compact() then only checks them
        data = load(d, turns=False, categorical=categories,
                    columns=report_columns(solo, lists), narrow=COMPACT)
        compact(data.players)
        compact(data.games)
        hold_run_columns(data.games)
        out.append((lab, data))
    if categories:
        sorted_categories([f for _, r in out for f in (r.games, r.players)])
    return out


def rowless(data: Any) -> Any:
    """The run ``data`` without its rows: its games and players as frames of no rows with
    the same columns and types (new arrays, holding no reference to the rows), its
    manifest and path kept.  What the report's fork steps read of a run (its
    configuration, directory and column names) after its rows have left."""
    import dataclasses

    return dataclasses.replace(data, games=data.games.iloc[:0].copy(),
                               players=data.players.iloc[:0].copy(), turns=None, _cache={})


# The games columns that are the run's own (one value in a run) or repeat another.
RUN_COLUMNS = ("n_players", "solo", "rotation")


def hold_run_columns(games: Any) -> Any:
    """The games rows with each of ``RUN_COLUMNS`` that has one value in the run held once
    (``held_once``) and a deal that is the game id (every game its own deal, a run not
    seat-rotated) sharing the ``game_id`` column, in place: 9 bytes a game, held by the
    report's runs through the whole build, for the same values."""

    for c in RUN_COLUMNS:
        if c in games:
            same = constant_value(games[c])
            if same is not None:
                games[c] = held_once(same, games.index)
    if "deal" in games and "game_id" in games and deal_is_game(games):
        games["deal"] = games["game_id"]  # copy-on-write: shared until written
    return games


def deal_is_game(games: Any) -> bool:
    """Whether every game of a run is its own deal (a run not seat-rotated): its deal is
    its game id, game for game (the same dtype too, so the columns can be shared)."""
    import numpy as np

    return bool(games["deal"].dtype == games["game_id"].dtype
                and np.array_equal(games["deal"].to_numpy(), games["game_id"].to_numpy()))


def sorted_categories(frames: Sequence[Any]) -> None:
    """Every categorical column of ``frames`` given the sorted union of its categories over
    the frames, in place: a group-by, ``stats.groups`` and a sort then see the strings'
    own order, and the runs' columns concatenate as one categorical (different categories
    would fall back to Python strings).  The values are unchanged."""
    import pandas as pd

    union: dict[str, set[Any]] = {}
    for f in frames:
        for c in f.columns:
            if isinstance(f[c].dtype, pd.CategoricalDtype):
                union.setdefault(c, set()).update(f[c].cat.categories)
    for f in frames:
        for c, cats in union.items():
            if c in f and isinstance(f[c].dtype, pd.CategoricalDtype):
                f[c] = f[c].cat.set_categories(sorted(cats))


def held_once(value: Any, index: Any) -> Any:
    """``value`` (a numpy scalar: its dtype is the column's) on every row of ``index``,
    held once: a zero-stride, read-only column.  A run's label, player count and solo and
    rotation flags are the same on every row of it; held per row they were 5 bytes a
    players row and 4 a game (24 MB at a million 4-player games, through the whole
    report).  pandas copies such a column where it selects or concatenates rows (as
    before) and where it writes into it (copy-on-write)."""
    import numpy as np
    import pandas as pd

    return pd.Series(np.broadcast_to(value, len(index)), index=index, copy=False)


def constant_value(col: Any) -> Any:
    """The one value of a numeric or boolean column whose every value is the same (a
    numpy scalar of its dtype), else None."""

    values = col.to_numpy()
    if not len(values) or values.dtype.kind not in "biu":
        return None
    first = values[0]
    return first if values.min() == first == values.max() else None


def check_distinct_runs(run_dirs: Sequence[str | Path]) -> None:
    """Refuse a run given twice (it would be counted twice)."""
    seen: dict[Path, str] = {}
    for d in run_dirs:
        key = Path(d).resolve()
        if key in seen:
            raise ConfigError(f"run {d} is given twice (as {seen[key]} and {d}); each run "
                              f"may appear once")
        seen[key] = str(d)


@contextmanager
def returning_memory() -> Iterator[Callable[[], None]]:
    """A block whose memory, once freed, goes back to the system: Arrow allocates from the
    system allocator inside it (its default pool, mimalloc, keeps freed pages for reuse;
    the previous pool is restored after it), and the block gets ``give_back()``, which
    returns the allocator's free pages (``infra.memory.give_back``).

    pandas string columns are Arrow arrays, and reading Parquet frees large buffers that
    glibc would otherwise keep for the next allocation of that size: a report calls
    ``give_back()`` between its steps, so each step starts from what is still held.
    Measured on a 256,000-game run: 130 MB held after loading without it, 66 MB with it.

    Blocks of ``infra.memory.MMAP_BYTES`` and more are mapped from then on (glibc, for the
    rest of the process), so a column-sized temporary goes back to the system as it is
    freed rather than at the next ``give_back()``: glibc raises its threshold as such
    blocks are freed (up to 32 MB), after which they stayed in the heap through the step (a million
    4-player games: 523 MB peak before, 505 MB after)."""
    import pyarrow as pa

    memory.map_large_blocks()
    before = pa.default_memory_pool()
    pa.set_memory_pool(pa.system_memory_pool())
    try:
        yield memory.give_back
    finally:
        pa.set_memory_pool(before)
