"""Tune a style's weight row by self-play: CMA-ES (``cma``) on paired deals, resumable.

A candidate is a full weight row of the shared evaluator (``strategies.evaluate``).  CMA-ES
works in normalised coordinates ``x``: weight ``i`` = ``start_i + scale_i * x_i`` clipped
to ``BOUNDS``, where ``scale_i`` = max(0.25, |start_i| / 2), so one sigma moves every
weight by a comparable share of its size.

Every candidate of a generation plays the same deals (common random numbers: deal ``j`` of
generation ``g`` is ``game_seed(seed, g * 100003 + j)``), so differences between candidates
are not differences of luck:

* 2-player games against each opponent of the field, every deal in both seatings: win
  rate (ties half), mean point margin, stalled share;
* 4-player self-play (the candidate in every seat): mean winning score, lit bonfires per
  player, share of games that end without the countdown.

``bonfires_min``/``w_short`` turn the bonfire count into a floor (a hinge penalty) rather
than a slope: a row is asked to light that many and otherwise only to win.

The objective (maximised) is ``OBJECTIVE``: the 2-player win rate, plus small terms for the
margin, the self-play winning score and bonfires, minus the stalled shares - the issue's
targets (beat the best style, score like good players, light bonfires, do not stall).

The study lives in one directory: ``study.json`` (settings, per-generation history, best
row) and ``cma.pkl`` (the optimiser with numpy's global random state, which ``cma``
samples from).  Both are written atomically after every generation; ``resume`` reloads
them and continues exactly as an uninterrupted study would.  ``cma`` keeps its state only
as a Python object, so ``cma.pkl`` is a pickle - code - and is signed with this user's key
(``bonfire_sim.infra.signed``): a resume opens only a state this user's bonfire-sim wrote, and
refuses any other before unpickling it (a study from someone else restarts from its
``study.json`` mean row with ``--start``).
"""

from __future__ import annotations

import hashlib
import pickle
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from bonfire_sim.config import TUNE_FLOATS, check_float
from bonfire_sim.errors import ConfigError
from bonfire_sim.infra import fileio, ownership, readers, safepaths, signed
from bonfire_sim.infra.extras import require
from bonfire_sim.rules import layout as L
from bonfire_sim.rules import tables as T
from bonfire_sim.rules.rng import game_seed, seed_words
from bonfire_sim.rules.state import blank_state
from bonfire_sim.strategies import (
    MAX_WEIGHT,
    STYLE_DEFAULTS,
    W,
    load_weights,
    weight_table,
    weights_for,
)
from bonfire_sim.strategies.specs import parse_player
from bonfire_sim.strategies.weights import WEIGHT_NAMES

STUDY = ownership.STUDY  # "study.json"
OPTIMISER = "cma.pkl"
MASK63 = (1 << 63) - 1
GEN_STRIDE = 100_003
# Weights kept inside a sensible range (negative only where a sign change means something).
BOUNDS: dict[str, tuple[float, float]] = {
    "horizon": (2.0, 40.0), "max_open": (1.0, 7.0), "tpn": (1.0, 20.0),
    "fire_cap": (0.0, 20.0), "refresh": (-5.0, 5.0), "synergy": (-3.0, 5.0),
    "ignite_hold": (0.0, 100.0),  # must outweigh ignite + task points to change anything
    "yellow_floor": (0.0, 1.5),  # a share of the dearest tile; above ~1 it only hoards jokers
}
DEFAULT_BOUNDS = (0.0, 30.0)
OBJECTIVE = ("win2 + 0.005 * margin2 + w_score * (win_score4 - 60) + w_bonfires * "
             "(bonfires4 - 4) - w_short * max(0, bonfires_min - bonfires4) - w_stalled * "
             "(stalled2 + stalled4)")


