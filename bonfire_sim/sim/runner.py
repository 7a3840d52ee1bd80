"""Batch runs: config -> chunk jobs -> ``run_one(job)`` -> Parquet, resumable.

Game ``i`` of a run is fully determined by (config, i): its deal comes from
``game_seed(seed, deal)``, so results are identical for any number of workers and any
backend.  Workers only compute; the parent process writes every chunk atomically
(temporary file + rename) and records it in ``manifest.json`` with row counts and SHA-256
checksums, so an interrupted run loses at most the chunks in flight and ``--resume``
recomputes nothing that was finished.  When every chunk is done the chunks are streamed
into ``games.parquet`` and ``players.parquet`` (memory stays flat); turn logs stay
partitioned under ``turns/``.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import re
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import InitVar, asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

import strategies as S
from bonfire_sim import __version__, fileio, ownership, safepaths
from bonfire_sim.cluster import check_scheduler
from bonfire_sim.config import MAX_JOBS, RUN_FIELDS, check_overrides, check_value
from bonfire_sim.errors import (
    ConfigError,
    DataError,
    EngineMismatchError,
    OutputError,
    PluginError,
)
from bonfire_sim.fingerprint import describe_difference, engine_fingerprint
from bonfire_sim.rules import components as C
from bonfire_sim.rules import layout as L
from bonfire_sim.rules import tables as T
from bonfire_sim.rules.rng import game_seed, seed_words
from bonfire_sim.rules.state import blank_state
from bonfire_sim.sim import chunklog
from bonfire_sim.sim.batch import (
    GAME_COLS,
    MAX_TURN_ROWS_PER_GAME,
    PLAYER_COLS,
    TASK_W,
    TURN_COLS,
    play_games,
)
from bonfire_sim.sim.frames import SCHEMA_VERSION, games_table, players_table, turns_table
from bonfire_sim.sim.loop import W
from bonfire_sim.sim.warm import ensure_warm
from strategies.specs import Player, check_stored_spec, parse_player, stored_player

MANIFEST = ownership.MANIFEST
CHUNKS = "chunks"
TURNS = "turns"
# Where older versions cached fork tables inside a run (now in the user cache directory,
# analysis.probes.fork_cache_dir): ignored, so such runs still load.
DERIVED = "analysis"
SEED_MASK = (1 << 63) - 1
FINAL_TABLES = ("games", "players")
META_KEY = b"bonfire_sim"  # Parquet key-value metadata: table, schema, config, fingerprint
_CHUNK_NAME = re.compile(rf"(?P<dir>{CHUNKS})/(?:games|players)-(?P<index>\d{{5,}})\.parquet"
                         rf"|(?P<tdir>{TURNS})/chunk-(?P<tindex>\d{{5,}})\.parquet")


@dataclass(frozen=True)
class RunConfig:
    """Everything that determines a run's results (workers and backend do not)."""

    games: int
    players: int
    strategies: tuple[str, ...] = ()
    seat_rotation: bool = False
    seed: int = 0
    turn_log: str = "none"
    chunk_size: int = 500
    overrides: Mapping[str, Any] = field(default_factory=dict)
    # {fact: variant name} of the uncertain component facts (components.VARIANTS); stored
    # resolved (every fact named), so the manifest says which assumptions were in force.
    variants: Mapping[str, str] = field(default_factory=dict)
    # False for a configuration read from a manifest: its player specs are checked by
    # their text only (no plug-in import, no weights file opened; see SECURITY.md).
    resolve: InitVar[bool] = True
    # A configuration read from a manifest carries the manifest's ``seat_players`` records:
    # a style played with a weights file is rebuilt from the weights the run recorded, so
    # analysing a shared run never opens a file its manifest names.  Not part of what the
    # configuration is (excluded from equality and from ``to_json``).
    stored_players: Mapping[str, Any] | None = field(default=None, compare=False, repr=False)

    def __post_init__(self, resolve: bool) -> None:
        for name in ("games", "players", "seed", "chunk_size", "seat_rotation"):
            object.__setattr__(self, name, check_value(name, getattr(self, name),
                                                       RUN_FIELDS[name]))
        if not isinstance(self.turn_log, str):
            raise ConfigError(f"turn_log must be a string, got {self.turn_log!r}")
        names = check_value("strategies", list(self.strategies), RUN_FIELDS["strategies"])
        object.__setattr__(self, "overrides", check_overrides(self.overrides or {}))
        if self.seat_rotation and self.games % self.players:
            raise ConfigError(
                f"--seat-rotation plays every deal in all {self.players} seat rotations: "
                f"games must be a multiple of {self.players} (e.g. "
                f"{self.games + self.players - self.games % self.players})")
        log_fraction(self.turn_log)
        names = names or default_mix(self.players)
        if len(names) == 1:
            names = names * self.players
        if len(names) != self.players:
            raise ConfigError(
                f"{len(names)} strategies for {self.players} seats: give one per seat or one "
                f"for all")
        for seat, n in enumerate(names):
            try:
                # ConfigError for an unknown player spec
                parse_player(n) if resolve else check_stored_spec(n)
            except PluginError as e:  # a plug-in that fails to load: say which seat has it
                raise PluginError(f"seat {seat}: {e}") from None
        object.__setattr__(self, "strategies", tuple(names))
        try:
            object.__setattr__(self, "variants", C.resolve_variants(self.variants))
        except ValueError as e:
            raise ConfigError(str(e)) from None
        T.build_params(self.overrides, self.variants)  # validates overrides

    @property
    def rotations(self) -> int:
        return self.players if self.seat_rotation else 1

    @property
    def n_chunks(self) -> int:
        return math.ceil(self.games / self.chunk_size)

    def to_json(self) -> dict[str, Any]:
        d = asdict(self)
        d.pop("stored_players")
        d["strategies"] = list(self.strategies)
        d["overrides"] = json.loads(json.dumps(dict(self.overrides), sort_keys=True))
        return d


