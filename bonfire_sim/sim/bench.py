"""Fixed benchmark scenarios: games/s of the engine in-process and of the full runner.

Each scenario is timed after a warm-up chunk (so numba compilation is not counted).
One-core figures are CPU time of this process (on an idle machine the same as wall-clock
time; on a busy one they still measure the engine, not the neighbours); the runner's are
wall-clock time.
"in-process" = ``run_one`` on one core (play + Arrow tables, no files); "runner" =
``bonfire-sim run`` end to end (Parquet chunks, manifest, merge) with ``jobs`` workers.
"""

from __future__ import annotations

import os
import tempfile
import time
from dataclasses import dataclass

import pyarrow.compute as pc

from bonfire_sim.sim.chunk import ChunkData, ChunkJob, run_one
from bonfire_sim.sim.runconfig import RunConfig, default_mix
from bonfire_sim.sim.runner import run


@dataclass(frozen=True)
class Scenario:
    name: str
    players: int
    strategies: tuple[str, ...]
    turn_log: str


def scenarios() -> list[Scenario]:
    """Random and default mix; 2 and 4 players; turn log off and on."""
    out = []
    for label, mix in (("random", ("random",)), ("default-mix", None)):
        for players in (2, 4):
            names = mix or default_mix(players)
            for log in ("none", "all"):
                out.append(Scenario(f"{label} {players}p turn-log={log}", players,
                                    tuple(names), log))
    return out


def strategy_scenarios(players: int = 4) -> list[Scenario]:
    """Self-play of every scripted built-in (the strategy in all seats), turn log off.

    The search player is left out: it is thousands of times slower (time it with a small
    ``bonfire-sim run``)."""
    from bonfire_sim.strategies import SEARCH_ID, STRATEGY_IDS

    return [Scenario(f"{name} self-play {players}p", players, (name,), "none")
            for name in sorted(STRATEGY_IDS) if STRATEGY_IDS[name] != SEARCH_ID]


@dataclass(frozen=True)
class Timing:
    games_per_s: float
    stalled: float  # share of games that ended without the countdown
    mean_winning_score: float
    decisions_per_s: float = 0.0  # moves applied per second (every seat, forced ones too)


def _timed(sc: Scenario, games: int, seed: int) -> tuple[float, float, ChunkData]:
    warm_up(sc)
    seconds, decisions, data = time_slice(sc, games, 1, 0, seed)
    return games / seconds, decisions / seconds, data


def warm_up(sc: Scenario) -> None:
    """Play a few games of ``sc`` untimed (compilation, imports, first-call caches)."""
    run_one(ChunkJob(RunConfig(games=20, players=sc.players, strategies=sc.strategies,
                               turn_log=sc.turn_log, chunk_size=20), 0))


