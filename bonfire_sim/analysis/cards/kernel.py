"""Compiled fork play-outs: the engine answers "what if the mover had done X here?".

A game state is a flat int64 vector that carries its own random streams (``G_RNG`` for the
deal and decks, ``G_RNG_STRAT`` for the strategies), so copying it at a decision forks the
game: both copies draw the same numbers until their moves make them diverge (common random
numbers).  ``probe_games`` plays each game of a chunk with its seats' strategies and keeps,
per probed item, ONE eligible decision chosen uniformly at random (reservoir sampling with a
per-game seed, so the choice never depends on chunking or workers).  After the game it plays
every kept decision out twice:

* ``take`` (task t could be received): A = the strategy's best move among those receiving t;
  B = its best move among all the others.  Both continue with the strategies unchanged.
  This is the **receipt** fork the card values rest on.
* ``gnome`` (gnome g could be recruited, in the main action or by a council bonus): the same
  with the moves recruiting g.
* ``light`` (the mover could ignite the bonfire space holding task t and had another main
  option): A = ignite it now; B = the best other move, and in B the task is dead from the
  fork on (the forked move included): printed at 0 points for the strategies and the
  score, and the mover does not ignite it while it has any other main option.  Where
  igniting it is the mover's only main option later in B, the ban gives way and the mover
  ignites the dead task for 0 points (``kept_b`` = 0) instead of taking the rules' skip.
* ``forced`` (light forks for tasks the population rarely takes): at the sampled ``take``
  decision of task t, branch A receives t whether or not the strategy would; while that
  branch plays on, one decision where the mover could ignite t (with another main option)
  is drawn by reservoir sampling, and a ``light`` fork is played there.

A branch whose first move leads to exactly the state the game itself reached from the
forked decision (the game's own move was on that side, and the strategy picks it among the
branch's moves too) is the game's own play-out: the players and the rules are functions of
the state, random streams included, so it ends where the game ended.  Its figures are read
from the game's final state instead of playing it again (``_same_as_base``), which spares
about one play-out of two for take and gnome forks.  Never under other rules
(``fork_rules``), for light's B branch (the task is dead there) or while a forced fork's
watch samples branch A.

The figures each fork records are named in ``layout`` (the fork row ``R_*``, a branch's
result ``B_*``).  Arguments travel in bundles (tuples numba passes as one value):

* ``who`` = (strategy id per seat, weight row per seat) of the game;
* ``ws`` = scratch: (moves, alt, scores, lines, ranks, won, branch result);
* ``watch`` = (watched state, counts, rng): ``counts`` = [candidates seen, task, seat]
  (seat -1: watch nothing), ``watched`` receives the sampled decision, ``rng`` the private
  stream that samples it;
* ``sampler`` = (kept states per slot, candidates per slot, seen-this-decision, rng).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from bonfire_sim.analysis.cards import layout as F
from bonfire_sim.analysis.cards.layout import (  # re-exported: the probe layer's names
    FORCED0,
    KIND_FORCED,
    KIND_GNOME,
    KIND_LIGHT,
    KIND_NAMES,
    KIND_TAKE,
    NOUT,
    NSLOT,
    NTASK,
    OUT_COLS,
)
from bonfire_sim.rules import layout as L
from bonfire_sim.rules import tables as T
from bonfire_sim.rules.moves import apply_move, legal_moves
from bonfire_sim.rules.scoring import NLINES, final_result
from bonfire_sim.rules.setup import setup_game
from bonfire_sim.sim.loop import choose

__all__ = ["FORCED0", "KIND_FORCED", "KIND_GNOME", "KIND_LIGHT", "KIND_NAMES", "KIND_TAKE",
           "NOUT", "NSLOT", "NTASK", "OUT_COLS", "probe_games"]
W_SEEN, W_TASK, W_SEAT = 0, 1, 2  # the watch counts' fields


@njit(cache=True)
def _xorshift(state):
    """xorshift64: a private per-game stream (the game's own streams stay untouched)."""
    x = state[0]
    x ^= (x >> np.uint64(12))
    x ^= (x << np.uint64(25))
    x ^= (x >> np.uint64(27))
    state[0] = x
    return x >> np.uint64(11)


@njit(cache=True)
def _keep(count, rng):
    """Reservoir of size 1: keep the ``count``-th candidate with probability 1/count."""
    return count == 1 or _xorshift(rng) % np.uint64(count) == 0


@njit(cache=True)
def _move_item(s, mv, pb):
    """(kind, item) a move makes eligible, or (-1, -1): the task it receives, the task it
    ignites, or the gnome it recruits."""
    k = mv[0]
    if k == L.M_TASK:
        return KIND_TAKE, s[L.ISLAND_TASKS + s[pb + L.P_SHIP] * 3 + mv[1]]
    if k == L.M_IGNITE:
        return KIND_LIGHT, s[pb + L.P_TASK + mv[1]]
    if k == L.M_GNOME or k == L.M_TAKE_SPEC:
        return KIND_GNOME, mv[1]
    return -1, -1


@njit(cache=True)
def _slot(kind, item):
    """The reservoir slot of (kind, item) (``layout``)."""
    if kind == KIND_GNOME:
        return 2 * NTASK + item
    if kind == KIND_FORCED:
        return FORCED0 + item
    return kind * NTASK + item


@njit(cache=True)
def _slot_item(k):
    """(kind, item) of reservoir slot ``k`` below ``FORCED0``."""
    if k < NTASK:
        return KIND_TAKE, k
    if k < 2 * NTASK:
        return KIND_LIGHT, k - NTASK
    return KIND_GNOME, k - 2 * NTASK


@njit(cache=True)
def _is_main(mv):
    return mv[0] != L.M_BONUS and mv[0] != L.M_PASS and mv[0] != L.M_SKIP


@njit(cache=True)
def _light_choice(s, moves, n, pb, item):
    """True where the mover may ignite task ``item`` and has another main option: only
    such decisions are forked, since "never ignite it" must leave a real move."""
    can = False
    other = False
    for i in range(n):
        k, it = _move_item(s, moves[i], pb)
        if k == KIND_LIGHT and it == item:
            can = True
        elif _is_main(moves[i]):
            other = True
    return can and other


@njit(cache=True)
def _restrict(s, moves, n, pb, kind, item, keep, out):
    """Copy into ``out`` the moves that do (keep=True) / do not (keep=False) concern
    (kind, item); returns how many."""
    m = 0
    for i in range(n):
        k, it = _move_item(s, moves[i], pb)
        hit = k == kind and it == item
        if hit == keep:
            for j in range(moves.shape[1]):
                out[m, j] = moves[i, j]
            m += 1
    return m


@njit(cache=True)
def _result(s, p, seat, kind, item, ws):
    """Fill the branch result (``ws[6]``, ``layout.B_*``) of the finished game ``s``."""
    _moves, _alt, scores, lines, ranks, won, res = ws
    final_result(s, p, scores, lines, ranks, won)
    nwin = 0
    for i in range(s[L.G_NSEATS]):
        nwin += won[i]
    res[F.B_SCORE] = scores[seat]
    res[F.B_WIN] = won[seat] / nwin if nwin > 0 else 0.0
    pb = L.PLAYER0 + seat * L.PSIZE
    res[F.B_HAS] = 0.0
    res[F.B_LIT_TURNS] = np.nan
    if kind == KIND_GNOME:
        res[F.B_HAS] = float(s[pb + L.P_GNOME + item])
    else:
        for k in range(7):
            if s[pb + L.P_TASK + k] == item and s[pb + L.P_LIT + k] == 1:
                res[F.B_HAS] = 1.0
                res[F.B_LIT_TURNS] = float(s[pb + L.P_LIT_AT + k] - s[pb + L.P_TASK_AT + k])
    res[F.B_OUT] = float(s[pb + L.P_OUT])


@njit(cache=True)
def _store(res, row, side):
    """Copy one branch's result into the fork row's ``side`` (``SIDE_A`` / ``SIDE_B``)."""
    row[F.R_SCORE + side] = res[F.B_SCORE]
    row[F.R_WIN + side] = res[F.B_WIN]
    row[F.R_HAS + side] = res[F.B_HAS]
    row[F.R_OUT + side] = res[F.B_OUT]
    row[F.R_LIT_TURNS + side] = res[F.B_LIT_TURNS]


@njit(cache=True)
def _watch_step(s, moves, n, seat, watch):
    """Offer decision ``s`` to the watch: keep it (reservoir) where the watched seat
    could ignite the watched task and had another main option."""
    watched, counts, rng = watch
    if seat != counts[W_SEAT] or n <= 1:
        return
    pb = L.PLAYER0 + seat * L.PSIZE
    if _light_choice(s, moves, n, pb, counts[W_TASK]):
        counts[W_SEEN] += 1
        if _keep(counts[W_SEEN], rng):
            watched[:] = s


@njit(cache=True)
def _play(s, p, who, ws, never_seat, never_item, watch):
    """Play to the end; seat ``never_seat`` (if >= 0) does not ignite task ``never_item``
    while it has another main option; ``watch`` samples one decision on the way.

    Returns 1 if the ban ever had to give way (igniting was the only main option).
    """
    sids, wts = who
    moves, alt = ws[0], ws[1]
    leaked = 0
    while s[L.G_OVER] == 0:
        n = legal_moves(s, p, moves)
        seat = s[L.G_CUR]
        _watch_step(s, moves, n, seat, watch)
        if seat == never_seat:
            pb = L.PLAYER0 + seat * L.PSIZE
            m, banned, gave_way = _banned_moves(s, moves, n, pb, never_item, alt)
            if gave_way:
                leaked = 1
            if banned:
                i = choose(s, p, alt, m, sids[seat], wts[seat])
                apply_move(s, p, alt[i])
                continue
        i = choose(s, p, moves, n, sids[seat], wts[seat])
        apply_move(s, p, moves[i])
    return leaked


@njit(cache=True)
def _banned_moves(s, moves, n, pb, item, out):
    """The moves left when igniting task ``item`` is banned.  Where that leaves no main
    option (igniting it was the only one), the ban gives way: all moves stay (the task is
    dead, so the ignite scores 0) rather than the rules' skip, which would put the mover
    out of the game for a reason that is not the card.
    Returns (moves in ``out``, whether the ban removed any move, whether it gave way)."""
    m = _restrict(s, moves, n, pb, KIND_LIGHT, item, False, out)
    banned = m < n
    gave_way = False
    if banned:
        main = 0
        for i in range(m):
            if _is_main(out[i]):
                main += 1
        if main == 0 and (s[L.G_PHASE] == L.PH_MAIN or m == 0):
            for i in range(n):
                for j in range(out.shape[1]):
                    out[i, j] = moves[i, j]
            m = n
            gave_way = True
    return m, banned, gave_way


@njit(cache=True)
def _no_watch():
    """A watch bundle that watches nothing."""
    counts = np.zeros(3, np.int64)
    counts[W_SEAT] = -1
    return np.empty(0, np.int64), counts, np.ones(1, np.uint64)


@njit(cache=True)
def _no_base(s0):
    """A ``base`` bundle that offers no play-out to reuse (``_same_as_base``)."""
    return -1, s0, s0


@njit(cache=True)
def _same_as_base(s, side, base):
    """True where the branch ``side`` has just made its first move into exactly the state
    the game itself reached from the forked decision (``base`` = (side of the game's own
    move, the state after it, the game's final state)): the play-out from there is the
    game's own (the players and the rules are functions of the state), so its end is
    ``base``'s final state and need not be played again."""
    bside, after, _final = base
    if bside != side:
        return False
    for j in range(s.shape[0]):
        if s[j] != after[j]:
            return False
    return True


@njit(cache=True)
def _branch_a_from(s0, p, who, ws, kind, item, row, watch, base):
    """Branch A: the best move that concerns the item, then play on (``watch`` samples
    a decision on the way), ending where the game itself went when its first move leads
    to the game's own next state (``_same_as_base``; never while ``watch`` samples);
    False if no move concerns it."""
    sids, wts = who
    moves, alt = ws[0], ws[1]
    seat = s0[L.G_CUR]
    pb = L.PLAYER0 + seat * L.PSIZE
    s = s0.copy()
    n = legal_moves(s, p, moves)
    m = _restrict(s, moves, n, pb, kind, item, True, alt)
    if m == 0:
        return False
    i = choose(s, p, alt, m, sids[seat], wts[seat])
    apply_move(s, p, alt[i])
    if watch[1][W_SEAT] < 0 and _same_as_base(s, F.SIDE_A, base):
        s = base[2]
    else:
        _play(s, p, who, ws, -1, -1, watch)
    _result(s, p, seat, kind, item, ws)
    _store(ws[6], row, F.SIDE_A)
    return True


@njit(cache=True)
def _branch_b_from(s0, p, who, ws, kind, item, row, base):
    """Branch B: the best other move, then play on; for ``light`` the task is dead from
    the fork on (the forked move included): the strategies see it printed at 0 points and
    it scores 0, so the mover spends no move working towards it.  Were the first move
    chosen with the printed points, it could prepare the ignite it is then denied, and
    the lit value would grow with the task's own points beyond them.  False if there is
    no other move."""
    sids, wts = who
    moves, alt = ws[0], ws[1]
    seat = s0[L.G_CUR]
    pb = L.PLAYER0 + seat * L.PSIZE
    s = s0.copy()
    n = legal_moves(s, p, moves)
    pb_choice = p
    gave_way = False
    if kind == KIND_LIGHT:
        pb_choice = p.copy()
        pb_choice[T.T_POINTS + item] = 0
        m, _, gave_way = _banned_moves(s, moves, n, pb, item, alt)
    else:
        m = _restrict(s, moves, n, pb, kind, item, False, alt)
    if m == 0:
        return False
    i = choose(s, pb_choice, alt, m, sids[seat], wts[seat])
    apply_move(s, pb_choice, alt[i])
    leaked = 1 if gave_way else 0
    if kind == KIND_LIGHT:
        leaked |= _play(s, pb_choice, who, ws, seat, item, _no_watch())
    elif _same_as_base(s, F.SIDE_B, base):  # the game's own play-out (``_same_as_base``)
        s = base[2]
    else:
        _play(s, p, who, ws, -1, -1, _no_watch())
    _result(s, pb_choice, seat, kind, item, ws)
    _store(ws[6], row, F.SIDE_B)
    row[F.R_KEPT_B] = 1.0 - leaked
    return True


@njit(cache=True)
def _fork(s0, p, who, ws, kind, item, row, watch, a_only):
    """Play both branches of the decision in ``s0`` into the fork row (``a_only``:
    branch A only, the forced forks need no take value); False if one side of the fork
    has no legal move (nothing to compare)."""
    return _fork_from(s0, p, who, ws, kind, item, row, watch, a_only, _no_base(s0))


@njit(cache=True)
def _fork_from(s0, p, who, ws, kind, item, row, watch, a_only, base):
    """``_fork``, reusing the game's own play-out (``base``) for the branch whose first
    move leads where the game itself went."""
    if not _branch_a_from(s0, p, who, ws, kind, item, row, watch, base):
        return False
    if a_only:
        return True
    return _branch_b_from(s0, p, who, ws, kind, item, row, base)


@njit(cache=True)
def _describe(row, kind, item, s0, candidates):
    """The fork row's decision fields: what was forked, where, among how many."""
    row[F.R_KIND] = kind
    row[F.R_ITEM] = item
    row[F.R_SEAT] = s0[L.G_CUR]
    row[F.R_TURN] = s0[L.G_TURN]
    row[F.R_DECISION] = s0[L.G_DECISIONS]
    row[F.R_CANDIDATES] = candidates


@njit(cache=True)
def _offer(s, moves, n, want, sampler, fresh):
    """Offer decision ``s`` to every wanted slot it is eligible for (reservoir sampling:
    each slot keeps one of its eligible decisions, uniformly); the slots that keep it
    are listed in ``fresh`` (count in ``fresh[-1]``)."""
    kept, count, seen, rng = sampler
    seat = s[L.G_CUR]
    pb = L.PLAYER0 + seat * L.PSIZE
    seen[:] = 0
    for j in range(n):
        kind, item = _move_item(s, moves[j], pb)
        if kind < 0 or item < 0:
            continue
        k = _slot(kind, item)
        wanted = want[k] == 1 or (kind == KIND_TAKE and want[FORCED0 + item] == 1)
        if not wanted or seen[k] == 1:
            continue
        if kind == KIND_LIGHT and not _light_choice(s, moves, n, pb, item):
            continue
        seen[k] = 1
        count[k] += 1
        if _keep(count[k], rng):
            kept[k, :] = s
            fresh[fresh[-1]] = k
            fresh[-1] += 1


@njit(cache=True)
def _sample_game(s, p, who, ws, want, sampler, own):
    """Play game ``s`` to the end with its seats' strategies, sampling the decisions.

    ``own`` = (side, after, fresh): for each slot, which side of its fork the game's own
    move at the kept decision took (``SIDE_A``: it concerned the item) and the state
    right after that move, so a fork branch that makes the same first move can end where
    the game did (``_same_as_base``)."""
    sids, wts = who
    moves = ws[0]
    side, after, fresh = own
    while s[L.G_OVER] == 0:
        n = legal_moves(s, p, moves)
        seat = s[L.G_CUR]
        fresh[-1] = 0
        if n > 1 and not (s[L.G_SOLO] == 1 and seat == 1):
            _offer(s, moves, n, want, sampler, fresh)
        i = choose(s, p, moves, n, sids[seat], wts[seat])
        if fresh[-1] > 0:
            pb = L.PLAYER0 + seat * L.PSIZE
            kind, item = _move_item(s, moves[i], pb)
            for j in range(fresh[-1]):
                k = fresh[j]
                sk, si = _slot_item(k)
                side[k] = F.SIDE_A if kind == sk and item == si else F.SIDE_B
        apply_move(s, p, moves[i])
        for j in range(fresh[-1]):
            after[fresh[j], :] = s


@njit(cache=True)
def _fork_slot(k, pf, who, ws, want, sampler, watch, rows, base):
    """Fork slot ``k``'s kept decision into ``rows[k]`` (and, for a task with forced forks
    wanted, its forced light fork into ``rows[FORCED0 + item]``); returns the forks.
    ``base`` = (the game's own side at slot ``k``'s decision or -1: nothing to reuse,
    the state after the game's move there, the game's final state)."""
    kept, count = sampler[0], sampler[1]
    watched, counts, _rng = watch
    kind, item = _slot_item(k)
    row = rows[k]
    s0 = kept[k]
    forced = kind == KIND_TAKE and want[FORCED0 + item] == 1
    counts[W_SEEN] = 0
    counts[W_TASK] = item
    counts[W_SEAT] = s0[L.G_CUR] if forced else -1
    forks = 0
    if (_fork_from(s0, pf, who, ws, kind, item, row, watch, want[k] == 0, base)
            and want[k] == 1):
        _describe(row, kind, item, s0, count[k])
        forks += 1
    else:
        row[:] = np.nan
    if forced and counts[W_SEEN] > 0:
        frow = rows[FORCED0 + item]
        s1 = watched.copy()
        if _fork(s1, pf, who, ws, KIND_LIGHT, item, frow, _no_watch(), False):
            _describe(frow, KIND_FORCED, item, s1, counts[W_SEEN])
            forks += 1
        else:
            frow[:] = np.nan
    return forks


@njit(cache=True)
def _workspace(nseats):
    """The scratch bundle ``ws`` for games of up to ``nseats`` seats."""
    return (np.zeros((L.MAX_MOVES, L.MOVE_W), np.int64),
            np.zeros((L.MAX_MOVES, L.MOVE_W), np.int64),
            np.zeros(nseats, np.int64), np.zeros((nseats, NLINES), np.int64),
            np.zeros(nseats, np.int64), np.zeros(nseats, np.int64), np.zeros(F.NBRANCH))


@njit(cache=True)
def probe_games(template, p, pf, humans, seeds, seats, want, out):
    """Play ``len(seeds[0])`` games and fork one sampled decision per wanted item.

    ``seeds`` = (rng_game, rng_strat, probe_seed) per game; ``seats`` = (strategy ids,
    weight rows) per game and seat.  The games are played under rules ``p``, the forks
    under ``pf`` (the same array, or another configuration's rules: then both
    configurations are judged at the very same decisions, see
    ``probes.probe_values(fork_rules=...)``).  want (NSLOT,): 1 = probe this (kind, item)
    slot; out (G, NSLOT, NOUT) is filled (``layout.R_*``; NaN where an item had no
    eligible decision).  Returns the number of forks.
    """
    rng_game, rng_strat, probe_seed = seeds
    seat_strategy, seat_weights = seats
    ws = _workspace(seat_strategy.shape[1])
    rng = np.zeros(1, np.uint64)
    sampler = (np.zeros((NSLOT, template.shape[0]), np.int64), np.zeros(NSLOT, np.int64),
               np.zeros(NSLOT, np.int64), rng)
    watch = (np.zeros(template.shape[0], np.int64), np.zeros(3, np.int64), rng)
    # The game's own play-out stands in for a fork branch only under the game's rules.
    reuse = p.shape[0] == pf.shape[0] and np.all(p == pf)
    own = (np.full(NSLOT, -1, np.int64), np.zeros((NSLOT, template.shape[0]), np.int64),
           np.zeros(NSLOT + 1, np.int64))
    forks = 0
    for gi in range(rng_game.shape[0]):
        s = template.copy()
        s[L.G_RNG] = rng_game[gi]
        s[L.G_RNG_STRAT] = rng_strat[gi]
        setup_game(s, p, humans)
        rng[0] = np.uint64(probe_seed[gi]) | np.uint64(1)
        sampler[1][:] = 0
        out[gi, :, :] = np.nan
        who = (seat_strategy[gi], seat_weights[gi])
        _sample_game(s, p, who, ws, want, sampler, own)
        for k in range(FORCED0):
            if sampler[1][k] > 0:
                base = (own[0][k] if reuse else -1, own[1][k], s)
                forks += _fork_slot(k, pf, who, ws, want, sampler, watch, out[gi], base)
    return forks
