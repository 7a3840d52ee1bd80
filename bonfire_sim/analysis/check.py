"""Balance assertions a designer keeps in CI (``bonfire-sim check FILE.toml``).

A check file holds one ``[[assert]]`` table per assertion: a *measure* of one game
configuration (players, strategies, overrides, variants), or its paired difference from a
``[assert.baseline]`` configuration on the same deals, and the interval it must lie in
(``min``/``max``, or ``target`` +- ``within``).  ``docs/howto/ci-balance-check.md``
documents every key; ``load_checks`` validates the whole file before any game is played.

Each assertion is decided by the sequential test of ``analysis.sequential`` (the SPRT for
a normal mean with estimated variance), one test per finite bound, each with an
indifference zone of +- ``resolution`` around its bound:

* at ``min``: "below" (``min - resolution``) against "inside" (``min + resolution``);
* at ``max``: "above" (``max + resolution``) against "inside" (``max - resolution``).

The assertion **holds** once every bound's test has decided "inside", **fails** as soon as
one decides "outside", and is **undecided** when its game budget runs out first.  So
``alpha`` is the chance of passing an assertion whose truth lies ``resolution`` or more
outside the interval, ``beta`` the chance of failing one whose truth lies ``resolution``
or more inside.  Truths closer to a bound than ``resolution`` may go either way.

Observations: seat, strategy and solo measures give one per deal (the seat rotations of
a deal averaged; with a baseline the per-deal difference), played chunk by chunk with
the same seeds as a run.  Task and gnome values give one per *batch*: each batch is a
fresh seeded run of ``chunk_size`` games whose value is read from the public
``analysis.cards.task_values`` / ``gnome_values`` (so a check follows the card values
the report shows: a task's surplus over its colour, a gnome against the average gnome);
no batch decides before ``MIN_OBSERVATIONS`` batches.
"""

from __future__ import annotations

import json
import math
import shutil
import tempfile
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from bonfire_sim.analysis.cards.probes import GNOME_IDS, TASK_IDS, ProbeSettings
from bonfire_sim.analysis.intervals import mean_ci
from bonfire_sim.analysis.sequential import (
    decide_interval,
    per_game_values,
    play_chunks,
    wald_bounds,
)
from bonfire_sim.config import check_count, check_seed, read_toml
from bonfire_sim.errors import ConfigError
from bonfire_sim.infra import safepaths
from bonfire_sim.rules import components as C
from bonfire_sim.sim.chunk import ChunkJob, resolve_players
from bonfire_sim.sim.runconfig import SEED_MASK, RunConfig

# Exit codes (``bonfire-sim sequential`` uses the same): every assertion holds / one
# fails / none fails but one ran out of budget undecided; bad input is 2 (the CLI group).
EXIT_HOLDS, EXIT_FAILS, EXIT_UNDECIDED = 0, 1, 3
VERDICTS = ("holds", "fails", "undecided")
DEFAULT_RESOLUTION = {"rate": 0.02, "points": 0.5}  # one-sided intervals
DEFAULTS = {"budget": 2000, "chunk_size": 200, "seed": 1, "alpha": 0.05, "beta": 0.05}
MAX_HANDICAP = 1000


@dataclass(frozen=True)
class Measure:
    """What an assertion measures: its unit, one observation per ``deal`` or per ``batch``,
    the keys it takes beyond the common ones and the player counts it applies to."""

    unit: str  # "rate" (a share, 0.25 = 25%) or "points"
    per: str  # "deal" or "batch"
    keys: tuple[str, ...]
    players: tuple[int, ...]
    help: str


