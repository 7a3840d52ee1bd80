"""The configuration schema: every setting a run, an experiment file or a designer
override accepts, in one declarative table (key -> kind, bounds, default, help).

Values are checked strictly: an integer field takes only an integer (``40.7``, ``"40"``
and ``true`` are refused), a boolean only ``true``/``false`` (``"false"`` is refused), a
number must lie within its stated bounds (so nothing overflows the engine's int64), and
an unknown table or key is refused with the list of valid ones.

To add a setting, add one ``Field`` to the table it belongs to (``RUN_FIELDS``,
``OVERRIDE_FIELDS``, ``REPORT_FIELDS``) or a new table to ``TABLES``; validation, error
messages and the experiment-file reader follow from the table.
"""

from __future__ import annotations

import itertools
import math
import numbers
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from bonfire_sim.errors import ConfigError

MAX_SEED = 2**64 - 1
MAX_GAMES = 10**7  # per run; more games means a larger chunk size or several runs
MAX_CHUNK = 20_000  # games per chunk: bounds a worker's memory (turn logs included)
MAX_JOBS = 256
MAX_POINTS = 1000  # any point value a designer may set (far beyond the printed game)
MAX_NOVICES = 100


@dataclass(frozen=True)
class Field:
    """One setting.  ``kind``: int, bool, str, path, strs (list of str), paths, num (a
    finite number), nums, ints (list of int, ``length`` long), map (str key -> int;
    ``keys`` lists the valid keys)."""

    kind: str
    help: str
    lo: int | None = None
    hi: int | None = None
    default: Any = None
    length: int | None = None
    keys: Callable[[], Sequence[str]] | None = None
    check: Callable[[str, Any], None] | None = None


def _jobs_not_zero(name: str, value: Any) -> None:
    if value == 0:
        raise ConfigError(f"{name} must be 1..{MAX_JOBS} or -1 (every core), got 0")


def _one_to_four(name: str, value: Any) -> None:
    if not 1 <= len(value) <= 4:
        raise ConfigError(f"{name} needs 1 to 4 values (starting score of seats 0..3), "
                          f"got {len(value)}")


def _positive(name: str, value: Any) -> None:
    if value <= 0:
        raise ConfigError(f"{name} must be more than 0, got {value}")


MAX_MOVE_TIMEOUT = 86_400  # seconds: a day per move is "no limit" for any real plug-in


def _task_ids() -> Sequence[str]:
    from bonfire_sim.rules import components as C

    return [t.id for t in C.TASKS]


MAX_GNOME_AMOUNT = 9  # = rules.tables.MAX_GNOME_AMOUNT (a test keeps them equal)
MAX_ABILITY = 27  # specialist abilities are 1..27; 0 = none


def _gnome_knob_ids(key: str) -> Callable[[], Sequence[str]]:
    def ids() -> Sequence[str]:
        from bonfire_sim.rules import tables as T

        return list(T.GNOME_KNOBS[key][1])
    return ids


def _specialist_ids() -> Sequence[str]:
    return [f"S{a}" for a in range(1, MAX_ABILITY + 1)]


def _gnome_field(key: str, what: str) -> Field:
    return Field("map", what, 0, MAX_GNOME_AMOUNT, keys=_gnome_knob_ids(key))


