"""One chunk of a run: play its games (pure: the result depends only on the job) and
return its tables."""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pyarrow as pa

from bonfire_sim import strategies as S
from bonfire_sim.rules import layout as L
from bonfire_sim.rules import tables as T
from bonfire_sim.rules.rng import game_seed, seed_words
from bonfire_sim.rules.state import blank_state
from bonfire_sim.sim.batch import (
    MAX_TURN_ROWS_PER_GAME,
    new_outputs,
    play_games,
)
from bonfire_sim.sim.frames import games_table, players_table, turns_table
from bonfire_sim.sim.loop import W
from bonfire_sim.sim.runconfig import SEED_MASK, RunConfig, log_fraction
from bonfire_sim.strategies.specs import Player, parse_player, stored_player


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
    out = new_outputs(g, int(keep.sum()) * MAX_TURN_ROWS_PER_GAME)
    p = T.build_params(c.overrides, c.variants)
    if plugins:  # the Python loop (same tables); only plug-in decisions leave numba
        from bonfire_sim.sim.pyloop import play_games_py

        n_turn_rows = play_games_py(blank_state(L.NP), p, c.players, rng_game, rng_strat, sid,
                                    wts, seat_plugins, keep, out, seat_specs=names,
                                    game_ids=ids, move_timeout=job.move_timeout)
    else:
        n_turn_rows = play_games(blank_state(L.NP), p, c.players, rng_game, rng_strat, sid,
                                 wts, keep, out)
    nseats = 2 if c.players == 1 else c.players
    gt = games_table(ids, deals, rots, seeds, c.players, out.games)
    pt = players_table(ids, names, nseats, out.players, out.tasks, out.gnomes,
                       out.abilities)
    tt = (turns_table(ids, out.turns[:n_turn_rows], out.turn_game[:n_turn_rows])
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

