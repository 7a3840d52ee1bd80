"""Any game of a run, exactly: its seed, seats, strategies and overrides from the manifest.

Game ``i`` of a run is deal ``i // rotations`` in seat rotation ``i % rotations`` (see
``runner``); ``game_spec`` recovers what ``play`` needs to replay it move by move.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bonfire_sim import strategies as S
from bonfire_sim.errors import ConfigError, DataError
from bonfire_sim.rules.rng import game_seed
from bonfire_sim.sim.chunk import seat_names
from bonfire_sim.sim.play import is_search_spec
from bonfire_sim.sim.record import GameRecord
from bonfire_sim.sim.runconfig import SEED_MASK, RunConfig
from bonfire_sim.sim.runner import read_manifest, stored_config


@dataclass(frozen=True)
class GameSpec:
    """What determines game ``game_id`` of a run."""

    game_id: int
    deal: int
    rotation: int
    seed: int  # the game's own seed (``play(seed, ...)``), not the run's master seed
    players: int
    strategies: tuple[str, ...]  # per human seat
    overrides: dict[str, Any]
    variants: dict[str, str]  # the readings of uncertain facts the run used


def run_config(manifest: dict[str, Any], where: str | Path = "the run") -> RunConfig:
    """The ``RunConfig`` recorded in a run manifest.  Its player specs are checked by their
    text only: opening a run never imports a plug-in or opens a weights file it names."""
    raw = stored_config(manifest)
    names = {f.name for f in dataclasses.fields(RunConfig)}
    cfg = {k: v for k, v in raw.items() if k in names}
    cfg["strategies"] = tuple(cfg.get("strategies", ()))
    players = manifest.get("seat_players")
    try:
        return RunConfig(**cfg, resolve=False,
                         stored_players=players if isinstance(players, dict) else {})
    except (TypeError, ValueError) as e:
        raise DataError(f"{where}: the manifest holds no usable configuration ({e})") from None


def game_spec(run_dir: str | Path, game_id: int) -> GameSpec:
    """The spec of game ``game_id`` of the run in ``run_dir`` (``ConfigError`` if absent, or
    if a seat was not a built-in strategy, which ``play`` cannot replay)."""
    config = run_config(read_manifest(Path(run_dir)), run_dir)
    if not 0 <= game_id < config.games:
        raise ConfigError(f"game {game_id} is not in {run_dir}: its games are "
                          f"0..{config.games - 1}")
    deal, rotation = divmod(game_id, config.rotations)
    humans = tuple(n for n in seat_names(config, rotation) if n != S.TOM)
    # play() takes built-in names and search budgets (checked by their text); a plug-in or
    # a weights file named by data is never imported or opened
    other = [n for n in humans if n not in S.STRATEGY_IDS and not is_search_spec(n)]
    if other:
        raise ConfigError(f"game {game_id} of {run_dir} was played by {other[0]!r}; replay "
                          f"--run replays games of built-in strategies and search budgets "
                          f"only")
    return GameSpec(game_id, deal, rotation, game_seed(config.seed, deal) & SEED_MASK,
                    config.players, humans, dict(config.overrides), dict(config.variants))


def replay_game(run_dir: str | Path, game_id: int) -> GameRecord:
    """Play game ``game_id`` of a run again, traced (identical to the run's result)."""
    from bonfire_sim.sim.play import play

    spec = game_spec(run_dir, game_id)
    return play(spec.seed, spec.players, spec.strategies, spec.overrides,
                variants=spec.variants)