RUN_FIELDS: dict[str, Field] = {
    "games": Field("int", "games to play", 1, MAX_GAMES, 1000),
    "players": Field("int", "human seats (1 = solo against Tom; in an experiment file a "
                     "list such as [2, 3, 4] is a sweep)", 1, 4, 4),
    "strategies": Field("strs", "strategy per seat (one name = every seat)", default=()),
    "seat_rotation": Field("bool", "play every deal in each cyclic seat rotation", default=False),
    "seed": Field("int", "master seed", 0, MAX_SEED, 0),
    "turn_log": Field("str", "none, all or sample:F (0 < F <= 1)", default="none"),
    "chunk_size": Field("int", "games per chunk (unit of work and resume)", 1, MAX_CHUNK, 500),
    "out": Field("path", "run directory"),
    "jobs": Field("int", "worker processes (-1 = every core)", -1, MAX_JOBS, 1,
                  check=_jobs_not_zero),
    "move_timeout": Field("num", "seconds a plug-in seat may take per move (default: no "
                          "limit)", 0, MAX_MOVE_TIMEOUT, check=_positive),
    "populations": Field("strs", "play the configuration once per population, each in its "
                         "own run <out>/population=NAME: a name from strategies.POPULATIONS "
                         "(strong, old_mix; 'default' = all of them) or specs such as "
                         "'portal,planner'; replaces "
                         "strategies; the report marks each finding across them",
                         default=()),
}
OVERRIDE_FIELDS: dict[str, Field] = {
    "task_points": Field("map", "points of a task, by task id", 0, MAX_POINTS, keys=_task_ids),
    "task_amount": Field("map", "the count a task's condition asks for (3 of R7's '3 "
                         "portals'), by task id; count conditions only", 1, 7,
                         keys=_task_ids),
    "guardian_points": Field("ints", "guardian points by bonfire space 0..6", 0, MAX_POINTS,
                             length=7),
    "countdown_trigger": Field("map", "novices that start the countdown, by player count",
                               1, MAX_NOVICES, keys=lambda: ["1", "2", "3", "4"]),
    "portal_points": Field("int", "points per portal", 0, MAX_POINTS),
    "path_points": Field("int", "points per matching path", 0, MAX_POINTS),
    "common_points": Field("int", "points per common task", 0, MAX_POINTS),
    "fate_supply_points": Field("int", "points per fate tile left in the supply", 0, MAX_POINTS),
    "fire_points": Field("int", "points of the fire bonus", 0, MAX_POINTS),
    "council_point": Field("int", "points of a council point space", 0, MAX_POINTS),
    "seat_points": Field("nums", "starting score per seat, seat 0 = start player (1-4 values;"
                         " a fraction is a per-deal lottery: 2.4 = 3 points in 40% of deals)",
                         0, MAX_POINTS, check=_one_to_four),
    "specialist_points": _gnome_field("specialist_points", "points a specialist's ability "
                                      "gives: S4 per elder recruited, S18 per guardian next "
                                      "to a bonfire"),
    "specialist_gold": _gnome_field("specialist_gold", "gold an ability gives: S7 per novice "
                                    "placed, S19 per common task, S20 per guardian ending "
                                    "on the first path tile"),
    "specialist_yellow": _gnome_field("specialist_yellow", "yellow action tiles an ability "
                                      "gives: S15 per gnome recruited, S19 per common task"),
    "specialist_resources": _gnome_field("specialist_resources", "extra resources an ability "
                                         "gives: S8 per path tile, S10-S13 per guardian "
                                         "move"),
    "elder_points": _gnome_field("elder_points", "an elder's points per thing it counts "
                                 "(E1 per path tile ... E6 per gnome)"),
    "specialist_ability": Field("map", "the ability (1..27) a specialist card carries, 0 = "
                                "none (S23 = 22: S23 acts as S22)", 0, MAX_ABILITY,
                                keys=_specialist_ids),
}
# The real-valued settings of a tuning study (bonfire_sim.studies.tune) and their ranges (sigma:
# above 0); here, not in tune, so the CLI can state them without importing the tuner.
TUNE_FLOATS: dict[str, tuple[float, float]] = {
    "sigma": (0.0, 100.0), "w_score": (-1000.0, 1000.0), "w_bonfires": (-1000.0, 1000.0),
    "w_stalled": (-1000.0, 1000.0), "bonfires_min": (0.0, 20.0), "w_short": (0.0, 1000.0),
}
REPORT_FIELDS: dict[str, Field] = {
    "out": Field("path", "HTML file to write"),
    "title": Field("str", "page title"),
    "runs": Field("paths", "extra finished run directories to include", default=()),
    "probe_games": Field("int", "games per run whose decisions are forked for the task and "
                         "gnome values", 1, MAX_GAMES, 2000),
    "jobs": Field("int", "worker processes for the forks (-1 = every core; default: the "
                  "[run] jobs)", -1, MAX_JOBS, 1, check=_jobs_not_zero),
    "skill_depth": Field("path", "a skill-depth matrix (bonfire-sim ladder --skill-depth "
                         "--out) to show as its own section"),
}

