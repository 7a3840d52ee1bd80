"""The council rule distilled from the search (studies/council_rule.py): tuned outside the
council, tuned's order plus a per-space bias at it, and a fit that finds a planted bias."""

from __future__ import annotations

import numpy as np

from bonfire_sim.rules import layout as L
from bonfire_sim.rules import tables as T
from bonfire_sim.rules.moves import apply_move, legal_moves
from bonfire_sim.rules.setup import new_game
from bonfire_sim.sim.loop import new_buffer
from bonfire_sim.strategies import evaluate, weights_for
from bonfire_sim.strategies import search as SE
from bonfire_sim.studies.council_rule import NCAT, agreement, choose_kernel, fit

P = T.DEFAULT_PARAMS
W = weights_for("tuned")[:SE.NW].copy()


def council_moves(seed: int, bias: np.ndarray) -> list[tuple[int, int, int]]:
    """(tuned's move, the rule's move, n) at seat 0's council decisions of one game played
    by the rule in seat 0 and tuned in seat 1; asserts the rule is tuned elsewhere."""
    s = new_game(seed, 2, P)
    buf = new_buffer()
    out = []
    while s[L.G_OVER] == 0:
        n = legal_moves(s, P, buf)
        base = 0 if n == 1 else int(evaluate.choose(s, P, buf, n, W))
        i = base
        if s[L.G_CUR] == 0:
            i = int(choose_kernel(s, P, buf, n, W, 1.0, bias))
            if s[L.G_PHASE] == L.PH_COUNCIL and n > 1:
                out.append((base, i, n))
            else:
                assert i == base
        apply_move(s, P, buf[i])
    return out


def test_without_biases_the_rule_is_tuned_and_a_large_bias_takes_its_space():
    plain = [x for seed in (1, 2) for x in council_moves(seed, np.zeros(NCAT))]
    assert plain and all(base == i for base, i, _ in plain)
    gold = np.zeros(NCAT)
    gold[0] = 100.0  # the gold space's bonus, whenever it is legal
    s = new_game(1, 2, P)
    buf = new_buffer()
    seen = 0
    while s[L.G_OVER] == 0:
        n = legal_moves(s, P, buf)
        i = 0 if n == 1 else int(choose_kernel(s, P, buf, n, W, 1.0, gold))
        if s[L.G_PHASE] == L.PH_COUNCIL and n > 1:
            legal = [tuple(buf[j, 1:3]) for j in range(n)]
            if (0, 0) in legal:
                assert tuple(buf[i, 1:3]) == (0, 0)
                seen += 1
        apply_move(s, P, buf[i])
    assert seen > 0


def test_the_fit_recovers_a_planted_preference():
    rng = np.random.default_rng(3)
    positions = []
    for _ in range(300):
        n = 6
        rank = rng.permutation(n)
        cats = rng.choice(NCAT, n, replace=False)
        # the "search" plays category 5 when offered, else tuned's choice
        chosen = int(np.flatnonzero(cats == 5)[0]) if 5 in cats else int(np.argmin(rank))
        positions.append((rank, cats, chosen, 0))
    beta, bias = fit(positions)
    assert bias[5] > bias.max(initial=-np.inf, where=np.arange(NCAT) != 5) + 1.0
    assert agreement(positions, beta, bias) > 0.95
    assert agreement(positions, 0.0, np.zeros(NCAT)) < 0.8