def default_mix(players: int) -> tuple[str, ...]:
    """The documented default seat mix (``strategies.DEFAULT_MIX`` cycled over the seats)."""
    mix = tuple(getattr(S, "DEFAULT_MIX", ("random",)))
    return tuple(mix[i % len(mix)] for i in range(players))


def log_fraction(turn_log: str) -> float:
    """0, 1 or the sampled fraction of ``none`` / ``all`` / ``sample:F``."""
    if turn_log == "none":
        return 0.0
    if turn_log == "all":
        return 1.0
    if turn_log.startswith("sample:"):
        try:
            f = float(turn_log.split(":", 1)[1])
        except ValueError:
            f = -1.0
        if 0.0 < f <= 1.0:
            return f
    raise ConfigError(f"turn_log must be none, all or sample:F with 0 < F <= 1, got {turn_log!r}")


@dataclass(frozen=True)
class ChunkJob:
    config: RunConfig
    index: int
    # resolved players (the parent resolves weight files once; empty: resolve here)
    players: Mapping[str, Player] = field(default_factory=dict, compare=False)
    # seconds a plug-in seat may take per move (None: no limit); never changes results
    move_timeout: float | None = field(default=None, compare=False)

    @property
    def game_ids(self) -> np.ndarray:
        c = self.config
        return np.arange(self.index * c.chunk_size, min((self.index + 1) * c.chunk_size, c.games),
                         dtype=np.int64)


@dataclass
class ChunkData:
    index: int
    games: pa.Table
    players: pa.Table
    turns: pa.Table | None
    seconds: float


def seat_names(config: RunConfig, rotation: int) -> list[str]:
    """Strategy per seat for a rotation (rotation r: seat i plays strategies[(i - r) % P])."""
    p = config.players
    names = [config.strategies[(i - rotation) % p] for i in range(p)]
    return names + [S.TOM] if p == 1 else names


