"""Sequential paired comparison: play two configurations on the same deals until the
difference is decided or the budget is spent (as fishtest does for chess engines).

Both configurations must share their deals (seed, players, strategies, seat rotation), so
game ``i`` of A and of B is the same deal with the same seats and only the overrides or
variants differ.  Per deal the difference B - A of one seat's (or one strategy's) score or
win share is averaged over its rotations; the deals' differences ``d`` are then tested with
the sequential probability ratio test for a normal mean with estimated variance (the
"generalised" SPRT fishtest uses): H0 ``mean(d) = h0`` against H1 ``mean(d) = h1``,

    LLR = n (h1 - h0) (mean(d) - (h0 + h1) / 2) / var(d),

checked after every chunk against Wald's bounds ``log(beta / (1 - alpha))`` (accept H0) and
``log((1 - beta) / alpha)`` (accept H1).  Chunks are played ``jobs`` at a time but checked
in order, so the decision and the games used never depend on the number of workers.

Two-sided (``two_sided=True``): two such tests run side by side, H0 ``h0`` against
``h0 + delta`` and against ``h0 - delta`` (``delta = |h1 - h0|``); H1 is decided as soon
as either accepts its alternative (the result's ``direction`` says which), H0 once both
have accepted H0.  Each side runs at ``alpha / 2``, so ``alpha`` is the chance of
deciding H1 in either direction when H0 holds (before issue 39 each side ran at
``alpha``: up to ``2 alpha`` in all).  Use it when the sign of the effect is not known in
advance: a one-sided test against ``+delta`` of an effect of ``-8`` accepts H0, which is
right for that test and misleading to read.

**No decision on too little data** (issue 39).  Per-deal differences are zero-inflated
(most deals play out alike in A and B) and skewed, so on few deals the estimated variance
is often far too small and the LLR overshoots: with looks of 150-200 games the test
decided H1 under a true null in 5.6-9.6% of replays.  So no look decides before
``MIN_DEALS`` deals, and none while fewer than ``MIN_INFORMATIVE`` deals differ at all
(unless none does: identical games decide H0).  Every chunk size is then accepted: the
false-decision rate stays within alpha at every look size down to one deal per look
(``tests/test_sequential.py`` replays a zero-inflated null of real games to check it).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
import pandas as pd

from bonfire_sim.analysis.intervals import mean_ci
from bonfire_sim.analysis.runs import check_shared_deals
from bonfire_sim.errors import ConfigError
from bonfire_sim.sim.chunk import ChunkJob, resolve_players, run_one
from bonfire_sim.sim.runconfig import RunConfig
from bonfire_sim.sim.runner import check_move_timeout
from bonfire_sim.sim.warm import ensure_warm

METRICS = ("score", "win")
VAR_FLOOR = 1e-12  # identical outcomes: any difference from h0/h1 decides at once
# No look decides before this many deals, nor while fewer than MIN_INFORMATIVE of them
# differ between A and B (zero-inflated, skewed differences: the module docstring).
# Measured: a skewed null resampled from real games at 1-deal looks stays within alpha.
MIN_DEALS = 100
MIN_INFORMATIVE = 50
UNDECIDED, ACCEPT_H0, ACCEPT_H1 = 0, -1, 1  # a side's verdict (``look_verdicts``)


@dataclass(frozen=True)
class SequentialResult:
    """The outcome of a sequential comparison."""

    decision: str  # "H1" (the difference is h1 or beyond), "H0", or "undecided"
    games: int  # games played per configuration
    deals: int
    diff: float  # mean B - A per deal, with a 95% t interval
    lo: float
    hi: float
    llr: float
    lower: float  # accept-H0 bound
    upper: float  # accept-H1 bound
    h0: float
    h1: float  # the alternative decided (two-sided: the one on the side decided, else +)
    trace: pd.DataFrame = field(repr=False)  # games, deals, diff, llr after each chunk
    two_sided: bool = False
    llr_minus: float = math.nan  # two-sided: the LLR of the test against h0 - delta

    @property
    def direction(self) -> int:
        """+1 / -1: H1 was decided on the side above / below h0; 0 otherwise."""
        if self.decision != "H1":
            return 0
        return 1 if self.h1 > self.h0 else -1

    def verdict(self) -> str:
        """The decision in words, with the alternative(s) it was weighed against."""
        if self.decision == "undecided":
            return "undecided: the budget ran out"
        delta = abs(self.h1 - self.h0)
        if self.decision == "H1":
            beyond = "or more" if self.h1 > self.h0 else "or less"
            return f"decided H1: B - A is {self.h1:+g} {beyond}, not {self.h0:+g}"
        alt = f"{self.h0 + delta:+g} or {self.h0 - delta:+g}" if self.two_sided else (
            f"{self.h1:+g}")
        return f"decided H0: B - A is {self.h0:+g}, not {alt}"

    def summary(self) -> str:
        llr = (f"LLR {_llr(self.llr)}" if not self.two_sided else
               f"LLR {_llr(self.llr)} (+) / {_llr(self.llr_minus)} (-)")
        return (f"{self.verdict()} after {self.games} games per configuration ({self.deals} "
                f"deals); B - A = {self.diff:+.3f} ({self.lo:+.3f} to {self.hi:+.3f}), "
                f"{llr} in [{self.lower:.2f}, {self.upper:.2f}]")


def llr_normal(d: np.ndarray, h0: float, h1: float) -> float:
    """Log-likelihood ratio of H1 (mean h1) against H0 (mean h0) for normal ``d`` with the
    variance estimated from ``d`` (a floor keeps identical outcomes finite)."""
    n = len(d)
    if n < 2:
        return 0.0
    var = max(float(np.var(d, ddof=1)), VAR_FLOOR)
    return n * (h1 - h0) * (float(np.mean(d)) - (h0 + h1) / 2.0) / var


def look_verdicts(n: int, s1: np.ndarray, s2: np.ndarray, informative: np.ndarray,
                  h0: float, alts: tuple[float, ...], lower: float, upper: float,
                  verdicts: np.ndarray) -> np.ndarray:
    """One look of the SPRT(s) at ``n`` deals, for a batch of independent streams (the
    tool passes one; a replay test thousands): ``s1``, ``s2``, ``informative`` are each
    stream's sum, sum of squares and count of nonzero differences so far, ``verdicts``
    (streams x alternatives, ``UNDECIDED`` / ``ACCEPT_H0`` / ``ACCEPT_H1``) is updated in
    place: a side that has decided stays decided, and no side decides before
    ``MIN_DEALS`` deals and ``MIN_INFORMATIVE`` informative ones.  Returns the LLRs."""
    s1, s2 = np.asarray(s1, float), np.asarray(s2, float)
    m = s1 / max(n, 1)
    var = np.maximum((s2 - n * m * m) / max(n - 1, 1), VAR_FLOOR)
    inf = np.asarray(informative)
    ready = (n >= max(2, MIN_DEALS)) & ((inf >= MIN_INFORMATIVE) | (inf == 0))
    llrs = np.zeros((len(m), len(alts)))
    for j, alt in enumerate(alts):
        llrs[:, j] = n * (alt - h0) * (m - (h0 + alt) / 2.0) / var
        open_ = ready & (verdicts[:, j] == UNDECIDED)
        verdicts[open_ & (llrs[:, j] >= upper), j] = ACCEPT_H1
        verdicts[open_ & (llrs[:, j] <= lower), j] = ACCEPT_H0
    return llrs


def decisions(verdicts: np.ndarray) -> np.ndarray:
    """Per stream: ``ACCEPT_H1`` once any side accepted its alternative, ``ACCEPT_H0`` once
    every side accepted H0, else ``UNDECIDED``."""
    out = np.full(len(verdicts), UNDECIDED)
    out[(verdicts == ACCEPT_H0).all(axis=1)] = ACCEPT_H0
    out[(verdicts == ACCEPT_H1).any(axis=1)] = ACCEPT_H1
    return out


def side_bounds(alpha: float, beta: float, two_sided: bool) -> tuple[float, float]:
    """Wald's bounds of each side: at ``alpha / 2`` when two-sided, so that ``alpha`` is
    the chance of deciding H1 in either direction when H0 holds."""
    return wald_bounds(alpha / 2 if two_sided else alpha, beta)


def _llr(v: float) -> str:
    """An LLR for the summary: identical outcomes (the variance floor) give huge ones."""
    return f"{v:.2f}" if abs(v) < 1e4 else f"{v:.1e}"


def wald_bounds(alpha: float, beta: float) -> tuple[float, float]:
    """(accept-H0, accept-H1) bounds of the LLR; ConfigError unless 0 < alpha, beta < 0.5."""
    if not (0 < alpha < 0.5 and 0 < beta < 0.5):  # NaN fails both comparisons
        raise ConfigError("alpha and beta must be in (0, 0.5)")
    return math.log(beta / (1 - alpha)), math.log((1 - beta) / alpha)


def sprt_decision(d: np.ndarray, h0: float, h1: float, lower: float, upper: float,
                  ) -> tuple[str, float]:
    """("H0" | "H1" | "undecided", LLR) of one SPRT on the observations ``d``."""
    llr = llr_normal(d, h0, h1)
    return ("H1" if llr >= upper else "H0" if llr <= lower else "undecided"), llr


MIN_OBSERVATIONS = 5  # check: a few batch estimates give no usable variance


@dataclass(frozen=True)
class IntervalDecision:
    """What ``decide_interval`` saw: the verdict, each bound's decision and LLR, the
    observations used and the games that gave them."""

    verdict: str  # holds / fails / undecided
    decided: dict[str, str]  # bound name -> inside / outside / undecided
    llrs: dict[str, float]
    observations: np.ndarray
    games: int


def decide_interval(stream: Iterable[tuple[int, np.ndarray]],
                    tests: Sequence[tuple[str, float, float, float]], alpha: float,
                    beta: float, on_games: Callable[[int], None] | None = None,
                    ) -> IntervalDecision:
    """Run one SPRT per bound (``Assertion.tests``) over the observations ``stream``
    yields as (games so far, new observations), until one bound is decided outside,
    all inside, or the stream ends.  Pure: it plays nothing itself."""
    lower, upper = wald_bounds(alpha, beta)
    decided = {name: "undecided" for name, *_ in tests}
    llrs = {name: 0.0 for name, *_ in tests}
    obs: list[np.ndarray] = []
    d = np.zeros(0)
    games = 0
    for games, new in stream:
        if on_games is not None:
            on_games(games)
        obs.append(np.asarray(new, float))
        d = np.concatenate(obs)
        if len(d) < MIN_OBSERVATIONS:
            continue
        for name, _, h_out, h_in in tests:  # a decided bound stays decided
            if decided[name] == "undecided":
                verdict, llrs[name] = sprt_decision(d, h_out, h_in, lower, upper)
                decided[name] = {"H1": "inside", "H0": "outside"}.get(verdict, "undecided")
        if "outside" in decided.values() or all(v == "inside" for v in decided.values()):
            break
    verdict = ("fails" if "outside" in decided.values() else
               "holds" if all(v == "inside" for v in decided.values()) else "undecided")
    return IntervalDecision(verdict, decided, llrs, d, games)


def check_finite(**values: float) -> None:
    """ConfigError naming the first value that is not a finite number."""
    for name, v in values.items():
        if not isinstance(v, int | float) or isinstance(v, bool) or not math.isfinite(v):
            raise ConfigError(f"{name} must be a finite number, got {v!r}")


def per_game_values(players: Any, metric: str, seat: int | None, strategy: str | None,
              ) -> pd.Series:
    """The tracked value per game id: the seat's (or the strategy's mean) score or win
    share (a shared win split)."""
    t = players.select(["game_id", "seat", "strategy", "score", "won"]).to_pandas()
    t["strategy"] = t["strategy"].astype(str)
    t["win"] = t["won"].astype(float) / t.groupby("game_id")["won"].transform("sum").clip(lower=1)
    sel = t[t["seat"] == seat] if strategy is None else t[t["strategy"] == strategy]
    return sel.groupby("game_id")[metric].mean()


def sequential_compare(a: RunConfig, b: RunConfig, *, metric: str = "score",
                       seat: int | None = 0, strategy: str | None = None, h0: float = 0.0,
                       h1: float = 1.0, alpha: float = 0.05, beta: float = 0.05,
                       budget: int | None = None, jobs: int = 1, two_sided: bool = False,
                       on_chunk: Callable[[int], None] | None = None,
                       status: Callable[[str], None] | None = None,
                       move_timeout: float | None = None) -> SequentialResult:
    """Play chunks of A and B (same deals) until the SPRT decides or ``budget`` games
    (default: A's ``games``) per configuration are played.  ``two_sided``: H1 is a
    difference of ``|h1 - h0|`` in either direction (see the module docstring).
    ``on_chunk(games)`` is called as chunks finish (progress); ``status(line)`` hears
    about compiling; ``move_timeout``: seconds a plug-in seat may take per move (None: no
    limit)."""
    check_shared_deals(a, b)
    if metric not in METRICS:
        raise ConfigError(f"metric must be one of {', '.join(METRICS)}, got {metric!r}")
    check_finite(h0=h0, h1=h1, alpha=alpha, beta=beta)
    if h1 == h0:
        raise ConfigError("h1 must differ from h0 (the difference the test should detect)")
    wald_bounds(alpha, beta)
    lower, upper = side_bounds(alpha, beta, two_sided)
    if strategy is None and (seat is None or not 0 <= seat < max(a.players, 1)):
        raise ConfigError(f"seat must be 0..{a.players - 1} (or give a strategy)")
    if strategy is not None and strategy not in a.strategies:
        raise ConfigError(f"strategy {strategy!r} does not play in these configurations; "
                          f"they seat {', '.join(dict.fromkeys(a.strategies))}")
    move_timeout = check_move_timeout(move_timeout)
    budget = a.games if budget is None else int(budget)
    if budget < 2:
        raise ConfigError("the budget must be at least 2 games")
    least = MIN_DEALS * max(a.rotations, 1)
    if budget < least:
        raise ConfigError(f"the budget must be at least {least} games ({MIN_DEALS} deals): "
                          f"on fewer the estimated variance of the per-deal differences "
                          f"is too often far too small, so the test decides nothing "
                          f"before; raise --budget (or games)")
    a = replace(a, games=budget)
    b = replace(b, games=budget, chunk_size=a.chunk_size)
    # One-sided: one test against h1.  Two-sided: against h0 + delta and h0 - delta.
    delta = abs(h1 - h0)
    alts: tuple[float, ...] = (h0 + delta, h0 - delta) if two_sided else (h1,)
    players_a, players_b = resolve_players(a), resolve_players(b)
    ensure_warm(status)  # compile once, here, before any worker starts
    n_chunks = -(-budget // a.chunk_size)
    va: list[pd.Series] = []
    vb: list[pd.Series] = []
    trace = []
    decision, d = "undecided", np.zeros(0)
    verdicts = np.full((1, len(alts)), UNDECIDED)
    llrs = [0.0] * len(alts)
    games = 0
    for start in range(0, n_chunks, max(1, jobs)):
        idx = list(range(start, min(start + max(1, jobs), n_chunks)))
        jobs_ab = ([ChunkJob(a, i, players_a, move_timeout) for i in idx]
                   + [ChunkJob(b, i, players_b, move_timeout) for i in idx])
        done = play_chunks(jobs_ab, jobs)
        for k, i in enumerate(idx):  # checked in chunk order: independent of jobs
            ca, cb = done[k], done[len(idx) + k]
            va.append(per_game_values(ca.players, metric, seat, strategy))
            vb.append(per_game_values(cb.players, metric, seat, strategy))
            games = min((i + 1) * a.chunk_size, budget)
            diff = pd.concat(vb) - pd.concat(va)
            d = diff.groupby(diff.index // a.rotations).mean().to_numpy()
            before = verdicts.copy()  # a side that has decided keeps the LLR it had
            new = look_verdicts(len(d), np.array([d.sum()]), np.array([(d * d).sum()]),
                                np.array([np.count_nonzero(d)]), h0, alts, lower, upper,
                                verdicts)[0]
            llrs = [float(new[j]) if before[0, j] == UNDECIDED else llrs[j]
                    for j in range(len(alts))]
            row = {"games": games, "deals": len(d), "diff": float(np.mean(d)),
                   "llr": llrs[0]}
            if two_sided:
                row["llr_minus"] = llrs[1]
            trace.append(row)
            if on_chunk is not None:
                on_chunk(games)
            side = list(verdicts[0])
            if ACCEPT_H1 in side:
                decision, h1 = "H1", alts[side.index(ACCEPT_H1)]
            elif decisions(verdicts)[0] == ACCEPT_H0:
                decision, h1 = "H0", alts[0]
            if decision != "undecided":
                break
        if decision != "undecided":
            break
    if decision == "undecided":
        h1 = alts[0] if not two_sided or np.mean(d) >= h0 else alts[1]
    m, lo, hi = mean_ci(d) if len(d) > 1 else (float(np.mean(d)), np.nan, np.nan)
    return SequentialResult(decision, games, len(d), float(m), float(lo), float(hi),
                            llrs[0], lower, upper, h0, h1, pd.DataFrame(trace), two_sided,
                            llrs[1] if two_sided else math.nan)


def play_chunks(jobs_ab: list[ChunkJob], jobs: int) -> list[Any]:
    """The chunks' tables, in the order of ``jobs_ab``."""
    from bonfire_sim.infra.workers import local

    if local(jobs if len(jobs_ab) > 1 else 1):
        return [run_one(j) for j in jobs_ab]
    from joblib import delayed

    from bonfire_sim.infra.workers import pool

    return pool(min(jobs, len(jobs_ab)))(delayed(run_one)(j) for j in jobs_ab)
