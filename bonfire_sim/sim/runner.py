"""Batch runs: config -> chunk jobs -> ``run_one(job)`` -> Parquet, resumable.

Game ``i`` of a run is fully determined by (config, i): its deal comes from
``game_seed(seed, deal)``, so results are identical for any number of workers and any
backend.  Workers only compute; the parent process writes every chunk atomically
(temporary file + rename) and records it in ``manifest.json`` with row counts and SHA-256
checksums, so an interrupted run loses at most the chunks in flight and ``--resume``
recomputes nothing that was finished.  When every chunk is done the chunks are streamed
into ``games.parquet`` and ``players.parquet`` (memory stays flat); turn logs stay
partitioned under ``turns/``.  Once the merged tables are verified and the manifest that
lists them is written, the chunks' game and player files are removed: a finished run
holds each game once (see ``_merge`` for the order that keeps every crash resumable).
"""

from __future__ import annotations

import contextlib
import logging
import os
import re
import shutil
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from bonfire_sim import __version__
from bonfire_sim.config import MAX_JOBS, RUN_FIELDS, check_value
from bonfire_sim.errors import (
    ConfigError,
    DataError,
    EngineMismatchError,
    OutputError,
)
from bonfire_sim.infra import fileio, ownership, readers, safepaths
from bonfire_sim.infra.cluster import check_scheduler
from bonfire_sim.infra.fingerprint import describe_difference, engine_fingerprint
from bonfire_sim.sim import chunklog, tablecheck
from bonfire_sim.sim.chunk import (  # noqa: E402
    ChunkData,
    ChunkJob,
    player_records,
    resolve_players,
    run_one,
)
from bonfire_sim.sim.frames import SCHEMA_VERSION
from bonfire_sim.sim.runconfig import RunConfig  # noqa: E402
from bonfire_sim.sim.tablecheck import stored_config
from bonfire_sim.sim.warm import ensure_warm

log = logging.getLogger(__name__)

MANIFEST = ownership.MANIFEST
CHUNKS = "chunks"
TURNS = "turns"
# Where older versions cached fork tables inside a run (now in the user cache directory,
# analysis.cards.probes.fork_cache_dir): ignored, so such runs still load.
DERIVED = "analysis"
FINAL_TABLES = ("games", "players")
# The chunk tables merged into the final ones, removed (and unlisted) once those are verified.
MERGED = FINAL_TABLES
# Rows per row group of the merged tables: the chunks are gathered until they hold this
# many rows.  Every reader decodes a file's whole footer, one entry per row group and
# column, so one row group per 500-game chunk made a million games' players footer 78 MB
# decoded (2,000 row groups); runs merged that way still read the same.
ROW_GROUP_ROWS = 32_768
META_KEY = tablecheck.META_KEY  # Parquet key-value metadata: table, schema, config, fingerprint
_CHUNK_NAME = re.compile(rf"(?P<dir>{CHUNKS})/(?:games|players)-(?P<index>\d{{5,}})\.parquet"
                         rf"|(?P<tdir>{TURNS})/chunk-(?P<tindex>\d{{5,}})\.parquet")


# ---- files --------------------------------------------------------------------------
def _sha256(path: Path) -> str:
    return fileio.sha256(path)


def table_metadata(config: RunConfig, name: str, fingerprint: Mapping[str, str]) -> bytes:
    """The ``bonfire_sim`` key-value metadata of a table: what it is and what made it."""
    return fileio.dumps_json({"table": name, "schema_version": SCHEMA_VERSION,
                              "config": config.to_json(), "fingerprint": dict(fingerprint)},
                             f"the {name} table's metadata", sort_keys=True).encode()


