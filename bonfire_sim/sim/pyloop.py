"""A Python-level game loop for mixing pure-Python plug-ins with built-in strategies.

``play_games_py`` is the batch runner's path for runs with a plug-in seat: the same
signature and output matrices as the compiled ``batch.play_games`` (so the same tables),
one Python round trip per plug-in decision.

``play_mixed(seed, players, seat_specs)`` plays one game: a plug-in seat is asked in Python
(``choose(view, moves)``, see ``strategies.plugin``), a built-in seat through the compiled
``loop.choose`` with its default weight row.  Slower than ``loop.play_out`` (one Python
round trip per decision) but the same rules and the same deal for the same seed.

A plug-in is foreign code: whatever goes wrong in it (an exception, even ``SystemExit`` or
``KeyboardInterrupt``, an answer that is not a legal index, or a move slower than the
optional ``move_timeout``) becomes one ``PluginError`` naming the plug-in, seat, game and
turn, so that it crosses a worker-process boundary as one line, not a remote traceback.
"""

from __future__ import annotations

import contextlib
import signal
import threading
import time
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

import numpy as np

from bonfire_sim.errors import ConfigError, PluginError
from bonfire_sim.rules import layout as L
from bonfire_sim.rules import tables as T
from bonfire_sim.rules.moves import apply_move, legal_moves
from bonfire_sim.rules.setup import new_game, setup_game
from bonfire_sim.sim.batch import TC_A, TC_KIND, _turn_row, record_game
from bonfire_sim.sim.loop import choose, new_buffer
from bonfire_sim.strategies import STRATEGY_IDS
from bonfire_sim.strategies.plugin import StateView, Strategy
from bonfire_sim.strategies.specs import parse_player

SeatSpec = str | Strategy


def resolve_seats(players: int, seat_specs: Sequence[SeatSpec]) -> list[tuple[int, Any]]:
    """Per human seat: (built-in id, weight row) or (-1, plug-in object)."""
    if len(seat_specs) != players:
        raise ConfigError(f"give one strategy per seat ({players}), got {len(seat_specs)}")
    seats: list[tuple[int, Any]] = []
    for spec in seat_specs:
        if isinstance(spec, str):
            player = parse_player(spec)
            seats.append((player.sid, player.weight_row()) if player.compiled
                         else (-1, player.load()))
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
    *,
    move_timeout: float | None = None,
    names: Sequence[str] | None = None,
) -> np.ndarray:
    """Play one game; seat k uses ``seat_specs[k]`` (a built-in name, ``module:Attr`` or a
    strategy object).  Returns the final state vector.  ``move_timeout``: seconds a plug-in
    may take per move (None: no limit).  ``names``: the seats' player specs, for errors
    (default: the specs that are strings)."""
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
            spec = seat_specs[seat] if names is None else names[seat]
            i = _plugin_choice(impl, spec if isinstance(spec, str) else None, s, p, buf, n,
                               f"seat {seat}, seed {seed}", move_timeout)
        apply_move(s, p, buf[int(i)])
    return s


class _MoveTimeout(BaseException):
    """Raised by the move clock inside a plug-in (a BaseException, so that a plug-in's own
    ``except Exception`` cannot swallow it)."""


@contextlib.contextmanager
def _move_clock(limit: float | None) -> Iterator[None]:
    """Raise ``_MoveTimeout`` once ``limit`` seconds have passed (None: no limit).

    SIGALRM interrupts a plug-in that sleeps or loops in Python.  Signals reach only the
    main thread (where the CLI and loky workers run plug-ins); elsewhere a slow move is
    caught when it returns.
    """
    if not limit:
        yield
        return
    if threading.current_thread() is not threading.main_thread() or not hasattr(
            signal, "setitimer"):
        start = time.monotonic()
        yield
        if time.monotonic() - start > limit:
            raise _MoveTimeout
        return

    def on_alarm(signum: int, frame: Any) -> None:
        raise _MoveTimeout

    previous = signal.signal(signal.SIGALRM, on_alarm)
    signal.setitimer(signal.ITIMER_REAL, limit)
    try:
        yield
    finally:
        try:
            signal.setitimer(signal.ITIMER_REAL, 0)
        finally:
            signal.signal(signal.SIGALRM, previous)