def run_one(job: ChunkJob) -> ChunkData:
    """Play one chunk of games (pure: depends only on the job) and return its tables."""
    t0 = time.perf_counter()
    c = job.config
    ids = job.game_ids
    g = len(ids)
    deals = ids // c.rotations
    rots = ids % c.rotations
    seeds = np.array([game_seed(c.seed, int(d)) & SEED_MASK for d in deals], dtype=np.int64)
    rng_game = np.array([seed_words(int(x), 0) for x in seeds], dtype=np.int64)
    rng_strat = np.array([seed_words(int(x), 1) for x in seeds], dtype=np.int64)
    frac = log_fraction(c.turn_log)
    # A game's turn log is kept when a hash of its id falls under the fraction: stable
    # under chunking and resumption.
    keep = np.array([frac >= 1.0 or (seed_words(c.seed, 7 + int(i)) / 2**32) < frac
                     for i in ids], dtype=np.int64) if frac > 0 else np.zeros(g, np.int64)
    # Seat players per rotation (specs resolved once per run), then per game by rotation.
    resolved = job.players or resolve_players(c)
    rot_names = [seat_names(c, r) for r in range(c.rotations)]
    rot_sid = np.zeros((c.rotations, L.NP), np.int64)
    rot_wts = np.zeros((c.rotations, L.NP, W), np.float64)
    rot_plugins: list[list[Any]] = [[None] * L.NP for _ in range(c.rotations)]
    plugins: dict[str, Any] = {}
    for r, seat_list in enumerate(rot_names):
        for seat, name in enumerate(seat_list):
            if name == S.TOM:
                continue
            player = resolved[name]
            rot_sid[r, seat] = player.sid
            rot_wts[r, seat] = player.weight_row()
            if not player.compiled:
                if name not in plugins:
                    plugins[name] = player.load()
                rot_plugins[r][seat] = plugins[name]
    names = [rot_names[r] for r in rots]
    sid = rot_sid[rots]
    wts = rot_wts[rots]
    seat_plugins = [rot_plugins[r] for r in rots]
    games = np.zeros((g, len(GAME_COLS)), np.int64)
    players = np.zeros((g, L.NP, len(PLAYER_COLS)), np.int64)
    tasks = np.zeros((g, L.NP, TASK_W), np.int64)
    gnomes = np.zeros((g, L.NP, L.NGNOME), np.int64)
    abilities = np.zeros((g, L.NP, 28), np.int64)
    cap = int(keep.sum()) * MAX_TURN_ROWS_PER_GAME
    turns = np.zeros((cap, len(TURN_COLS)), np.int64)
    turn_game = np.zeros(cap, np.int64)
    p = T.build_params(c.overrides, c.variants)
    if plugins:  # the Python loop (same tables); only plug-in decisions leave numba
        from bonfire_sim.sim.pyloop import play_games_py

        n_turn_rows = play_games_py(blank_state(L.NP), p, c.players, rng_game, rng_strat, sid,
                                    wts, seat_plugins, keep, games, players, tasks, gnomes,
                                    abilities, turns, turn_game, seat_specs=names,
                                    game_ids=ids, move_timeout=job.move_timeout)
    else:
        n_turn_rows = play_games(blank_state(L.NP), p, c.players, rng_game, rng_strat, sid,
                                 wts, keep, games, players, tasks, gnomes, abilities, turns,
                                 turn_game)
    nseats = 2 if c.players == 1 else c.players
    gt = games_table(ids, deals, rots, seeds, c.players, games)
    pt = players_table(ids, names, nseats, players, tasks, gnomes, abilities)
    tt = (turns_table(ids, turns[:n_turn_rows], turn_game[:n_turn_rows])
          if frac > 0 else None)
    return ChunkData(job.index, gt, pt, tt, time.perf_counter() - t0)


def resolve_players(config: RunConfig) -> dict[str, Player]:
    """Every distinct player spec of a run, resolved (weight files read once)."""
    stored = config.stored_players
    return {name: (stored_player(name, stored) if stored is not None and "@" in name
                   else parse_player(name))
            for name in dict.fromkeys(config.strategies)}


def player_records(config: RunConfig) -> dict[str, Any]:
    """The manifest's ``seat_players`` entry: each spec's exact player (weights, file hash)."""
    return {name: pl.record() for name, pl in resolve_players(config).items()}


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
    with fileio.atomic_path(path) as tmp:
        pq.write_table(table, tmp, compression="zstd")
    return {"file": str(path.relative_to(path.parent.parent)), "rows": table.num_rows,
            "sha256": _sha256(path)}


def _write_json_atomic(obj: Any, path: Path) -> None:
    fileio.write_json(path, obj)


def write_chunk(out: Path, data: ChunkData, config: RunConfig | None = None,
                fingerprint: Mapping[str, str] | None = None) -> dict[str, Any]:
    """Write a chunk's files atomically; return its manifest entry."""
    def meta(name: str) -> bytes | None:
        return None if config is None else table_metadata(config, name, fingerprint or {})

    entry: dict[str, Any] = {"index": data.index}
    entry["games"] = _write_atomic(data.games, out / CHUNKS / f"games-{data.index:05d}.parquet",
                                   meta("games"))
    entry["players"] = _write_atomic(data.players,
                                     out / CHUNKS / f"players-{data.index:05d}.parquet",
                                     meta("players"))
    if data.turns is not None:
        entry["turns"] = _write_atomic(data.turns, out / TURNS / f"chunk-{data.index:05d}.parquet",
                                       meta("turns"))
    return entry