# [targets]: what the errata sheet (bonfire-sim errata) must reach; defaults in
# analysis.targets.Targets, which reads this table.
TARGET_FIELDS: dict[str, Field] = {
    "seat_tolerance": Field("num", "percentage points every seat's win share may lie from "
                            "the fair 1/n", 0, 50, 1.5, check=_positive),
    "task_margin": Field("num", "points a task's worth may lie from the typical card of its "
                         "tier", 0, MAX_POINTS, 1, check=_positive),
    "gnome_margin": Field("num", "points a gnome may lie from the average gnome", 0,
                          MAX_POINTS, 1, check=_positive),
    "tom_tolerance": Field("num", "points Tom's handicap challenge may settle from the "
                           "starting handicap printed for a Tom-deck reading", 0, MAX_POINTS,
                           3, check=_positive),
}


def _variant_fields() -> dict[str, Field]:
    # components is pure data (no engine), so the schema can list every fact's variants.
    from bonfire_sim.rules import components as C

    return {fact: Field("str", "reading of an uncertain fact: " + ", ".join(v.name for v in vs),
                        default=vs[0].name)
            for fact, vs in C.VARIANTS.items()}


VARIANT_FIELDS: dict[str, Field] = _variant_fields()
# Experiment-file tables: name -> (fields, required).  Other modules add theirs here.
TABLES: dict[str, tuple[dict[str, Field], bool]] = {
    "run": (RUN_FIELDS, True),
    "overrides": (OVERRIDE_FIELDS, False),
    "report": (REPORT_FIELDS, False),
    "variants": (VARIANT_FIELDS, False),
    "targets": (TARGET_FIELDS, False),
}


def read_toml(path: str | Path, what: str) -> dict[str, Any]:
    """The parsed TOML file ``path`` (an experiment, check or sensitivity file: ``what``),
    or one ``ConfigError`` naming the file and what is wrong with it."""
    import tomllib

    from bonfire_sim.infra import readers

    path = Path(path)
    try:
        text = readers.read_text(path, what)  # a FIFO or device: refused, never waited on
    except FileNotFoundError:
        raise ConfigError(f"{what} {path} not found") from None
    except IsADirectoryError:
        raise ConfigError(f"{what} {path} is a directory") from None
    except (OSError, UnicodeDecodeError) as e:
        raise ConfigError(f"cannot read {what} {path}: {e}") from None
    try:
        return readers.parse_toml(text, path)
    except tomllib.TOMLDecodeError as e:
        raise ConfigError(f"{path} is not valid TOML: {e}") from None


# ---- checking -----------------------------------------------------------------------------
def _is_int(v: Any) -> bool:
    return isinstance(v, numbers.Integral) and not isinstance(v, bool | np.bool_)


def _bounded(name: str, v: Any, f: Field) -> int:
    if not _is_int(v):
        raise ConfigError(f"{name} must be an integer, got {v!r}")
    v = int(v)
    if (f.lo is not None and v < f.lo) or (f.hi is not None and v > f.hi):
        raise ConfigError(f"{name} must be {f.lo}..{f.hi}, got {v}")
    return v


def _bounded_num(name: str, v: Any, f: Field) -> int | float:
    """An integer, or a finite float (kept as given), within the field's bounds."""
    if _is_int(v):
        return _bounded(name, v, f)
    return check_float(name, v, f.lo, f.hi)


def _span(lo: float | None, hi: float | None, lo_open: bool) -> str:
    if lo is not None and hi is not None and not lo_open:
        return f" {lo:g}..{hi:g}"
    parts = ([f"{'>' if lo_open else '>='} {lo:g}"] if lo is not None else []) + (
        [f"<= {hi:g}"] if hi is not None else [])
    return (" " + " and ".join(parts)) if parts else ""


