"""Load a finished run directory as pandas or polars frames, verified file by file.

``load`` reads exactly the files the manifest lists and checks each against the SHA-256
the manifest stores, so a bit flip, a truncated file, a table copied in from another run,
a deleted or a duplicated turn-log chunk is an error naming the file, never changed data.
A file in the directory that the manifest does not list is refused too.
"""

from __future__ import annotations

import html
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from bonfire_sim.errors import ConfigError, DataError
from bonfire_sim.infra import fileio, memory
from bonfire_sim.sim import chunklog, tablecheck
from bonfire_sim.sim.checksums import Memos
from bonfire_sim.sim.frames import NULL_IF_NEGATIVE, SCHEMAS
from bonfire_sim.sim.runner import MANIFEST, merged_chunk_file, read_manifest, run_files

ENGINES = ("pandas", "polars")
TABLES = ("games", "players", "turns")
KEYS = ("game_id", "seat")  # kept whatever ``columns`` says, so tables still join


@dataclass(frozen=True, repr=False)
class RunData:
    """A run's tables (``turns`` is None when the run kept no turn log or it was not
    asked for) and its manifest.  ``player_gnomes`` / ``player_tasks`` are long tables
    of the players' list columns, one row per (player, gnome) / (player, task)."""

    games: Any
    players: Any
    turns: Any | None
    manifest: dict[str, Any]
    path: Path | None = None
    _cache: dict[str, Any] = field(default_factory=dict, compare=False)

    @property
    def config(self) -> dict[str, Any]:
        return self.manifest.get("config", {})

    @property
    def fingerprint(self) -> dict[str, str]:
        return self.manifest.get("fingerprint", {})

    @property
    def player_gnomes(self) -> Any:
        """``game_id, seat, strategy, gnome, turn``: one row per gnome a player owned."""
        return self._long("player_gnomes", {"gnome_ids": "gnome", "gnome_turns": "turn"})

    @property
    def player_tasks(self) -> Any:
        """``game_id, seat, strategy, task, lit, taken_turn, lit_turn``: one row per task a
        player held at the end (``lit_turn`` null for unlit tasks)."""
        if "player_tasks" not in self._cache:
            lit = self._long("_lit", {"bonfire_task_ids": "task",
                                      "bonfire_taken_turns": "taken_turn",
                                      "bonfire_lit_turns": "lit_turn"})
            unlit = self._long("_unlit", {"unlit_task_ids": "task",
                                          "unlit_taken_turns": "taken_turn"})
            self._cache["player_tasks"] = _stack_tasks(lit, unlit)
        return self._cache["player_tasks"]

    def _long(self, name: str, lists: Mapping[str, str]) -> Any:
        if name not in self._cache:
            self._cache[name] = _explode(self.players, lists)
        return self._cache[name]

    def __repr__(self) -> str:
        c = self.config
        return (f"RunData({str(self.path) if self.path else 'in memory'}: {_n(self.games)} games, "
                f"{c.get('players')} players, strategies {', '.join(c.get('strategies', []))}, "
                f"seed {c.get('seed')}, turns {'yes' if self.turns is not None else 'no'})")

    def _repr_html_(self) -> str:
        c = self.config
        rows = [("run", self.path), ("games", _n(self.games)), ("players", c.get("players")),
                ("strategies", ", ".join(c.get("strategies", []))),
                ("seat rotation", c.get("seat_rotation")), ("seed", c.get("seed")),
                ("overrides", c.get("overrides") or "none"),
                ("turn log", c.get("turn_log")),
                ("engine", self.fingerprint.get("source_hash", "?"))]
        body = "".join(f"<tr><th style='text-align:left'>{html.escape(str(k))}</th>"
                       f"<td style='text-align:left'>{html.escape(str(v))}</td></tr>"
                       for k, v in rows)
        return f"<table><caption>bonfire_sim run</caption>{body}</table>"


def _n(frame: Any) -> str:
    try:
        return f"{len(frame):,}"
    except TypeError:  # a polars LazyFrame has no length until collected
        return "(lazy)"


