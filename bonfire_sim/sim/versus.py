"""A reference point for the engine's speed: Catanatron, a pure-Python Catan engine.

``bonfire-sim bench catanatron`` times Catanatron's 4-player games between its
random players in the same process and run as our own scenarios, so both see the same
machine load.  Catanatron is optional (``pip install 'bonfire-sim[bench]'``), never a
runtime dependency.  A decision is one action applied by a player, forced ones included
(Catanatron's ``state.actions``; our ``n_decisions``), so decisions/s compare like with
like.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

from bonfire_sim.errors import ConfigError
from bonfire_sim.sim.bench import Scenario, time_slice, warm_up

INSTALL_HINT = "bench catanatron needs Catanatron: pip install 'bonfire-sim[bench]'"


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
    warm_catanatron(seed)
    seconds, decisions = catanatron_slice(games, 1, 0, seed)
    return Speed(games / seconds, decisions / seconds)


def warm_catanatron(seed: int = 0) -> None:
    """One untimed Catanatron game (imports, caches)."""
    catanatron_version()
    from catanatron import Game, RandomPlayer

    Game([RandomPlayer(c) for c in _colours()], seed=seed).play()


def _colours() -> tuple:
    from catanatron import Color

    return (Color.RED, Color.BLUE, Color.WHITE, Color.ORANGE)


def catanatron_slice(games: int, parts: int, part: int, seed: int = 0) -> tuple[float, int]:
    """CPU seconds and decisions of slice ``part`` of ``parts`` of Catanatron's games
    ``seed + 1 .. seed + games`` (a game's seed fixes its dice and its random players)."""
    from catanatron import Game, RandomPlayer

    size = -(-games // parts)
    decisions = 0
    t0 = time.process_time()  # CPU time, like bench's one-core figures
    for i in range(part * size, min((part + 1) * size, games)):
        game = Game([RandomPlayer(c) for c in _colours()], seed=seed + 1 + i)
        game.play()
        decisions += len(game.state.actions)
    return time.process_time() - t0, decisions


@dataclass(frozen=True)
class Versus:
    """Our two scenarios and Catanatron, timed in interleaved rounds."""

    mix: Speed
    random: Speed
    catanatron: Speed
    round_ratios: tuple[tuple[float, float], ...]  # per round: (mix games/s, random dec/s) ratios

    @property
    def games_ratio(self) -> float:
        return self.mix.games_per_s / self.catanatron.games_per_s

    @property
    def decisions_ratio(self) -> float:
        return self.random.decisions_per_s / self.catanatron.decisions_per_s


def versus_catanatron(mix: Scenario, rnd: Scenario, games: int, cat_games: int,
                      rounds: int, tick: Callable[[], None] = lambda: None) -> Versus:
    """Time ``games`` games of each of our scenarios and ``cat_games`` of Catanatron's in
    ``rounds`` interleaved rounds (a slice of each per round).

    Interleaving spreads a drift of the machine's speed (other jobs, clock changes) over
    both engines alike, so the ratio is steadier than one of two back-to-back blocks; the
    totals are the same games as one block each.  ``tick`` is called after each slice.
    """
    catanatron_version()
    rounds = fit_rounds(rounds, games, cat_games)
    warm_up(mix)
    warm_up(rnd)
    warm_catanatron()
    totals = {k: [0.0, 0] for k in ("mix", "random", "cat")}
    ratios = []
    for r in range(rounds):
        part = {}
        for key, sc in (("mix", mix), ("random", rnd)):
            seconds, decisions, _ = time_slice(sc, games, rounds, r)
            part[key] = (len_slice(games, rounds, r), seconds, decisions)
            tick()
        seconds, decisions = catanatron_slice(cat_games, rounds, r)
        part["cat"] = (len_slice(cat_games, rounds, r), seconds, decisions)
        tick()
        for key, (_, seconds, decisions) in part.items():
            totals[key][0] += seconds
            totals[key][1] += decisions
        g = {k: n / sec for k, (n, sec, _) in part.items()}
        d = {k: dec / sec for k, (_, sec, dec) in part.items()}
        ratios.append((g["mix"] / g["cat"], d["random"] / d["cat"]))
    counts = {"mix": games, "random": games, "cat": cat_games}
    speed = {k: Speed(counts[k] / sec, dec / sec) for k, (sec, dec) in totals.items()}
    return Versus(speed["mix"], speed["random"], speed["cat"], tuple(ratios))


def fit_rounds(rounds: int, games: int, cat_games: int) -> int:
    """At most ``rounds`` rounds such that every round times at least one game of each."""
    rounds = max(1, min(rounds, games, cat_games))
    while len_slice(games, rounds, rounds - 1) == 0 or len_slice(cat_games, rounds,
                                                                  rounds - 1) == 0:
        rounds -= 1
    return rounds


def len_slice(n: int, parts: int, part: int) -> int:
    """Items in slice ``part`` of ``parts`` equal slices of ``n`` (the last one shorter)."""
    size = -(-n // parts)
    return max(0, min((part + 1) * size, n) - part * size)
