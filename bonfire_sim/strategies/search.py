"""search: Monte-Carlo search over the mover's best moves, with fair determinization.

The strength reference the scripted styles are measured against.  At a decision in one of
the searched phases (``SEARCH_PHASES``) it:

1. builds the *canonical* state: every piece of hidden information is put into a fixed
   order (the path draw deck, the gnome pile, Tom's pile, each player's face-down
   offering tiles) and both RNG streams (which would draw them) are zeroed.  The
   canonical state is a function of what the mover can see, nothing else;
2. picks up to ``width`` candidate moves: the rollout policy's own choice, passing (when
   legal) and the policy's next choices once the earlier ones are removed (all on the
   canonical state);
3. races the candidates by *sequential halving* (Karnin, Koren & Somekh 2013, "Almost
   optimal exploration in multi-armed bandits"): the budget is split over ceil(log2 k)
   rounds; in each round every candidate still in the race is played on the round's new
   *determinizations* - the hidden parts of the canonical state shuffled again, fresh RNG
   streams - and the rest of the game with the rollout policy (the evaluator with the
   ``tuned`` weight row for every seat), scored for the mover: 1 for a win, plus 0.01 x
   the point margin over the best other seat; then the better half (by total, ties to the
   policy's order) goes on.  All candidates in a round see the same determinizations
   (paired comparison), and the finalists' totals cover the same samples;
4. plays the best finalist.

With 4 candidates and the default budget 12 that is 1 sample each, then 3 more for the
best two: 10 rollouts where the flat search (``search_ref``: one round, every candidate on
every sample, budget 64) spends 64.  The rollouts a clearly worse candidate would have
had go to the close call; the strength this keeps is measured head to head
(``docs/explanation/players.md``).

The search's random stream is seeded from a hash of the canonical state (and the row's
``salt``), so its choice depends on the visible information only: two states that
differ in hidden parts give the same choice, bit for bit (``tests/test_search.py``).
Sub-decisions outside ``SEARCH_PHASES`` (which tile, which space after a chosen option)
are left to the rollout policy: they are cheap to get right one-ply, and searching them
would multiply the cost.

Weight row: ``row[:NW]`` = the rollout policy's weights; ``row[R_BUDGET]`` rollouts per
decision (at most), ``row[R_WIDTH]`` candidates, ``row[R_SALT]`` seed salt,
``row[R_MODE]`` ``MODE_HALVING`` (``search``) or ``MODE_FLAT`` (``search_ref``),
``row[R_PHASES]`` the searched phases (a bit mask, ``SEARCH_PHASES`` by default),
``row[R_FROM]``/``row[R_UNTIL]`` the game turns (``L.G_TURN``) searched, from (inclusive)
until (exclusive; 0: the end), all by default: the per-phase and per-stage ablation.
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np
from numba import njit

from bonfire_sim.rules import components as C
from bonfire_sim.rules import layout as L
from bonfire_sim.rules import tasks as TK
from bonfire_sim.rules.moves import apply_move, legal_moves
from bonfire_sim.rules.rng import next_u32, shuffle
from bonfire_sim.rules.scoring import NLINES, final_result
from bonfire_sim.strategies import evaluate as E
from bonfire_sim.strategies.weights import WEIGHT_NAMES

NAME = "search"
DESCRIPTION = ("Monte-Carlo search (sequential halving) with fair re-sampled hidden "
               "information (search:N)")
REF_NAME = "search_ref"
REF_DESCRIPTION = ("the flat search as it was before sequential halving: every candidate on "
                   "every sample (search_ref:N), kept to measure the faster search against")
# The search with ``expert`` rollouts (issue 35): the same search, the fitted row as its
# rollout policy; ``search`` keeps ``tuned`` (the reference every earlier figure used).
EXPERT_NAME = "search_expert"
EXPERT_DESCRIPTION = ("the search with expert rollouts instead of tuned (search_expert:N; "
                      "docs/findings/2026-11-27-expert-iteration.md)")
DEFAULT_BUDGET = 12
REF_BUDGET = 64
DEFAULT_WIDTH = 4
ROW_W = 64
R_BUDGET, R_WIDTH, R_SALT, R_MODE, R_PHASES, R_FROM, R_UNTIL = range(ROW_W - 1, ROW_W - 8, -1)
MODE_HALVING, MODE_FLAT = 0, 1  # row[R_MODE]: search / search_ref
NW = len(WEIGHT_NAMES)
assert NW <= R_UNTIL, "the weight row would overlap the search's own slots"
# Phases worth searching: the turn's option, bonus actions/ending, the island action, the
# council space and the starting fate tile.
SEARCH_PHASES = ((1 << L.PH_MAIN) | (1 << L.PH_POST) | (1 << L.PH_SHIP_ACTION)
                 | (1 << L.PH_COUNCIL) | (1 << L.PH_SWAP))
# Names of the searched phases, for a spec's ``phases=`` (``search:16:phases=council``):
# a search restricted to some of them plays its rollout policy at the others (the per-phase
# ablation, docs/findings/2026-11-29-search-phases.md).
PHASE_NAMES = {"swap": L.PH_SWAP, "main": L.PH_MAIN, "post": L.PH_POST,
               "ship": L.PH_SHIP_ACTION, "council": L.PH_COUNCIL}
assert sum(1 << ph for ph in PHASE_NAMES.values()) == SEARCH_PHASES
MASK32 = 0xFFFFFFFF
OFF_PILE = C.OFFERING_PILE
NTOM = C.TOM_DECK_SIZE


# ---- hidden information ------------------------------------------------------------------
@njit(cache=True)
def _hidden_offerings(s, pb, idx):
    """Indices (into s) of one player's face-down offering tiles; returns how many."""
    m = 0
    for k in range(2):
        taken = s[pb + L.P_OFF_TAKEN + k]
        for i in range(taken + 1, OFF_PILE):
            idx[m] = pb + L.P_OFF_PILE + k * OFF_PILE + i
            m += 1
    return m


