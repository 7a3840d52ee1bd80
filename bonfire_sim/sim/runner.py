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

import hashlib
import json
import math
import os
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

import strategies as S
from bonfire_sim import __version__
from bonfire_sim.errors import ConfigError, DataError
from bonfire_sim.rules import layout as L
from bonfire_sim.rules import tables as T
from bonfire_sim.rules.rng import game_seed, seed_words
from bonfire_sim.rules.state import blank_state
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
from strategies.specs import Player, parse_player

MANIFEST = "manifest.json"
CHUNKS = "chunks"
TURNS = "turns"
SEED_MASK = (1 << 63) - 1


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

    def __post_init__(self) -> None:
        if not 1 <= self.players <= 4:
            raise ConfigError(f"players must be 1..4 (1 = solo against Tom), got {self.players}")
        if self.games < 1:
            raise ConfigError(f"games must be >= 1, got {self.games}")
        if self.seed < 0:
            raise ConfigError(f"seed must be >= 0, got {self.seed}")
        if self.chunk_size < 1:
            raise ConfigError(f"chunk_size must be >= 1, got {self.chunk_size}")
        if self.seat_rotation and self.games % self.players:
            raise ConfigError(
                f"--seat-rotation plays every deal in all {self.players} seat rotations: "
                f"games must be a multiple of {self.players} (e.g. "
                f"{self.games + self.players - self.games % self.players})")
        log_fraction(self.turn_log)
        names = self.strategies or default_mix(self.players)
        if len(names) == 1:
            names = names * self.players
        if len(names) != self.players:
            raise ConfigError(
                f"{len(names)} strategies for {self.players} seats: give one per seat or one "
                f"for all")
        for n in names:
            parse_player(n)  # ConfigError for an unknown player spec
        object.__setattr__(self, "strategies", tuple(names))
        T.build_params(self.overrides)  # validates overrides

    @property
    def rotations(self) -> int:
        return self.players if self.seat_rotation else 1

    @property
    def n_chunks(self) -> int:
        return math.ceil(self.games / self.chunk_size)

    def to_json(self) -> dict[str, Any]:
        d = asdict(self)
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
    names = [seat_names(c, int(r)) for r in rots]
    sid = np.zeros((g, L.NP), np.int64)
    wts = np.zeros((g, L.NP, W), np.float64)
    resolved = job.players or resolve_players(c)
    plugins: dict[str, Any] = {}
    seat_plugins: list[list[Any]] = [[None] * L.NP for _ in range(g)]
    for gi, seat_list in enumerate(names):
        for seat, name in enumerate(seat_list):
            if name == S.TOM:
                continue
            player = resolved[name]
            sid[gi, seat] = player.sid
            wts[gi, seat] = player.weight_row()
            if not player.compiled:
                if name not in plugins:
                    plugins[name] = player.load()
                seat_plugins[gi][seat] = plugins[name]
    games = np.zeros((g, len(GAME_COLS)), np.int64)
    players = np.zeros((g, L.NP, len(PLAYER_COLS)), np.int64)
    tasks = np.zeros((g, L.NP, TASK_W), np.int64)
    gnomes = np.zeros((g, L.NP, L.NGNOME), np.int64)
    abilities = np.zeros((g, L.NP, 28), np.int64)
    cap = int(keep.sum()) * MAX_TURN_ROWS_PER_GAME
    turns = np.zeros((cap, len(TURN_COLS)), np.int64)
    turn_game = np.zeros(cap, np.int64)
    p = T.build_params(c.overrides)
    if plugins:  # the Python loop (same tables); only plug-in decisions leave numba
        from bonfire_sim.sim.pyloop import play_games_py

        n_turn_rows = play_games_py(blank_state(L.NP), p, c.players, rng_game, rng_strat, sid,
                                    wts, seat_plugins, keep, games, players, tasks, gnomes,
                                    abilities, turns, turn_game)
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
    return {name: parse_player(name) for name in dict.fromkeys(config.strategies)}


def player_records(config: RunConfig) -> dict[str, Any]:
    """The manifest's ``seat_players`` entry: each spec's exact player (weights, file hash)."""
    return {name: pl.record() for name, pl in resolve_players(config).items()}


# ---- files --------------------------------------------------------------------------
def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def _write_atomic(table: pa.Table, path: Path) -> dict[str, Any]:
    tmp = path.with_name(path.name + ".tmp")
    pq.write_table(table, tmp, compression="zstd")
    os.replace(tmp, path)
    return {"file": str(path.relative_to(path.parent.parent)), "rows": table.num_rows,
            "sha256": _sha256(path)}


def _write_json_atomic(obj: Any, path: Path) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(obj, indent=1, sort_keys=True))
    os.replace(tmp, path)


def write_chunk(out: Path, data: ChunkData) -> dict[str, Any]:
    """Write a chunk's files atomically; return its manifest entry."""
    entry: dict[str, Any] = {"index": data.index}
    entry["games"] = _write_atomic(data.games, out / CHUNKS / f"games-{data.index:05d}.parquet")
    entry["players"] = _write_atomic(data.players,
                                     out / CHUNKS / f"players-{data.index:05d}.parquet")
    if data.turns is not None:
        entry["turns"] = _write_atomic(data.turns, out / TURNS / f"chunk-{data.index:05d}.parquet")
    return entry