def _explode(players: Any, lists: Mapping[str, str]) -> Any:
    keep = [c for c in ("game_id", "seat", "strategy") if c in _columns(players)]
    missing = [c for c in lists if c not in _columns(players)]
    if missing:
        raise DataError(f"the players table was loaded without {', '.join(missing)}")
    cols = [*keep, *lists]
    if _is_polars(players):
        import polars as pl

        out = players.select(cols).explode(list(lists)).rename(dict(lists))
        first = next(iter(lists.values()))
        return out.filter(pl.col(first).is_not_null())
    return _explode_pandas(players, keep, lists)


def _explode_pandas(players: Any, keep: Sequence[str], lists: Mapping[str, str]) -> Any:
    """The long table of Arrow-backed list columns, flattened by Arrow (no Python lists):
    one row per item, keys repeated; rows whose lists are empty or null leave none."""
    import numpy as np
    import pyarrow.compute as pc

    arrays = [_arrow_list(players[c]) for c in lists]
    first = arrays[0]
    parents = np.asarray(pc.list_parent_indices(first))
    for c, a in zip(lists, arrays, strict=True):
        if not pc.all(pc.equal(pc.list_value_length(a).fill_null(0),
                               pc.list_value_length(first).fill_null(0))).as_py():
            raise DataError(f"the players table's list column {c} does not match "
                            f"{next(iter(lists))} in length")
    out = players[list(keep)].iloc[parents].reset_index(drop=True)
    for c, a in zip(lists, arrays, strict=True):
        flat = pc.list_flatten(a)
        name = lists[c]
        values = flat.to_numpy(zero_copy_only=False)
        out[name] = values.astype("int64") if name.endswith("turn") else values
    return out


def _arrow_list(column: Any) -> pa.Array:
    """A pandas list column as one Arrow list array (Arrow-backed or, from older frames,
    Python lists)."""
    import pandas as pd

    if isinstance(column.dtype, pd.ArrowDtype):
        return pa.chunked_array(column.array._pa_array).combine_chunks()
    return pa.array(list(column))


def _stack_tasks(lit: Any, unlit: Any) -> Any:
    if _is_polars(lit):
        import polars as pl

        return pl.concat([lit.with_columns(pl.lit(True).alias("lit")),
                          unlit.with_columns(pl.lit(False).alias("lit"),
                                             pl.lit(None, pl.Int64).alias("lit_turn"))],
                         how="diagonal")
    import pandas as pd

    out = pd.concat([lit.assign(lit=True),
                     unlit.assign(lit=False, lit_turn=pd.NA)], ignore_index=True)
    out["lit_turn"] = out["lit_turn"].astype("Int64")
    return out.sort_values(["game_id", "seat"], kind="stable").reset_index(drop=True)


def _is_polars(frame: Any) -> bool:
    return type(frame).__module__.split(".")[0] == "polars"


def _is_lazy(frame: Any) -> bool:
    return type(frame).__name__ == "LazyFrame"


def _columns(frame: Any) -> list[str]:
    if _is_lazy(frame):
        return list(frame.collect_schema().names())
    return list(frame.columns)