@njit(cache=True)
def _reorder(c, idx, m, rng, mode):
    """Put the values at c[idx[:m]] in sorted order (mode 0) or shuffle them (mode 1)."""
    vals = np.empty(m, np.int64)
    for j in range(m):
        vals[j] = c[idx[j]]
    if mode == 0:
        vals = np.sort(vals)
    else:
        shuffle(rng, 0, vals, 0, m)
    for j in range(m):
        c[idx[j]] = vals[j]


@njit(cache=True)
def _hidden_blocks(c, rng, mode):
    """Sort (mode 0) or shuffle (mode 1) every hidden block of state ``c`` in place."""
    idx = np.empty(L.NPATHT + L.NSPEC + 16, np.int64)
    # path draw deck: the ring buffer's live slots
    head = c[L.G_PATH_HEAD]
    n = c[L.G_PATH_N]
    for i in range(n):
        idx[i] = L.PATH_DECK + (head + i) % L.NPATHT
    _reorder(c, idx, n, rng, mode)
    # gnome (specialist) pile
    top = c[L.G_SPEC_TOP]
    n = c[L.G_SPEC_N]
    for i in range(n):
        idx[i] = L.SPEC_PILE + top + i
    _reorder(c, idx, n, rng, mode)
    # Tom's pile: the cards not yet played in this pass
    if c[L.G_SOLO] == 1:
        pos = c[L.G_TOM_POS]
        n = 0
        for i in range(pos, NTOM):
            idx[n] = L.TOM_DECK + i
            n += 1
        _reorder(c, idx, n, rng, mode)
    # every player's face-down offering tiles (their own owner cannot see them either)
    for seat in range(c[L.G_NSEATS]):
        n = _hidden_offerings(c, TK.pbase(seat), idx)
        _reorder(c, idx, n, rng, mode)


@njit(cache=True)
def canonical(s, c):
    """Write into ``c`` the state ``s`` with all hidden information in a fixed order.

    Dead slots of the path deck's ring buffer (stale copies of earlier deck orders) are
    cleared and both RNG streams are zeroed: nothing in ``c`` depends on what the mover
    cannot see.
    """
    for i in range(s.shape[0]):
        c[i] = s[i]
    head = c[L.G_PATH_HEAD]
    n = c[L.G_PATH_N]
    for i in range(L.NPATHT):
        if (i - head) % L.NPATHT >= n:
            c[L.PATH_DECK + i] = -1
    c[L.G_RNG] = 0
    c[L.G_RNG_STRAT] = 0
    dummy = np.zeros(1, np.int64)
    _hidden_blocks(c, dummy, 0)


@njit(cache=True)
def _nonzero(x):
    x = x & MASK32
    return x if x != 0 else 0x6D2B79F5


@njit(cache=True)
def determinize(c, d, rng):
    """A sample of the hidden information: ``d`` = canonical ``c`` with every hidden block
    shuffled and fresh RNG streams, all drawn from ``rng[0]``."""
    for i in range(c.shape[0]):
        d[i] = c[i]
    _hidden_blocks(d, rng, 1)
    d[L.G_RNG] = _nonzero(next_u32(rng, 0))
    d[L.G_RNG_STRAT] = _nonzero(next_u32(rng, 0))


@njit(cache=True)
def state_hash(c, salt):
    """32-bit FNV-1a hash of a (canonical) state and a salt; never 0.  The seats' ability
    masks (``L.ABIL_MASK``, derived from the owned cards) are left out: they add nothing."""
    h = 2166136261 ^ (salt & MASK32)
    for i in range(min(c.shape[0], L.HASHED_SIZE)):
        h = ((h ^ (c[i] & MASK32)) * 16777619) & MASK32
    return _nonzero(h)


