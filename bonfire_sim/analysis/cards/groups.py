"""Runs per player count, one game each: the grouping the survey and the price loop share.

Runs of one player count are pooled only when they play the same game (players,
variants, overrides, seat rotation); the price loop also needs every count to print the
same cards, since one printed value serves them all.
"""

from __future__ import annotations

from collections.abc import Sequence

from bonfire_sim.analysis.runs import Run
from bonfire_sim.errors import DataError


def group_runs(runs: Sequence[Run]) -> dict[int, list[Run]]:
    """Runs per player count; refuse runs of one count that play different games, and
    counts that print different cards (one printed value must serve them all)."""
    groups: dict[int, list[Run]] = {}
    for r in runs:
        groups.setdefault(r.config.players, []).append(r)
    first = runs[0].config
    for n, rs in groups.items():
        check_one_game(rs, "re-price them in separate calls")
        base = rs[0].config
        for what, a, b in (("variants", dict(base.variants), dict(first.variants)),
                           ("overrides", dict(base.overrides), dict(first.overrides))):
            if a != b:
                raise DataError(f"the {n}-player runs differ from {runs[0].label} in their "
                                f"{what}: one printed value cannot serve both; re-price "
                                f"them in separate calls")
    return dict(sorted(groups.items()))


def check_one_game(runs: Sequence[Run], advice: str) -> None:
    """Refuse runs of one player count that play different games (players, variants,
    overrides, seat rotation): their forks would describe two games at once."""
    base = runs[0]
    for r in runs[1:]:
        c, b = r.config, base.config
        for what, x, y in (("players", c.strategies, b.strategies),
                           ("variants", dict(c.variants), dict(b.variants)),
                           ("overrides", dict(c.overrides), dict(b.overrides)),
                           ("seat rotation", c.seat_rotation, b.seat_rotation)):
            if x != y:
                raise DataError(f"runs {base.label} and {r.label} ({c.players} players) "
                                f"differ in their {what}; {advice}")
