"""learned: the evaluator's top moves re-ranked by a small model fitted to search labels.

At a decision of the labelled phases (``LEARN_PHASES``: the search's phases plus the
council bonus's follow-ups, the path pick and processions) the seat prices every move with
its weight row (``evaluate.values_in``), takes the row's top ``WIDTH`` candidates in the
search's order (its choice, passing when legal, then the next best values:
``search.candidates``), describes each candidate by ``NF`` numbers (``cand_features``:
the row's value and its gap to the best, the rank, the move's kind and the phase, a few
numbers of the position) and plays the candidate with the highest model score.  Other
decisions (payments, fate placements) are the row's own choice.

The model (``model_score``) is a one-hidden-layer network with a linear skip: score =
``u . x + v . tanh(W1 x + b1)``.  Its weights are data, ``rows/learned.json`` (with the
command that rebuilt it and its figures), frozen into the compiled kernels like the
built-in rows (``infra._jitcache.source_hash`` hashes it).  ``bonfire_sim.studies.learn``
fits it: a softmax over each labelled position's candidates, trained to maximise the
expected rollout value of the pick (the search's labels, ``strategies.labels``).

The cost per decision is one pricing pass (as ``tuned``) plus ``WIDTH`` x ``NF``
features and a network of ``HIDDEN`` units, at the labelled decisions only.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
from numba import njit

from bonfire_sim.rules import layout as L
from bonfire_sim.rules import tasks as TK
from bonfire_sim.rules.turns import pass_points
from bonfire_sim.strategies import evaluate as E
from bonfire_sim.strategies.price_context import CX_LATE, CX_OPEN, CX_PRESS, NCX, NEG, WITH_RT
from bonfire_sim.strategies.weights import W_FUTURE

NAME = "learned"
DESCRIPTION = ("tuned's top 5 moves re-ranked by a small network fitted to the search's "
               "rollout labels (rows/learned.json)")
PLAN = """tuned's judgement, with its top five moves at the main decisions re-ranked by a
small network trained on what the search's rollouts said each of them was worth."""
MODEL_FILE = Path(__file__).resolve().parent / "rows" / "learned.json"
WIDTH = 5
# the phases the labels cover (= bonfire_sim.studies.expert.LABEL_PHASES; tested)
LEARN_PHASES = sum(1 << ph for ph in (
    L.PH_SWAP, L.PH_MAIN, L.PH_POST, L.PH_SHIP_ACTION, L.PH_COUNCIL, L.PH_C_PATH,
    L.PH_C_GUARD, L.PH_C_FIRE, L.PH_C_SPEC, L.PH_C_MOVE, L.PH_C_SHIP, L.PH_PATH_PICK,
    L.PH_PROCESSION))
N_KINDS = 23  # move kinds M_END .. M_DISCARD
N_PHASES = 16
N_SPACES = 8  # council spaces
# feature layout of one candidate
F_GAP, F_VAL, F_FIRST = 0, 1, 2
F_RANK = 3
F_KIND = F_RANK + WIDTH
F_PHASE = F_KIND + N_KINDS
F_SPACE = F_PHASE + N_PHASES  # the council space of a bonus (M_COUNCIL, b = 0)
F_CPOINT = F_SPACE + N_SPACES  # the council's point instead of the bonus
F_ELDER = F_CPOINT + 1  # a gnome move (recruit, council specialist) that takes an elder
F_CTX = F_ELDER + 1
(C_LATE, C_PRESS, C_TURNS, C_TWO, C_CD, C_LEAD, C_ROUND, C_OPEN, C_PASSV) = range(9)
NF = F_CTX + 9
HIDDEN = 24
FIRST_ELDER = 27  # gnome ids 27..32 are the elders (rules.components.N_SPECIALISTS)
V_SCALE = 10.0  # the evaluator's values are points: scaled to about unit size