def time_slice(sc: Scenario, games: int, parts: int, part: int,
               seed: int = 12345) -> tuple[float, int, ChunkData]:
    """CPU seconds and decisions of part ``part`` of ``parts`` equal slices of ``games``
    games (the slices together are exactly the games of one ``parts=1`` call)."""
    size = -(-games // parts)
    cfg = RunConfig(games=games, players=sc.players, strategies=sc.strategies, seed=seed,
                    turn_log=sc.turn_log, chunk_size=size)
    t0 = time.process_time()  # CPU time: one core's speed even on a busy machine
    data = run_one(ChunkJob(cfg, part))
    seconds = time.process_time() - t0
    return seconds, pc.sum(data.games.column("n_decisions")).as_py(), data


def time_in_process(sc: Scenario, games: int, seed: int = 12345) -> Timing:
    """Games and decisions per second of ``run_one`` on this core."""
    return time_self_play(sc, games, seed)


def time_self_play(sc: Scenario, games: int, seed: int = 12345) -> Timing:
    """Games per second of ``run_one`` on this core, with the games' stall share and mean
    winning score (what the speed was measured on)."""
    rate, decisions, data = _timed(sc, games, seed)
    ends = data.games.column("end_reason").to_pylist()
    won = data.players.filter(pc.equal(data.players.column("won"), True))
    return Timing(rate, ends.count("stalled") / len(ends),
                  pc.mean(won.column("score")).as_py(), decisions)


def time_runner(sc: Scenario, games: int, jobs: int, seed: int = 12345) -> float:
    """Games per second of the whole runner (files included) with ``jobs`` workers."""
    cfg = RunConfig(games=games, players=sc.players, strategies=sc.strategies, seed=seed,
                    turn_log=sc.turn_log, chunk_size=max(100, games // (8 * jobs)))
    with tempfile.TemporaryDirectory() as tmp:
        warm = RunConfig(games=2 * jobs, players=sc.players, strategies=sc.strategies,
                         chunk_size=1, turn_log=sc.turn_log)
        run(warm, os.path.join(tmp, "warm"), jobs=jobs)
        t0 = time.perf_counter()
        run(cfg, os.path.join(tmp, "run"), jobs=jobs)
        return games / (time.perf_counter() - t0)


@dataclass(frozen=True)
class SearchTiming:
    players: int
    games: int
    ref_games_per_s: float  # search_ref (the flat search) in seat 0, tuned elsewhere
    new_games_per_s: float  # search, same deals, same seat

    @property
    def ratio(self) -> float:
        return self.new_games_per_s / self.ref_games_per_s


def time_search(players: int, games: int, rounds: int = 2,
                seed: int = 12345) -> SearchTiming:
    """Games/s on one core (CPU time) of ``search`` and of ``search_ref`` (its flat
    predecessor), each in seat 0 with ``tuned`` in the other seats, on the same ``games``
    deals.  The two are interleaved in ``rounds`` slices so that a change of machine load
    during the measurement touches both alike; compilation is excluded (a warm-up game)."""
    from bonfire_sim.strategies import SEARCH_POLICY
    from bonfire_sim.strategies import search as SE

    scs = {name: Scenario(f"{name} {players}p", players,
                          (name,) + (SEARCH_POLICY,) * (players - 1), "none")
           for name in (SE.REF_NAME, SE.NAME)}
    for sc in scs.values():
        run_one(ChunkJob(RunConfig(games=1, players=players, strategies=sc.strategies,
                                   seed=seed + 10**6, chunk_size=1), 0))
    rounds = max(1, min(rounds, games))
    out = dict.fromkeys(scs, 0.0)
    for r in range(rounds):
        for name, sc in scs.items():
            seconds, _, _ = time_slice(sc, games, rounds, r, seed)
            out[name] += seconds
    return SearchTiming(players, games, games / out[SE.REF_NAME], games / out[SE.NAME])


@dataclass(frozen=True)
class ManifestTiming:
    chunks: int
    append_ms: float  # one chunk's log append (what the runner does per chunk)
    rewrite_ms: float  # rewriting the whole manifest (what it did before the chunk log)


def _fake_entry(index: int) -> dict[str, object]:
    """A chunk entry shaped like the runner's (three files with rows and checksums)."""
    def f(name: str) -> dict[str, object]:
        return {"file": name, "rows": 500, "sha256": f"{index:064x}"}
    return {"index": index, "games": f(f"chunks/games-{index:05d}.parquet"),
            "players": f(f"chunks/players-{index:05d}.parquet"),
            "turns": f(f"turns/chunk-{index:05d}.parquet")}


def time_manifest_updates(sizes: tuple[int, ...] = (100, 1_000, 20_000),
                          sample: int = 200) -> list[ManifestTiming]:
    """Wall-clock time of one manifest update when a run already holds N chunks.

    Appends N chunk entries to a chunk log in a scratch directory and times the last
    ``sample`` appends; then times ``sample`` full rewrites of a manifest listing N
    entries (the old per-chunk update) for comparison.  Both fsync, as the runner does.
    """
    from bonfire_sim.infra import fileio
    from bonfire_sim.sim import chunklog

    out = []
    for n in sizes:
        with tempfile.TemporaryDirectory() as tmp:
            folder = os.path.join(tmp, "run")
            os.mkdir(folder)
            from pathlib import Path

            path = Path(folder)
            k = min(sample, n)
            for i in range(n - k):
                chunklog.append(path, _fake_entry(i))
            t0 = time.perf_counter()
            for i in range(n - k, n):
                chunklog.append(path, _fake_entry(i))
            append = (time.perf_counter() - t0) / k
            manifest = {"chunks": chunklog.read(path), "complete": False}
            reps = max(1, min(k, 20))
            t0 = time.perf_counter()
            for _ in range(reps):
                fileio.write_json(path / "manifest.json", manifest)
            rewrite = (time.perf_counter() - t0) / reps
        out.append(ManifestTiming(n, 1000 * append, 1000 * rewrite))
    return out