def _write_atomic(table: pa.Table, path: Path, metadata: bytes | None = None) -> dict[str, Any]:
    if metadata is not None:
        table = table.replace_schema_metadata({**(table.schema.metadata or {}),
                                               META_KEY: metadata})
    with fileio.atomic_file(path) as f:  # a file object: pyarrow expands no path text
        pq.write_table(table, f, compression="zstd")
    return {"file": str(path.relative_to(path.parent.parent)), "rows": table.num_rows,
            "sha256": _sha256(path)}


def _write_json_atomic(obj: Any, path: Path) -> None:
    fileio.write_json(path, obj)


def write_chunk(out: Path, data: ChunkData, config: RunConfig | None = None,
                fingerprint: Mapping[str, str] | None = None,
                merged: bool = False) -> dict[str, Any]:
    """Write a chunk's files atomically; return its manifest entry.  ``merged``: its games
    are already in the run's verified final tables, so only its turn log is written."""
    def meta(name: str) -> bytes | None:
        return None if config is None else table_metadata(config, name, fingerprint or {})

    entry: dict[str, Any] = {"index": data.index}
    if not merged:
        entry["games"] = _write_atomic(data.games,
                                       out / CHUNKS / f"games-{data.index:05d}.parquet",
                                       meta("games"))
        entry["players"] = _write_atomic(data.players,
                                         out / CHUNKS / f"players-{data.index:05d}.parquet",
                                         meta("players"))
    if data.turns is not None:
        entry["turns"] = _write_atomic(data.turns, out / TURNS / f"chunk-{data.index:05d}.parquet",
                                       meta("turns"))
    return entry


def _chunk_ok(out: Path, entry: Mapping[str, Any], merged: bool = False) -> bool:
    """Whether a chunk's listed files are there and match their checksums; a chunk whose
    games are not in verified final tables (not ``merged``) needs its games and players."""
    if not merged and not all(k in entry for k in MERGED):
        return False
    for key in ("games", "players", "turns"):
        if key in entry:
            f = out / entry[key]["file"]
            if not f.is_file() or _sha256(f) != entry[key]["sha256"]:
                return False
    return True


def _final_ok(out: Path, manifest: Mapping[str, Any]) -> bool:
    for key in FINAL_TABLES:
        entry = manifest.get(key)
        if not isinstance(entry, dict):
            return False
        f = out / entry["file"]
        if not f.is_file() or _sha256(f) != entry["sha256"]:
            return False
    return True


def _expected_name(config: RunConfig, rel: str) -> bool:
    """Whether ``rel`` is a file name a run of ``config`` writes (without listing them all:
    a run may have millions of chunks)."""
    top = {MANIFEST, chunklog.LOG, *(f"{t}.parquet" for t in FINAL_TABLES)}
    if rel in top:
        return True
    m = _CHUNK_NAME.fullmatch(rel)
    if not m:
        return False
    digits = m["index"] or m["tindex"]
    if int(digits) >= config.n_chunks or f"{int(digits):05d}" != digits:
        return False
    return m["dir"] is not None or config.turn_log != "none"


def run_files(out: Path) -> list[str]:
    """Every file in a run directory, as paths relative to it (``/`` separated)."""
    rels = ((p, p.relative_to(out).as_posix()) for p in out.rglob("*"))
    return sorted(rel for p, rel in rels
                  if rel != DERIVED and not rel.startswith(DERIVED + "/")
                  and rel != ownership.LOCK
                  and (not p.is_dir() or rel not in (CHUNKS, TURNS)))


def _refuse_unexpected(out: Path, config: RunConfig, clean: bool = False) -> None:
    """Refuse any file a run does not write; with ``clean``, remove the temporary files an
    interrupted write left."""
    strangers = []
    for rel in run_files(out):
        target = fileio.temp_target(rel)
        if target is not None and _expected_name(config, target):
            if clean:
                (out / rel).unlink(missing_ok=True)
        elif not _expected_name(config, rel):
            strangers.append(rel)
    if strangers:
        raise DataError(f"{out} holds files a bonfire_sim run does not write: "
                        f"{', '.join(strangers[:5])}; move them away (or choose another --out)")


