"""An example plug-in player: keep it, copy it, change it.

A plug-in is any class with ``choose(self, view, moves) -> int`` (the index of the move it
plays).  ``view`` is a read-only ``bonfire_sim.strategies.plugin.StateView`` of the game for
the acting seat; ``moves`` is an (n, 5) array of the legal moves, one row ``[kind, a, b, c,
d]`` each (the kinds are ``bonfire_sim.rules.layout.M_*``; ``bonfire_sim.engine.describe_move``
names a row).  Play it from the repository root, whose folder ``strategies`` Python finds on
``PYTHONPATH=.``::

    PYTHONPATH=. bonfire-sim run --players 2 --games 4 \\
        --strategies strategies.example_player:Firekeeper,steady --out runs/mine

Plug-in seats are played on the pure-Python loop (much slower than a built-in), so start
with a few games.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from bonfire_sim.rules import layout as L

# The move kinds this player prefers, most wanted first: light a fulfilled task, take a
# new task, walk a guardian, recruit a gnome, feed the Great Bonfire.  Anything else (pay,
# fate tiles, the end of the turn) falls back to the first legal row.
PREFERENCE = (L.M_IGNITE, L.M_TASK, L.M_MOVE_GUARD, L.M_GNOME, L.M_FIRE)


class Firekeeper:
    """Plays the most preferred kind of move that is legal (``PREFERENCE``); among moves
    of that kind, the first.  Deterministic: the same game gives the same moves."""

    name = "firekeeper"

    def choose(self, view: Any, moves: np.ndarray) -> int:
        """Index into ``moves`` of the move to play."""
        kinds = moves[:, 0]
        for kind in PREFERENCE:
            hits = np.flatnonzero(kinds == kind)
            if len(hits):
                return int(hits[0])
        return 0