def load_model(path: Path = MODEL_FILE) -> dict[str, np.ndarray]:
    """The network's arrays (w1: HIDDEN x NF, b1, v: HIDDEN, u: NF) from a model file."""
    doc = json.loads(path.read_text())
    m = {k: np.asarray(doc[k], np.float64) for k in ("w1", "b1", "v", "u")}
    if m["w1"].shape != (HIDDEN, NF) or m["u"].shape != (NF,):
        raise ValueError(f"{path}: a model for {m['w1'].shape}, this build expects "
                         f"({HIDDEN}, {NF})")
    return m


_M = load_model() if MODEL_FILE.is_file() else {
    "w1": np.zeros((HIDDEN, NF)), "b1": np.zeros(HIDDEN), "v": np.zeros(HIDDEN),
    "u": np.zeros(NF)}
# frozen into the kernels (global arrays are compile-time constants)
M_W1, M_B1, M_V, M_U = _M["w1"], _M["b1"], _M["v"], _M["u"]


@njit(cache=True)
def _top(vals, n, choice, pass_i, cand, width):
    """``cand[:k]``: the row's choice, passing (when legal), then the best values (ties to
    the earlier move); k.  One pass over the moves (a main decision has hundreds)."""
    cand[0] = choice
    k = 1
    if pass_i >= 0 and choice != pass_i and width > 1:
        cand[1] = pass_i
        k = 2
    first = k
    if first >= width:
        return k
    for i in range(n):
        v = vals[i]
        if i == choice or i == pass_i or v <= NEG:
            continue
        if k == width and v <= vals[cand[k - 1]]:
            continue
        # insert after every kept move of at least this value
        j = k if k < width else width - 1
        while j > first and vals[cand[j - 1]] < v:
            if j < width:
                cand[j] = cand[j - 1]
            j -= 1
        cand[j] = i
        if k < width:
            k += 1
    return k


@njit(cache=True)
def cand_features(s, p, moves, n, w, floats, ints, cand, x):
    """Price moves[:n] with row ``w``; fill ``cand[:k]`` with the row's top candidates and
    ``x[:k]`` with their features; returns k (the row's choice is ``cand[0]``)."""
    vals = floats[E.V_OFF:E.V_OFF + n]
    tl = E.values_in(s, p, moves, n, w, floats, ints, vals)
    seat = s[L.G_CUR]
    best = NEG
    bi = 0
    pass_i = -1
    for i in range(n):
        if moves[i, 0] == L.M_PASS:
            pass_i = i
        elif vals[i] > best:
            best = vals[i]
            bi = i
    pass_v = NEG
    choice = bi
    if pass_i >= 0:
        # passing as a value: the points now against a move now and the turns after it
        pass_v = float(pass_points(s, seat)) - (tl - 1.0) * w[W_FUTURE]
        if pass_v >= best:
            choice = pass_i
        vals[pass_i] = NEG  # not among the "next best" (it is placed second)
    k = _top(vals, n, choice, pass_i, cand, cand.shape[0])
    if pass_i >= 0:
        vals[pass_i] = pass_v
    top = max(best, pass_v)
    cx = floats[E.FE.NN:E.FE.NN + NCX]
    nseat = s[L.G_NSEATS]
    own = s[TK.pbase(seat) + L.P_SCORE]
    other = -1000
    for j in range(nseat):
        if j != seat:
            other = max(other, s[TK.pbase(j) + L.P_SCORE])
    ph = s[L.G_PHASE]
    for j in range(k):
        i = cand[j]
        for f in range(NF):
            x[j, f] = 0.0
        v = vals[i]
        x[j, F_GAP] = max(-3.0, (v - top) / V_SCALE)
        x[j, F_VAL] = min(3.0, max(-3.0, v / V_SCALE))
        x[j, F_FIRST] = 1.0 if j == 0 else 0.0
        x[j, F_RANK + j] = 1.0
        kind = moves[i, 0]
        x[j, F_KIND + min(kind, N_KINDS - 1)] = 1.0
        x[j, F_PHASE + min(ph, N_PHASES - 1)] = 1.0
        if kind == L.M_COUNCIL:
            if moves[i, 2] == 1:
                x[j, F_CPOINT] = 1.0
            else:
                x[j, F_SPACE + min(moves[i, 1], N_SPACES - 1)] = 1.0
        if (kind == L.M_GNOME or kind == L.M_TAKE_SPEC) and moves[i, 1] >= FIRST_ELDER:
            x[j, F_ELDER] = 1.0
        x[j, F_CTX + C_LATE] = cx[CX_LATE]
        x[j, F_CTX + C_PRESS] = cx[CX_PRESS]
        x[j, F_CTX + C_TURNS] = min(tl, 30.0) / 10.0
        x[j, F_CTX + C_TWO] = 1.0 if nseat == 2 else 0.0
        x[j, F_CTX + C_CD] = float(s[L.G_CD_ACTIVE])
        x[j, F_CTX + C_LEAD] = min(3.0, max(-3.0, (own - other) / 10.0))
        x[j, F_CTX + C_ROUND] = s[L.G_ROUND] / 10.0
        x[j, F_CTX + C_OPEN] = cx[CX_OPEN] / 3.0
        x[j, F_CTX + C_PASSV] = 1.0 if kind == L.M_PASS else 0.0
    return k