def _refuse_other_engine(out: Path, manifest: Mapping[str, Any],
                         fingerprint: Mapping[str, str]) -> None:
    stored = manifest.get("fingerprint")
    if stored != dict(fingerprint):
        what = describe_difference(stored, dict(fingerprint))
        raise EngineMismatchError(
            f"{out} was made by a different engine ({what}); its games cannot be mixed "
            f"with new ones: start afresh in another run directory "
            f"(--out, or out in an experiment's [run]) or delete {out}")


def _discard_stale(out: Path, config: RunConfig, fingerprint: Mapping[str, str],
                   status: Callable[[str], None] | None) -> None:
    """Delete the games in ``out`` when it holds this configuration's run, by these
    players, made by another engine (they can never be completed or mixed with new ones):
    ``run(replace_stale=True)``, e.g. ``make demo`` after an upgrade.  Only a run's own
    files go; anything else (another configuration or players, a file a run does not
    write, a link) is left for ``check_run_dir`` to refuse.  Called holding the lock."""
    if not (out / MANIFEST).is_file():
        return
    manifest = read_manifest(out)
    stored = manifest.get("fingerprint")
    if (stored_config(manifest) != config.to_json() or stored == dict(fingerprint)
            or manifest.get("seat_players", player_records(config)) != player_records(config)):
        return
    ownership.check_may_write(out, own=out, own_kind="run")
    safepaths.refuse_links(out, "run directory")
    _refuse_unexpected(out, config)
    for entry in sorted(out.iterdir()):
        if entry.name == ownership.LOCK:
            continue
        if entry.is_dir():
            shutil.rmtree(entry)
        else:
            entry.unlink()
    if status:
        what = describe_difference(stored, dict(fingerprint))
        status(f"{out} was made by another engine ({what}): its games were deleted and are "
               f"played afresh")


# ---- the run --------------------------------------------------------------------------
def check_run_dir(out: Path, config: RunConfig, resume: bool,
                  fingerprint: Mapping[str, str] | None = None) -> dict[str, Any] | None:
    """Every check ``prepare`` makes, creating and removing nothing: the manifest of the
    run to reuse or complete, or None when ``out`` is new (or empty)."""
    fingerprint = dict(fingerprint or engine_fingerprint())
    if out.exists() and not out.is_dir():
        raise ConfigError(f"cannot create run directory {out}: it is a file")
    ownership.check_may_write(out, own=out, own_kind="run")  # not inside another run
    if out.is_dir():
        # A linked chunks/ or turns/ (or a linked file) would send writes out of the run.
        safepaths.refuse_links(out, "run directory")
    mpath = out / MANIFEST
    if out.is_dir() and not os.access(out, os.W_OK):
        raise ConfigError(f"run directory {out} is not writable")
    if mpath.exists():
        manifest = read_manifest(out)
        if stored_config(manifest) != config.to_json():
            raise ConfigError(
                f"{out} holds a run with a different configuration; choose another --out "
                f"(or repeat that run's exact options with --resume)")
        if manifest.get("seat_players", player_records(config)) != player_records(config):
            raise ConfigError(
                f"{out} was played by different players (a weight file changed?); choose "
                f"another --out")
        _refuse_other_engine(out, manifest, fingerprint)
        if not resume and not manifest.get("complete"):
            raise ConfigError(f"{out} holds an unfinished run of this configuration; "
                              f"add --resume to complete it")
        _refuse_unexpected(out, config)
        return manifest
    if out.is_dir():
        # A full disk at the very start may have left only a manifest temporary file.
        foreign = [p for p in run_files(out) if fileio.temp_target(p) != MANIFEST]
        if foreign:
            raise ConfigError(f"{out} is not empty and is not a bonfire_sim run "
                              f"({', '.join(foreign[:3])}); choose an empty or new --out")
    else:
        try:
            fileio.check_creatable_dir(out)
        except OutputError as e:
            raise ConfigError(f"cannot create run directory {out}: "
                              f"{str(e).split(': ', 1)[-1]}") from None
    return None


