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
runs = ["runs/solo-greedy"]   # extra finished runs to include (not in a sweep)
probe_games = 2000     # games per run whose decisions are forked (task / gnome values)
jobs = 2               # worker processes for the forks (default: the [run] jobs)
```

A list where one value belongs makes a **sweep**: ``players = [2, 3, 4]`` in [run] and
list values in [overrides] (``task_points = { Y14 = [5, 7] }``) each add an axis, and
every combination is a point with its own run directory ``<out>/<point label>``.  A
sweep's report is the sweep page (``report.sweep``): each headline measure against the
swept value, per player count, from each point's own games (``analysis.sweep``).

``populations = ["strong", "old_mix"]`` in [run] plays the configuration once per
population (``strategies.POPULATIONS`` names, or specs such as ``"portal,planner"``), each
in ``<out>/population=<name>``, and writes one ordinary report over all of them, whose
answers mark each headline figure as holding in every population or not
(``report.marks``).

``plan_experiment`` makes every check that can refuse (all points' configurations, the
run directories, the output files, probe settings) before any game is played.
"""


from __future__ import annotations

import csv
import io
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bonfire_sim.config import (
    REPORT_FIELDS,
    RUN_FIELDS,
    TABLES,
    check_count,
    check_document,
    check_value,
    expand_sweep,
    point_label,
    read_toml,
)
from bonfire_sim.errors import ConfigError
from bonfire_sim.infra import extras, fileio, ownership, safepaths
from bonfire_sim.sim.runconfig import RunConfig
from bonfire_sim.sim.runner import check_run_dir, resolve_jobs

SWEEP_INDEX = "sweep.csv"  # in a sweep's run directory, next to the points' runs
RESPONSE = "response.csv"  # the sweep's response table (the figures' data), next to it
RUN_CONFIG_KEYS = ("games", "strategies", "seat_rotation", "seed", "turn_log", "chunk_size")
PLAYERS_AXIS = "players"
POPULATION_AXIS = "population"  # [run] populations: one report, marked across them
DEFAULT_POPULATIONS = "default"  # in [run] populations: every strategies.POPULATIONS entry
# A progress step: step(description, total, unit) -> progress(done, total) callback.
StepFn = Callable[[str, int | None, str], Callable[[int, int], None]]


def read_experiment(path: str | Path) -> dict[str, dict[str, Any]]:
    """The checked tables of an experiment file (see ``bonfire_sim.config.TABLES``);
    ``run.players`` may be a list of player counts (a sweep axis)."""
    path = Path(path)
    doc = read_toml(path, "experiment file")
    counts = _player_counts(doc, str(path))
    checked = check_document(doc, str(path))
    if counts is not None:
        checked["run"]["players"] = counts
    _contain_paths(checked, str(path))
    return checked


def _contain_paths(doc: Mapping[str, Any], where: str) -> None:
    """Every path the file names (run and report folders, pages, weights files) stays
    inside the folder it is run from: experiment files are shared, and one must not
    write a report over a file elsewhere or read one from elsewhere (``SECURITY.md``)."""
    base = Path.cwd()
    for table, (fields, _required) in TABLES.items():
        for name, f in fields.items():
            value = (doc.get(table) or {}).get(name)
            if value is None or f.kind not in ("path", "paths"):
                continue
            for v in (value if f.kind == "paths" else [value]):
                safepaths.within(base, v, where, f"{table}.{name}")
    run = doc.get("run") or {}
    safepaths.weights_files_within(base, run.get("strategies", ()), where)
    for population in run.get("populations", ()):  # "portal@w.toml,planner" names files too
        safepaths.weights_files_within(base, str(population).split(","), where)


def _player_counts(doc: dict[str, Any], where: str) -> list[int] | None:
    """Take a swept ``players = [2, 4]`` out of ``doc`` (checked); None when not swept."""
    run = doc.get("run")
    if not isinstance(run, dict) or not isinstance(run.get("players"), list):
        return None
    values = run.pop("players")
    if not values:
        raise ConfigError(f"{where}: run.players: a sweep needs at least one value")
    counts = [check_value(f"{where}: run.players[{i}]", v, RUN_FIELDS["players"])
              for i, v in enumerate(values)]
    if len(set(counts)) < len(counts):
        raise ConfigError(f"{where}: run.players lists a player count twice: {counts}")
    return counts


def _config(doc: dict[str, dict[str, Any]], players: int, overrides: dict[str, Any],
            where: str, strategies: tuple[str, ...] | None = None) -> RunConfig:
    run = dict(doc["run"])
    if strategies is not None:  # a population's seats
        run["strategies"] = strategies
    given: dict[str, Any] = {"games": 1000}  # the default, unless the file sets it
    given.update({k: run[k] for k in RUN_CONFIG_KEYS if k in run})
    try:
        return RunConfig(**given,
                         players=players, overrides=overrides,
                         variants=doc.get("variants", {}))
    except ConfigError as e:
        raise ConfigError(f"{where}: {e}") from None


def load_experiment(path: str | Path) -> tuple[RunConfig, dict[str, Any]]:
    """(run config, extra settings such as ``out``/``jobs``/``report``) from a TOML file.

    A file that sweeps (list values) is refused here: use ``load_sweep``.
    """
    points = load_sweep(path)
    if len(points) > 1:
        what = "points" if PLAYERS_AXIS in points[0][0] else "override points"
        raise ConfigError(f"{path} sweeps {len(points)} {what}; run it with "
                          f"`bonfire-sim experiment {path}`")
    _, config, extra = points[0]
    return config, extra


def load_sweep(path: str | Path) -> list[tuple[dict[str, Any], RunConfig, dict[str, Any]]]:
    """Every point of an experiment file: ``[(point, config, extra), ...]``.

    ``point`` maps each swept setting (``players``, ``task_points.Y14``, ...) to its value
    (``{}`` without a sweep); ``extra`` holds ``out`` (the point's run directory:
    ``<out>/<point label>`` in a sweep), ``jobs`` and ``report``.  Every point's
    configuration is checked; a bad one is refused with its label.
    """
    doc = read_experiment(path)
    run = doc["run"]
    base_out = run.get("out", f"runs/{Path(path).stem}")
    try:
        override_points = expand_sweep(doc.get("overrides", {}))
    except ConfigError as e:
        raise ConfigError(f"{path}: overrides.{e}" if not str(e).startswith("overrides")
                          else f"{path}: {e}") from None
    swept = isinstance(run.get("players"), list)
    counts = run["players"] if swept else [run.get("players", 4)]
    pops = _populations(run, len(override_points), str(path))
    points: list[tuple[dict[str, Any], Any, dict[str, Any], tuple[str, ...] | None]] = [
        ({PLAYERS_AXIS: n, **point} if swept else point, n, overrides, None)
              for n in counts for point, overrides in override_points]
    if pops:  # each population is a point of its own, with its own seats
        points = [({**point, POPULATION_AXIS: label}, n, overrides, _seats(specs, n))
                  for point, n, overrides, _ in points for label, specs in pops]
    out, seen = [], set()
    for point, n, overrides, specs in points:
        label = point_label(point)
        if label in seen:
            raise ConfigError(f"{path}: the sweep holds the point {label} twice; list each "
                              f"value once")
        seen.add(label)
        extra: dict[str, Any] = {"report": doc.get("report", {})}
        if "jobs" in run:
            extra["jobs"] = run["jobs"]
        if "move_timeout" in run:
            extra["move_timeout"] = run["move_timeout"]
        if "out" in run or len(points) > 1:
            extra["out"] = str(Path(base_out) / label) if len(points) > 1 else base_out
        where = f"{path} (point {label})" if len(points) > 1 else str(path)
        out.append((point, _config(doc, n, overrides, where, specs), extra))
    return out


def _seats(specs: tuple[str, ...], players: int) -> tuple[str, ...]:
    """A population's specs cycled over the seats (one spec stays one: every seat)."""
    if len(specs) == 1:
        return specs
    return tuple(specs[i % len(specs)] for i in range(players))


def _populations(run: Mapping[str, Any], override_points: int, where: str,
                 ) -> list[tuple[str, tuple[str, ...]]]:
    """``[run] populations`` resolved to (label, seat specs); [] when not given."""
    from bonfire_sim.analysis.populations import resolve_population

    names = run.get("populations") or ()
    if not names:
        return []
    if run.get("strategies"):
        raise ConfigError(f"{where}: run.populations replaces run.strategies; give one of "
                          f"them")
    if len(names) < 2 and DEFAULT_POPULATIONS not in names:
        raise ConfigError(f"{where}: run.populations needs at least two populations to "
                          f"check a finding across")
    if override_points > 1:
        raise ConfigError(f"{where}: run.populations cannot combine with an overrides sweep; "
                          f"check one override point per file")
    from bonfire_sim.strategies import POPULATIONS

    # "default" stands for every default population, so files need not repeat the names
    names = [m for n in names for m in (POPULATIONS if n == DEFAULT_POPULATIONS else [n])]
    try:
        pops = [resolve_population(n) for n in names]
    except ConfigError as e:
        raise ConfigError(f"{where}: run.populations: {e}") from None
    labels = [label for label, _ in pops]
    if len(set(labels)) < len(labels):
        raise ConfigError(f"{where}: run.populations lists a population twice: {labels}")
    return pops


@dataclass(frozen=True)
class Point:
    """One configuration of an experiment and the directory its games go to."""

    values: dict[str, Any]  # the swept settings at this point ({} without a sweep)
    config: RunConfig
    out: Path

    @property
    def label(self) -> str:
        return point_label(self.values)


@dataclass(frozen=True)
class ExperimentPlan:
    """A checked experiment: what ``run_experiment`` will do, nothing done yet."""

    path: Path
    points: tuple[Point, ...]
    axes: tuple[str, ...]  # swept settings, ``players`` first when swept
    top: Path  # the run directory; in a sweep the parent of the points' directories
    page: Path | None  # the report (a sweep's: the sweep page); None = no report
    title: str
    run_jobs: int
    report_jobs: int
    probe_games: int
    extra_runs: tuple[str, ...]
    move_timeout: float | None = None  # seconds a plug-in seat may take per move

    skill_depth: str | None = None  # [report] skill_depth: a matrix shown as a section

    @property
    def is_sweep(self) -> bool:
        return len(self.points) > 1

    @property
    def by_population(self) -> bool:
        """Points are populations (and maybe player counts): one ordinary report over all
        their runs, not a sweep page."""
        return POPULATION_AXIS in self.axes


def plan_experiment(path: str | Path, *, jobs: int | None = None,
                    probe_games: int | None = None, report: bool = True) -> ExperimentPlan:
    """Every check that can refuse the experiment, before any game or fork: each point's
    configuration, each run directory (reuse or resume allowed, foreign contents refused),
    the output files, worker counts, probe settings and extra runs.

    ``jobs`` / ``probe_games`` (e.g. from the command line) override the file's [run]
    jobs, [report] jobs and [report] probe_games.
    """
    path = Path(path)
    raw = load_sweep(path)
    _, _, extra = raw[0]
    settings = extra.get("report") or {}
    points = tuple(Point(values, config, Path(e.get("out", f"runs/{path.stem}")))
                   for values, config, e in raw)
    run_jobs = resolve_jobs(jobs if jobs is not None else extra.get("jobs", 1))
    report_jobs = resolve_jobs(jobs if jobs is not None
                               else settings.get("jobs", extra.get("jobs", 1)))
    if probe_games is None:
        probe_games = settings.get("probe_games", REPORT_FIELDS["probe_games"].default)
    probe_games = check_count("probe games", probe_games)
    sweep = len(points) > 1
    top = points[0].out.parent if sweep else points[0].out
    extra_runs = tuple(settings.get("runs", ()))
    axes = tuple(points[0].values)
    if sweep and extra_runs and POPULATION_AXIS not in axes:
        raise ConfigError(f"{path}: [report] runs cannot join a sweep (they have no point "
                          f"on its axis); report them with `bonfire-sim report`")
    for p in points:  # every point, before any game is played
        check_run_dir(p.out, p.config, resume=True)
    page = Path(settings.get("out", f"reports/{path.stem}.html")) if report else None
    if sweep:
        # the index's and response's names are ours to pick, not the user's: replace
        # only files an earlier run of this sweep wrote
        index = top / SWEEP_INDEX
        axes_values = [p.values for p in points]
        fileio.check_output_file(index)
        ownership.check_may_replace(index, lambda f: _is_sweep_index(f, axes_values))
        if report:
            fileio.check_output_file(top / RESPONSE)
            if (top / RESPONSE).exists() and not _is_sweep_index(index, axes_values):
                ownership.check_may_replace(top / RESPONSE, lambda f: False)
    if page is not None:
        fileio.check_output_file(page)
        extras.check("seaborn")  # before any game is played
        _check_extra_runs(extra_runs)
    if sweep and report:
        _check_probes(points, axes, probe_games)
    skill = settings.get("skill_depth")
    if report and skill is not None:
        from bonfire_sim.studies.skill import read_matrix

        read_matrix(skill)  # a bad matrix is refused before any game
    return ExperimentPlan(path, points, axes, top, page,
                          settings.get("title", f"Bonfire experiment: {path.stem}"),
                          run_jobs, report_jobs, probe_games, extra_runs,
                          extra.get("move_timeout"), skill)


def _check_extra_runs(runs: tuple[str, ...]) -> None:
    from bonfire_sim.sim.runner import MANIFEST

    for d in runs:
        if not (Path(d) / MANIFEST).is_file():
            raise ConfigError(f"[report] runs: {d} is not a run directory (no {MANIFEST})")


def _check_probes(points: tuple[Point, ...], axes: tuple[str, ...], games: int) -> None:
    """The swept tasks' forks can be played at every multiplayer point."""
    from bonfire_sim.analysis.sweep import probe_settings, swept_tasks
    from bonfire_sim.sim.chunk import resolve_players

    tasks = swept_tasks(axes)
    if not tasks:
        return
    probe_settings(tasks, games)  # ConfigError for a bad setting
    for p in points:
        if p.config.players < 2:
            continue
        plugins = [n for n, pl in resolve_players(p.config).items() if not pl.compiled]
        if plugins:
            raise ConfigError(f"point {p.label}: the task surplus forks the engine, which "
                              f"plays only compiled players; {plugins[0]!r} is a Python "
                              f"plug-in")


def write_sweep_index(path: Path, points: list[dict[str, Any]], run_dirs: list[Path]) -> Path:
    """``sweep.csv``: one row per point, a column per swept setting and the run directory
    (a tidy index to join the runs' tables on)."""
    buf = io.StringIO()
    axes = list(points[0])
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(_sweep_header(points))
    for i, (point, run_dir) in enumerate(zip(points, run_dirs, strict=True)):
        writer.writerow([i, *(point[a] for a in axes), run_dir.name])
    return fileio.write_text(path, buf.getvalue())


def _sweep_header(points: list[dict[str, Any]]) -> list[str]:
    return ["point", *points[0], "run"]


def _is_sweep_index(path: Path, points: list[dict[str, Any]]) -> bool:
    """Whether ``path`` is the ``sweep.csv`` an earlier run of this sweep wrote (its header)."""
    try:
        with open(path, encoding="utf-8", newline="") as f:
            return next(csv.reader(f), None) == _sweep_header(points)
    except (OSError, UnicodeDecodeError, csv.Error):
        return False


def _no_step(desc: str, total: int | None, unit: str) -> Callable[[int, int], None]:
    return lambda done, total: None


def run_experiment(path: str | Path, jobs: int | None = None, report: bool = True, *,
                   probe_games: int | None = None, step: StepFn | None = None,
                   status: Callable[[str], None] | None = None) -> tuple[Path, Path | None]:
    """Run (or resume, or reuse) an experiment's games, then write its report.

    Everything is checked first (``plan_experiment``).  ``step(desc, total, unit)`` is
    called as each step begins (each point's games, its forks, the figures, the report)
    and returns that step's ``progress(done, total)``; ``status(line)`` hears about
    compiling.

    Returns (run directory, report path or None); a sweep's runs are the point
    directories under the run directory, indexed by its ``sweep.csv``, and its report is
    the sweep page.  Defaults: run directory ``runs/<file stem>``, report
    ``reports/<file stem>.html``.  Runs made by another engine are refused, not reused.
    """
    from bonfire_sim.sim.runner import run

    plan = plan_experiment(path, jobs=jobs, probe_games=probe_games, report=report)
    step = step or _no_step
    for i, p in enumerate(plan.points):
        desc = f"{_where(plan, i)}games" if plan.is_sweep else "games"
        run(p.config, p.out, jobs=plan.run_jobs, resume=True,
            progress=step(desc, p.config.games, "game"), status=status,
            move_timeout=plan.move_timeout)
    if plan.is_sweep:
        write_sweep_index(plan.top / SWEEP_INDEX, [p.values for p in plan.points],
                          [p.out for p in plan.points])
    if plan.page is None:
        return plan.top, None
    if plan.is_sweep and not plan.by_population:
        return plan.top, report_sweep(plan, step)
    from bonfire_sim.report.build import STEPS, build_report

    runs = [p.out for p in plan.points] if plan.by_population else [plan.top]
    page = build_report([*runs, *plan.extra_runs], plan.page, title=plan.title,
                        probes=plan.probe_games, jobs=plan.report_jobs,
                        progress=step("report", STEPS, "step"), skill_depth=plan.skill_depth)
    return plan.top, page


def _where(plan: ExperimentPlan, i: int) -> str:
    """``point 2/4 (players=2,task_points.Y14=7): `` for progress lines."""
    return f"point {i + 1}/{len(plan.points)} ({plan.points[i].label}): "


def report_sweep(plan: ExperimentPlan, step: StepFn | None = None) -> Path:
    """The sweep page of a played sweep: each point's measures from its own run (forks of
    the swept tasks included), the response table ``response.csv`` next to ``sweep.csv``,
    then one figure per measure."""
    import pandas as pd

    from bonfire_sim.analysis import sweep as SW
    from bonfire_sim.analysis.cards.probes import probe_values
    from bonfire_sim.analysis.runs import Run
    from bonfire_sim.report import sweep as RS
    from bonfire_sim.sim.load import load

    assert plan.page is not None
    step = step or _no_step
    tasks = SW.swept_tasks(plan.axes)
    settings = SW.probe_settings(tasks, plan.probe_games) if tasks else None
    measured = []
    for i, p in enumerate(plan.points):
        run = Run(p.label, p.out, load(p.out, turns=False, categorical=False, lazy=False))
        rows = SW.game_measures(run)
        if settings is not None and p.config.players >= 2:
            forked = min(plan.probe_games, p.config.games)
            probe_values(p.config, settings, run_dir=p.out, jobs=plan.report_jobs,
                         progress=step(f"{_where(plan, i)}forks ({', '.join(tasks)})",
                                       forked, "game"))
            rows += SW.surplus_measures(run, tasks, settings, plan.report_jobs)
        measured.append((p.values, rows))
    resp = SW.response_table(measured)
    fileio.write_text(plan.top / RESPONSE, resp.to_csv(index=False))
    index = pd.DataFrame([{"point": i, **{a: str(p.values[a]) for a in plan.axes},
                           "run": str(p.out)} for i, p in enumerate(plan.points)])
    sections = RS.sweep_sections(resp, plan.axes, index, _notes(plan, tasks),
                                 progress=step("sweep: figures",
                                               resp["measure"].nunique(), "figure"))
    subtitle = (f"{len(plan.points)} points ({', '.join(plan.axes)}), "
                f"{sum(p.config.games for p in plan.points):,} games; experiment "
                f"{plan.path}")
    return RS.write_sweep_page(plan.page, plan.title, subtitle, sections)


def _notes(plan: ExperimentPlan, tasks: tuple[str, ...]) -> list[str]:
    notes = []
    if tasks:
        notes.append(f"Surplus: the take forks of {', '.join(tasks)} in the first "
                     f"{plan.probe_games:,} games of each multiplayer point.")
    else:
        notes.append("No task's printed points are swept, so no surplus figure (gnomes "
                     "have no printed number an override can change).")
    if any(p.config.players >= 2 and not p.config.seat_rotation for p in plan.points):
        notes.append("Not seat-rotated: the start-player advantage is confounded with the "
                     "strategy sitting in seat 0 (set seat_rotation = true).")
    return notes
