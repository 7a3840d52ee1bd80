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


# The players columns the report's and compare's sections read (the "decided" section
# loads its own, with the turn log).  A section that reads another column adds it here;
# the rest stay on disk, which is most of a players table (the turn lists, ability_effects
# and the score breakdown).  Solo runs also keep the score lines behind Tom's breakdown.
PLAYER_COLUMNS = ("game_id", "strategy", "seat", "score", "rank", "won", "score_ingame",
                  "n_bonfires", "gnome_ids", "bonfire_task_ids", "unlit_task_ids")
SOLO_PREFIXES = ("score_", "pts_")


def report_columns(solo: bool = False) -> dict[str, list[str]]:
    """The columns a report loads: every games column, and ``PLAYER_COLUMNS`` of players
    (with the score lines in a solo run).  List columns come as Arrow lists."""
    from bonfire_sim.sim.frames import SCHEMAS

    players = [c for c in SCHEMAS["players"].names
               if c in PLAYER_COLUMNS or (solo and c.startswith(SOLO_PREFIXES))]
    return {"games": list(SCHEMAS["games"].names), "players": players}


def load_runs(run_dirs: Sequence[str | Path],
              status: Callable[[str], None] | None = None) -> list[tuple[str, Any]]:
    from bonfire_sim.sim.load import finished_manifest, load

    check_distinct_runs(run_dirs)
    out = []
    for lab, d in zip(run_labels(run_dirs), run_dirs, strict=True):
        if status is not None:
            status(f"loading run {lab} ({d})")
        solo = finished_manifest(d).get("config", {}).get("players") == 1
        out.append((lab, load(d, turns=False, categorical=False,
                              columns=report_columns(solo))))
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