# ---- verification -------------------------------------------------------------------------
def listed_files(manifest: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """Relative path -> manifest entry of every data file a complete run lists."""
    files = {}
    for key in ("games", "players"):
        entry = manifest.get(key)
        if not isinstance(entry, dict) or "file" not in entry:
            raise DataError(f"the manifest lists no {key} table")
        files[entry["file"]] = entry
    chunks = manifest.get("chunks")
    if not isinstance(chunks, dict):
        raise DataError("the manifest lists no chunks")
    for entry in chunks.values():
        for key in ("games", "players", "turns"):
            if key in entry:
                files[entry[key]["file"]] = entry[key]
    return files


def verify_directory(out: Path, manifest: Mapping[str, Any]) -> None:
    """Refuse any file in ``out`` that the manifest does not list, and a listed one that
    is missing (even if this load does not read it: the run is incomplete)."""
    listed = set(listed_files(manifest))
    missing = [f for f in sorted(listed) if not (out / f).is_file()]
    if missing:
        raise DataError(f"{out / missing[0]} is missing ({len(missing)} listed file(s) in "
                        f"all); repair with `bonfire-sim run --resume --out {out}` and the "
                        f"run's options")
    strangers = [f for f in run_files(out) if f not in listed and f != MANIFEST]
    n_chunks = tablecheck.n_chunks(manifest)
    if strangers and all(merged_chunk_file(f, n_chunks) or f == chunklog.LOG
                         for f in strangers):
        raise DataError(f"{out} still holds {len(strangers)} chunk file(s) already merged "
                        f"into its tables ({strangers[0]}, ...; the run was interrupted while "
                        f"removing them): finish it with `bonfire-sim run --resume --out "
                        f"{out}` and the run's options")
    if strangers:
        raise DataError(f"{out} holds files its manifest does not list: "
                        f"{', '.join(strangers[:5])}; move them away")


def _verified(out: Path, entry: Mapping[str, Any], memos: Memos | None = None) -> Path:
    """The listed file's path once its SHA-256 matches the manifest's (hashed once per
    version of the file and remembered: ``sim.checksums``)."""
    path = out / entry["file"]
    if not path.is_file():
        raise DataError(f"{path} is missing")
    try:
        digest = memos.sha256(path) if memos is not None else fileio.sha256(path)
    except OSError as e:
        raise DataError(f"{path} is unreadable ({e.strerror})") from None
    if digest != entry.get("sha256"):
        raise DataError(f"{path} does not match its checksum in the manifest (corrupt, or "
                        f"copied in from another run); repair with `bonfire-sim run --resume "
                        f"--out {out}` and the run's options")
    return path


def _read(path: Path, table: str, columns: Sequence[str] | None) -> pa.Table:
    try:
        # one thread, no pre-buffering: decoding a column chunk at a time keeps the
        # reader's own buffers (held on by the allocator afterwards) near one chunk; it
        # measured no slower on 2 cores and saves ~0.3 KB per game at a million games
        t = pq.read_table(path, columns=list(columns) if columns is not None else None,
                          use_threads=False, pre_buffer=False)
    except (pa.ArrowInvalid, OSError) as e:
        raise DataError(f"{path} is not a readable Parquet file ({e})") from None
    expected = [n for n in SCHEMAS[table].names if columns is None or n in columns]
    missing = [n for n in expected if n not in t.schema.names]
    if missing:
        raise DataError(f"{path} is not a bonfire_sim table: missing columns {missing[:5]}")
    return t


def _select(columns: Sequence[str] | Mapping[str, Sequence[str]] | None,
            table: str) -> list[str] | None:
    if columns is None:
        return None
    names = SCHEMAS[table].names
    wanted = columns.get(table) if isinstance(columns, Mapping) else columns
    if wanted is None:
        return None
    return [c for c in names if c in wanted or c in KEYS]


def _check_columns(columns: Sequence[str] | Mapping[str, Sequence[str]] | None) -> None:
    if columns is None:
        return
    if isinstance(columns, str):
        raise ConfigError("columns must be a list of column names (or a dict table -> list)")
    per_table = (columns.items() if isinstance(columns, Mapping)
                 else [(t, columns) for t in TABLES])
    known = {t: set(SCHEMAS[t].names) for t in TABLES}
    for table, wanted in per_table:
        if table not in known:
            raise ConfigError(f"columns: unknown table {table!r}; valid: {', '.join(TABLES)}")
        pool = known[table] if isinstance(columns, Mapping) else set().union(*known.values())
        bad = [c for c in wanted if c not in pool]
        if bad:
            raise ConfigError(f"columns: unknown column(s) {', '.join(map(str, bad))}; see "
                              f"docs/data-dictionary.md")


# ---- loading ------------------------------------------------------------------------------
def finished_manifest(run_dir: str | Path) -> dict[str, Any]:
    """The manifest of a finished run directory, without reading a table (fast: what a
    report needs to group runs before it loads them); ``DataError`` as ``load``."""
    out = Path(run_dir)
    if not out.is_dir():
        raise DataError(f"{out} is not a directory (expected a bonfire_sim run directory)")
    manifest = read_manifest(out)
    if not manifest.get("complete"):
        raise DataError(f"{out} is an unfinished run; complete it with `bonfire-sim run "
                        f"--resume --out {out}` and the same options")
    return manifest


# Peak bytes of an eager load per row, measured (issue 38: 6.6 KB per 4-player game with
# every column), and the size above which ``load`` switches to lazy unless told.
BYTES_PER_PLAYER_ROW = 1_600
BYTES_PER_GAME_ROW = 200
BYTES_PER_TURN_ROW = 250
EAGER_LIMIT = 400_000_000


def eager_bytes(manifest: Mapping[str, Any], turns: bool) -> int:
    """About the peak memory of loading every column of a run eagerly."""
    rows = manifest.get("players", {}).get("rows", 0) * BYTES_PER_PLAYER_ROW
    rows += manifest.get("games", {}).get("rows", 0) * BYTES_PER_GAME_ROW
    if turns:
        rows += BYTES_PER_TURN_ROW * sum(
            c.get("turns", {}).get("rows", 0) for c in manifest.get("chunks", {}).values()
            if isinstance(c, dict))
    return int(rows)


def load(run_dir: str | Path, engine: str = "pandas", turns: bool = True, *,
         columns: Sequence[str] | Mapping[str, Sequence[str]] | None = None,
         lazy: bool | None = None, categorical: bool = True,
         narrow: Mapping[str, str] | None = None) -> RunData:
    """Read ``games``, ``players`` (and ``turns``) of a finished run, verified.

    ``columns``: a list of column names (each table keeps the ones it has, plus
    ``game_id``/``seat``) or a dict ``{"players": [...], ...}``.  ``lazy=True`` gives
    polars LazyFrames (implies ``engine="polars"``); ``lazy=False`` always reads the
    tables into memory.  By default (``None``) a run whose every column would take more
    than ``EAGER_LIMIT`` bytes (about 60,000 four-player games) is loaded lazily, with a
    warning saying so; name ``columns`` or pass ``lazy=False`` to read it eagerly.
    Strings such as ``strategy`` come as categoricals unless ``categorical=False``.
    ``narrow``: integer columns to hold in a narrower type (``{"score": "int16"}``) where
    every value of the table fits it, cast in Arrow before pandas sees the column (a
    million games' int64 columns are 32 MB each, held at once while converting).
    Engine sentinels are nulls (pandas: nullable ``Int64`` columns).  In pandas, list
    columns are Arrow lists (``pd.ArrowDtype``), never Python objects.  Each file's
    checksum is verified once per version of the file and remembered (``sim.checksums``).
    For a run too big for memory, use ``lazy=True`` and aggregate before ``collect``
    (docs/howto/big-runs.md).

    Raises ``DataError`` naming the file if the run is unfinished, foreign or corrupt.
    """
    if engine not in ENGINES:
        raise ConfigError(f"engine must be one of {', '.join(ENGINES)}, got {engine!r}")
    _check_columns(columns)
    out = Path(run_dir)
    manifest = finished_manifest(out)
    verify_directory(out, manifest)
    memos = Memos()
    paths = {t: [_verified(out, manifest[t], memos)] for t in ("games", "players")}
    chunk_entries = [manifest["chunks"][k] for k in sorted(manifest["chunks"], key=int)]
    if len(chunk_entries) != manifest.get("n_chunks", len(chunk_entries)):
        raise DataError(f"{out / MANIFEST} lists {len(chunk_entries)} of "
                        f"{manifest.get('n_chunks')} chunks")
    turn_entries = [e["turns"] for e in chunk_entries if "turns" in e]
    paths["turns"] = [_verified(out, e, memos) for e in turn_entries] if turns else []
    memos.save()  # only digests that matched the manifest get here
    tablecheck.check_run_files(out, manifest, turns)  # and hold this run's games
    if lazy is None:
        need = eager_bytes(manifest, turns) if columns is None else 0
        lazy = need > EAGER_LIMIT
        if lazy:
            import warnings

            warnings.warn(f"{out}: {manifest['games']['rows']:,} games would take about "
                          f"{need / 1e9:.1f} GB loaded whole; loaded lazily as polars "
                          f"LazyFrames instead (aggregate before collect(); lazy=False or "
                          f"columns=[...] reads them into memory)", stacklevel=2)
    if lazy:
        return _lazy(out, manifest, paths, columns, categorical)
    conv = _converter(engine, categorical)
    frames: dict[str, Any] = {}
    for t in TABLES:  # one table at a time, its Arrow copy freed as it is converted
        if narrow and engine == "pandas" and len(paths[t]) == 1:  # a merged run
            frames[t] = _by_column(paths[t][0], t, _select(columns, t), narrow, conv)
            continue
        parts = [_read_narrowed(p, t, _select(columns, t), narrow) if narrow else
                 _read(p, t, _select(columns, t)) for p in paths[t]]
        table = pa.concat_tables(parts) if parts else None
        del parts  # the converter frees the table's buffers: no other reference may hold them
        # handed over in a list the converter empties: a reference held here for the
        # call would keep every column's Arrow buffers alive through self_destruct
        box = [table] if table is not None else []
        del table
        frames[t] = conv(box) if box else None
        memory.give_back()  # the table's Arrow buffers, converted, before the next is read
    return RunData(frames["games"], frames["players"], frames["turns"], manifest, out)


def _by_column(path: Path, table: str, columns: Sequence[str] | None,
               narrow: Mapping[str, str], conv: Any) -> Any:
    """The pandas frame of ``table``, a column at a time: each read (an integer column a
    row group at a time, ``_int_column``), converted and its Arrow copy freed before the
    next is read, so the Arrow copy of one column is held beside the frame, not of the
    table (a million 4-player games: the players columns in Arrow beside their pandas
    copy, and each int64 column read whole, 32 MB, were the loading's peak)."""
    import pandas as pd

    names = [n for n in SCHEMAS[table].names if columns is None or n in columns]
    parts = []
    for n in names:
        filled = _int_column(path, n, narrow) if n not in NULL_IF_NEGATIVE else None
        if filled is not None:  # a plain integer column: numpy, as the converter gives it
            parts.append(pd.DataFrame({n: filled}, copy=False))
        else:
            box = [_narrowed(_read(path, table, [n]), narrow)]
            parts.append(conv(box))  # the converter frees the column's Arrow buffers
        memory.give_back()
    if not parts:
        return conv([_read(path, table, [])])
    return parts[0] if len(parts) == 1 else pd.concat(parts, axis=1)


def _int_column(path: Path, name: str, narrow: Mapping[str, str]) -> np.ndarray | None:
    """An integer column to narrow, read a row group at a time into one numpy array of
    its narrow type (no Arrow copy of the column beside it: 16 MB for 4 million int32
    ids); None where it is not one, has nulls or a value that does not fit (then read
    whole and narrowed as before)."""
    typ = narrow.get(name)
    try:
        pf = pq.ParquetFile(path, pre_buffer=False)
        field = pf.schema_arrow.field(name)
    except (pa.ArrowInvalid, OSError, KeyError):
        return None
    if typ is None or not pa.types.is_integer(field.type) or not pf.num_row_groups:
        return None
    want = pa.from_numpy_dtype(np.dtype(typ))
    out = np.empty(pf.metadata.num_rows, np.dtype(typ))
    at = 0
    for i in range(pf.num_row_groups):
        try:
            part = _narrowed(pf.read_row_group(i, columns=[name], use_threads=False), narrow)
        except (pa.ArrowInvalid, OSError) as e:
            raise DataError(f"{path} is not a readable Parquet file ({e})") from None
        col = part.column(0)
        if col.type != want or col.null_count:  # a value that does not fit, or nulls
            return None
        out[at:at + len(col)] = col.to_numpy()
        at += len(col)
    return out if at == len(out) else None


def _read_narrowed(path: Path, table: str, columns: Sequence[str] | None,
                   narrow: Mapping[str, str]) -> pa.Table:
    """``_read`` a column at a time, each narrowed (``_narrowed``) as it is read: the
    wide copy of one column is held at a time, not of the whole table."""
    names = [n for n in SCHEMAS[table].names if columns is None or n in columns]
    parts = []
    for n in names:
        parts.append(_narrowed(_read(path, table, [n]), narrow))
        # the wide column and the reader's buffers, freed, leave the resident set before
        # the next column is read (a million 4-player games: 205 -> 147 MB at the peak
        # of loading, where Arrow allocates from the system allocator, as in a report)
        memory.give_back()
    schema = pa.schema([p.schema.field(0) for p in parts],
                       metadata=parts[0].schema.metadata if parts else None)
    return pa.Table.from_arrays([p.column(0) for p in parts], schema=schema)


def _narrowed(table: pa.Table, narrow: Mapping[str, str]) -> pa.Table:
    """``table`` with each ``narrow`` column cast to its type where every value fits (a
    column with nulls, or a value that does not fit, stays as it is)."""
    for i, name in enumerate(table.schema.names):
        typ = narrow.get(name)
        col = table.column(i)
        if typ is None or not pa.types.is_integer(col.type) or col.null_count:
            continue
        info = np.iinfo(typ)
        bounds = pc.min_max(col)
        lo, hi = bounds["min"].as_py(), bounds["max"].as_py()
        if lo is None or (info.min <= lo and hi <= info.max):
            table = table.set_column(i, name, col.cast(pa.from_numpy_dtype(np.dtype(typ))))
    return table


def _converter(engine: str, categorical: bool) -> Any:
    # pandas holds strings as large_string: cast to it at once (a cast to string first
    # held a third copy of the column while converting)
    text = pa.large_string() if engine == "pandas" else pa.string()

    def plain(t: pa.Table) -> pa.Table:
        if categorical:
            return t
        for i, f in enumerate(t.schema):
            if pa.types.is_dictionary(f.type):
                t = t.set_column(i, f.name, t.column(i).cast(text))
        return t

    if engine == "polars":
        import polars as pl

        return lambda box: pl.from_arrow(plain(box.pop()))

    import pandas as pd

    def lists_as_arrow(typ: pa.DataType) -> Any:
        # list columns stay Arrow lists: Python lists cost ~50x the memory
        return pd.ArrowDtype(typ) if pa.types.is_list(typ) else None

    nullable_int = {pa.int64(): pd.Int64Dtype()}.get

    def to_pandas(box: list[pa.Table]) -> Any:
        t = plain(box.pop())
        names = t.schema.names
        nullable = {c: t.column(c).to_pandas(types_mapper=nullable_int).array
                    for c in NULL_IF_NEGATIVE if c in names}
        rest = t.drop_columns(list(nullable))
        del t
        # self_destruct frees each Arrow column once converted: the peak stays near one
        # copy of the table instead of two (the caller holds no other reference)
        df = rest.to_pandas(types_mapper=lists_as_arrow, split_blocks=True, self_destruct=True)
        del rest
        for c, values in nullable.items():
            df.insert(names.index(c), c, values)
        return df

    return to_pandas


def _lazy(out: Path, manifest: dict[str, Any], paths: dict[str, list[Path]],
          columns: Any, categorical: bool) -> RunData:
    import polars as pl

    def scan(table: str) -> Any:
        if not paths[table]:
            return None
        frame = pl.scan_parquet([str(p) for p in paths[table]])
        cols = _select(columns, table)
        if cols is not None:
            frame = frame.select(cols)
        if not categorical:
            frame = frame.with_columns(pl.col(pl.Categorical).cast(pl.String))
        return frame

    return RunData(scan("games"), scan("players"), scan("turns"), manifest, out)


__all__ = ["RunData", "load", "listed_files", "verify_directory"]


def list_item_counts(run_dir: str | Path, column: str, *,
                     exclude: str = "tom") -> tuple[dict[str, int], int]:
    """How often each item of a players list column occurs over the rows whose strategy
    is not ``exclude`` (Tom), and how many such rows there are.

    Read from the verified file one row group at a time and counted in Arrow, so a
    10-million-game run needs the memory of one row group, not of the column.
    """
    if column not in SCHEMAS["players"].names or not pa.types.is_list(
            SCHEMAS["players"].field(column).type):
        raise ConfigError(f"{column!r} is not a list column of the players table")
    out = Path(run_dir)
    manifest = finished_manifest(out)
    memos = Memos()
    path = _verified(out, manifest["players"], memos)
    memos.save()
    counts: dict[str, int] = {}
    rows = 0
    try:
        # one thread, no pre-buffering (as ``_read``): the reader's buffers stay near one
        # batch, and in the calling thread's heap, which ``memory.give_back`` trims
        batches = pq.ParquetFile(path, pre_buffer=False).iter_batches(
            batch_size=65_536, columns=[column, "strategy"], use_threads=False)
        for batch in batches:
            strategy = batch.column("strategy")
            if pa.types.is_dictionary(strategy.type):
                strategy = strategy.dictionary_decode()
            keep = pc.not_equal(strategy, exclude)
            lists = pc.filter(batch.column(column), keep)
            rows += len(lists)
            vc = pc.value_counts(pc.list_flatten(lists))
            for item, k in zip(vc.field("values").to_pylist(), vc.field("counts").to_pylist(),
                               strict=True):
                counts[item] = counts.get(item, 0) + k
    except (pa.ArrowInvalid, OSError) as e:
        raise DataError(f"{path} is not a readable Parquet file ({e})") from None
    return counts, rows
