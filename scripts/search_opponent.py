"""Does another opponent model in the rollouts beat ``search:16``?  As plug-ins.

The built-in search (``strategies/search.py``) finishes every sample with ``tuned`` in
**every** seat, so it assumes its opponent plays ``tuned``; another search does not.  This
script is a compiled copy of ``search.choose`` whose rollouts let the opponent seats play
another policy than the mover's seat (which keeps ``tuned``), built outside the package so
the engine's source hash (and every stored run) is untouched.  It reuses the package's
compiled pieces (``canonical``, ``determinize``, ``candidates``, ``state_hash``,
``halving_rounds``, ``Rollout``, the rules, the evaluator) and copies none of them.

Opponent models (``OppSearch`` subclasses, plug-in players, ``strategies/plugin.py``):

- ``Control``: the opponents play ``tuned``'s row: must replay the built-in ``search:16``
  game by game (``tests/test_search_opponent_script.py``);
- ``Mixed``: per sample, each opponent seat's row is drawn uniformly from the default
  population's rows (``lineup.DEFAULT_MIX``) plus ``tuned``;
- ``Expert``: the opponents play ``expert``'s row;
- ``Noisy``: the opponents play ``tuned`` but, with probability 0.25 at a decision, a move
  drawn uniformly among ``tuned``'s top 3.

Every draw comes from the search's own stream (seeded by ``state_hash`` of the canonical
state), so a choice still depends on the visible state only: per sample, one 32-bit value
is drawn after the determinization (only by the arms that need one) and every candidate's
rollout on that sample restarts a private stream from it (paired comparison: the same
opponent rows and the same noise draws for every candidate).  Findings:
``docs/findings/2026-11-30-search-opponent.md``.

    nice -n 10 .venv/bin/python scripts/search_opponent.py cost --deals 20
    nice -n 10 .venv/bin/python scripts/search_opponent.py arm Mixed --deals 200
"""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
from numba import njit

from bonfire_sim.lineup import DEFAULT_MIX
from bonfire_sim.rules import layout as L
from bonfire_sim.rules.moves import apply_move, legal_moves
from bonfire_sim.rules.rng import next_u32, randint
from bonfire_sim.rules.scoring import NLINES, final_result
from bonfire_sim.strategies import EXPERT, weights_for
from bonfire_sim.strategies import evaluate as E
from bonfire_sim.strategies import search as SE
from bonfire_sim.strategies.specs import rollout_policy

MODULE = "search_opponent"
NW = SE.NW
TOPK = 3  # the noisy opponent's choice set: its policy's top 3 moves


@njit(cache=True)
def _top_pick(x, p, moves, n, w, floats, ints, mv, k):
    """Index (into moves) of the policy's ``k``-th best move (0: its choice), by removing
    the earlier choices (the ranking ``search.candidates`` uses)."""
    for i in range(n):
        for q in range(moves.shape[1]):
            mv[i, q] = moves[i, q]
    idx = np.arange(n)
    m = n
    i = 0
    for _ in range(k + 1):
        j = E.choose_in(x, p, mv, m, w, floats, ints)
        i = idx[j]
        for q in range(mv.shape[1]):
            mv[j, q] = mv[m - 1, q]
        idx[j] = idx[m - 1]
        m -= 1
    return i


@njit(cache=True)
def rollout_opp(x, p, w, seat, work, seat_w, noise, nrng, mv):
    """``search.rollout`` with the opponent seats' own rows: ``seat`` plays ``w``, seat j
    plays ``seat_w[j]``; with probability ``noise`` an opponent's decision is a move drawn
    uniformly among its row's top ``TOPK`` (draws from ``nrng``)."""
    buf, scores, lines, ranks, won = work.buf, work.scores, work.lines, work.ranks, work.won
    floats, ints = work.floats, work.ints
    while x[L.G_OVER] == 0:
        n = legal_moves(x, p, buf)
        cur = x[L.G_CUR]
        i = 0
        if n > 1:
            if cur == seat:
                i = E.choose_in(x, p, buf, n, w, floats, ints)
            elif noise > 0.0 and randint(nrng, 0, 1 << 20) < noise * (1 << 20):
                i = _top_pick(x, p, buf, n, seat_w[cur], floats, ints, mv,
                              randint(nrng, 0, min(TOPK, n)))
            else:
                i = E.choose_in(x, p, buf, n, seat_w[cur], floats, ints)
        apply_move(x, p, buf[i])
    final_result(x, p, scores, lines, ranks, won)
    best_other = -1000
    for j in range(x[L.G_NSEATS]):
        if j != seat and scores[j] > best_other:
            best_other = scores[j]
    return float(won[seat]) + 0.01 * float(scores[seat] - best_other)