@dataclass(frozen=True)
class TuneConfig:
    """Everything that determines a study's results (``jobs`` does not)."""

    style: str = "portal"  # the starting row (a built-in style)
    field: tuple[str, ...] = ("portal",)  # 2-player opponents (player specs)
    deals2: int = 100  # 2-player deals per opponent (x 2 seatings) per candidate
    games4: int = 40  # 4-player self-play games per candidate
    generations: int = 100
    budget: int = 0  # stop once this many games are played (0: no game limit)
    popsize: int = 0  # 0: cma's default, 4 + 3 ln(dimension)
    sigma: float = 0.3
    seed: int = 0
    w_score: float = 0.01  # objective weight of a self-play winning-score point
    w_bonfires: float = 0.05  # objective weight of a lit bonfire per player (self-play)
    w_stalled: float = 2.0  # objective weight of the stalled shares (2- and 4-player)
    # A floor instead of a slope: below ``bonfires_min`` lit bonfires per player (self-play)
    # every missing bonfire costs ``w_short``; above it bonfires buy nothing, so the search
    # spends the rest of its effort on winning (0: no floor).
    bonfires_min: float = 0.0
    w_short: float = 0.0
    start: str = ""  # weights file (TOML/JSON) to start from instead of the style's row
    start_sha256: str = ""  # its hash, recorded so a resumed study uses the same start
    # Keep a style's plan while tuning it: (name, lo, hi) bounds replacing ``BOUNDS``, and
    # ``keep_signature`` F > 1 bounds every weight the style's own module sets (its
    # signature, ``DEFAULTS``) within a factor F of its start value (0: off).
    bounds: tuple[tuple[str, float, float], ...] = ()
    keep_signature: float = 0.0

    def __post_init__(self) -> None:
        weights_for(self.style)  # ValueError for an unknown style
        if self.start:
            path = Path(self.start)
            try:  # a FIFO or device is refused by the reader, never waited on
                data = readers.read_bytes(path, "start weights file")
            except FileNotFoundError:
                raise ConfigError(f"start weights file {self.start!r} not found") from None
            except OSError as e:
                raise ConfigError(f"cannot read start weights file {self.start!r}: "
                                  f"{e.strerror or e}") from None
            object.__setattr__(self, "start_sha256", hashlib.sha256(data).hexdigest())
            weight_table(self.style, load_weights(path))  # every value checked, up front
        if self.style in ("random", "search"):
            raise ConfigError(f"tune a weighted style, not {self.style!r}")
        if not self.field:
            raise ConfigError("the field needs at least one opponent")
        for spec in self.field:
            if not parse_player(spec).compiled:
                raise ConfigError(f"field player {spec!r}: plug-ins are too slow for tuning")
        for name, value in (("deals2", self.deals2), ("games4", self.games4),
                            ("generations", self.generations)):
            if value < 0 or (name == "generations" and value < 1):
                raise ConfigError(f"{name} must be >= {1 if name == 'generations' else 0}")
        if self.deals2 == 0 and self.games4 == 0:
            raise ConfigError("deals2 and games4 cannot both be 0")
        for name, (lo, hi) in TUNE_FLOATS.items():  # NaN or infinity would poison CMA-ES
            check_float(name, getattr(self, name), lo, hi, lo_open=name == "sigma")
        if self.seed < 0 or self.budget < 0 or self.popsize < 0:
            raise ConfigError("seed, budget and popsize must be >= 0")
        object.__setattr__(self, "bounds", tuple((str(n), float(lo), float(hi))
                                                 for n, lo, hi in self.bounds))
        for name, lo, hi in self.bounds:
            if name not in WEIGHT_NAMES:
                raise ConfigError(f"bound on unknown weight {name!r}; known: "
                                  f"{', '.join(WEIGHT_NAMES)}")
            check_float(f"bound {name} low", lo, -MAX_WEIGHT, MAX_WEIGHT)
            check_float(f"bound {name} high", hi, lo, MAX_WEIGHT)
        if self.keep_signature:
            check_float("keep_signature", self.keep_signature, 1.0, 100.0, lo_open=True)

    @property
    def games_per_candidate(self) -> int:
        return 2 * self.deals2 * len(self.field) + self.games4

    def to_json(self) -> dict[str, Any]:
        d = asdict(self)
        d["field"] = list(self.field)
        d["bounds"] = [list(b) for b in self.bounds]
        return d


# ---- the weight space ------------------------------------------------------------------
@dataclass(frozen=True)
class Space:
    """Map between CMA-ES coordinates and weight rows."""

    start: np.ndarray
    scale: np.ndarray
    lo: np.ndarray
    hi: np.ndarray

    @classmethod
    def around(cls, style: str, start: str = "",
               bounds: Sequence[tuple[str, float, float]] = (),
               keep_signature: float = 0.0) -> Space:
        """The space around ``style``'s row (or the ``start`` file's), with ``bounds``
        replacing ``BOUNDS`` and the style's signature kept within ``keep_signature``."""
        table = weight_table(style, load_weights(start) if start else None)
        start_row = np.array([table[k] for k in WEIGHT_NAMES])
        scale = np.maximum(0.25, np.abs(start_row) / 2)
        limits = {k: BOUNDS.get(k, DEFAULT_BOUNDS) for k in WEIGHT_NAMES}
        if keep_signature:
            for k in STYLE_DEFAULTS.get(style, {}):
                v = table[k]
                low, high = sorted((v / keep_signature, v * keep_signature))
                limits[k] = (low, high)
        limits.update({name: (low, high) for name, low, high in bounds})
        lo = np.array([limits[k][0] for k in WEIGHT_NAMES])
        hi = np.array([limits[k][1] for k in WEIGHT_NAMES])
        return cls(start_row, scale, lo, hi)

    def row(self, x: Sequence[float]) -> np.ndarray:
        """The weight row (length ``W``) of coordinates ``x``."""
        out = np.zeros(W, np.float64)
        out[:len(WEIGHT_NAMES)] = np.clip(self.start + self.scale * np.asarray(x),
                                          self.lo, self.hi)
        return out