def prepare(out: Path, config: RunConfig, resume: bool,
            fingerprint: Mapping[str, str] | None = None) -> dict[str, Any]:
    """Create or reopen the run directory; refuse foreign or mismatched contents.

    Everything is checked before anything is created, so a refused directory is left as
    it was; a run that fails to start removes what it created.
    """
    fingerprint = dict(fingerprint or engine_fingerprint())
    existing = check_run_dir(out, config, resume, fingerprint)
    if existing is not None:
        _refuse_unexpected(out, config, clean=True)
        return existing
    mpath = out / MANIFEST
    for rel in run_files(out) if out.is_dir() else ():
        if fileio.temp_target(rel) == MANIFEST:
            (out / rel).unlink(missing_ok=True)
    new_dirs = [d for d in (out, *out.parents) if not d.exists()]
    manifest = {"format": "bonfire_sim-run", "schema_version": SCHEMA_VERSION,
                "package_version": __version__, "config": config.to_json(),
                "fingerprint": fingerprint,
                "seed": config.seed, "n_chunks": config.n_chunks, "chunks": {},
                "seat_players": player_records(config),
                "complete": False, "created": time.strftime("%Y-%m-%dT%H:%M:%S")}
    try:
        out.mkdir(parents=True, exist_ok=True)
        (out / CHUNKS).mkdir(exist_ok=True)
        (out / TURNS).mkdir(exist_ok=True)
        _write_json_atomic(manifest, mpath)
    except (OSError, OutputError) as e:
        # Leave nothing behind that would make the directory look foreign next time.
        for d in (out / CHUNKS, out / TURNS, *new_dirs):
            with contextlib.suppress(OSError):
                d.rmdir()
        if isinstance(e, OutputError):
            raise
        raise ConfigError(f"cannot create run directory {out}: {e.strerror}") from None
    return manifest


def read_manifest(out: Path) -> dict[str, Any]:
    mpath = Path(out) / MANIFEST
    try:
        manifest = readers.parse_json(readers.read_bytes(mpath, "run manifest"), mpath)
    except FileNotFoundError:
        raise DataError(f"{mpath} not found: {out} is not a bonfire_sim run directory") from None
    except (OSError, ValueError) as e:
        raise DataError(f"{mpath} is unreadable or corrupt ({e})") from None
    if not isinstance(manifest, dict) or manifest.get("format") != "bonfire_sim-run":
        raise DataError(f"{mpath} is not a bonfire_sim run manifest")
    if manifest.get("schema_version") != SCHEMA_VERSION:
        raise DataError(f"{mpath} has schema version {manifest.get('schema_version')}; this "
                        f"bonfire_sim reads version {SCHEMA_VERSION}")
    if not manifest.get("complete"):
        # an unfinished run's chunks are in the append-only log (see ``chunklog``); a
        # finished run's manifest lists them all and a leftover log is ignored
        safepaths.inside(Path(out), chunklog.LOG, mpath)  # a linked log reads elsewhere
        manifest["chunks"] = {**manifest.get("chunks", {}), **chunklog.read(Path(out))}
    # Every file the manifest (and its chunk log) names stays inside the run, checked
    # before any reader opens (or even looks up) one: the refusal says nothing about
    # files elsewhere.
    chunks = manifest.get("chunks")
    entries = [manifest.get(k) for k in FINAL_TABLES] + [
        c.get(k) for c in (chunks.values() if isinstance(chunks, dict) else ())
        if isinstance(c, dict) for k in ("games", "players", "turns")]
    for entry in entries:
        if isinstance(entry, dict) and "file" in entry:
            safepaths.inside(out, entry["file"], mpath)
    for key, entry in (chunks.items() if isinstance(chunks, dict) else ()):
        # a relabelled or out-of-range line would give duplicated or missing games
        tablecheck.check_entry(key, entry, tablecheck.n_chunks(manifest),
                               mpath if manifest.get("complete") else out / chunklog.LOG,
                               merged=bool(manifest.get("complete")))
    return manifest