def _chunk_ok(out: Path, entry: Mapping[str, Any]) -> bool:
    for key in ("games", "players", "turns"):
        if key in entry:
            f = out / entry[key]["file"]
            if not f.is_file() or _sha256(f) != entry[key]["sha256"]:
                return False
    return True


# ---- the run --------------------------------------------------------------------------
def prepare(out: Path, config: RunConfig, resume: bool) -> dict[str, Any]:
    """Create or reopen the run directory; refuse foreign or mismatched contents."""
    try:
        out.mkdir(parents=True, exist_ok=True)
        (out / CHUNKS).mkdir(exist_ok=True)
        (out / TURNS).mkdir(exist_ok=True)
    except OSError as e:
        raise ConfigError(f"cannot create run directory {out}: {e.strerror}") from None
    if not os.access(out, os.W_OK):
        raise ConfigError(f"run directory {out} is not writable")
    mpath = out / MANIFEST
    records = player_records(config)
    if mpath.exists():
        manifest = read_manifest(out)
        if manifest.get("seat_players", records) != records:
            raise ConfigError(
                f"{out} was played by different players (a weight file changed?); choose "
                f"another --out")
        if manifest["config"] != config.to_json():
            raise ConfigError(
                f"{out} holds a run with a different configuration; choose another --out "
                f"(or repeat that run's exact options with --resume)")
        if not resume and not manifest.get("complete"):
            raise ConfigError(f"{out} holds an unfinished run of this configuration; "
                              f"add --resume to complete it")
        return manifest
    foreign = [p.name for p in out.iterdir() if p.name not in (CHUNKS, TURNS)]
    if foreign or any((out / CHUNKS).iterdir()):
        raise ConfigError(f"{out} is not empty and is not a bonfire_sim run ({foreign[:3]}); "
                          f"choose an empty or new --out")
    manifest = {"format": "bonfire_sim-run", "schema_version": SCHEMA_VERSION,
                "package_version": __version__, "config": config.to_json(),
                "seed": config.seed, "n_chunks": config.n_chunks, "chunks": {},
                "seat_players": records,
                "complete": False, "created": time.strftime("%Y-%m-%dT%H:%M:%S")}
    _write_json_atomic(manifest, mpath)
    return manifest


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
    return manifest


def _execute(jobs: Sequence[ChunkJob], n_jobs: int, backend: str,
             scheduler: str | None) -> Iterator[ChunkData]:
    if n_jobs == 1 and backend == "loky":
        for job in jobs:
            yield run_one(job)
        return
    from joblib import Parallel, delayed, parallel_config

    if backend == "dask":
        try:
            from dask.distributed import Client
        except ImportError:
            raise ConfigError("the dask backend needs: pip install 'bonfire-sim[dist]'") from None
        client = Client(scheduler) if scheduler else Client(processes=True)
        try:
            with parallel_config(backend="dask"):
                yield from Parallel(n_jobs=n_jobs, return_as="generator_unordered")(
                    delayed(run_one)(j) for j in jobs)
        finally:
            client.close()
        return
    yield from Parallel(n_jobs=n_jobs, backend=backend, return_as="generator_unordered")(
        delayed(run_one)(j) for j in jobs)


def run(config: RunConfig, out: str | Path, *, jobs: int = 1, resume: bool = False,
        backend: str = "loky", scheduler: str | None = None,
        progress: Callable[[int, int], None] | None = None) -> Path:
    """Run (or complete) ``config`` into ``out``; returns the run directory.

    ``progress(done_games, total_games)`` is called after every finished chunk.
    """
    out = Path(out)
    manifest = prepare(out, config, resume)
    done = {int(k): v for k, v in manifest["chunks"].items() if _chunk_ok(out, v)}
    manifest["chunks"] = {str(k): v for k, v in done.items()}
    resolved = resolve_players(config)
    todo = [ChunkJob(config, i, resolved) for i in range(config.n_chunks) if i not in done]
    games_done = sum(v["games"]["rows"] for v in done.values())
    if progress:
        progress(games_done, config.games)
    if manifest.get("complete") and not todo:
        return out
    for data in _execute(todo, max(1, jobs), backend, scheduler):
        manifest["chunks"][str(data.index)] = write_chunk(out, data)
        _write_json_atomic(manifest, out / MANIFEST)
        games_done += data.games.num_rows
        if progress:
            progress(games_done, config.games)
    _merge(out, manifest)
    return out


def _merge(out: Path, manifest: dict[str, Any]) -> None:
    """Stream the chunks, in order, into games.parquet and players.parquet."""
    order = sorted(manifest["chunks"], key=int)
    for key, schema_name in (("games", "games"), ("players", "players")):
        final = out / f"{schema_name}.parquet"
        tmp = final.with_name(final.name + ".tmp")
        writer = None
        for k in order:
            table = pq.read_table(out / manifest["chunks"][k][key]["file"])
            if writer is None:
                writer = pq.ParquetWriter(tmp, table.schema, compression="zstd")
            writer.write_table(table)
        if writer is not None:
            writer.close()
            os.replace(tmp, final)
            manifest[key] = {"file": final.name, "sha256": _sha256(final),
                             "rows": sum(manifest["chunks"][k][key]["rows"] for k in order)}
    manifest["complete"] = True
    _write_json_atomic(manifest, out / MANIFEST)