# ---- candidates and rollouts --------------------------------------------------------------
@njit(cache=True)
def candidates(c, p, moves, n, w, width, out):
    """Up to ``width`` move indices: the policy's choice, passing (when legal), then the
    policy's next choices with the earlier ones removed (the evaluator's own ranking, so
    the search never duplicates its internals)."""
    mv = moves[:n].copy()
    idx = np.arange(n)
    pass_i = -1
    for i in range(n):
        if moves[i, 0] == L.M_PASS:
            pass_i = i
    m = n
    k = 0
    while m > 0 and k < width:
        j = E.choose(c, p, mv, m, w)
        i = idx[j]
        if k == 0 or i != pass_i:  # passing joins right after the policy's choice
            out[k] = i
            k += 1
            if k == 1 and pass_i >= 0 and i != pass_i and width > 1:
                out[k] = pass_i
                k += 1
        for q in range(mv.shape[1]):
            mv[j, q] = mv[m - 1, q]
        idx[j] = idx[m - 1]
        m -= 1
    return k


# The buffers a rollout reuses (allocated once per decision by ``choose``): the move table
# ``buf``, ``final_result``'s scores/lines/ranks/won and the evaluator's scratch
# floats/ints.
Rollout = namedtuple("Rollout", ("buf", "scores", "lines", "ranks", "won", "floats", "ints"))


@njit(cache=True)
def rollout(x, p, w, seat, work):
    """Play ``x`` to its end with the policy in every seat; the value for ``seat``
    (``work``: the ``Rollout`` buffers)."""
    buf, scores, lines, ranks, won = work.buf, work.scores, work.lines, work.ranks, work.won
    floats, ints = work.floats, work.ints
    while x[L.G_OVER] == 0:
        n = legal_moves(x, p, buf)
        i = 0 if n == 1 else E.choose_in(x, p, buf, n, w, floats, ints)
        apply_move(x, p, buf[i])
    final_result(x, p, scores, lines, ranks, won)
    best_other = -1000
    for j in range(x[L.G_NSEATS]):
        if j != seat and scores[j] > best_other:
            best_other = scores[j]
    return float(won[seat]) + 0.01 * float(scores[seat] - best_other)


@njit(cache=True)
def halving_rounds(k, mode):
    """Rounds of the search over ``k`` candidates: 1 for the flat search (``MODE_FLAT``),
    else ceil(log2 k) (each round halves the field)."""
    if mode == MODE_FLAT:
        return 1
    r = 0
    while (1 << r) < k:
        r += 1
    return max(1, r)


@njit(cache=True, _nrt=True)  # allocates: see price_context.WITH_RT
def choose(s, p, moves, n, row):
    """Index of the move to play among moves[:n] for the seat to move (see module doc)."""
    w = row[:NW]
    if n == 1:
        return 0
    c = np.empty_like(s)
    canonical(s, c)
    phases = int(row[R_PHASES])
    turn = s[L.G_TURN]
    if ((phases >> s[L.G_PHASE]) & 1 == 0 or turn < row[R_FROM]
            or (row[R_UNTIL] > 0 and turn >= row[R_UNTIL])):
        return E.choose(c, p, moves, n, w)
    width = max(1, min(int(row[R_WIDTH]), n))
    cand = np.empty(width, np.int64)
    k = candidates(c, p, moves, n, w, width, cand)
    if k == 1:
        return cand[0]
    rng = np.zeros(1, np.int64)
    rng[0] = state_hash(c, int(row[R_SALT]))
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
    total = np.zeros(k, np.float64)
    # alive[:m] = the candidates still in the race, best first after every round
    alive = np.arange(k)
    m = k
    rounds = halving_rounds(k, int(row[R_MODE]))
    per_round = max(1, int(row[R_BUDGET]) // rounds)
    for _round in range(rounds):
        for _ in range(max(1, per_round // m)):
            determinize(c, d, rng)
            for a in range(m):
                j = alive[a]
                for q in range(d.shape[0]):
                    x[q] = d[q]
                apply_move(x, p, moves[cand[j]])
                total[j] += rollout(x, p, w, seat, work)
        # stable ranking by total, ties to the earlier candidate (the policy's order)
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


def search_row(policy_row: np.ndarray, budget: int = DEFAULT_BUDGET,
               width: int = DEFAULT_WIDTH, salt: int = 0,
               mode: int = MODE_HALVING, phases: int = SEARCH_PHASES,
               turns: tuple[int, int] = (0, 0)) -> np.ndarray:
    """The search's weight row: the rollout policy's row plus budget, width, salt, mode
    (``MODE_HALVING``: ``search``; ``MODE_FLAT``: ``search_ref``), the searched
    phases (a bit mask over ``L.PH_*``) and turns (from, until; until 0: the end)."""
    row = np.zeros(ROW_W, np.float64)
    row[:NW] = policy_row[:NW]
    row[R_BUDGET] = float(budget)
    row[R_WIDTH] = float(width)
    row[R_SALT] = float(salt)
    row[R_MODE] = float(mode)
    row[R_PHASES] = float(phases)
    row[R_FROM], row[R_UNTIL] = float(turns[0]), float(turns[1])
    return row


__all__ = ["choose", "canonical", "determinize", "search_row", "DEFAULT_BUDGET"]