def play_chunks(jobs: Iterable[ChunkJob], n_jobs: int) -> Iterator[ChunkData]:
    """The chunks' tables, as they finish, on the backend ``workers.using`` chose (also
    how the solo analysis plays its games without writing a run)."""
    from bonfire_sim.infra.workers import local

    if local(n_jobs):
        for job in jobs:
            yield run_one(job)
        return
    from joblib import delayed

    from bonfire_sim.infra.workers import pool

    yield from pool(n_jobs, return_as="generator_unordered", pre_dispatch="2*n_jobs")(
        delayed(run_one)(j) for j in jobs)


def run(config: RunConfig, out: str | Path, *, jobs: int = 1, resume: bool = False,
        backend: str | None = None, scheduler: str | None = None,
        progress: Callable[[int, int], None] | None = None,
        status: Callable[[str], None] | None = None,
        move_timeout: float | None = None, replace_stale: bool = False) -> Path:
    """Run (or complete, or repair) ``config`` into ``out``; returns the run directory.

    Finished chunks are verified against their checksums and corrupt ones recomputed;
    missing or corrupt final tables are rebuilt from the chunks.  ``jobs=-1`` uses every
    core.  ``progress(done_games, total_games)`` is called after every finished chunk;
    ``status(line)`` hears about compiling (``warm.ensure_warm``), which happens here,
    once, before any worker starts.  One process at a time writes a run: a second one is
    refused with the first one's pid (``ownership.locked``).  ``move_timeout``: seconds a
    plug-in seat may take per move (None: no limit); a plug-in that fails leaves the run
    incomplete for ``resume``.  ``backend``/``scheduler``: see ``workers.using`` (None keeps
    the enclosing choice, loky at the top; ``jobs`` is then the number of chunks in flight).
    ``replace_stale``: where ``out`` holds this run made by another engine, delete its
    games and play them afresh instead of refusing (``_discard_stale``).
    """
    from bonfire_sim.infra.workers import check_backend, using

    out = Path(out)
    n_jobs = resolve_jobs(jobs)
    move_timeout = check_move_timeout(move_timeout)
    check_backend(backend, scheduler)
    if backend == "dask" and scheduler:
        check_scheduler(scheduler)  # before anything is created
    fingerprint = engine_fingerprint()
    if replace_stale and (out / MANIFEST).is_file():
        with ownership.locked(out):
            _discard_stale(out, config, fingerprint, status)
    check_run_dir(out, config, resume, fingerprint)  # before the lock creates the folder
    with ownership.locked(out), using(backend, scheduler):
        return _run_locked(config, out, n_jobs, resume, fingerprint, progress, status,
                           move_timeout)


