"""Declarative experiment files (TOML): a run's configuration in one reviewable file.

```toml
[run]
games = 20000
players = 4
strategies = ["greedy", "tempo", "planner", "guardian"]
seat_rotation = true
seed = 7
turn_log = "sample:0.05"
out = "runs/start-player-4p"

[overrides]            # optional designer changes (see tables.OVERRIDABLE)
task_points = { B1 = 3 }
countdown_trigger = { 4 = 14 }
seat_points = [0, 1, 2, 3]     # starting score per seat (start-player compensation)

[report]               # optional: the HTML report `bonfire-sim experiment` writes
out = "reports/start-player-4p.html"
title = "Start-player advantage, 4 players"
runs = ["runs/solo-greedy"]   # extra finished runs to include
```
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

from bonfire_sim.errors import ConfigError
from bonfire_sim.sim.runner import RunConfig

RUN_KEYS = {"games", "players", "strategies", "seat_rotation", "seed", "turn_log",
            "chunk_size", "out", "jobs"}
REPORT_KEYS = {"out", "title", "runs"}


def load_experiment(path: str | Path) -> tuple[RunConfig, dict[str, Any]]:
    """(run config, extra settings such as ``out``/``jobs``/``report``) from a TOML file."""
    path = Path(path)
    try:
        doc = tomllib.loads(path.read_text())
    except FileNotFoundError:
        raise ConfigError(f"experiment file {path} not found") from None
    except tomllib.TOMLDecodeError as e:
        raise ConfigError(f"{path} is not valid TOML: {e}") from None
    run = doc.get("run")
    if not isinstance(run, dict):
        raise ConfigError(f"{path} has no [run] table")
    unknown = set(run) - RUN_KEYS
    if unknown:
        raise ConfigError(f"{path}: unknown [run] keys {sorted(unknown)}; "
                          f"allowed: {', '.join(sorted(RUN_KEYS))}")
    extra = {k: run[k] for k in ("out", "jobs") if k in run}
    extra["report"] = doc.get("report", {})
    try:
        config = RunConfig(
            games=int(run.get("games", 1000)), players=int(run.get("players", 4)),
            strategies=tuple(run.get("strategies", ())),
            seat_rotation=bool(run.get("seat_rotation", False)), seed=int(run.get("seed", 0)),
            turn_log=str(run.get("turn_log", "none")),
            chunk_size=int(run.get("chunk_size", 500)),
            overrides=doc.get("overrides", {}),
        )
    except (TypeError, ValueError) as e:
        raise ConfigError(f"{path}: {e}") from None
    return config, extra


def run_experiment(path: str | Path, jobs: int | None = None, report: bool = True,
                   progress: Any = None) -> tuple[Path, Path | None]:
    """Run (or resume, or reuse) an experiment's games, then write its report.

    Returns (run directory, report path or None).  Defaults: run directory
    ``runs/<file stem>``, report ``reports/<file stem>.html``.
    """
    from bonfire_sim.sim.runner import run

    path = Path(path)
    config, extra = load_experiment(path)
    settings = extra.get("report") or {}
    if not isinstance(settings, dict):
        raise ConfigError(f"{path}: [report] must be a table")
    unknown = set(settings) - REPORT_KEYS
    if unknown:
        raise ConfigError(f"{path}: unknown [report] keys {sorted(unknown)}; "
                          f"allowed: {', '.join(sorted(REPORT_KEYS))}")
    out = Path(extra.get("out", f"runs/{path.stem}"))
    n_jobs = int(jobs if jobs is not None else extra.get("jobs", 1))
    run_dir = run(config, out, jobs=n_jobs, resume=True, progress=progress)
    if not report:
        return run_dir, None
    from bonfire_sim.report.build import build_report

    page = build_report([run_dir, *settings.get("runs", [])],
                        settings.get("out", f"reports/{path.stem}.html"),
                        title=settings.get("title", f"Bonfire experiment: {path.stem}"))
    return run_dir, page
