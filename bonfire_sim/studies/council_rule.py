"""A fast council rule distilled from the search's council choices (issue 35, step 2 of the
per-phase ablation: docs/findings/2026-11-29-search-phases.md).

Searching only the council space (``search:16:phases=council``: about 6 searched decisions
a game) wins most of what the whole search wins against ``tuned``.  This rule tries to buy
that without rollouts: at a council decision it ranks the legal moves by ``tuned``'s own
order (``search.candidates``: its choice first, then its next choices) and plays the best

    u(move) = -beta x rank(move) + bias[space, bonus or point]

a conditional logit fitted (``fit``) to the search's council choices in the hybrid's own
games (``council_positions``): the rule keeps ``tuned``'s judgement within a space and
learns only which spaces the search prefers over ``tuned``'s ranking.  Everywhere else it
plays ``tuned``.  The fitted numbers live in ``council_rule.json`` beside this module.

The plug-in (``bonfire_sim.studies.council_rule:CouncilRule``) plays on the Python loop,
so its games/s measure the loop, not the rule; the rule's own price is ``n`` evaluator
rankings at about six decisions a game.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
from numba import njit

from bonfire_sim.rules import layout as L
from bonfire_sim.strategies import evaluate as E
from bonfire_sim.strategies import search as SE

NCAT = 16  # council space (0..7) x (0 bonus, 1 the point)
RULE_FILE = Path(__file__).with_name("council_rule.json")


@njit(cache=True)  # allocates (the runtime is on by default; price_context.WITH_RT)
def ranks(s, p, moves, n, w, rank):
    """``rank[i]`` = the place of move i in ``w``'s order (0 = its choice)."""
    order = np.empty(n, np.int64)
    k = SE.candidates(s, p, moves, n, w, n, order)
    for i in range(n):
        rank[i] = k  # a move the order never reached: after every ranked one
    for r in range(k):
        rank[order[r]] = r


@njit(cache=True)  # allocates (the runtime is on by default; price_context.WITH_RT)
def choose_kernel(s, p, moves, n, w, beta, bias):
    """The rule's move: ``w``'s own choice outside the council, else the best utility
    (ties to ``w``'s order)."""
    if n == 1:
        return 0
    if s[L.G_PHASE] != L.PH_COUNCIL:
        return E.choose(s, p, moves, n, w)
    rank = np.empty(n, np.int64)
    ranks(s, p, moves, n, w, rank)
    best, best_u = 0, -1e300
    for i in range(n):
        u = -beta * rank[i] + bias[moves[i, 1] * 2 + moves[i, 2]]
        if u > best_u or (u == best_u and rank[i] < rank[best]):
            best, best_u = i, u
    return best


def council_positions(run_dir: str | Path, spec: str, games: int
                      ) -> list[tuple[np.ndarray, np.ndarray, int, int]]:
    """(tuned's ranks, the moves' categories, the hybrid's choice, game id) at every
    council decision with a choice of ``spec``'s seats in the run's first ``games`` games
    (replayed exactly, ``studies.phases``)."""
    from bonfire_sim.strategies import weights_for
    from bonfire_sim.studies.phases import replay_decisions

    w = weights_for("tuned")[:SE.NW]
    out = []
    for s, p, moves, n, i in replay_decisions(Path(run_dir), spec, games):
        if n > 1 and s[L.G_PHASE] == L.PH_COUNCIL:
            rank = np.empty(n, np.int64)
            ranks(s.copy(), p, moves, n, w, rank)
            cats = moves[:n, 1] * 2 + moves[:n, 2]
            out.append((rank, cats.copy(), int(i), int(s[L.G_TURN])))
    return out


def _utilities(theta: np.ndarray, rank: np.ndarray, cats: np.ndarray) -> np.ndarray:
    return -theta[0] * rank + theta[1:][cats]