def _run_locked(config: RunConfig, out: Path, n_jobs: int, resume: bool,
                fingerprint: dict[str, str],
                progress: Callable[[int, int], None] | None,
                status: Callable[[str], None] | None,
                move_timeout: float | None = None) -> Path:
    """``run`` while holding the run's lock (so ``prepare`` rechecks what it found)."""
    manifest = prepare(out, config, resume, fingerprint)
    # A finished run with intact final tables has every game there (its chunks' game and
    # player files were removed once merged): only its turn logs can need replaying.
    merged = bool(manifest.get("complete")) and _final_ok(out, manifest)
    done = {int(k): v for k, v in manifest["chunks"].items() if _chunk_ok(out, v, merged)}
    for index, entry in done.items():  # each listed file holds the chunk it is listed as
        for table in ("games", "players", "turns"):
            if table in entry:
                tablecheck.check_chunk(out / entry[table]["file"], table, index,
                                       config.chunk_size, config.games, manifest)
    manifest["chunks"] = {str(k): v for k, v in done.items()}
    n_todo = config.n_chunks - len(done)
    # A generator: a huge run never holds millions of job objects at once.
    resolved = resolve_players(config)
    todo = (ChunkJob(config, i, resolved, move_timeout) for i in range(config.n_chunks)
            if i not in done)
    games_done = sum(_chunk_games(config, i) for i in done)
    if progress:
        progress(games_done, config.games)
    if merged and not n_todo:
        # left only by a crash after the final manifest was written (or an older version)
        chunklog.remove(out)
        _drop_merged_chunks(out, manifest)
        return out
    if manifest.get("complete") and not merged:
        # The final tables are damaged and the chunks they were merged from are gone: the
        # games are played again into chunks, logged (so resumable) as in any unfinished run.
        manifest["complete"] = False
        for key in FINAL_TABLES:
            manifest.pop(key, None)
        _write_json_atomic(manifest, out / MANIFEST)
    if n_todo:
        ensure_warm(status)
    for data in play_chunks(todo, min(n_jobs, max(1, n_todo))):
        entry = write_chunk(out, data, config, fingerprint, merged)
        manifest["chunks"][str(data.index)] = entry
        if not merged:  # a merged run's manifest stays complete: it is rewritten below
            chunklog.append(out, entry)  # O(1) per chunk; the manifest is rewritten at the end
        games_done += data.games.num_rows
        log.info("chunk %d: %d games in %.1f s (%d of %d games)", data.index,
                 data.games.num_rows, data.seconds, games_done, config.games)
        if progress:
            progress(games_done, config.games)
    if merged:  # turn logs replayed; the games were in the final tables all along
        manifest["chunks"] = {k: manifest["chunks"][k]
                              for k in sorted(manifest["chunks"], key=int)}
        _write_json_atomic(manifest, out / MANIFEST)
        _drop_merged_chunks(out, manifest)
        return out
    _merge(out, manifest)
    log.info("merged %d chunks into %s", len(manifest["chunks"]), out)
    return out


def _chunk_games(config: RunConfig, index: int) -> int:
    """The number of games chunk ``index`` of ``config`` plays."""
    return min((index + 1) * config.chunk_size, config.games) - index * config.chunk_size


def check_move_timeout(seconds: float | None) -> float | None:
    """A plug-in move time limit: None (no limit) or a finite number of seconds > 0."""
    if seconds is None:
        return None
    return float(check_value("move_timeout", seconds, RUN_FIELDS["move_timeout"]))


def resolve_jobs(jobs: int) -> int:
    """Worker count: ``-1`` = every core, ``1..`` as given; ``0`` and below -1 refused."""
    if isinstance(jobs, bool) or not isinstance(jobs, int | np.integer):
        raise ConfigError(f"jobs must be an integer, got {jobs!r}")
    if jobs == -1:
        return os.cpu_count() or 1
    if not 1 <= jobs <= MAX_JOBS:
        raise ConfigError(f"jobs must be 1..{MAX_JOBS} or -1 (every core), got {jobs}")
    return int(jobs)