@njit(cache=True)
def choose_opp(s, p, moves, n, row, opp, noise):
    """``search.choose`` (halving mode) whose rollouts give each opponent seat a row from
    ``opp`` (one row: every opponent plays it; several: drawn per seat and sample) and
    ``noise`` (see ``rollout_opp``).  ``opp`` = [tuned], ``noise`` = 0: the built-in."""
    w = row[:NW]
    if n == 1:
        return 0
    c = np.empty_like(s)
    SE.canonical(s, c)
    phases = int(row[SE.R_PHASES])
    turn = s[L.G_TURN]
    if ((phases >> s[L.G_PHASE]) & 1 == 0 or turn < row[SE.R_FROM]
            or (row[SE.R_UNTIL] > 0 and turn >= row[SE.R_UNTIL])):
        return E.choose(c, p, moves, n, w)
    width = max(1, min(int(row[SE.R_WIDTH]), n))
    cand = np.empty(width, np.int64)
    k = SE.candidates(c, p, moves, n, w, width, cand)
    if k == 1:
        return cand[0]
    rng = np.zeros(1, np.int64)
    rng[0] = SE.state_hash(c, int(row[SE.R_SALT]))
    seat = s[L.G_CUR]
    buf = np.zeros((L.MAX_MOVES, L.MOVE_W), np.int64)
    mv = np.zeros((L.MAX_MOVES, L.MOVE_W), np.int64)
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
    work = SE.Rollout(buf, scores, lines, ranks, won, floats, ints)
    seat_w = np.empty((nseat, NW), np.float64)
    for j in range(nseat):
        seat_w[j, :] = opp[0, :NW]
    nrng = np.zeros(1, np.int64)
    random_opp = opp.shape[0] > 1 or noise > 0.0
    total = np.zeros(k, np.float64)
    alive = np.arange(k)
    m = k
    rounds = SE.halving_rounds(k, SE.MODE_HALVING)
    per_round = max(1, int(row[SE.R_BUDGET]) // rounds)
    for _round in range(rounds):
        for _ in range(max(1, per_round // m)):
            SE.determinize(c, d, rng)
            sub = 0
            if random_opp:
                # the sample's opponent model, from the search's own stream
                sub = SE._nonzero(next_u32(rng, 0))
                if opp.shape[0] > 1:
                    nrng[0] = sub
                    for j in range(nseat):
                        if j != seat:
                            seat_w[j, :] = opp[randint(nrng, 0, opp.shape[0]), :NW]
            for a in range(m):
                j = alive[a]
                for q in range(d.shape[0]):
                    x[q] = d[q]
                apply_move(x, p, moves[cand[j]])
                nrng[0] = sub  # every candidate meets the same noise draws
                total[j] += rollout_opp(x, p, w, seat, work, seat_w, noise, nrng, mv)
        for a in range(1, m):
            j = alive[a]
            b = a
            while b > 0 and (total[alive[b - 1]] < total[j]
                             or (total[alive[b - 1]] == total[j] and alive[b - 1] > j)):
                alive[b] = alive[b - 1]
                b -= 1
            alive[b] = j
        m = (m + 1) // 2
    return cand[alive[0]]


def _rows(names: tuple[str, ...]) -> np.ndarray:
    return np.ascontiguousarray(np.stack([weights_for(n)[:NW] for n in names]))


class OppSearch:
    """The built-in search (sequential halving, width 4) at ``budget`` rollouts, with the
    rollouts' opponent seats playing ``opponents`` (rows) and ``noise``."""

    budget = 16
    width = SE.DEFAULT_WIDTH
    opponents: tuple[str, ...] = (rollout_policy("search"),)
    noise = 0.0

    def __init__(self) -> None:
        self.row = SE.search_row(weights_for(rollout_policy("search")), budget=self.budget,
                                 width=self.width)
        self.opp = _rows(self.opponents)
        self.name = f"{MODULE}:{type(self).__name__}"

    def choose(self, view: Any, moves: np.ndarray) -> int:
        s = np.array(view.state, dtype=np.int64, copy=True)
        mv = np.array(moves, dtype=np.int64, copy=True)
        return int(choose_opp(s, view.params, mv, mv.shape[0], self.row, self.opp,
                              float(self.noise)))


class Control(OppSearch):
    """The opponents play tuned: the built-in search:16."""


class Mixed(OppSearch):
    opponents = (*DEFAULT_MIX, rollout_policy("search"))


class Expert(OppSearch):
    opponents = (EXPERT,)


class Noisy(OppSearch):
    noise = 0.25


ARMS = {cls.__name__: cls for cls in (Control, Mixed, Expert, Noisy)}


def cost(deals: int, seed: int) -> int:
    """The control against the built-in search:16, game by game, and the cost a game of
    every arm against tuned on the same deals, in this one process."""
    from _arms import against_tuned, cost_table

    t0 = time.perf_counter()
    against_tuned(f"{MODULE}:Control", 1, seed + 1)  # the first call compiles (or loads)
    print(f"first decision (compile or cache load): {time.perf_counter() - t0:.1f} s")
    return cost_table([(name, f"{MODULE}:{name}") for name in ARMS], f"{MODULE}:Control",
                      deals, seed)


def main(argv: list[str] | None = None) -> int:
    # the plug-ins are loaded as module ``search_opponent`` (also when run as a script)
    here = str(Path(__file__).resolve().parent)
    if here not in sys.path:
        sys.path.insert(0, here)
    from _arms import parse, parser

    args = parse(parser(__doc__, ARMS, against=True)[0], argv)
    from _arms import guarded, play_arm

    if args.cmd == "cost":
        return guarded(cost, args.deals, args.seed)
    return guarded(play_arm, f"{MODULE}:{args.name}", args.against, args.deals, args.seed)


if __name__ == "__main__":
    sys.exit(main())