MULTI = (2, 3, 4)
MEASURES: dict[str, Measure] = {
    "seat_win": Measure("rate", "deal", ("seat",), MULTI,
                        "win share of one seat (0 = start player; shared wins split)"),
    "seat_score": Measure("points", "deal", ("seat",), MULTI, "final score of one seat"),
    "strategy_win": Measure("rate", "deal", ("strategy",), MULTI,
                            "mean win share of one strategy's seats"),
    "strategy_score": Measure("points", "deal", ("strategy",), MULTI,
                              "mean final score of one strategy's seats"),
    "solo_win": Measure("rate", "deal", ("handicap",), (1,),
                        "share of solo games won against Tom at a handicap (margin > it)"),
    "solo_margin": Measure("points", "deal", (), (1,), "the solo player's score minus Tom's"),
    "task_value": Measure("points", "batch", ("task",), (1, 2, 3, 4),
                          "lit value of a task (analysis.cards.task_values)"),
    "task_surplus": Measure("points", "batch", ("task",), (1, 2, 3, 4),
                            "a task's surplus: its lit value minus the mean lit value of "
                            "the other tasks of its colour (analysis.cards.task_values)"),
    "gnome_value": Measure("points", "batch", ("gnome",), (1, 2, 3, 4),
                           "a gnome's points against the average gnome "
                           "(analysis.cards.gnome_values)"),
}
COMMON_KEYS = ("name", "measure", "players", "strategies", "seat_rotation", "overrides",
               "variants", "baseline", "min", "max", "target", "within", "resolution",
               "budget", "chunk_size", "seed", "alpha", "beta")
CHECK_KEYS = (*DEFAULTS, "jobs")
BASELINE_KEYS = ("overrides", "variants")


@dataclass(frozen=True)
class Assertion:
    """One validated assertion.  ``config.games`` is the budget (whole deals);
    ``baseline``: the configuration the difference is taken from, or None."""

    name: str
    measure: str
    config: RunConfig
    baseline: RunConfig | None
    lo: float  # -inf: no lower bound
    hi: float  # +inf: no upper bound
    resolution: float
    alpha: float
    beta: float
    seat: int = 0
    strategy: str | None = None
    handicap: int = 0
    item: str | None = None  # task or gnome id

    @property
    def unit(self) -> str:
        return MEASURES[self.measure].unit

    def target(self) -> str:
        """The interval as text (rates in percent)."""
        f = (lambda v: f"{100 * v:g}%") if self.unit == "rate" else (lambda v: f"{v:g}")
        if math.isinf(self.lo):
            return f"<= {f(self.hi)}"
        if math.isinf(self.hi):
            return f">= {f(self.lo)}"
        return f"{f(self.lo)} .. {f(self.hi)}"

    def tests(self) -> list[tuple[str, float, float, float]]:
        """(bound name, bound, H outside, H inside) of each finite bound."""
        r = self.resolution
        out = []
        if math.isfinite(self.lo):
            out.append(("min", self.lo, self.lo - r, self.lo + r))
        if math.isfinite(self.hi):
            out.append(("max", self.hi, self.hi + r, self.hi - r))
        return out


@dataclass(frozen=True)
class CheckPlan:
    path: str
    assertions: tuple[Assertion, ...]
    jobs: int = 1

    @property
    def budget(self) -> int:
        """Most games all assertions can play (baselines count double)."""
        return sum(a.config.games * (2 if a.baseline else 1) for a in self.assertions)


