"""Compile ``components`` into the flat ``int64`` parameter vector the kernels read.

Kernels never import component data directly: they receive this vector.  That keeps the
numba cache valid when a designer edits a value, and lets an experiment override any
number (``build_params(overrides={"task_points": {"B1": 6}})``) without recompiling.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from bonfire_sim.errors import ConfigError
from bonfire_sim.rules import components as C
from bonfire_sim.rules import layout as L
from bonfire_sim.rules.fate_capacity import max_extra_tiles

_o = 0


def _f(n: int = 1) -> int:
    global _o
    at = _o
    _o += n
    return at


NT = len(C.TASKS)
T_POINTS = _f(NT)  # printed points of task t
T_COLOUR = _f(NT)  # 0 blue, 1 red, 2 yellow
T_KIND = _f(NT)  # TaskKind
T_A = _f(NT)
T_B = _f(NT)
T_C = _f(NT)
ISL_KIND = _f(C.N_ISLANDS)  # 0 task island, 1 guardian island
ISL_VAL = _f(C.N_ISLANDS)  # resource (task island) or guardian colour 1..4
ISL_CORNER = _f(C.N_ISLANDS)
GB_TILE = _f(7)  # action tile type of Great Bonfire space g
GB_RES = _f(7)  # resource of space g, -1 = "2 points" only
BOARD_NOTCH = _f(4 * 7)  # board b notch k at b*7+k: portal shape 0..6
GUARD_PTS = _f(7)  # points for a guardian next to bonfire space k
FATE_TILE = _f(C.N_FATE_TILES * 3)  # fate tile f symbol i at f*3+i
# Fate area cells are addressed by their fate-grid index gi (see layout.P_FATE).
NCELL = L.FATE_W * L.FATE_W
FATE_ROWS = _f()  # rows of the printed fate area (variant ``fate_area``)
FATE_COLS = _f()  # columns of the printed fate area
FATE_CAP = _f()  # most tiles that fit beside the starting tile without protruding
FATE_PRINT = _f(NCELL)  # grid cell gi: 0 nothing, 1 gold, 2 yellow action tile
FATE_SET = _f(3 * NCELL)  # cell set j (0 highlighted, 1 outer columns, 2 gold) at j*NCELL+gi
FATE_START = _f(3)  # grid cells of the starting tile, left to right
# Cell set j as straight runs (for the strategies' placement estimates): FATE_RUN_N + j
# runs, run k of set j at FATE_RUN + (j * MAX_RUNS + k) * 4 = (first gi, grid step 1 or
# FATE_W, length, 1 if the run spans the whole area along its line).
MAX_RUNS = 16
FATE_RUN_N = _f(3)
FATE_RUN = _f(3 * MAX_RUNS * 4)
PATH_CRYSTAL = _f(len(C.PATH_TILES))  # 0 blue, 1 red, 2 yellow
PATH_RES = _f(len(C.PATH_TILES))
START_PATH_RES = _f()  # resource of path position 0 (gold)
SPEC_RES = _f(C.N_SPECIALISTS)
ELDER_RES = _f(C.N_ELDERS)
CD_TRIGGER = _f(5)  # index = human players 1..4
PATH_COST = _f(6)
TASK_COST = _f(3)
N_PORTAL_PER_SHAPE = _f()
FIRE_PTS = _f()
PORTAL_PTS = _f()
PATH_PTS = _f()
COMMON_PTS = _f()
SEVEN_PTS = _f()
FATE_SUP_PTS = _f()
LEFT_DIV = _f()
COUNCIL_PT = _f()
TPI_OTHER = _f(5)  # tasks per non-corner island, index = human players 1..4
TPI_CORNER_N = _f(5)  # tasks per corner island, index = human players 1..4
REMOVED_SMALL = _f()  # task id removed in 1-2 player games
TOM_CARD = _f(C.TOM_DECK_SIZE)  # TOM_* kind of card i
TOM_REVEAL = _f(C.TOM_DECK_SIZE)  # 1 if card i reveals a gnome first
TOM_PASSES = _f()
TILE_LIMIT = _f()  # action tiles you may hold to place a fate tile (1)
SEAT_PTS = _f(4)  # starting score of seat 0..3 (a designer's start-player compensation)
# Fractional starting points: seat k gets one point more with probability SEAT_FRAC[k] /
# FRAC_UNIT, drawn per deal (see setup.seat_lottery), so a compensation of 2.36 points is
# 3 points in 36% of the deals and 2 in the rest, exactly the interpolation the
# compensation estimate assumes.
SEAT_FRAC = _f(4)
FRAC_UNIT = 10_000  # fractional starting points are kept to 1/10,000 of a point
# Gnomes (override families in ``GNOME_KNOBS``): which ability each specialist card carries,
# the plain amounts the abilities give (index = ability 1..27, 0 unused) and each elder's
# points per counted thing.
SPEC_ABIL = _f(C.N_SPECIALISTS)  # ability (1..27) of specialist card i (S<i+1>); 0 none
ABIL_PTS = _f(28)  # points: ability 4 per elder recruited, 18 per guardian next to a bonfire
ABIL_GOLD = _f(28)  # gold: ability 7 per novice placed, 19 per common task, 20 first tile
ABIL_YELLOW = _f(28)  # yellow tiles: ability 15 per gnome recruited, 19 per common task
ABIL_RES = _f(28)  # extra resources: ability 8 per path tile, 10..13 per guardian move
ELDER_PER = _f(C.N_ELDERS)  # points per counted thing of elder e (E<e+1>)
PARAM_SIZE = _o

TOM_GNOME, TOM_PATH, TOM_TASK1, TOM_TASK2, TOM_GUARDIAN, TOM_FIRE = range(6)
_TOM_KINDS = ("gnome", "path", "task1", "task2", "guardian", "great_bonfire")

TASK_IDS = tuple(t.id for t in C.TASKS)


def task_index(task_id: str) -> int:
    """Index of a task id such as ``"R7"``, with an error naming the valid ids."""
    try:
        return TASK_IDS.index(task_id)
    except ValueError:
        raise ConfigError(f"unknown task {task_id!r}; ids are B1-B22, R1-R22, Y1-Y22") from None


# The gnome override families: key -> (slot of ability / elder 0 in the vector, the
# gnomes that have the knob with their printed values).
GNOME_KNOBS: dict[str, tuple[int, dict[str, int]]] = {
    "specialist_points": (ABIL_PTS, {}),
    "specialist_gold": (ABIL_GOLD, {}),
    "specialist_yellow": (ABIL_YELLOW, {}),
    "specialist_resources": (ABIL_RES, {}),
    "elder_points": (ELDER_PER, {f"E{e + 1}": v for e, v in enumerate(C.ELDER_POINTS_PER)}),
}
for _key, _amounts in C.SPECIALIST_AMOUNTS.items():
    GNOME_KNOBS[_key][1].update({f"S{a}": v for a, v in _amounts.items()})
MAX_GNOME_AMOUNT = 9  # a knob above this is no longer a balance change but a new card
SPECIALIST_IDS = tuple(f"S{a}" for a in range(1, C.N_SPECIALISTS + 1))

OVERRIDABLE = (
    "task_points", "task_amount", "guardian_points", "countdown_trigger", "portal_points",
    "path_points", "common_points", "fate_supply_points", "fire_points", "council_point",
    "seat_points", *GNOME_KNOBS, "specialist_ability",
)
# Task conditions whose first argument is a count ("3 portals"): ``task_amount`` may change
# it, so a designer (or a planted-difficulty test) can make a condition harder or easier.
COUNT_KINDS = (C.TaskKind.GNOMES, C.TaskKind.ELDERS, C.TaskKind.GOLD, C.TaskKind.PORTALS,
               C.TaskKind.GUARDIAN_COUNT, C.TaskKind.GUARDIANS_ON_BONFIRES,
               C.TaskKind.BONFIRES)
MAX_AMOUNT = 7  # no count condition can ask for more: 7 portals, 7 bonfires


def grid_cell(r: int, c: int) -> int:
    """Fate-grid index of area cell (r, c)."""
    return (r + L.FATE_M) * L.FATE_W + (c + L.FATE_M)


def build_params(overrides: Mapping[str, Any] | None = None,
                 variants: Mapping[str, str] | None = None) -> np.ndarray:
    """The parameter vector for the game as printed, with optional designer overrides.

    ``variants``: {fact: variant name} for the uncertain facts (``components.VARIANTS``;
    a fact not named keeps its default).  ``overrides`` keys: ``task_points`` ({task id:
    points}), ``guardian_points`` (7 values), ``countdown_trigger`` ({players: novices}),
    ``seat_points`` (starting score per seat, seat 0 = start player; up to 4 values,
    missing seats start at 0; Tom never gets any; a fraction is a per-deal lottery: 2.36
    is 3 points in 36% of deals, 2 otherwise),
    and the scalars ``portal_points``, ``path_points``, ``common_points``,
    ``fate_supply_points``, ``fire_points``, ``council_point``; the gnome families
    (``GNOME_KNOBS``: ``specialist_points``, ``specialist_gold``, ``specialist_yellow``,
    ``specialist_resources``, ``elder_points``: {gnome: amount 0..9}) and
    ``specialist_ability`` ({S1..S27: ability 1..27, 0 = none}); they apply on top of the
    variants.
    """
    chosen = C.resolve_variants(variants)
    p = np.zeros(PARAM_SIZE, dtype=np.int64)
    for i, t in enumerate(C.TASKS):
        p[T_POINTS + i] = t.points
        p[T_COLOUR + i] = C.TASK_COLOURS.index(t.colour)
        p[T_KIND + i] = t.kind
        p[T_A + i], p[T_B + i], p[T_C + i] = t.a, t.b, t.c
    for i, (kind, val, corner) in enumerate(C.ISLANDS):
        p[ISL_KIND + i] = 0 if kind == "task" else 1
        p[ISL_VAL + i] = (C.RESOURCES.index(val) if kind == "task"
                          else C.GUARDIAN_COLOURS.index(val))
        p[ISL_CORNER + i] = int(corner)
    for g, (tile, res) in enumerate(C.GREAT_BONFIRE):
        p[GB_TILE + g] = C.ACTION_TILES.index(tile)
        p[GB_RES + g] = -1 if res is None else C.RESOURCES.index(res)
    for b, order in enumerate(C.BOARDS):
        for k, shape in enumerate(order):
            p[BOARD_NOTCH + b * 7 + k] = C.PORTAL_SHAPES.index(shape)
    p[GUARD_PTS:GUARD_PTS + 7] = C.fact_value("guardian_points", chosen)
    for f, syms in enumerate(C.FATE_TILES):
        for i, s in enumerate(syms):
            p[FATE_TILE + f * 3 + i] = C.FATE_SYMBOLS.index(s)
    _fate_area(p, C.fact_value("fate_area", chosen))
    for i, (crystal, res) in enumerate(C.PATH_TILES):
        p[PATH_CRYSTAL + i] = C.CRYSTALS.index(crystal)
        p[PATH_RES + i] = C.RESOURCES.index(res)
    p[START_PATH_RES] = C.RESOURCES.index(C.START_PATH_RESOURCE)
    p[SPEC_RES:SPEC_RES + C.N_SPECIALISTS] = C.SPECIALIST_RESOURCE
    p[ELDER_RES:ELDER_RES + C.N_ELDERS] = C.ELDER_RESOURCE
    for n, v in C.COUNTDOWN_TRIGGER.items():
        p[CD_TRIGGER + n] = v
    p[PATH_COST:PATH_COST + 6] = C.PATH_COST
    p[TASK_COST:TASK_COST + 3] = C.TASK_TILE_COST
    p[N_PORTAL_PER_SHAPE] = C.PORTALS_PER_SHAPE
    p[FIRE_PTS] = C.FIRE_POINTS
    p[PORTAL_PTS] = C.PORTAL_POINTS
    p[PATH_PTS] = C.PATH_MATCH_POINTS
    p[COMMON_PTS] = C.COMMON_POINTS
    p[SEVEN_PTS] = C.COMMON_SEVEN_BONFIRES_POINTS
    p[FATE_SUP_PTS] = C.FATE_SUPPLY_POINTS
    p[LEFT_DIV] = C.LEFTOVER_DIVISOR
    p[COUNCIL_PT] = C.COUNCIL_POINT
    for n, (corner, other) in C.TASKS_PER_ISLAND.items():
        p[TPI_CORNER_N + n] = corner
        p[TPI_OTHER + n] = other
    p[REMOVED_SMALL] = task_index(C.REMOVED_TASK_SMALL)
    deck = C.fact_value("tom_deck", chosen)
    if len(deck) != C.TOM_DECK_SIZE:
        raise ConfigError(f"Tom's deck needs {C.TOM_DECK_SIZE} cards, got {len(deck)}")
    for i, (kind, reveal) in enumerate(deck):
        p[TOM_CARD + i] = _TOM_KINDS.index(kind)
        p[TOM_REVEAL + i] = int(reveal)
    p[TOM_PASSES] = C.TOM_DECK_PASSES
    p[TILE_LIMIT] = C.ACTION_TILE_LIMIT_FOR_FATE
    p[SPEC_ABIL:SPEC_ABIL + C.N_SPECIALISTS] = np.arange(1, C.N_SPECIALISTS + 1)
    for base, knobs in GNOME_KNOBS.values():
        for name, v in knobs.items():
            p[_knob_slot(base, name)] = v
    if overrides:
        _apply_overrides(p, overrides)
    return p


def _fate_area(p: np.ndarray, area: C.FateArea) -> None:
    """Compile a fate area: size, capacity, printed cells, cell sets and their runs."""
    if max(area.rows, area.cols) + 2 * L.FATE_M > L.FATE_W:
        raise ConfigError(f"a {area.rows} x {area.cols} fate area does not fit the state's "
                         f"fate grid; list it in components.VARIANTS['fate_area']")
    p[FATE_ROWS], p[FATE_COLS] = area.rows, area.cols
    p[FATE_CAP] = max_extra_tiles(area, C.FATE_SUPPLY)
    for r, c in area.gold_cells:
        p[FATE_PRINT + grid_cell(r, c)] = 1
    for r, c in area.yellow_cells:
        p[FATE_PRINT + grid_cell(r, c)] = 2
    for j, cells in enumerate(area.cell_sets()):
        for r, c in cells:
            p[FATE_SET + j * NCELL + grid_cell(r, c)] = 1
        runs = cell_runs(area, cells)
        if len(runs) > MAX_RUNS:
            raise ConfigError(f"fate cell set {j} breaks into more than {MAX_RUNS} runs")
        p[FATE_RUN_N + j] = len(runs)
        for k, run in enumerate(runs):
            p[FATE_RUN + (j * MAX_RUNS + k) * 4:FATE_RUN + (j * MAX_RUNS + k) * 4 + 4] = run
    for i, (r, c) in enumerate(area.start_cells):
        p[FATE_START + i] = grid_cell(r, c)


def cell_runs(area: C.FateArea, cells: tuple[C.Cell, ...]) -> list[tuple[int, int, int, int]]:
    """A cell set as straight runs (first grid cell, grid step, length, spans the area):
    horizontal runs of 2+ cells first, then vertical ones, then single cells."""
    left = set(cells)
    runs = []
    for dr, dc, extent in ((0, 1, area.cols), (1, 0, area.rows)):
        for r, c in sorted(left):
            if (r, c) not in left or (r - dr, c - dc) in left or (r + dr, c + dc) not in left:
                continue
            run = [(r, c)]
            while (run[-1][0] + dr, run[-1][1] + dc) in left:
                run.append((run[-1][0] + dr, run[-1][1] + dc))
            left -= set(run)
            runs.append((grid_cell(r, c), dr * L.FATE_W + dc, len(run), int(len(run) == extent)))
    runs += [(grid_cell(r, c), 1, 1, 0) for r, c in sorted(left)]
    return runs


def _apply_overrides(p: np.ndarray, overrides: Mapping[str, Any]) -> None:
    scalars = {
        "portal_points": PORTAL_PTS, "path_points": PATH_PTS, "common_points": COMMON_PTS,
        "fate_supply_points": FATE_SUP_PTS, "fire_points": FIRE_PTS,
        "council_point": COUNCIL_PT,
    }
    for key, value in overrides.items():
        if key == "task_points":
            for tid, pts in dict(value).items():
                p[T_POINTS + task_index(str(tid))] = _nonneg(key, pts)
        elif key == "task_amount":
            for tid, amount in dict(value).items():
                i = task_index(str(tid))
                if C.TASKS[i].kind not in COUNT_KINDS:
                    raise ConfigError(f"task_amount: {tid} ({C.TASKS[i].text!r}) has no count "
                                      f"to change; counts: tasks such as R7 '3 portals'")
                a = _nonneg(key, amount)
                if not 1 <= a <= MAX_AMOUNT:
                    raise ConfigError(f"task_amount: {tid} = {amount!r}; give 1..{MAX_AMOUNT}")
                p[T_A + i] = a
        elif key == "guardian_points":
            vals = list(value)
            if len(vals) != 7:
                raise ConfigError("guardian_points needs 7 values (bonfire spaces 0..6)")
            p[GUARD_PTS:GUARD_PTS + 7] = [_nonneg(key, v) for v in vals]
        elif key == "countdown_trigger":
            for n, v in dict(value).items():
                if int(n) not in (1, 2, 3, 4):
                    raise ConfigError("countdown_trigger keys are player counts 1..4")
                p[CD_TRIGGER + int(n)] = max(1, _nonneg(key, v))
        elif key == "seat_points":
            vals = list(value)
            if not 1 <= len(vals) <= 4:
                raise ConfigError("seat_points needs 1 to 4 values (starting score of seats 0..3)")
            p[SEAT_PTS:SEAT_PTS + 4] = 0
            p[SEAT_FRAC:SEAT_FRAC + 4] = 0
            for k, v in enumerate(vals):
                p[SEAT_PTS + k], p[SEAT_FRAC + k] = _whole_and_frac(key, v)
        elif key in GNOME_KNOBS:
            _gnome_knob(p, key, value)
        elif key == "specialist_ability":
            _abilities(p, value)
        elif key in scalars:
            p[scalars[key]] = _nonneg(key, value)
        else:
            raise ConfigError(f"unknown override {key!r}; allowed: {', '.join(OVERRIDABLE)}")


def _knob_slot(base: int, name: str) -> int:
    """Slot of gnome ``name``'s knob: abilities index by number, elders from E1."""
    return base + int(name[1:]) - (1 if name[0] == "E" else 0)