def table_of(row: np.ndarray) -> dict[str, float]:
    """Named weights of a row, rounded for a readable table."""
    return {k: round(float(row[i]), 4) for i, k in enumerate(WEIGHT_NAMES)}


# ---- evaluating candidates ---------------------------------------------------------------
def _play(players: int, seeds: np.ndarray, sid: np.ndarray, wts: np.ndarray) -> tuple[
        np.ndarray, np.ndarray]:
    """Play games (compiled); returns (games matrix, players matrix) of ``batch``."""
    from bonfire_sim.sim.batch import new_outputs, play_games

    g = len(seeds)
    rng_game = np.array([seed_words(int(x), 0) for x in seeds], np.int64)
    rng_strat = np.array([seed_words(int(x), 1) for x in seeds], np.int64)
    out = new_outputs(g, 0)
    play_games(blank_state(L.NP), T.DEFAULT_PARAMS, players, rng_game, rng_strat, sid, wts,
               np.zeros(g, np.int64), out)
    return out.games, out.players


def deal_seeds(config: TuneConfig, generation: int, n: int, offset: int = 0) -> np.ndarray:
    """Seeds of the generation's deals (shared by all its candidates)."""
    base = generation * GEN_STRIDE + offset
    return np.array([game_seed(config.seed, base + j) & MASK63 for j in range(n)], np.int64)