@dataclass(frozen=True)
class AssertionResult:
    assertion: Assertion
    verdict: str  # holds / fails / undecided
    games: int  # games played per configuration
    observations: int  # deals or batches
    estimate: float  # mean of the observations, with a 95% t interval
    lo: float
    hi: float
    bounds: tuple[dict[str, Any], ...]  # per bound: name, value, llr, decision
    seconds: float

    def row(self) -> dict[str, Any]:
        """The summary table's row."""
        a = self.assertion
        f = (lambda v: f"{100 * v:.1f}%") if a.unit == "rate" else (lambda v: f"{v:+.2f}")
        est = "-" if math.isnan(self.estimate) else f(self.estimate)
        if not (math.isnan(self.lo) or math.isnan(self.hi)):
            est += f" [{f(self.lo)}, {f(self.hi)}]"
        return {"assertion": a.name, "measure": a.measure + (" (vs baseline)" if a.baseline
                                                             else ""),
                "target": a.target(), "estimate [95%]": est, "off by [95%]": self.off_by(),
                "games": self.games, "verdict": self.verdict}

    def distance(self) -> tuple[str, float, float, float] | None:
        """(bound name, estimate - bound, lo - bound, hi - bound) for the bound the estimate
        lies beyond; None when it lies inside the interval (or there is no estimate).  An
        undecided 44.1% against 31.3-35.3% is +8.8 points beyond ``max``, not "unknown"."""
        a = self.assertion
        if math.isnan(self.estimate):
            return None
        for name, bound, beyond in (("max", a.hi, self.estimate > a.hi),
                                    ("min", a.lo, self.estimate < a.lo)):
            if beyond:
                return name, self.estimate - bound, self.lo - bound, self.hi - bound
        return None

    def off_by(self) -> str:
        """How far the estimate lies outside the interval, with the 95% interval of that
        distance ("+8.8 pts above max [+5.0, +12.6]"), or "inside"."""
        d = self.distance()
        if d is None:
            return "-" if math.isnan(self.estimate) else "inside"
        name, off, lo, hi = d
        rate = self.assertion.unit == "rate"
        f = (lambda v: f"{100 * v:+.1f}") if rate else (lambda v: f"{v:+.2f}")
        text = f"{f(off)}{' pts' if rate else ''} {'above' if name == 'max' else 'below'} {name}"
        if not (math.isnan(lo) or math.isnan(hi)):
            text += f" [{f(lo)}, {f(hi)}]"
        return text

    def to_json(self) -> dict[str, Any]:
        a = self.assertion
        return {"name": a.name, "measure": a.measure, "unit": a.unit,
                "players": a.config.players, "strategies": list(a.config.strategies),
                "baseline": a.baseline is not None, "min": _num(a.lo), "max": _num(a.hi),
                "resolution": a.resolution, "alpha": a.alpha, "beta": a.beta,
                "budget": a.config.games, "seed": a.config.seed, "games": self.games,
                "observations": self.observations, "estimate": _num(self.estimate),
                "ci_lo": _num(self.lo), "ci_hi": _num(self.hi),
                "off_by": _off_by_json(self.distance()),
                "bounds": [{k: _num(v) if isinstance(v, float) else v for k, v in b.items()}
                           for b in self.bounds],
                "verdict": self.verdict, "seconds": round(self.seconds, 2)}


@dataclass(frozen=True)
class CheckReport:
    plan: CheckPlan
    results: tuple[AssertionResult, ...]

    @property
    def exit_code(self) -> int:
        verdicts = {r.verdict for r in self.results}
        if "fails" in verdicts:
            return EXIT_FAILS
        return EXIT_UNDECIDED if "undecided" in verdicts else EXIT_HOLDS

    @property
    def verdict(self) -> str:
        return {EXIT_HOLDS: "pass", EXIT_FAILS: "fail", EXIT_UNDECIDED: "undecided"}[
            self.exit_code]

    def rows(self) -> list[dict[str, Any]]:
        return [r.row() for r in self.results]

    def to_json(self) -> str:
        """Strict JSON (no NaN or Infinity: missing numbers are null)."""
        doc = {"format": "bonfire_sim-check", "file": self.plan.path,
               "verdict": self.verdict, "exit_code": self.exit_code,
               "assertions": [r.to_json() for r in self.results]}
        return json.dumps(doc, indent=1, allow_nan=False)


def _off_by_json(d: tuple[str, float, float, float] | None) -> dict[str, Any] | None:
    """The distance beyond a bound for the JSON report (None: inside or no estimate)."""
    if d is None:
        return None
    name, off, lo, hi = d
    return {"bound": name, "value": _num(off), "ci_lo": _num(lo), "ci_hi": _num(hi)}


