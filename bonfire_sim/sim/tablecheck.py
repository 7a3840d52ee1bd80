"""What each table file of a run must hold, read from its Parquet footer.

A checksum says a file is the one the manifest (or chunk log) lists; it does not say the
listing is right.  A chunk log line relabelled to another index, or a table copied in from
another run with its checksum edited into the manifest, passes every checksum.  So every
table carries its own description in its Parquet key-value metadata (``runner.META_KEY``:
table name, configuration with the seed, engine fingerprint), and each chunk's games are
the fixed range ``index * chunk_size ..`` of the run: both are compared here, from the
footer alone (metadata and the ``game_id`` column statistics; no data page is read).

``check_entry`` checks a chunk's listing (its index in range, its files named for it);
``check_chunk`` and ``check_final`` check the files' footers.  Each refusal is one
``DataError`` naming the file.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq

from bonfire_sim.errors import DataError
from bonfire_sim.infra import readers
from bonfire_sim.rules import components as C

META_KEY = b"bonfire_sim"  # Parquet key-value metadata of every table a run writes
CHUNK_FILES = {"games": "chunks/games-{:05d}.parquet", "players": "chunks/players-{:05d}.parquet",
               "turns": "turns/chunk-{:05d}.parquet"}


def _edited(where: str | Path, what: str) -> DataError:
    return DataError(f"{where}: {what}; the run's listing was edited or files were copied in "
                     f"from another run: do not use it (start the run afresh in a new "
                     f"directory)")


def stored_config(manifest: Mapping[str, Any]) -> dict[str, Any]:
    """A manifest's run configuration; runs from before variants existed used the defaults."""
    return {"variants": C.default_variants(), **manifest.get("config", {})}


def check_entry(key: str, entry: Any, n_chunks: int, where: str | Path,
                merged: bool = False) -> None:
    """Refuse a chunk listing whose index is not its key, lies outside ``0..n_chunks-1``,
    or whose files are not the ones a run writes for that index.  ``merged`` (a finished
    run's manifest): its games and players files may be unlisted, as they are once merged
    into the final tables."""
    index = entry.get("index") if isinstance(entry, dict) else None
    if isinstance(index, bool) or not isinstance(index, int) or str(index) != key:
        raise _edited(where, f"chunk {key[:20]!r} is listed with index {index!r}")
    if not 0 <= index < n_chunks:
        raise _edited(where, f"chunk {index} is out of range (the run has {n_chunks} chunks)")
    for table, pattern in CHUNK_FILES.items():
        part = entry.get(table)
        if part is None and (table == "turns" or merged):
            continue
        if not isinstance(part, dict) or part.get("file") != pattern.format(index):
            raise _edited(where, f"chunk {index} lists {table} file "
                                 f"{str((part or {}).get('file'))[:80]!r}, not "
                                 f"{pattern.format(index)!r}")


def _footer(path: Path) -> tuple[Any, dict[str, Any]]:
    """(Parquet file metadata, the bonfire_sim description) of ``path``."""
    try:
        meta = pq.read_metadata(path)
        doc = readers.parse_json((meta.metadata or {})[META_KEY], path)
    except (OSError, ValueError, KeyError) as e:
        raise DataError(f"{path} is not a bonfire_sim table ({type(e).__name__})") from None
    if not isinstance(doc, dict):
        raise DataError(f"{path} is not a bonfire_sim table")
    return meta, doc


def _game_ids(meta: Any, path: Path) -> tuple[int, int] | None:
    """(smallest, largest) ``game_id`` by the footer's statistics; None for no rows."""
    if meta.num_rows == 0:
        return None
    schema = meta.schema.to_arrow_schema()
    if "game_id" not in schema.names:
        raise DataError(f"{path} is not a bonfire_sim table (no game_id column)")
    col = schema.get_field_index("game_id")
    lows, highs = [], []
    for g in range(meta.num_row_groups):
        stats = meta.row_group(g).column(col).statistics
        if stats is None or not stats.has_min_max:
            raise DataError(f"{path} carries no game_id statistics: not written by bonfire_sim")
        lows.append(int(stats.min))
        highs.append(int(stats.max))
    return min(lows), max(highs)


