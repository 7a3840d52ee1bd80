"""Round-robin ladder of players: schedule, play, rate (pure functions).

Any player spec plays (``bonfire_sim.strategies.specs``: built-in names, ``name@weights.toml``,
``search:N``, plug-ins ``module:Class``); a game with a plug-in seat runs on the Python
loop (``sim.pyloop``), the others in the compiled loop.

Schedule: every lineup (an N-subset of the strategies, or, with fewer strategies than
seats, every multiset of at least two of them) is played on each deal in every distinct
seat permutation, so each strategy sits in each seat equally often on identical deals.
Deal ``i`` uses ``rng.game_seed(seed, i)`` masked to 63 bits.

Statistics: win rate (shared wins count) with a Wilson 95% interval, mean score, mean
winning score, stalled rate, and a Bradley-Terry rating fitted (scipy) on the pairwise
results inside each game (a better rank is a win, equal ranks half a win each), with
Hessian (Fisher information) standard errors, shown on the Elo scale.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from bonfire_sim.analysis.intervals import Z95, wilson
from bonfire_sim.config import check_count, check_seed
from bonfire_sim.errors import ConfigError

ELO = 400.0 / math.log(10.0)  # Bradley-Terry log-strength -> Elo points
MASK63 = (1 << 63) - 1


@dataclass(frozen=True)
class GameResult:
    """One played game: strategies, scores, ranks and wins per seat, end reason."""

    deal: int
    seed: int
    strategies: tuple[str, ...]
    scores: tuple[int, ...]
    ranks: tuple[int, ...]
    won: tuple[bool, ...]
    end: str


# ---- schedule ---------------------------------------------------------------------------
def lineups(strategies: Sequence[str], players: int) -> list[tuple[str, ...]]:
    """The matchups: N-subsets, or (fewer strategies than seats) multisets of >= 2 names."""
    names = list(dict.fromkeys(strategies))
    if len(names) < 2:
        raise ConfigError("a ladder needs at least 2 different strategies")
    if players < 2:
        raise ConfigError("a ladder needs at least 2 players")
    if len(names) >= players:
        return list(itertools.combinations(names, players))
    return [c for c in itertools.combinations_with_replacement(names, players)
            if len(set(c)) >= 2]


def seatings(lineup: Sequence[str]) -> list[tuple[str, ...]]:
    """Every distinct seat permutation of a lineup (each name in each seat equally often)."""
    return sorted(set(itertools.permutations(lineup)))


def schedule(
    strategies: Sequence[str], players: int, games: int
) -> list[tuple[int, tuple[str, ...]]]:
    """(deal index, seat order) for every game of the ladder: deals x lineups x seatings."""
    plan = []
    for deal in range(games):
        for lineup in lineups(strategies, players):
            for order in seatings(lineup):
                plan.append((deal, order))
    return plan


def deal_seed(seed: int, deal: int) -> int:
    """Seed of deal ``deal``: ``game_seed(seed, deal)`` masked to 63 bits."""
    from bonfire_sim.rules.rng import game_seed

    return game_seed(seed, deal) & MASK63


def pairwise(results: Iterable[GameResult], names: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
    """(wins[i, j], games[i, j]) between strategies i and j (ties count half a win)."""
    idx = {n: i for i, n in enumerate(names)}
    k = len(names)
    wins = np.zeros((k, k))
    games = np.zeros((k, k))
    for r in results:
        for a, b in itertools.combinations(range(len(r.strategies)), 2):
            i, j = idx[r.strategies[a]], idx[r.strategies[b]]
            if i == j:
                continue
            games[i, j] += 1
            games[j, i] += 1
            if r.ranks[a] < r.ranks[b]:
                wins[i, j] += 1
            elif r.ranks[b] < r.ranks[a]:
                wins[j, i] += 1
            else:
                wins[i, j] += 0.5
                wins[j, i] += 0.5
    return wins, games


def bradley_terry(
    wins: np.ndarray, games: np.ndarray, prior: float = 0.01
) -> tuple[np.ndarray, np.ndarray]:
    """Fit log-strengths (mean 0) and their standard errors from pairwise wins.

    ``wins[i, j]`` = wins of i over j in ``games[i, j]`` meetings.  A tiny Gaussian prior
    (``prior`` x sum of squares) keeps the fit finite when a strategy never loses.
    Standard errors come from the inverse Fisher information (Hessian of the negative
    log-likelihood at the optimum), pseudo-inverted under the mean-0 constraint.
    """
    from scipy.optimize import minimize

    k = wins.shape[0]

    def nll(theta: np.ndarray) -> tuple[float, np.ndarray]:
        d = theta[:, None] - theta[None, :]
        logp = -np.logaddexp(0.0, -d)  # log sigmoid(theta_i - theta_j)
        f = -np.sum(wins * logp) + prior * np.sum(theta**2)
        pr = 1.0 / (1.0 + np.exp(-d))
        g = -np.sum(wins * (1 - pr), axis=1) + np.sum(wins.T * (1 - pr.T), axis=1)
        return f, g + 2 * prior * theta

    res = minimize(nll, np.zeros(k), jac=True, method="L-BFGS-B")
    theta = res.x - res.x.mean()
    d = theta[:, None] - theta[None, :]
    pr = 1.0 / (1.0 + np.exp(-d))
    w = games * pr * (1 - pr)
    np.fill_diagonal(w, 0.0)
    info = np.diag(w.sum(axis=1)) - w + 2 * prior * np.eye(k)
    centre = np.eye(k) - 1.0 / k
    cov = centre @ np.linalg.pinv(info) @ centre
    se = np.sqrt(np.clip(np.diag(cov), 0.0, None))
    return theta, se


def summarize(results: Sequence[GameResult], names: Sequence[str]) -> list[dict]:
    """One row per strategy: games, win rate + Wilson 95%, scores, stalled, BT rating."""
    wins, games = pairwise(results, names)
    theta, se = bradley_terry(wins, games)
    rows = []
    for i, name in enumerate(names):
        n = 0
        k = 0.0
        scores: list[int] = []
        win_scores: list[int] = []
        stalled = 0
        for r in results:
            for seat, s in enumerate(r.strategies):
                if s != name:
                    continue
                n += 1
                scores.append(r.scores[seat])
                if r.won[seat]:
                    k += 1
                    win_scores.append(r.scores[seat])
                stalled += r.end == "stalled"
        lo, hi = (float(v) for v in wilson(k, n)) if n else (0.0, 1.0)  # no games: anything
        rows.append({
            "strategy": name, "games": n, "win_rate": round(k / n, 3) if n else 0.0,
            "win_lo": round(lo, 3), "win_hi": round(hi, 3),
            "mean_score": round(float(np.mean(scores)), 1) if scores else 0.0,
            "mean_win_score": round(float(np.mean(win_scores)), 1) if win_scores else 0.0,
            "stalled": round(stalled / n, 3) if n else 0.0,
            "rating": round(1500 + ELO * theta[i], 1),
            "rating_lo": round(1500 + ELO * (theta[i] - Z95 * se[i]), 1),
            "rating_hi": round(1500 + ELO * (theta[i] + Z95 * se[i]), 1),
        })
    rows.sort(key=lambda r: -r["rating"])
    return rows


# ---- playing ----------------------------------------------------------------------------
def play_ladder(
    strategies: Sequence[str],
    players: int,
    games: int,
    seed: int,
    progress: Callable[[int, int], None] | None = None,
    jobs: int = 1,
    status: Callable[[str], None] | None = None,
    move_timeout: float | None = None,
    rules: Rules | None = None,
) -> list[GameResult]:
    """Play the whole schedule; ``strategies`` are player specs (``bonfire_sim.strategies.specs``).

    The schedule is cut into chunks played by ``jobs`` worker processes; every game
    depends only on its deal and seat order, so the results (in schedule order) are the
    same for any ``jobs``.  ``progress(done, total)`` after each chunk; ``status(line)``
    hears about compiling, which happens once, here, before any worker starts.
    ``move_timeout``: seconds a plug-in may take per move (None: no limit); ``rules``:
    the game's overrides and variants (None: the game as printed).
    """
    check_count("games", games)
    return play_plan(strategies, players, seed, schedule(strategies, players, games),
                     progress=progress, jobs=jobs, status=status, move_timeout=move_timeout,
                     rules=rules)


@dataclass(frozen=True)
class Rules:
    """Designer overrides and variants a ladder plays under (``tables.build_params``)."""

    overrides: Mapping[str, Any] = field(default_factory=dict)
    variants: Mapping[str, str] = field(default_factory=dict)

    def params(self) -> np.ndarray:
        from bonfire_sim.rules import tables as T

        if not self.overrides and not self.variants:
            return T.DEFAULT_PARAMS
        return T.build_params(dict(self.overrides) or None, dict(self.variants) or None)


def play_plan(
    strategies: Sequence[str],
    players: int,
    seed: int,
    plan: Sequence[tuple[int, tuple[str, ...]]],
    progress: Callable[[int, int], None] | None = None,
    jobs: int = 1,
    status: Callable[[str], None] | None = None,
    move_timeout: float | None = None,
    rules: Rules | None = None,
) -> list[GameResult]:
    """Play a (deal, seat order) ``plan`` over ``jobs`` workers (see ``play_ladder``);
    the results come back in plan order, the same for any ``jobs``."""
    from bonfire_sim.sim.runner import check_move_timeout
    from bonfire_sim.sim.warm import ensure_warm
    from bonfire_sim.strategies.specs import parse_player

    if not 2 <= players <= 4:
        raise ConfigError(f"ladder players must be 2..4, got {players}")
    check_seed(seed)
    move_timeout = check_move_timeout(move_timeout)
    if jobs < 1:
        raise ConfigError(f"jobs must be >= 1, got {jobs}")
    for name in strategies:
        parse_player(name)  # a bad spec fails here, before any worker starts
    rules = rules or Rules()
    rules.params()  # bad overrides or variants fail here too
    size = max(1, min(200, math.ceil(len(plan) / (8 * jobs))))
    chunks = [plan[i:i + size] for i in range(0, len(plan), size)]
    ensure_warm(status)
    from bonfire_sim.infra.workers import local

    if local(jobs):
        parts: Iterable[list[GameResult]] = (
            play_schedule(strategies, players, seed, c, move_timeout, rules) for c in chunks)
    else:
        from joblib import delayed

        from bonfire_sim.infra.workers import pool

        parts = pool(jobs, return_as="generator")(
            delayed(play_schedule)(strategies, players, seed, c, move_timeout, rules)
            for c in chunks)
    out: list[GameResult] = []
    for part in parts:
        out.extend(part)
        if progress is not None:
            progress(len(out), len(plan))
    return out


def play_schedule(
    strategies: Sequence[str],
    players: int,
    seed: int,
    plan: Sequence[tuple[int, tuple[str, ...]]],
    move_timeout: float | None = None,
    rules: Rules | None = None,
) -> list[GameResult]:
    """Play (deal, seat order) games of a ladder schedule in this process."""
    from bonfire_sim.rules import layout as L
    from bonfire_sim.rules.scoring import NLINES, final_result
    from bonfire_sim.rules.setup import new_game
    from bonfire_sim.sim.loop import W, new_buffer, play_out
    from bonfire_sim.sim.pyloop import play_mixed
    from bonfire_sim.strategies.specs import parse_player

    resolved = {name: parse_player(name) for name in strategies}
    plugins = {name: pl.load() for name, pl in resolved.items() if not pl.compiled}
    p = (rules or Rules()).params()
    buf = new_buffer()
    out: list[GameResult] = []
    scores = np.zeros(players, np.int64)
    lines = np.zeros((players, NLINES), np.int64)
    ranks = np.zeros(players, np.int64)
    won = np.zeros(players, np.int64)
    for deal, order in plan:
        sd = deal_seed(seed, deal)
        if any(name in plugins for name in order):
            s = play_mixed(sd, players, [plugins.get(name, name) for name in order], p,
                           move_timeout=move_timeout, names=order)
        else:
            s = new_game(sd, players, p)
            strat = np.zeros(L.NP, np.int64)
            w = np.zeros((L.NP, W), np.float64)
            for seat, name in enumerate(order):
                strat[seat] = resolved[name].sid
                w[seat] = resolved[name].weight_row()
            play_out(s, p, strat, w, buf)
        final_result(s, p, scores, lines, ranks, won)
        out.append(GameResult(
            deal=deal, seed=sd, strategies=tuple(order),
            scores=tuple(int(x) for x in scores), ranks=tuple(int(x) for x in ranks),
            won=tuple(bool(x) for x in won), end=L.END_NAMES[int(s[L.G_END])],
        ))
    return out