def check_float(name: str, value: Any, lo: float | None = None, hi: float | None = None,
                *, lo_open: bool = False) -> float:
    """The one check of every real number the program takes (options, TOML values,
    weight files): a finite int or float within ``lo``..``hi`` (``lo`` excluded with
    ``lo_open``), returned as float; anything else (NaN, infinity, text, a boolean) is
    one ``ConfigError``.  ``name`` starts the message (none: it starts at "must be")."""
    prefix = f"{name} must be" if name else "must be"
    ok = (isinstance(value, numbers.Real) and not isinstance(value, bool | np.bool_)
          and math.isfinite(value))
    if not ok:
        raise ConfigError(f"{prefix} a finite number{_span(lo, hi, lo_open)}, got {value!r}")
    if (lo is not None and (value <= lo if lo_open else value < lo)) or (
            hi is not None and value > hi):
        raise ConfigError(f"{prefix}{_span(lo, hi, lo_open)}, got {value!r}")
    return float(value)


def check_value(name: str, value: Any, f: Field) -> Any:
    """``value`` if it fits field ``f`` (``name`` is used in the message), else ConfigError."""
    kind = f.kind
    if kind == "int":
        out: Any = _bounded(name, value, f)
    elif kind == "bool":
        if not isinstance(value, bool):
            raise ConfigError(f"{name} must be true or false, got {value!r}")
        out = value
    elif kind in ("str", "path"):
        if not isinstance(value, str) or (kind == "path" and not value.strip()):
            raise ConfigError(f"{name} must be a {'path' if kind == 'path' else 'string'}"
                              f", got {value!r}")
        out = value
    elif kind in ("strs", "paths"):
        if isinstance(value, str) or not isinstance(value, list | tuple) or not all(
                isinstance(x, str) and x.strip() for x in value):
            raise ConfigError(f"{name} must be a list of strings, got {value!r}")
        out = tuple(value)
    elif kind == "ints":
        if not isinstance(value, list | tuple) or (f.length and len(value) != f.length):
            raise ConfigError(f"{name} must be a list of {f.length} integers, got {value!r}")
        out = [_bounded(f"{name}[{i}]", v, f) for i, v in enumerate(value)]
    elif kind == "num":
        out = _bounded_num(name, value, f)
    elif kind == "nums":
        if not isinstance(value, list | tuple):
            raise ConfigError(f"{name} must be a list of numbers, got {value!r}")
        out = [_bounded_num(f"{name}[{i}]", v, f) for i, v in enumerate(value)]
    elif kind == "map":
        if not isinstance(value, Mapping):
            raise ConfigError(f"{name} must be a table of key = integer, got {value!r}")
        valid = list(f.keys()) if f.keys else None
        out = {}
        for k, v in value.items():
            key = str(k)
            if valid is not None and key not in valid:
                raise ConfigError(f"{name}: unknown key {key!r}; valid: {_listing(valid)}")
            out[key] = _bounded(f"{name}.{key}", v, f)
    else:  # pragma: no cover - a schema typo, caught by the schema test
        raise ConfigError(f"{name}: unknown field kind {kind!r}")
    if f.check:
        f.check(name, out)
    return out


def _listing(names: Sequence[str], limit: int = 12) -> str:
    names = list(names)
    return ", ".join(names[:limit]) + (f", ... ({len(names)} in all)" if len(names) > limit
                                       else "")


def check_table(table: str, values: Any, where: str = "") -> dict[str, Any]:
    """Check every key of one table (``run``, ``overrides``, ...); unknown keys refused."""
    prefix = f"{where}: " if where else ""
    fields, _ = TABLES[table]
    check_keys(table, values, where)
    return {k: check_value(f"{prefix}{table}.{k}" if where else k, v, fields[k])
            for k, v in values.items()}


SWEEPABLE = ("overrides",)  # tables whose values may be lists (see ``expand_sweep``)


def check_document(doc: Mapping[str, Any], where: str = "") -> dict[str, dict[str, Any]]:
    """Check a whole experiment document: known tables, the required ones present.

    Sweepable tables are checked for their keys only here; ``expand_sweep`` checks each
    point's values."""
    prefix = f"{where}: " if where else ""
    unknown = [t for t in doc if t not in TABLES]
    if unknown:
        raise ConfigError(f"{prefix}unknown table [{unknown[0]}]; valid: "
                          f"{', '.join(f'[{t}]' for t in TABLES)}")
    for name, (_, required) in TABLES.items():
        if required and name not in doc:
            raise ConfigError(f"{prefix}has no [{name}] table")
    out = {}
    for t, v in doc.items():
        if t in SWEEPABLE:
            check_keys(t, v, where)
            out[t] = dict(v)
        else:
            out[t] = check_table(t, v, where)
    return out