@njit(cache=True)
def model_score(x, w1, b1, v, u, nz):
    """The network's score of one candidate's features ``x``: the few non-zero features
    only (most are one-hot; ``nz``: scratch for their indices, ``NF`` ints), so a decision
    costs a few hundred multiplications."""
    m = 0
    out = 0.0
    for f in range(x.shape[0]):
        if x[f] != 0.0:
            nz[m] = f
            m += 1
            out += u[f] * x[f]
    for h in range(b1.shape[0]):
        a = b1[h]
        for j in range(m):
            a += w1[h, nz[j]] * x[nz[j]]
        out += v[h] * np.tanh(a)
    return out


@njit(**WITH_RT)  # allocates the candidates' features: see price_context.WITH_RT
def choose_in(s, p, moves, n, w, floats, ints):
    """Index of the move to play among moves[:n] (see module doc), with the evaluator's
    scratch arrays."""
    if (LEARN_PHASES >> s[L.G_PHASE]) & 1 == 0:
        return E.choose_in(s, p, moves, n, w, floats, ints)
    cand = np.empty(WIDTH, np.int64)
    nz = np.empty(NF, np.int64)
    x = np.empty((WIDTH, NF))
    k = cand_features(s, p, moves, n, w, floats, ints, cand, x)
    bj = 0
    best = NEG
    for j in range(k):
        sc = model_score(x[j], M_W1, M_B1, M_V, M_U, nz)
        if sc > best:
            best = sc
            bj = j
    return cand[bj]


@njit(**WITH_RT)
def choose(s, p, moves, n, w):
    """``choose_in`` with fresh scratch arrays."""
    ints = np.empty(E.scratch_ints(p), np.int64)
    E.clear_labels(ints)
    return choose_in(s, p, moves, n, w, np.empty(E.N_FLOATS), ints)


@njit(**WITH_RT)
def features_of(states, p, offsets, rows, w, kmax):
    """Training data: at every stored position (``rows[offsets[i]:offsets[i + 1]]`` its
    legal moves) the row's candidates (``-1`` padded) and their features."""
    npos = states.shape[0]
    cand = np.full((npos, kmax), -1, np.int64)
    x = np.zeros((npos, kmax, NF))
    floats = np.empty(E.N_FLOATS)
    ints = np.empty(E.scratch_ints(p), np.int64)
    E.clear_labels(ints)
    s = np.empty(states.shape[1], np.int64)
    c = np.empty(kmax, np.int64)
    xx = np.empty((kmax, NF))
    for i in range(npos):
        for j in range(s.shape[0]):
            s[j] = states[i, j]
        mv = rows[offsets[i]:offsets[i + 1]]
        k = cand_features(s, p, mv, offsets[i + 1] - offsets[i], w, floats, ints, c, xx)
        for j in range(k):
            cand[i, j] = c[j]
            for f in range(NF):
                x[i, j, f] = xx[j, f]
    return cand, x


__all__ = ["choose", "choose_in", "cand_features", "features_of", "model_score", "load_model"]