def evaluate_row(config: TuneConfig, generation: int, row: np.ndarray) -> dict[str, float]:
    """Play the candidate's games of ``generation``; its statistics and objective."""
    from bonfire_sim.sim.batch import GAME_COLS, PLAYER_COLS

    sid_style = parse_player(config.style).sid
    won_c, score_c, rank_c, n_bon = (PLAYER_COLS.index(k)
                                     for k in ("won", "score", "rank", "n_bonfires"))
    end_c = GAME_COLS.index("n_rounds"), GAME_COLS.index("end_reason")
    stats: dict[str, float] = {}
    if config.deals2:
        seeds = deal_seeds(config, generation, config.deals2)
        wins = margin = stalled = 0.0
        n = 0
        for opp in config.field:
            opp_p = parse_player(opp)
            for seat in (0, 1):
                g = len(seeds)
                sid = np.zeros((g, L.NP), np.int64)
                wts = np.zeros((g, L.NP, W), np.float64)
                sid[:, seat], wts[:, seat] = sid_style, row
                sid[:, 1 - seat], wts[:, 1 - seat] = opp_p.sid, opp_p.weight_row()
                games, pl = _play(2, seeds, sid, wts)
                mine, theirs = pl[:, seat], pl[:, 1 - seat]
                wins += float(np.sum(np.where(mine[:, rank_c] < theirs[:, rank_c], 1.0,
                                              np.where(mine[:, rank_c] == theirs[:, rank_c],
                                                       0.5, 0.0))))
                margin += float(np.sum(mine[:, score_c] - theirs[:, score_c]))
                stalled += float(np.sum(games[:, end_c[1]] == L.END_STALLED))
                n += g
        stats.update(win2=wins / n, margin2=margin / n, stalled2=stalled / n)
    if config.games4:
        seeds = deal_seeds(config, generation, config.games4, offset=GEN_STRIDE // 2)
        g = len(seeds)
        sid = np.zeros((g, L.NP), np.int64)
        wts = np.zeros((g, L.NP, W), np.float64)
        sid[:, :4] = sid_style
        wts[:, :4] = row
        games, pl = _play(4, seeds, sid, wts)
        won = pl[:, :4, won_c] == 1
        stats.update(
            win_score4=float(pl[:, :4, score_c][won].mean()) if won.any() else 0.0,
            bonfires4=float(pl[:, :4, n_bon].mean()),
            stalled4=float(np.mean(games[:, end_c[1]] != L.END_COUNTDOWN)),
        )
    stats["objective"] = objective(stats, config)
    return stats


def objective(st: dict[str, float], config: TuneConfig) -> float:
    """``OBJECTIVE`` of a candidate's statistics (missing parts count 0)."""
    v = 0.0
    if "win2" in st:
        v += st["win2"] + 0.005 * st["margin2"] - config.w_stalled * st["stalled2"]
    if "win_score4" in st:
        v += (config.w_score * (st["win_score4"] - 60.0)
              + config.w_bonfires * (st["bonfires4"] - 4.0) - config.w_stalled * st["stalled4"]
              - config.w_short * max(0.0, config.bonfires_min - st["bonfires4"]))
    return v


# ---- the study -------------------------------------------------------------------------
def _write_atomic(path: Path, data: bytes) -> None:
    fileio.write_bytes(path, data)  # the one atomic writer: names the file, leaves no .tmp


@dataclass
class Study:
    """A tuning study's state (what ``study.json`` holds)."""

    config: TuneConfig
    generation: int = 0
    games: int = 0
    seconds: float = 0.0
    history: list[dict[str, Any]] = field(default_factory=list)
    best: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {"format": "bonfire_sim-tune", "config": self.config.to_json(),
                "objective": OBJECTIVE, "generation": self.generation, "games": self.games,
                "seconds": round(self.seconds, 1), "history": self.history,
                "best": self.best}


def _new_optimiser(config: TuneConfig) -> Any:
    cma = require("cma")

    opts = {"seed": config.seed + 1, "verbose": -9, "verb_disp": 0, "verb_log": 0,
            "CMA_diagonal": False}
    if config.popsize:
        opts["popsize"] = config.popsize
    return cma.CMAEvolutionStrategy(np.zeros(len(WEIGHT_NAMES)), config.sigma, opts)


def _defaults() -> dict[str, Any]:
    """Every ``TuneConfig`` setting with its default (as ``to_json`` writes it)."""
    return {k: (list(f.default) if isinstance(f.default, tuple) else f.default)
            for k, f in TuneConfig.__dataclass_fields__.items()}


def open_study(out: Path, config: TuneConfig, resume: bool) -> tuple[Study, Any]:
    """Create a study directory, or reopen one with ``resume`` (same settings only)."""
    spath = out / STUDY
    if spath.exists():
        if not resume:
            raise ConfigError(f"{out} holds a tuning study; add --resume to continue it or "
                              f"choose another --out")
        safepaths.refuse_links(out, "study directory")  # no write may follow a link out
        try:
            doc = readers.parse_json(readers.read_bytes(spath, "tuning study"), spath)
            if not isinstance(doc, dict):
                raise ValueError("not a study")
        except (OSError, ValueError) as e:
            raise ConfigError(f"{out}: the study files are unreadable ({e})") from None
        # settings added later count with their defaults for studies written before them
        old = {**_defaults(), **doc.get("config", {})}
        mine = config.to_json()
        # the generation count and the game budget may grow on resume
        if {k: v for k, v in old.items() if k not in ("generations", "budget")} != \
                {k: v for k, v in mine.items() if k not in ("generations", "budget")}:
            raise ConfigError(f"{out} holds a study with other settings: {old}")
        es, rng_state = _load_optimiser(out / OPTIMISER)
        np.random.set_state(rng_state)
        study = Study(config, doc["generation"], doc["games"], doc["seconds"],
                      doc["history"], doc["best"])
        return study, es
    signed.user_key()  # the state is signed after every generation: fail before any work
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise ConfigError(f"cannot create study directory {out}: {e.strerror}") from None
    if any(p.name != ownership.LOCK for p in out.iterdir()):
        raise ConfigError(f"{out} is not empty and holds no study; choose another --out")
    return Study(config), _new_optimiser(config)


def _load_optimiser(path: Path) -> tuple[Any, Any]:
    """The optimiser and numpy's random state, from a file this user's bonfire-sim signed
    (the signature is checked before a byte is unpickled)."""
    try:
        blob = readers.read_bytes(path, "tuning state")
    except OSError as e:
        raise ConfigError(f"{path} is unreadable ({e.strerror or e})") from None
    payload = signed.verified(
        blob, path, "a tuning state",
        f"to go on, start a new study (another --out) with --start FILE.toml holding "
        f"[weights] from 'mean_weights' in {path.parent / STUDY}")
    try:
        es, rng_state = pickle.loads(payload)  # signed by this user: their own state
    except (ValueError, pickle.UnpicklingError, EOFError, TypeError) as e:
        raise ConfigError(f"{path} is unreadable ({e})") from None
    return es, rng_state


def save_study(out: Path, study: Study, es: Any) -> None:
    """Write both study files atomically (optimiser first: study.json marks progress)."""
    _write_atomic(out / OPTIMISER, signed.sign(pickle.dumps((es, np.random.get_state()))))
    _write_atomic(out / STUDY, fileio.dumps_json(study.to_json(), out / STUDY, indent=1).encode())


def tune(config: TuneConfig, out: str | Path, *, jobs: int = 1, resume: bool = False,
         progress: Callable[[Study], None] | None = None,
         weights_out: str | Path | None = None,
         on_start: Callable[[Study], None] | None = None) -> Study:
    """Run (or continue) a study until ``generations`` or the game ``budget`` is reached.

    ``progress(study)`` is called after every generation.  Candidates of a generation are
    evaluated in parallel (joblib); results do not depend on ``jobs``.  ``weights_out``:
    also write the final mean row there (``weights_toml``); it is checked before the
    first game.  One process at a time works on a study (``ownership.locked``).
    ``on_start(study)`` is called once every check has passed, before the first game
    (the CLI says there what the remaining generations will cost).
    """
    require("cma")  # before any game: the study needs the optimiser
    out = Path(out)
    ownership.check_may_write(out, own=out, own_kind="study")
    if weights_out is not None:
        fileio.check_output_file(weights_out, own=out, own_kind="study")
    with ownership.locked(out):
        study = _tune_locked(config, out, jobs, resume, progress, on_start)
    if weights_out is not None:
        fileio.write_text(weights_out, weights_toml(study))
    return study


def _tune_locked(config: TuneConfig, out: Path, jobs: int, resume: bool,
                 progress: Callable[[Study], None] | None,
                 on_start: Callable[[Study], None] | None = None) -> Study:
    from joblib import delayed

    from bonfire_sim.infra.workers import pool as worker_pool

    study, es = open_study(out, config, resume)
    if on_start is not None:
        on_start(study)
    space = Space.around(config.style, config.start, config.bounds, config.keep_signature)
    with worker_pool(max(1, jobs)) as pool:
        while study.generation < config.generations and not (
                config.budget and study.games >= config.budget):
            t0 = time.perf_counter()
            xs = es.ask()
            rows = [space.row(x) for x in xs]
            stats = pool(delayed(evaluate_row)(config, study.generation, r) for r in rows)
            es.tell(xs, [-s["objective"] for s in stats])
            k = int(np.argmax([s["objective"] for s in stats]))
            mean_row = space.row(es.mean)
            study.history.append({
                "generation": study.generation,
                "best": {key: round(v, 4) for key, v in stats[k].items()},
                "mean_objective": round(float(np.mean([s["objective"] for s in stats])), 4),
                "sigma": round(float(es.sigma), 4),
            })
            # The returned row is the optimiser's mean (its estimate of the optimum, less
            # noisy than one lucky candidate); the generation's best is kept for reference.
            study.best = {"mean_weights": table_of(mean_row),
                          "best_candidate": table_of(rows[k]),
                          "best_candidate_stats": stats[k]}
            study.generation += 1
            study.games += config.games_per_candidate * len(xs)
            study.seconds += time.perf_counter() - t0
            save_study(out, study, es)
            if progress is not None:
                progress(study)
    return study


def weights_toml(study: Study) -> str:
    """The study's current mean row as a weights file (``name@file.toml``)."""
    lines = [f"# bonfire-sim tune: style {study.config.style}, generation {study.generation}, "
             f"{study.games} games", "[weights]"]
    lines += [f"{k} = {v}" for k, v in study.best.get("mean_weights", {}).items()]
    return "\n".join(lines) + "\n"


def parse_bound(spec: str) -> tuple[str, float, float]:
    """``NAME=LO:HI`` as (name, lo, hi); one ``ConfigError`` line for anything else."""
    name, eq, rng = spec.partition("=")
    lo_s, colon, hi_s = rng.partition(":")
    if not (eq and colon and name.strip()):
        raise ConfigError(f"bound {spec!r}: write NAME=LO:HI, e.g. portal=3:8")
    try:
        lo, hi = float(lo_s), float(hi_s)
    except ValueError:
        raise ConfigError(f"bound {spec!r}: LO and HI must be numbers") from None
    lo = check_float(f"bound {name} low", lo, -MAX_WEIGHT, MAX_WEIGHT)
    return name.strip(), lo, check_float(f"bound {name} high", hi, lo, MAX_WEIGHT)
