"""Accept runs as directories, loaded ``RunData`` or ``(label, RunData)`` pairs."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bonfire_sim.errors import ConfigError, DataError
from bonfire_sim.rules import components as C
from bonfire_sim.sim.load import RunData, load
from bonfire_sim.sim.runconfig import RunConfig
from bonfire_sim.sim.rungame import run_config


@dataclass(frozen=True)
class Run:
    """A loaded run with its label and (when known) its directory, where probes are cached."""

    label: str
    path: Path | None
    data: RunData

    @property
    def config(self) -> RunConfig:
        return run_config(self.data.manifest)


RunLike = str | Path | RunData | tuple[str, RunData] | Run


def as_runs(runs: RunLike | Sequence[RunLike]) -> list[Run]:
    """Normalise the ``runs`` argument of the public analysis functions."""
    if isinstance(runs, str | Path | RunData | Run) or (
            isinstance(runs, tuple) and len(runs) == 2 and isinstance(runs[1], RunData)):
        runs = [runs]  # type: ignore[list-item]
    out: list[Run] = []
    for i, r in enumerate(runs):  # type: ignore[union-attr]
        if isinstance(r, Run):
            out.append(r)
        elif isinstance(r, str | Path):
            path = Path(r)
            out.append(Run(path.name or str(path), path, load(path, turns=False, lazy=False)))
        elif isinstance(r, RunData):
            where = getattr(r, "path", None)
            out.append(Run(f"run{i}", Path(where) if where else None, r))
        elif isinstance(r, tuple) and len(r) == 2 and isinstance(r[1], RunData):
            where = getattr(r[1], "path", None)
            out.append(Run(str(r[0]), Path(where) if where else None, r[1]))
        else:
            raise DataError(f"not a run: {r!r} (give a run directory or a loaded run)")
    labels = [r.label for r in out]
    if len(set(labels)) < len(labels):
        out = [dataclasses.replace(r, label=str(r.path) if r.path else f"run{i}")
               for i, r in enumerate(out)]
    return out


SAME_DEALS = ("seed", "players", "strategies", "seat_rotation")


def check_shared_deals(a: RunConfig, b: RunConfig) -> None:
    """Refuse two configurations whose game i is not the same deal with the same seats."""
    ja, jb = a.to_json(), b.to_json()
    differ = [k for k in SAME_DEALS if ja[k] != jb[k]]
    if differ:
        raise ConfigError(f"the configurations do not share their deals: they differ in "
                          f"{', '.join(differ)} (only overrides and variants may differ)")


def shares_deals(a: Run, b: Run) -> bool:
    """True when game i of both runs is the same deal with the same seats."""
    ca, cb = a.config.to_json(), b.config.to_json()
    return all(ca[k] == cb[k] for k in SAME_DEALS)


def printed_points_under(overrides: Mapping[str, Any] | None = None) -> dict[str, int]:
    """The points every task prints under a run's ``overrides`` (its ``task_points``
    applied over the printed cards): the one reading of them, for the card table
    (``cards.printed_points``), the runs' check below and the report's task table."""
    pts = {t.id: int(t.points) for t in C.TASKS}
    pts.update({str(k): int(v) for k, v in
                dict((overrides or {}).get("task_points", {})).items()})
    return pts


def printed_task_points(runs: list[Run]) -> dict[int, dict[str, int]]:
    """Printed task points per player count (overrides applied); runs of one player count
    must agree."""
    out: dict[int, dict[str, int]] = {}
    for run in runs:
        pts = printed_points_under(run.config.overrides)
        n = run.config.players
        if n in out and out[n] != pts:
            raise DataError(f"runs with {n} players print different task points; analyse "
                            f"them separately (or compare them with `bonfire-sim compare`)")
        out[n] = pts
    return out