def fit(positions: list[tuple[np.ndarray, np.ndarray, int, int]], l2: float = 0.01
        ) -> tuple[float, np.ndarray]:
    """(beta, bias[NCAT]): the conditional logit's maximum (penalised) likelihood of the
    hybrid's choices, with the gold space's bonus as the reference (bias 0)."""
    from scipy.optimize import minimize

    def nll(theta: np.ndarray) -> tuple[float, np.ndarray]:
        f, g = l2 * float(theta[2:] @ theta[2:]), np.zeros_like(theta)
        g[2:] = 2 * l2 * theta[2:]
        for rank, cats, chosen, _ in positions:
            u = _utilities(theta, rank, cats)
            u -= u.max()
            pr = np.exp(u) / np.exp(u).sum()
            f -= float(np.log(pr[chosen]))
            # d(-log p_chosen)/d theta = E_p[x] - x_chosen
            g[0] += float(pr @ -rank) + rank[chosen]
            np.add.at(g[1:], cats, pr)
            g[1 + cats[chosen]] -= 1.0
        g[1] = 0.0  # the reference category (gold, bonus) stays at 0
        return f / len(positions), g / len(positions)

    theta0 = np.zeros(1 + NCAT)
    theta0[0] = 1.0
    res = minimize(nll, theta0, jac=True, method="L-BFGS-B",
                   bounds=[(1e-3, None)] + [(0.0, 0.0)] + [(None, None)] * (NCAT - 1))
    return float(res.x[0]), np.asarray(res.x[1:], np.float64)


def agreement(positions: list[tuple[np.ndarray, np.ndarray, int, int]], beta: float,
              bias: np.ndarray) -> float:
    """Share of the positions where the rule plays the hybrid's choice (beta 0 with bias
    0 is ``tuned``: rank 0 wins the tie)."""
    hits = 0
    for rank, cats, chosen, _ in positions:
        u = -beta * rank + bias[cats]
        best = min(range(len(u)), key=lambda i: (-u[i], rank[i]))
        hits += best == chosen
    return hits / len(positions)


def fit_rule(run_dir: str | Path, spec: str, games: int, out: Path = RULE_FILE,
             train: float = 0.8) -> dict[str, Any]:
    """Fit the rule to the first ``train`` share of the council decisions of ``spec`` in the
    run's first ``games`` games, score it on the rest, and write it to ``out``."""
    pos = council_positions(run_dir, spec, games)
    cut = int(train * len(pos))
    beta, bias = fit(pos[:cut])
    rule = {"about": f"council rule of bonfire_sim/studies/council_rule.py: fit_rule("
                     f"{str(run_dir)!r}, {spec!r}, {games}, train={train}); the run: "
                     f"docs/findings/2026-11-29-search-phases.md",
            "positions": cut, "held_out": len(pos) - cut,
            "agreement_train": agreement(pos[:cut], beta, bias),
            "agreement_held_out": agreement(pos[cut:], beta, bias),
            "tuned_agreement_held_out": agreement(pos[cut:], 0.0, np.zeros(NCAT)),
            "beta": beta, "bias": [float(x) for x in bias]}
    out.write_text(json.dumps(rule, indent=1) + "\n")
    return rule


def load_rule(path: Path = RULE_FILE) -> tuple[float, np.ndarray]:
    data = json.loads(path.read_text())
    return float(data["beta"]), np.asarray(data["bias"], np.float64)


class CouncilRule:
    """The plug-in: ``tuned`` everywhere, the fitted rule at the council."""

    name = "council_rule"

    def __init__(self) -> None:
        from bonfire_sim.strategies import weights_for

        self.w = weights_for("tuned")[:SE.NW].copy()
        self.beta, self.bias = load_rule()

    def choose(self, view: Any, moves: np.ndarray) -> int:
        """Index into ``moves`` of the move to play."""
        s = np.array(view.state, np.int64)
        return int(choose_kernel(s, view.params, np.ascontiguousarray(moves, np.int64),
                                 len(moves), self.w, self.beta, self.bias))
