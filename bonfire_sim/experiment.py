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

[variants]             # optional: readings of uncertain facts (components.VARIANTS)
tom_deck = "gnome"
fate_area = "4x6"

[report]               # optional: the HTML report `bonfire-sim experiment` writes
out = "reports/start-player-4p.html"
title = "Start-player advantage, 4 players"
runs = ["runs/solo-greedy"]   # extra finished runs to include
```
"""

from __future__ import annotations

import csv
import io
import tomllib
from pathlib import Path
from typing import Any

from bonfire_sim import fileio
from bonfire_sim.config import check_document, expand_sweep, point_label
from bonfire_sim.errors import ConfigError
from bonfire_sim.sim.runner import RunConfig, check_run_dir, resolve_jobs

SWEEP_INDEX = "sweep.csv"  # in a sweep's run directory, next to the points' runs
RUN_CONFIG_KEYS = ("games", "players", "strategies", "seat_rotation", "seed", "turn_log",
                   "chunk_size")


def read_experiment(path: str | Path) -> dict[str, dict[str, Any]]:
    """The checked tables of an experiment file (see ``bonfire_sim.config.TABLES``)."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ConfigError(f"experiment file {path} not found") from None
    except IsADirectoryError:
        raise ConfigError(f"experiment file {path} is a directory") from None
    except (OSError, UnicodeDecodeError) as e:
        raise ConfigError(f"cannot read experiment file {path}: {e}") from None
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise ConfigError(f"{path} is not valid TOML: {e}") from None
    return check_document(doc, str(path))


def _config(doc: dict[str, dict[str, Any]], overrides: dict[str, Any], where: str) -> RunConfig:
    run = doc["run"]
    try:
        return RunConfig(**{k: run[k] for k in RUN_CONFIG_KEYS if k in run},
                         **({} if "games" in run else {"games": 1000}),
                         **({} if "players" in run else {"players": 4}),
                         overrides=overrides, variants=doc.get("variants", {}))
    except ConfigError as e:
        raise ConfigError(f"{where}: {e}") from None


def load_experiment(path: str | Path) -> tuple[RunConfig, dict[str, Any]]:
    """(run config, extra settings such as ``out``/``jobs``/``report``) from a TOML file.

    A file that sweeps overrides (list values) is refused here: use ``load_sweep``.
    """
    points = load_sweep(path)
    if len(points) > 1:
        raise ConfigError(f"{path} sweeps {len(points)} override points; run it with "
                          f"`bonfire-sim experiment {path}`")
    _, config, extra = points[0]
    return config, extra


def load_sweep(path: str | Path) -> list[tuple[dict[str, Any], RunConfig, dict[str, Any]]]:
    """Every point of an experiment file: ``[(point, config, extra), ...]``.

    ``point`` maps each swept override to its value (``{}`` without a sweep); ``extra``
    holds ``out`` (the point's run directory: ``<out>/<point label>`` in a sweep),
    ``jobs`` and ``report``.
    """
    doc = read_experiment(path)
    run = doc["run"]
    base_out = run.get("out", f"runs/{Path(path).stem}")
    try:
        points = expand_sweep(doc.get("overrides", {}))
    except ConfigError as e:
        raise ConfigError(f"{path}: overrides.{e}" if not str(e).startswith("overrides")
                          else f"{path}: {e}") from None
    out = []
    for point, overrides in points:
        extra: dict[str, Any] = {"report": doc.get("report", {})}
        if "jobs" in run:
            extra["jobs"] = run["jobs"]
        if "move_timeout" in run:
            extra["move_timeout"] = run["move_timeout"]
        if "out" in run or len(points) > 1:
            extra["out"] = (str(Path(base_out) / point_label(point)) if len(points) > 1
                            else base_out)
        out.append((point, _config(doc, overrides, str(path)), extra))
    return out


def write_sweep_index(path: Path, points: list[dict[str, Any]], run_dirs: list[Path]) -> Path:
    """``sweep.csv``: one row per point, a column per swept setting and the run directory
    (a tidy index to join the runs' tables on)."""
    buf = io.StringIO()
    axes = list(points[0])
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(["point", *axes, "run"])
    for i, (point, run_dir) in enumerate(zip(points, run_dirs, strict=True)):
        writer.writerow([i, *(point[a] for a in axes), run_dir.name])
    return fileio.write_text(path, buf.getvalue())


def run_experiment(path: str | Path, jobs: int | None = None, report: bool = True,
                   progress: Any = None, status: Any = None,
                   report_progress: Any = None) -> tuple[Path, Path | None]:
    """Run (or resume, or reuse) an experiment's games, then write its report.

    ``progress(done, total)`` / ``status(line)`` as for ``runner.run``;
    ``report_progress(done, total)`` after each report section.

    Returns (run directory, report path or None); a sweep's runs are the point
    directories under the run directory, indexed by its ``sweep.csv``.  Defaults: run
    directory ``runs/<file stem>``, report ``reports/<file stem>.html``.  Runs made by
    another engine are refused, not reused.
    """
    from bonfire_sim.sim.runner import run

    path = Path(path)
    points = load_sweep(path)
    _, _, extra = points[0]
    settings = extra.get("report") or {}
    n_jobs = resolve_jobs(jobs if jobs is not None else extra.get("jobs", 1))
    page_path = Path(settings.get("out", f"reports/{path.stem}.html"))
    if report:
        fileio.check_output_file(page_path)
    outs = [Path(e.get("out", f"runs/{path.stem}")) for _, _, e in points]
    for (_, config, _), out in zip(points, outs, strict=True):
        check_run_dir(out, config, resume=True)  # every point, before any game is played
    run_dirs = [run(config, out, jobs=n_jobs, resume=True, progress=progress,
                    status=status, move_timeout=extra.get("move_timeout"))
                for (_, config, _), out in zip(points, outs, strict=True)]
    top = run_dirs[0] if len(run_dirs) == 1 else run_dirs[0].parent
    if len(points) > 1:
        write_sweep_index(top / SWEEP_INDEX, [p for p, _, _ in points], run_dirs)
    if not report:
        return top, None
    from bonfire_sim.report.build import build_report

    page = build_report([*run_dirs, *settings.get("runs", ())], page_path,
                        title=settings.get("title", f"Bonfire experiment: {path.stem}"),
                        progress=report_progress)
    return top, page