def _as_table(key: str, value: Any, example: str) -> dict[str, Any]:
    if not isinstance(value, Mapping):
        raise ConfigError(f"{key} needs a table of gnome = value, e.g. {key} = {{{example}}}")
    return {str(k): v for k, v in value.items()}


def _gnome_knob(p: np.ndarray, key: str, value: Any) -> None:
    """Apply one gnome amount family, e.g. specialist_points = {S4 = 3}."""
    base, knobs = GNOME_KNOBS[key]
    for name, v in _as_table(key, value, f"{next(iter(knobs))} = 1").items():
        if name not in knobs:
            raise ConfigError(f"{key}: {name!r} has no such knob; gnomes with one: "
                              f"{', '.join(knobs)}")
        p[_knob_slot(base, name)] = _bounded(f"{key}.{name}", v, 0, MAX_GNOME_AMOUNT)


def _abilities(p: np.ndarray, value: Any) -> None:
    """Give specialist cards another ability (1..27) or none (0): {S23 = 22}."""
    for name, v in _as_table("specialist_ability", value, "S23 = 22").items():
        if name not in SPECIALIST_IDS:
            raise ConfigError(f"specialist_ability: unknown specialist {name!r}; "
                              f"specialists are S1-S{C.N_SPECIALISTS}")
        a = _bounded(f"specialist_ability.{name}", v, 0, C.N_SPECIALISTS)
        p[SPEC_ABIL + SPECIALIST_IDS.index(name)] = a