def _describes(doc: Mapping[str, Any], path: Path, table: str,
               manifest: Mapping[str, Any]) -> None:
    """Refuse a table whose description is not this run's ``table``."""
    if doc.get("table") != table:
        raise _edited(path, f"it holds the {str(doc.get('table'))[:40]!r} table, not {table!r}")
    # Compared as the runner reads them: a manifest (or table) from before variants
    # existed played the defaults, so it is the same configuration as its default one.
    config, theirs = manifest.get("config"), doc.get("config")
    if (stored_config(doc) != stored_config(manifest)
            if isinstance(config, dict) and isinstance(theirs, dict) else theirs != config):
        seed = theirs.get("seed") if isinstance(theirs, dict) else None
        mine = config.get("seed") if isinstance(config, dict) else None
        what = (f"seed {seed}, not {mine}" if seed != mine else "another configuration")
        raise _edited(path, f"its games were played with {what}")
    if doc.get("fingerprint") != manifest.get("fingerprint"):
        raise _edited(path, "it was made by another engine than the manifest says")


def check_chunk(path: Path, table: str, index: int, chunk_size: int, games: int,
                manifest: Mapping[str, Any]) -> None:
    """Refuse the chunk file ``path`` unless it is this run's ``table`` of chunk ``index``
    (its games ``index * chunk_size`` .. and the run's configuration and engine)."""
    meta, doc = _footer(path)
    _describes(doc, path, table, manifest)
    first, last = index * chunk_size, min((index + 1) * chunk_size, games) - 1
    got = _game_ids(meta, path)
    if got is None or got[0] < first or got[1] > last or (
            table != "turns" and got != (first, last)):
        shown = "no games" if got is None else f"games {got[0]}..{got[1]}"
        raise _edited(path, f"it holds {shown}, but chunk {index} is games {first}..{last}")


def check_final(path: Path, table: str, manifest: Mapping[str, Any]) -> None:
    """Refuse a final table (``games``/``players``) that is not this run's: another
    description, or not exactly the games ``0 .. games-1``."""
    meta, doc = _footer(path)
    _describes(doc, path, table, manifest)
    games = int((manifest.get("config") or {}).get("games", -1))
    got = _game_ids(meta, path)
    if got != (0, games - 1) or (table == "games" and meta.num_rows != games):
        shown = "no games" if got is None else f"{meta.num_rows} rows of games {got[0]}..{got[1]}"
        raise _edited(path, f"it holds {shown}, not the run's games 0..{games - 1}")


def n_chunks(manifest: Mapping[str, Any]) -> int:
    """The number of chunks a manifest's configuration makes (0 if it names none)."""
    config = manifest.get("config")
    if not isinstance(config, dict):
        return 0
    games, size = config.get("games"), config.get("chunk_size")
    if (isinstance(games, int) and isinstance(size, int) and not isinstance(games, bool)
            and not isinstance(size, bool) and games > 0 and size > 0):
        return -(-games // size)
    return 0


def check_run_files(out: Path, manifest: Mapping[str, Any], turns: bool) -> None:
    """Refuse a finished run whose final tables (and turn chunks, with ``turns``) are not
    the games its manifest describes (``load`` calls this after the checksums)."""
    for table in ("games", "players"):
        check_final(out / manifest[table]["file"], table, manifest)
    if not turns:
        return
    config = manifest.get("config") or {}
    for key, entry in manifest["chunks"].items():
        if "turns" in entry:
            check_chunk(out / entry["turns"]["file"], "turns", int(key),
                        int(config["chunk_size"]), int(config["games"]), manifest)
