"""A run's configuration: everything that determines its results (workers and backend do
not)."""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import InitVar, asdict, dataclass, field
from typing import Any

from bonfire_sim.config import RUN_FIELDS, check_overrides, check_value
from bonfire_sim.errors import (
    ConfigError,
    PluginError,
)
from bonfire_sim.lineup import default_seats
from bonfire_sim.rules import components as C
from bonfire_sim.rules import tables as T
from bonfire_sim.strategies.specs import check_stored_spec, parse_player

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
    """The default seats (``lineup.default_seats``): the default mix cycled over the seats,
    or the recommended solo player against Tom."""
    return default_seats(players)


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