def _plugin_choice(impl: Any, spec: str | None, s: np.ndarray, p: np.ndarray,
                   buf: np.ndarray, n: int, seat_at: str,
                   move_timeout: float | None = None) -> int:
    """The plug-in's move index; any failure is a PluginError naming the plug-in (its spec
    when it has one), the seat, the seed or game, the turn and the phase."""
    moves = buf[:n].copy()
    moves.setflags(write=False)
    name = f"{type(impl).__name__}.choose"
    name = f"{spec!r} ({name})" if spec else name
    where = (f"{seat_at}, turn {int(s[L.G_TURN])}, phase "
             f"{L.PHASE_NAMES[int(s[L.G_PHASE])]}, {n} legal moves")
    try:
        with _move_clock(move_timeout):
            i = impl.choose(StateView(s, p), moves)
    except _MoveTimeout:
        raise PluginError(f"plug-in {name} took longer than the move time limit of "
                          f"{move_timeout:g} s at {where}") from None
    except BaseException as error:  # SystemExit, KeyboardInterrupt too: the plug-in's own
        raise PluginError(f"plug-in {name} failed at {where}: "
                          f"{type(error).__name__}: {error}") from None
    if isinstance(i, bool) or not isinstance(i, int | np.integer) or not 0 <= i < n:
        raise PluginError(f"plug-in {name} returned {i!r} at {where}; "
                          f"expected an index 0..{n - 1}")
    return int(i)


def play_games_py(template, p, humans, rng_game, rng_strat, seat_strategy, seat_weights,
                  seat_plugins, log_turns, out, *, seat_specs=None, game_ids=None,
                  move_timeout=None) -> int:
    """``batch.play_games`` in Python: seats with ``seat_strategy[g, seat] < 0`` are played
    by the plug-in object ``seat_plugins[g][seat]``; the others by the compiled strategies.
    Fills the same ``batch.Outputs`` and returns the number of turn-log rows.

    For errors: ``seat_specs[g][seat]`` names a seat's plug-in and ``game_ids[g]`` the game
    (default: the row); ``move_timeout`` as for ``play_mixed``."""
    buf = new_buffer()
    turns, turn_game = out.turns, out.turn_game
    trow = 0
    for gi in range(rng_game.shape[0]):
        s = template.copy()
        s[L.G_RNG] = rng_game[gi]
        s[L.G_RNG_STRAT] = rng_strat[gi]
        setup_game(s, p, humans)
        while s[L.G_OVER] == 0:
            n = legal_moves(s, p, buf)
            seat = int(s[L.G_CUR])
            sid = int(seat_strategy[gi, seat])
            if n == 1:
                i = 0
            elif sid >= 0:
                i = int(choose(s, p, buf, n, sid, seat_weights[gi, seat]))
            else:
                i = _plugin_choice(
                    seat_plugins[gi][seat], None if seat_specs is None else seat_specs[gi][seat],
                    s, p, buf, n, f"seat {seat}, game "
                    f"{gi if game_ids is None else int(game_ids[gi])}", move_timeout)
            kind = buf[i, 0]
            ph = s[L.G_PHASE]
            if log_turns[gi] == 1 and trow < turns.shape[0] and (
                    ph == L.PH_MAIN or (ph == L.PH_POST and kind == L.M_BONUS)):
                _turn_row(s, trow, turns)
                turns[trow, TC_KIND] = kind
                turns[trow, TC_A] = buf[i, 1]
                turn_game[trow] = gi
                trow += 1
            apply_move(s, p, buf[i])
        record_game(s, p, gi, out)
    return trow
