"""The report's data access: which runs, which columns, loaded how.

A report reads every games column and the players columns its sections use; the list
columns it keeps come as Arrow lists (``pd.ArrowDtype``), never Python objects, and the
files' checksums are remembered between loads (``sim.checksums``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from bonfire_sim.errors import ConfigError


def run_labels(run_dirs: Sequence[str | Path]) -> list[str]:
    """Each run's label: its directory name, or the full path where names repeat."""
    labels = [Path(d).name or str(d) for d in run_dirs]
    if len(set(labels)) < len(labels):
        labels = [str(d) for d in run_dirs]
    return labels


# Players list columns no report or compare section reads (the "decided" section loads its
# own, with the turn log): left on disk, they are most of a loaded players table.
UNREAD_LISTS = ("gnome_turns", "bonfire_taken_turns", "bonfire_lit_turns", "unlit_taken_turns",
                "ability_effects")


def report_columns() -> dict[str, list[str]]:
    """The columns a report loads: every games column, every players column but
    ``UNREAD_LISTS`` (list columns come as Arrow lists, not Python objects)."""
    from bonfire_sim.sim.frames import SCHEMAS

    return {"games": list(SCHEMAS["games"].names),
            "players": [c for c in SCHEMAS["players"].names if c not in UNREAD_LISTS]}


def load_runs(run_dirs: Sequence[str | Path],
              status: Callable[[str], None] | None = None) -> list[tuple[str, Any]]:
    from bonfire_sim.sim.load import load

    check_distinct_runs(run_dirs)
    out = []
    for lab, d in zip(run_labels(run_dirs), run_dirs, strict=True):
        if status is not None:
            status(f"loading run {lab} ({d})")
        out.append((lab, load(d, turns=False, categorical=False, columns=report_columns())))
    return out


def check_distinct_runs(run_dirs: Sequence[str | Path]) -> None:
    """Refuse a run given twice (it would be counted twice)."""
    seen: dict[Path, str] = {}
    for d in run_dirs:
        key = Path(d).resolve()
        if key in seen:
            raise ConfigError(f"run {d} is given twice (as {seen[key]} and {d}); each run "
                              f"may appear once")
        seen[key] = str(d)
