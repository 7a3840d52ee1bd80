"""A reference point for the engine's speed: Catanatron, a pure-Python Catan engine.

``bonfire-sim bench --versus-catanatron`` times Catanatron's 4-player games between its
random players in the same process and run as our own scenarios, so both see the same
machine load.  Catanatron is optional (``pip install 'bonfire-sim[bench]'``), never a
runtime dependency.  A decision is one action applied by a player, forced ones included
(Catanatron's ``state.actions``; our ``n_decisions``), so decisions/s compare like with
like.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from bonfire_sim.errors import ConfigError

INSTALL_HINT = "--versus-catanatron needs Catanatron: pip install 'bonfire-sim[bench]'"


@dataclass(frozen=True)
class Speed:
    """Games and decisions per second of one measurement."""

    games_per_s: float
    decisions_per_s: float


def catanatron_version() -> str:
    """The installed Catanatron's version; ConfigError with the install hint if missing."""
    try:
        from importlib.metadata import version

        import catanatron  # noqa: F401
    except ImportError:
        raise ConfigError(INSTALL_HINT) from None
    return version("catanatron")


def time_catanatron(games: int, seed: int = 0) -> Speed:
    """Games/s and decisions/s of Catanatron's 4-player random games on this core."""
    catanatron_version()
    from catanatron import Color, Game, RandomPlayer

    colours = (Color.RED, Color.BLUE, Color.WHITE, Color.ORANGE)
    Game([RandomPlayer(c) for c in colours], seed=seed).play()  # warm-up (imports, caches)
    decisions = 0
    t0 = time.process_time()  # CPU time, like bench's one-core figures
    for i in range(games):
        game = Game([RandomPlayer(c) for c in colours], seed=seed + 1 + i)
        game.play()
        decisions += len(game.state.actions)
    seconds = time.process_time() - t0
    return Speed(games / seconds, decisions / seconds)
