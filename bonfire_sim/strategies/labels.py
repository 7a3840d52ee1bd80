"""Search labels for expert iteration: what the rollouts say each candidate move is worth,
and how much a weight row loses by its own choice on labelled positions.

``candidate_values`` is the flat search (``search_ref``) with its totals kept: the policy's
top ``width`` candidates (``search.candidates``: its choice, passing, its next choices), each
played on the same ``samples`` determinizations of the canonical state and finished with
the policy in every seat; a candidate's value is its mean rollout value for the mover (1
for a win plus 0.01 x the point margin over the best other seat, ``search.rollout``).

``regret`` replays a weight row's choice on stored positions (microseconds each, no game
played): the labelled best candidate's value minus the value of the move the row picks.
A move outside the labelled candidates is charged the worst candidate's regret (its value
is unknown; the policy ranked it below all of them).  ``bonfire_sim.studies.expert`` fits
weight rows to this figure.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from bonfire_sim.rules import layout as L
from bonfire_sim.rules.moves import apply_move
from bonfire_sim.rules.scoring import NLINES
from bonfire_sim.strategies import evaluate as E
from bonfire_sim.strategies.price_context import WITH_RT
from bonfire_sim.strategies.search import (
    Rollout,
    candidates,
    canonical,
    determinize,
    rollout,
    state_hash,
)


@njit(**WITH_RT)  # allocates: see price_context.WITH_RT
def candidate_values(s, p, moves, n, w, width, samples, salt, cand, q):
    """Fill ``cand[:k]`` (move indices) and ``q[:k]`` (mean rollout values for the seat to
    move) for the policy ``w``'s top ``width`` candidates; returns k (0 if n < 2).

    Every candidate sees the same ``samples`` determinizations (paired comparison); the
    random stream is seeded from the canonical state and ``salt``, so the labels depend on
    what the mover can see only.
    """
    if n < 2:
        return 0
    c = np.empty_like(s)
    canonical(s, c)
    width = max(1, min(width, n))
    k = candidates(c, p, moves, n, w, width, cand)
    if k < 2:
        return k
    rng = np.zeros(1, np.int64)
    rng[0] = state_hash(c, salt)
    seat = s[L.G_CUR]
    buf = np.zeros((L.MAX_MOVES, L.MOVE_W), np.int64)
    d = np.empty_like(s)
    x = np.empty_like(s)
    nseat = s[L.G_NSEATS]
    scores = np.zeros(nseat, np.int64)
    lines = np.zeros((nseat, NLINES), np.int64)
    ranks = np.zeros(nseat, np.int64)
    won = np.zeros(nseat, np.int64)
    floats = np.empty(E.N_FLOATS)
    ints = np.empty(E.scratch_ints(p), np.int64)
    E.clear_labels(ints)
    work = Rollout(buf, scores, lines, ranks, won, floats, ints)
    for j in range(k):
        q[j] = 0.0
    for _ in range(samples):
        determinize(c, d, rng)
        for j in range(k):
            for i in range(d.shape[0]):
                x[i] = d[i]
            apply_move(x, p, moves[cand[j]])
            q[j] += rollout(x, p, w, seat, work)
    for j in range(k):
        q[j] /= samples
    return k


@njit(**WITH_RT)
def choices(states, p, offsets, rows, w):
    """The row ``w``'s chosen move index at every stored position (``rows[offsets[i]:
    offsets[i + 1]]`` are position i's legal moves)."""
    npos = states.shape[0]
    out = np.empty(npos, np.int64)
    floats = np.empty(E.N_FLOATS)
    ints = np.empty(E.scratch_ints(p), np.int64)
    E.clear_labels(ints)
    s = np.empty(states.shape[1], np.int64)
    for i in range(npos):
        for j in range(s.shape[0]):
            s[j] = states[i, j]
        mv = rows[offsets[i]:offsets[i + 1]]
        out[i] = E.choose_in(s, p, mv, offsets[i + 1] - offsets[i], w, floats, ints)
    return out


@njit(cache=True)
def regret_of(chosen, cand, q, k):
    """Per position: best labelled value minus the value of ``chosen`` (the worst
    candidate's if ``chosen`` is not among the candidates); and 1 where it agrees with the
    labels' best candidate."""
    npos = chosen.shape[0]
    reg = np.empty(npos)
    agree = np.zeros(npos)
    for i in range(npos):
        best = -1e9
        worst = 1e9
        bj = 0
        val = np.nan
        for j in range(k[i]):
            if q[i, j] > best:
                best = q[i, j]
                bj = j
            worst = min(worst, q[i, j])
            if cand[i, j] == chosen[i]:
                val = q[i, j]
        if np.isnan(val):
            val = worst
        reg[i] = best - val
        if cand[i, bj] == chosen[i]:
            agree[i] = 1.0
    return reg, agree


__all__ = ["candidate_values", "choices", "regret_of"]
