"""Scripted strategies, registered by name.

A built-in strategy is a numba function ``choose(s, p, moves, n) -> index`` that runs inside
the compiled game loop; ``STRATEGY_IDS`` maps its name to the integer the loop dispatches
on.  ``describe()`` lists them for ``bonfire-sim strategies``.
"""

from __future__ import annotations

from strategies import random_player

BUILTIN = {
    random_player.NAME: (0, random_player.DESCRIPTION),
}
STRATEGY_IDS = {name: sid for name, (sid, _) in BUILTIN.items()}
TOM = "tom"  # the solo automaton's row in players.parquet; not selectable for a seat


def strategy_id(name: str) -> int:
    """Integer id of a built-in strategy, with an error that lists the valid names."""
    try:
        return STRATEGY_IDS[name]
    except KeyError:
        raise ValueError(
            f"unknown strategy {name!r}; choose from {', '.join(sorted(STRATEGY_IDS))}"
        ) from None


def describe() -> list[tuple[str, str]]:
    """(name, one-line description) of every built-in strategy."""
    return [(name, desc) for name, (_, desc) in sorted(BUILTIN.items())]