def _num(v: float) -> float | None:
    return None if v is None or not math.isfinite(v) else float(v)


# ---- loading --------------------------------------------------------------------------------
def _number(where: str, key: str, v: Any) -> float:
    if isinstance(v, bool) or not isinstance(v, int | float) or not math.isfinite(v):
        raise ConfigError(f"{where}: {key} must be a finite number, got {v!r}")
    return float(v)


def _table(where: str, name: str, v: Any, allowed: tuple[str, ...]) -> dict[str, Any]:
    if not isinstance(v, Mapping):
        raise ConfigError(f"{where}: {name} must be a table, got {v!r}")
    unknown = [k for k in v if k not in allowed]
    if unknown:
        raise ConfigError(f"{where}: unknown key {unknown[0]!r}; valid: {', '.join(allowed)}")
    return dict(v)


def _interval(where: str, t: Mapping[str, Any], unit: str) -> tuple[float, float, float]:
    """(lo, hi, resolution) from min/max or target/within."""
    if ("target" in t or "within" in t) and ("min" in t or "max" in t):
        raise ConfigError(f"{where}: give min/max or target/within, not both")
    if "target" in t or "within" in t:
        if not ("target" in t and "within" in t):
            raise ConfigError(f"{where}: target and within go together (target +- within)")
        target, within = _number(where, "target", t["target"]), _number(where, "within",
                                                                           t["within"])
        if within <= 0:
            raise ConfigError(f"{where}: within must be > 0, got {within:g}")
        lo, hi = target - within, target + within
    elif "min" in t or "max" in t:
        lo = _number(where, "min", t["min"]) if "min" in t else -math.inf
        hi = _number(where, "max", t["max"]) if "max" in t else math.inf
        if lo >= hi:
            raise ConfigError(f"{where}: min ({lo:g}) must be below max ({hi:g})")
    else:
        raise ConfigError(f"{where}: give the interval: min and/or max, or target and within")
    if "resolution" in t:
        r = _number(where, "resolution", t["resolution"])
        if r <= 0:
            raise ConfigError(f"{where}: resolution must be > 0, got {r:g}")
    else:
        r = (hi - lo) / 4 if math.isfinite(hi - lo) else DEFAULT_RESOLUTION[unit]
    if math.isfinite(hi - lo) and r > (hi - lo) / 2:
        raise ConfigError(f"{where}: resolution ({r:g}) must be at most half the interval's "
                          f"width ({(hi - lo) / 2:g})")
    return lo, hi, r


