"""The targets an errata sheet must reach (``bonfire-sim errata``), with their defaults.

A designer changes them in an experiment file's ``[targets]`` table (``config.
TARGET_FIELDS`` checks it): every seat's win share within ``seat_tolerance`` percentage
points of the fair 1/n at 2, 3 and 4 players; every task's worth within ``task_margin``
points of the typical card of its tier; every gnome within ``gnome_margin`` points of the
average gnome; Tom's handicap challenge settling within ``tom_tolerance`` points of the
starting handicap printed for each Tom-deck reading.  A component is changed only where
its target is *missed with confidence* (``flags.flag``: shown beyond the tolerance,
Benjamini-Hochberg at ``alpha``), so the sheet prefers fewer changes.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from typing import Any

from bonfire_sim.analysis import flags as FL
from bonfire_sim.config import TARGET_FIELDS, check_table


@dataclass(frozen=True)
class Targets:
    """What the sheet must reach (see the module docstring); ``alpha``: the false
    discovery rate of "missed with confidence"."""

    seat_tolerance: float = float(TARGET_FIELDS["seat_tolerance"].default)  # pp
    task_margin: float = float(TARGET_FIELDS["task_margin"].default)  # points
    gnome_margin: float = float(TARGET_FIELDS["gnome_margin"].default)  # points
    tom_tolerance: float = float(TARGET_FIELDS["tom_tolerance"].default)  # points
    alpha: float = FL.ALPHA

    @property
    def seat_share(self) -> float:
        """The seat tolerance as a share of the games (1.5 pp -> 0.015)."""
        return self.seat_tolerance / 100.0

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    def lines(self) -> list[tuple[str, str]]:
        """(component, target in words): the sheet's first section."""
        return [
            ("seats", f"every seat wins within {self.seat_tolerance:g} percentage points of "
                      f"the fair 1/n at 2, 3 and 4 players"),
            ("tasks", f"every task's worth within {self.task_margin:g} point(s) of the "
                      f"typical task of its colour, or marked 'change the condition'"),
            ("gnomes", f"every gnome within {self.gnome_margin:g} point(s) of the average "
                       f"gnome of its player count"),
            ("Tom", f"the handicap challenge settles within {self.tom_tolerance:g} point(s) "
                    f"of the starting handicap printed for each Tom-deck reading"),
        ]


def read_targets(table: Mapping[str, Any] | None, where: str = "") -> Targets:
    """Targets from an experiment file's ``[targets]`` table (checked; absent keys keep
    their defaults)."""
    given = check_table("targets", dict(table or {}), where)
    return Targets(**{k: float(v) for k, v in given.items() if v is not None})


def resolved(lo: Any, hi: Any, margin: float) -> bool | None:
    """A figure's interval against ±margin: True inside, False wholly beyond, None when
    it crosses the margin or is not measured (no pass on a point estimate).  Here, below
    the sheet and its gnome trials, so both read one rule."""
    try:
        lo, hi = float(lo), float(hi)
    except (TypeError, ValueError):
        return None
    if not (math.isfinite(lo) and math.isfinite(hi)):
        return None
    if -margin - 1e-12 <= lo and hi <= margin + 1e-12:
        return True
    if lo > margin or hi < -margin:
        return False
    return None