def _chunk_ok(out: Path, entry: Mapping[str, Any]) -> bool:
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
        if rel.endswith(fileio.TMP_SUFFIX) and _expected_name(config, rel[:-4]):
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
        leftover = fileio.tmp_path(Path(MANIFEST)).name
        foreign = [p for p in run_files(out) if p != leftover]
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
    (out / fileio.tmp_path(Path(MANIFEST)).name).unlink(missing_ok=True)
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


def stored_config(manifest: Mapping[str, Any]) -> dict[str, Any]:
    """A manifest's run configuration; runs from before variants existed used the defaults."""
    return {"variants": C.default_variants(), **manifest.get("config", {})}


def read_manifest(out: Path) -> dict[str, Any]:
    mpath = Path(out) / MANIFEST
    try:
        manifest = json.loads(mpath.read_text())
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
    return manifest


def _execute(jobs: Iterable[ChunkJob], n_jobs: int) -> Iterator[ChunkData]:
    """The chunks' tables, as they finish, on the backend ``workers.using`` chose."""
    from bonfire_sim.workers import local

    if local(n_jobs):
        for job in jobs:
            yield run_one(job)
        return
    from joblib import delayed

    from bonfire_sim.workers import pool

    yield from pool(n_jobs, return_as="generator_unordered", pre_dispatch="2*n_jobs")(
        delayed(run_one)(j) for j in jobs)


def run(config: RunConfig, out: str | Path, *, jobs: int = 1, resume: bool = False,
        backend: str | None = None, scheduler: str | None = None,
        progress: Callable[[int, int], None] | None = None,
        status: Callable[[str], None] | None = None,
        move_timeout: float | None = None) -> Path:
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
    """
    from bonfire_sim.workers import check_backend, using

    out = Path(out)
    n_jobs = resolve_jobs(jobs)
    move_timeout = check_move_timeout(move_timeout)
    check_backend(backend, scheduler)
    if backend == "dask" and scheduler:
        check_scheduler(scheduler)  # before anything is created
    fingerprint = engine_fingerprint()
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
    done = {int(k): v for k, v in manifest["chunks"].items() if _chunk_ok(out, v)}
    manifest["chunks"] = {str(k): v for k, v in done.items()}
    n_todo = config.n_chunks - len(done)
    # A generator: a huge run never holds millions of job objects at once.
    resolved = resolve_players(config)
    todo = (ChunkJob(config, i, resolved, move_timeout) for i in range(config.n_chunks)
            if i not in done)
    games_done = sum(v["games"]["rows"] for v in done.values())
    if progress:
        progress(games_done, config.games)
    if manifest.get("complete") and not n_todo and _final_ok(out, manifest):
        chunklog.remove(out)  # left only by a crash between the final write and its removal
        return out
    manifest["complete"] = False
    if n_todo:
        ensure_warm(status)
    for data in _execute(todo, min(n_jobs, max(1, n_todo))):
        entry = write_chunk(out, data, config, fingerprint)
        manifest["chunks"][str(data.index)] = entry
        chunklog.append(out, entry)  # O(1) per chunk; the manifest is rewritten at the end
        games_done += data.games.num_rows
        if progress:
            progress(games_done, config.games)
    _merge(out, manifest)
    return out


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
    """Stream the chunks, in order, into games.parquet and players.parquet."""
    order = sorted(manifest["chunks"], key=int)
    for key in FINAL_TABLES:
        final = out / f"{key}.parquet"
        with fileio.atomic_path(final) as tmp:
            writer = None
            try:
                for k in order:
                    table = pq.read_table(out / manifest["chunks"][k][key]["file"])
                    if writer is None:
                        writer = pq.ParquetWriter(tmp, table.schema, compression="zstd")
                    writer.write_table(table)
            finally:
                if writer is not None:
                    writer.close()
        manifest[key] = {"file": final.name, "sha256": _sha256(final),
                         "rows": sum(manifest["chunks"][k][key]["rows"] for k in order)}
    manifest["chunks"] = {k: manifest["chunks"][k] for k in order}
    manifest["complete"] = True
    _write_json_atomic(manifest, out / MANIFEST)
    chunklog.remove(out)  # after the manifest: a crash in between leaves a log it ignores