def _assertion(t: Any, defaults: Mapping[str, Any], where: str, index: int) -> Assertion:
    if not isinstance(t, Mapping):
        raise ConfigError(f"{where}: an [[assert]] entry must be a table, got {t!r}")
    measure = t.get("measure")
    if measure not in MEASURES:
        raise ConfigError(f"{where}: unknown measure {measure!r}; valid: {', '.join(MEASURES)}")
    m = MEASURES[measure]
    t = _table(where, "[[assert]]", t, (*COMMON_KEYS, *m.keys))
    name = t.get("name", f"{measure} #{index}")
    if not isinstance(name, str) or not name.strip():
        raise ConfigError(f"{where}: name must be a non-empty string, got {name!r}")
    where = f"{where} ({name})"
    s = {**DEFAULTS, **defaults, **{k: t[k] for k in DEFAULTS if k in t}}
    players = t.get("players", 4 if 4 in m.players else 1)  # as a run: 4 unless solo
    if players not in m.players or isinstance(players, bool):
        raise ConfigError(f"{where}: {measure} needs players among "
                          f"{', '.join(map(str, m.players))}, got {players!r}")
    rotation = t.get("seat_rotation", players > 1)
    if not isinstance(rotation, bool):
        raise ConfigError(f"{where}: seat_rotation must be true or false, got {rotation!r}")
    rotations = players if rotation else 1
    budget = check_count(f"{where}: budget", s["budget"], 2)
    chunk = check_count(f"{where}: chunk_size", s["chunk_size"], 1, 20_000)
    budget, chunk = (-(-x // rotations) * rotations for x in (budget, chunk))  # whole deals
    alpha, beta = (_number(where, k, s[k]) for k in ("alpha", "beta"))
    try:
        wald_bounds(alpha, beta)
    except ConfigError as e:
        raise ConfigError(f"{where}: {e}") from None
    lo, hi, r = _interval(where, t, m.unit)
    config, base = _configs(where, t, budget, players, rotation, s["seed"],
                            min(chunk, budget))
    kw = _measure_keys(where, t, measure, config)
    return Assertion(name, measure, config, base, lo, hi, r, alpha, beta, **kw)


def _measure_keys(where: str, t: Mapping[str, Any], measure: str, config: RunConfig,
                  ) -> dict[str, Any]:
    """The measure's own keys (seat, strategy, handicap, task or gnome), validated."""
    m = MEASURES[measure]
    kw: dict[str, Any] = {}
    if "seat" in m.keys:
        seat = t.get("seat", 0)
        if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < config.players:
            raise ConfigError(f"{where}: seat must be 0..{config.players - 1}, got {seat!r}")
        kw["seat"] = seat
    if "strategy" in m.keys:
        strategy = t.get("strategy")
        if strategy not in config.strategies:
            raise ConfigError(f"{where}: strategy {strategy!r} does not play here; the seats "
                              f"hold {', '.join(dict.fromkeys(config.strategies))}")
        kw["strategy"] = strategy
    if "handicap" in m.keys:
        h = t.get("handicap", 0)
        if isinstance(h, bool) or not isinstance(h, int) or abs(h) > MAX_HANDICAP:
            raise ConfigError(f"{where}: handicap must be an integer "
                              f"-{MAX_HANDICAP}..{MAX_HANDICAP}, got {h!r}")
        kw["handicap"] = h
    for key, valid in (("task", TASK_IDS), ("gnome", GNOME_IDS)):
        if key in m.keys:
            item = t.get(key)
            if item not in valid:
                raise ConfigError(f"{where}: unknown {key} {item!r}; e.g. "
                                  f"{', '.join(valid[:4])}, ...")
            kw["item"] = item
    if m.per == "batch":
        for spec, player in resolve_players(config).items():
            if not player.compiled:
                raise ConfigError(f"{where}: {measure} forks the engine, which plays only "
                                  f"compiled players; {spec!r} is a Python plug-in")
    return kw


def _configs(where: str, t: Mapping[str, Any], games: int, players: int, rotation: bool,
             seed: Any, chunk: int) -> tuple[RunConfig, RunConfig | None]:
    """The configuration under test and the baseline's (same deals), validated."""
    overrides = _table(where, "overrides", t.get("overrides", {}), _override_keys())
    variants = _table(where, "variants", t.get("variants", {}), C.FACTS)
    b = _table(where, "baseline", t.get("baseline", {}), BASELINE_KEYS)
    base_overrides = _table(where, "baseline.overrides", b.get("overrides", {}),
                            _override_keys())
    base_variants = _table(where, "baseline.variants", b.get("variants", {}), C.FACTS)
    strategies = t.get("strategies", ())
    if isinstance(strategies, str):
        strategies = [strategies]
    # check files are shared like experiment files: weights files stay inside the folder
    safepaths.weights_files_within(Path.cwd(), list(strategies), where)
    try:
        config = RunConfig(games=games, players=players, strategies=tuple(strategies),
                           seat_rotation=rotation, seed=check_seed(seed), chunk_size=chunk,
                           overrides=overrides, variants=variants)
        base = (replace(config, overrides=base_overrides, variants=base_variants)
                if "baseline" in t else None)
    except (ConfigError, ValueError, TypeError) as e:
        raise ConfigError(f"{where}: {e}") from None
    return config, base


def _override_keys() -> tuple[str, ...]:
    from bonfire_sim.config import OVERRIDE_FIELDS

    return tuple(OVERRIDE_FIELDS)


def load_checks(path: str | Path) -> CheckPlan:
    """Read and validate a whole check file (ConfigError naming file, assertion, key)."""
    path = Path(path)
    doc = read_toml(path, "check file")
    unknown = [k for k in doc if k not in ("check", "assert")]
    if unknown:
        raise ConfigError(f"{path}: unknown table [{unknown[0]}]; valid: [check], [[assert]]")
    defaults = _table(str(path), "[check]", doc.get("check", {}), CHECK_KEYS)
    jobs = defaults.pop("jobs", 1)
    if isinstance(jobs, bool) or not isinstance(jobs, int) or jobs < 1:
        raise ConfigError(f"{path}: [check] jobs must be an integer >= 1, got {jobs!r}")
    entries = doc.get("assert")
    if not isinstance(entries, list) or not entries:
        raise ConfigError(f"{path}: no assertion; write one [[assert]] table per assertion")
    out = tuple(_assertion(t, defaults, f"{path}: [[assert]] #{i + 1}", i + 1)
                for i, t in enumerate(entries))
    return CheckPlan(str(path), out, jobs)


# ---- observing ----------------------------------------------------------------------------
def _game_values(a: Assertion, players: Any) -> pd.Series:
    """The measure per game id of one chunk's players table."""
    if a.measure.startswith("seat_"):
        return per_game_values(players, a.measure[5:], a.seat, None)
    if a.measure.startswith("strategy_"):
        return per_game_values(players, a.measure[9:], None, a.strategy)
    from bonfire_sim.analysis.solo import outcomes_at

    t = players.select(["game_id", "strategy", "score"]).to_pandas()
    is_tom = t["strategy"].astype(str) == "tom"
    margin = (t[~is_tom].set_index("game_id")["score"]
              - t[is_tom].set_index("game_id")["score"]).sort_index()
    if a.measure == "solo_margin":
        return margin.astype(float)
    return pd.Series((outcomes_at(margin.to_numpy(), a.handicap) > 0).astype(float),
                     index=margin.index)


def _deal_stream(a: Assertion, jobs: int) -> Iterator[tuple[int, np.ndarray]]:
    """(games played so far, new per-deal observations) after each chunk, in order."""
    cfg = a.config
    arms = [cfg] + ([a.baseline] if a.baseline else [])
    resolved = [resolve_players(c) for c in arms]
    for start in range(0, cfg.n_chunks, jobs):
        idx = list(range(start, min(start + jobs, cfg.n_chunks)))
        done = play_chunks([ChunkJob(c, i, p) for c, p in zip(arms, resolved, strict=True)
                            for i in idx], jobs)
        for k, i in enumerate(idx):  # checked in chunk order: independent of jobs
            v = _game_values(a, done[k].players)
            if a.baseline:
                v = v - _game_values(a, done[len(idx) + k].players)
            per_deal = v.groupby(v.index // cfg.rotations).mean()
            yield min((i + 1) * cfg.chunk_size, cfg.games), per_deal.to_numpy(float)


def batch_seed(seed: int, index: int) -> int:
    """The master seed of batch ``index``: independent deals for every batch."""
    return int(np.random.SeedSequence([seed, index, 0xC4EC]).generate_state(
        1, np.uint64)[0]) & SEED_MASK


def _batch_value(a: Assertion, config: RunConfig, work: Path, jobs: int) -> float:
    """The measure of one batch run, from the public analysis functions."""
    from bonfire_sim.analysis.cards.views import gnome_values, task_values
    from bonfire_sim.sim.runner import run

    out = run(config, work, jobs=jobs)
    item = str(a.item)  # a value assertion always names its item (checked when read)
    try:
        if a.measure == "gnome_value":  # against the average gnome: every gnome forked
            t = gnome_values(out, probes=ProbeSettings(kinds=("gnome",)), jobs=jobs)
            t = t.rename(columns={"gnome": "id", "relative": "measure"})
        else:  # the surplus needs its colour's other tasks (the reference)
            colour = {t.id: t.colour for t in C.TASKS}
            tasks = ((item,) if a.measure == "task_value" else
                     tuple(k for k, c in colour.items() if c == colour[item]))
            # the lit value, as the measures say (not the card table's default measure):
            # an assertion's bounds keep their meaning
            t = task_values(out, probes=ProbeSettings(kinds=("light", "forced"), tasks=tasks),
                            jobs=jobs, measure="lit")
            t = t.rename(columns={"task": "id", "value" if a.measure == "task_value"
                                  else "surplus": "measure"})
    finally:
        shutil.rmtree(out, ignore_errors=True)
    row = t[(t["id"] == a.item) & (t["players"] == config.players)]
    if row.empty:
        return math.nan
    return float(row["measure"].iloc[0])


def _batch_stream(a: Assertion, jobs: int) -> Iterator[tuple[int, np.ndarray]]:
    """(games played so far, the new batch's observation or none) after each batch."""
    cfg = a.config
    with tempfile.TemporaryDirectory(prefix="bonfire-check-") as tmp:
        played = 0
        for i in range(cfg.n_chunks):
            games = min(cfg.chunk_size, cfg.games - played)
            seed = batch_seed(cfg.seed, i)
            one = replace(cfg, games=games, chunk_size=games, seed=seed)
            v = _batch_value(a, one, Path(tmp) / f"b{i}", jobs)
            if a.baseline:
                base = replace(a.baseline, games=games, chunk_size=games, seed=seed)
                v -= _batch_value(a, base, Path(tmp) / f"a{i}", jobs)
            played += games
            yield played, np.array([v]) if math.isfinite(v) else np.zeros(0)


def run_assertion(a: Assertion, jobs: int = 1,
                  progress: Callable[[int], None] | None = None) -> AssertionResult:
    """Play ``a`` until every bound is decided or its budget is spent.  ``progress(n)``
    hears about ``n`` newly played games (both arms counted)."""
    t0 = time.perf_counter()
    stream = _deal_stream if MEASURES[a.measure].per == "deal" else _batch_stream
    arms = 2 if a.baseline else 1
    seen = [0]

    def on_games(games: int) -> None:
        if progress is not None:
            progress(arms * (games - seen[0]))
        seen[0] = games

    r = decide_interval(stream(a, max(1, jobs)), a.tests(), a.alpha, a.beta, on_games)
    if progress is not None and r.games < a.config.games:
        progress(arms * (a.config.games - r.games))  # the rest of the budget is not needed
    m, lo, hi = mean_ci(r.observations)
    bounds = tuple({"bound": name, "value": value, "llr": float(r.llrs[name]),
                    "decision": r.decided[name]} for name, value, *_ in a.tests())
    return AssertionResult(a, r.verdict, r.games, len(r.observations), m, lo, hi, bounds,
                           time.perf_counter() - t0)


def run_checks(plan: CheckPlan, jobs: int | None = None,
               progress: Callable[[int], None] | None = None,
               status: Callable[[str], None] | None = None) -> CheckReport:
    """Play every assertion of the plan (all of them, also after a failure, so CI shows
    the whole table).  ``jobs`` overrides the file's ``[check] jobs``."""
    from bonfire_sim.sim.warm import ensure_warm

    jobs = plan.jobs if jobs is None else jobs
    if jobs < 1:
        raise ConfigError(f"jobs must be >= 1, got {jobs}")
    ensure_warm(status)  # compile once, before any worker starts
    return CheckReport(plan, tuple(run_assertion(a, jobs, progress)
                                   for a in plan.assertions))