def _merge(out: Path, manifest: dict[str, Any]) -> None:
    """Stream the chunks, in order, into games.parquet and players.parquet, verify them,
    then keep one copy of each game.

    The order makes every crash resumable with identical tables: (1) the final tables are
    written atomically and (2) checked (row counts against the chunks', the footer's game
    range and description, checksums); (3) the manifest listing them, and no chunk game or
    player file, is written atomically: until then the chunks and their log are the run;
    from then on the verified final tables are; (4) the chunk log and (5) the chunks' game
    and player files are removed.  A crash before (3) merges again on ``--resume``; after
    it, ``--resume`` (or a second ``run``) only removes what (4) and (5) left.
    """
    order = sorted(manifest["chunks"], key=int)
    for key in FINAL_TABLES:
        final = out / f"{key}.parquet"
        with fileio.atomic_file(final) as f:
            writer = None
            try:
                for group in _row_groups(out, manifest, order, key):
                    if writer is None:
                        writer = pq.ParquetWriter(f, group.schema, compression="zstd")
                    # one row group per gathered table (pyarrow's own cap: 1 Mi rows)
                    writer.write_table(group, row_group_size=min(max(group.num_rows, 1),
                                                                 1 << 20))
            finally:
                if writer is not None:
                    writer.close()
        manifest[key] = {"file": final.name, "sha256": _sha256(final),
                         "rows": sum(manifest["chunks"][k][key]["rows"] for k in order)}
    manifest["chunks"] = {k: manifest["chunks"][k] for k in order}
    _verify_merge(out, manifest)
    _drop_merged_chunks(out, manifest)


def _row_groups(out: Path, manifest: Mapping[str, Any], order: Iterable[str],
                key: str) -> Iterator[pa.Table]:
    """The chunks' ``key`` tables, in order, gathered into tables of at least
    ``ROW_GROUP_ROWS`` rows (the last one shorter): one row group each, so the footer
    does not grow with the chunks, and a few chunks held at a time."""
    held: list[pa.Table] = []
    rows = 0
    for k in order:
        table = pq.read_table(out / manifest["chunks"][k][key]["file"])
        held.append(table)
        rows += table.num_rows
        if rows >= ROW_GROUP_ROWS:
            yield pa.concat_tables(held)
            held, rows = [], 0
    if held:
        yield pa.concat_tables(held)


def _verify_merge(out: Path, manifest: dict[str, Any]) -> None:
    """Refuse final tables that do not hold exactly the chunks' rows (the chunks are kept)."""
    for key in FINAL_TABLES:
        final = out / manifest[key]["file"]
        rows = pq.read_metadata(final).num_rows
        if rows != manifest[key]["rows"] or _sha256(final) != manifest[key]["sha256"]:
            raise DataError(f"{final} does not hold the {manifest[key]['rows']} rows merged "
                            f"into it (the disk changed it?); its chunks are kept: run again "
                            f"with --resume")
        tablecheck.check_final(final, key, manifest)


def _drop_merged_chunks(out: Path, manifest: dict[str, Any]) -> None:
    """Write the finished manifest without the merged chunk files, then remove those files
    (steps 3-5 of ``_merge``; also what a run interrupted in between, or made by an older
    version that kept its chunks, needs).  The turn logs stay: they are nowhere else."""
    stripped = {k: {t: v for t, v in c.items() if t not in MERGED}
                for k, c in manifest["chunks"].items()}
    if not manifest.get("complete") or stripped != manifest["chunks"]:
        manifest["chunks"] = stripped
        manifest["complete"] = True
        _write_json_atomic(manifest, out / MANIFEST)
    chunklog.remove(out)  # after the manifest: a crash in between leaves a log it ignores
    folder = out / CHUNKS
    try:
        names = sorted(e.name for e in os.scandir(folder) if e.name.endswith(".parquet"))
    except FileNotFoundError:
        return
    except OSError as e:
        raise fileio.os_error(folder, e) from None
    for name in names:
        if merged_chunk_file(f"{CHUNKS}/{name}", tablecheck.n_chunks(manifest)):
            try:
                (folder / name).unlink(missing_ok=True)  # a link is removed, never followed
            except OSError as e:
                raise fileio.os_error(folder / name, e) from None


def merged_chunk_file(rel: str, n_chunks: int) -> bool:
    """Whether ``rel`` (relative to a run of ``n_chunks`` chunks) is one of its chunks' games
    or players files: the kind a finished run no longer holds once its tables are verified."""
    m = _CHUNK_NAME.fullmatch(rel)
    return (m is not None and m["dir"] is not None and int(m["index"]) < n_chunks
            and f"{int(m['index']):05d}" == m["index"])