def check_keys(table: str, values: Any, where: str = "") -> None:
    """The table is a table and holds only known keys."""
    prefix = f"{where}: " if where else ""
    fields, _ = TABLES[table]
    if not isinstance(values, Mapping):
        raise ConfigError(f"{prefix}[{table}] must be a table, got {values!r}")
    unknown = [k for k in values if k not in fields]
    if unknown:
        raise ConfigError(f"{prefix}unknown [{table}] key {unknown[0]!r}; valid: "
                          f"{', '.join(fields)}")


def check_overrides(overrides: Mapping[str, Any]) -> dict[str, Any]:
    """Designer overrides, checked against ``OVERRIDE_FIELDS``."""
    return check_table("overrides", overrides)


def check_seed(seed: Any, name: str = "seed") -> int:
    """A master seed: an integer 0..2**64-1 (larger ones would silently wrap)."""
    return check_value(name, seed, RUN_FIELDS["seed"])


def check_count(name: str, value: Any, lo: int = 1, hi: int = MAX_GAMES) -> int:
    """An integer count within bounds (games, deals, ...)."""
    return check_value(name, value, Field("int", name, lo, hi))


# ---- sweeps -----------------------------------------------------------------------------
def _is_sweep(f: Field, value: Any) -> bool:
    if f.kind in ("ints", "nums"):
        return isinstance(value, list | tuple) and bool(value) and all(
            isinstance(v, list | tuple) for v in value)
    return isinstance(value, list | tuple)


def sweep_axes(overrides: Mapping[str, Any]) -> list[tuple[str, list[Any]]]:
    """The swept settings of an overrides table: ``[("task_points.Y14", [3, 5]), ...]``.

    A list where one value belongs (``portal_points = [2, 3]``, ``task_points = {Y14 =
    [3, 5]}``, ``guardian_points = [[...7...], [...7...]]``) is a sweep axis.
    """
    axes = []
    for key, value in overrides.items():
        f = OVERRIDE_FIELDS.get(key)
        if f is None:
            continue
        if f.kind == "map" and isinstance(value, Mapping):
            axes += [(f"{key}.{k}", list(v)) for k, v in value.items()
                     if isinstance(v, list | tuple)]
        elif _is_sweep(f, value):
            axes.append((key, list(value)))
    for name, values in axes:
        if not values:
            raise ConfigError(f"overrides.{name}: a sweep needs at least one value")
    return axes


def expand_sweep(overrides: Mapping[str, Any]) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """Every point of the sweep: ``[(point, overrides), ...]`` where ``point`` maps each
    axis (``"task_points.Y14"``) to its value and ``overrides`` is checked and concrete.
    Without list values, one point ``({}, overrides)``."""
    check_keys("overrides", overrides)
    axes = sweep_axes(overrides)
    points = []
    for combo in itertools.product(*(values for _, values in axes)):
        concrete: dict[str, Any] = {k: (dict(v) if isinstance(v, Mapping) else v)
                                    for k, v in overrides.items()}
        point = {}
        for (name, _), value in zip(axes, combo, strict=True):
            point[name] = value
            key, _, sub = name.partition(".")
            if sub:
                concrete[key][sub] = value
            else:
                concrete[key] = value
        points.append((point, check_overrides(concrete)))
    return points


def point_label(point: Mapping[str, Any]) -> str:
    """A file-name-safe label of a sweep point: ``task_points.Y14=5,portal_points=3``."""
    def text(v: Any) -> str:
        return "-".join(map(str, v)) if isinstance(v, list | tuple) else str(v)

    return ",".join(f"{k}={text(v)}" for k, v in point.items()) or "base"


def schema_rows() -> list[dict[str, Any]]:
    """Every table and key with kind, bounds, default and help (for docs and --help)."""
    return [{"table": t, "key": k, "kind": f.kind, "lo": f.lo, "hi": f.hi,
             "default": f.default, "help": f.help}
            for t, (fields, _) in TABLES.items() for k, f in fields.items()]
