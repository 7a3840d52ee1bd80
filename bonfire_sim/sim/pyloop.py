"""A Python-level game loop for mixing pure-Python plug-ins with built-in strategies.

``play_mixed(seed, players, seat_specs)`` plays one game: a plug-in seat is asked in Python
(``choose(view, moves)``, see ``strategies.plugin``), a built-in seat through the compiled
``loop.choose`` with its default weight row.  Slower than ``loop.play_out`` (one Python
round trip per decision) but the same rules and the same deal for the same seed.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from bonfire_sim.errors import ConfigError, PluginError
from bonfire_sim.rules import layout as L
from bonfire_sim.rules import tables as T
from bonfire_sim.rules.moves import apply_move, legal_moves
from bonfire_sim.rules.setup import new_game
from bonfire_sim.sim.loop import choose, new_buffer
from strategies import STRATEGY_IDS, strategy_id, weights_for
from strategies.plugin import StateView, Strategy, is_plugin_spec, load_plugin

SeatSpec = str | Strategy


def resolve_seats(players: int, seat_specs: Sequence[SeatSpec]) -> list[tuple[int, Any]]:
    """Per human seat: (built-in id, weight row) or (-1, plug-in object)."""
    if len(seat_specs) != players:
        raise ConfigError(f"give one strategy per seat ({players}), got {len(seat_specs)}")
    seats: list[tuple[int, Any]] = []
    for spec in seat_specs:
        if isinstance(spec, str) and not is_plugin_spec(spec):
            try:
                seats.append((strategy_id(spec), weights_for(spec)))
            except ValueError as error:
                raise ConfigError(str(error)) from None
        elif isinstance(spec, str):
            seats.append((-1, load_plugin(spec)))
        elif callable(getattr(spec, "choose", None)):
            seats.append((-1, spec))
        else:
            raise ConfigError(f"{spec!r} is neither a strategy name, a plug-in path nor a "
                              "strategy object")
    return seats


def play_mixed(
    seed: int,
    players: int,
    seat_specs: Sequence[SeatSpec],
    params: np.ndarray | Mapping[str, Any] | None = None,
) -> np.ndarray:
    """Play one game; seat k uses ``seat_specs[k]`` (a built-in name, ``module:Attr`` or a
    strategy object).  Returns the final state vector."""
    p = T.build_params(params) if isinstance(params, Mapping) else (
        T.DEFAULT_PARAMS if params is None else params)
    seats = resolve_seats(players, seat_specs)
    s = new_game(int(seed), players, p)
    buf = new_buffer()
    zero = np.zeros(64, np.float64)
    while s[L.G_OVER] == 0:
        n = legal_moves(s, p, buf)
        seat = int(s[L.G_CUR])
        sid, impl = seats[seat] if seat < players else (STRATEGY_IDS["random"], zero)
        if n == 1:
            i = 0
        elif sid >= 0:
            i = int(choose(s, p, buf, n, sid, impl))
        else:
            moves = buf[:n].copy()
            moves.setflags(write=False)
            where = (f"seat {seat}, seed {seed}, turn {int(s[L.G_TURN])}, phase "
                     f"{L.PHASE_NAMES[int(s[L.G_PHASE])]}, {n} legal moves")
            try:
                i = impl.choose(StateView(s, p), moves)
            except Exception as error:  # the plug-in's own bug: say where it happened
                raise PluginError(f"plug-in {type(impl).__name__}.choose failed at {where}: "
                                  f"{type(error).__name__}: {error}") from error
            if isinstance(i, bool) or not isinstance(i, int | np.integer) or not 0 <= i < n:
                raise PluginError(
                    f"plug-in {type(impl).__name__}.choose returned {i!r} at {where}; "
                    f"expected an index 0..{n - 1}"
                )
        apply_move(s, p, buf[int(i)])
    return s