def _bounded(key: str, v: Any, lo: int, hi: int) -> int:
    """An integer in lo..hi, or one error line saying the range."""
    if isinstance(v, bool) or not isinstance(v, int | float | np.integer | np.floating):
        raise ConfigError(f"{key}: {v!r} is not a number; give an integer {lo}..{hi}")
    fv = float(v)
    if not np.isfinite(fv) or fv != int(fv) or not lo <= fv <= hi:
        raise ConfigError(f"{key}: {v!r}; give an integer {lo}..{hi}")
    return int(fv)


def _whole_and_frac(key: str, v: Any) -> tuple[int, int]:
    """A non-negative number of points as (whole points, chance of one more in FRAC_UNIT)."""
    if isinstance(v, bool) or not isinstance(v, int | float | np.integer | np.floating):
        raise ConfigError(f"{key}: {v!r} is not a number")
    fv = float(v)
    if not np.isfinite(fv) or fv < 0:
        raise ConfigError(f"{key}: {v!r} must be a non-negative number")
    units = int(round(fv * FRAC_UNIT))
    return units // FRAC_UNIT, units % FRAC_UNIT


def _nonneg(key: str, v: Any) -> int:
    try:
        iv = int(v)
    except (TypeError, ValueError):
        raise ConfigError(f"{key}: {v!r} is not an integer") from None
    if iv < 0 or iv != v:
        raise ConfigError(f"{key}: {v!r} must be a non-negative integer")
    return iv


DEFAULT_PARAMS = build_params()
