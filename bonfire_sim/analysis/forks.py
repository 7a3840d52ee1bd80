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
* ``gnome`` (gnome g could be recruited, in the main action or by a council bonus): the same
  with the moves recruiting g.
* ``light`` (the mover could ignite the bonfire space holding task t and had another main
  option): A = ignite it now; B = the best other move, and in B the task is dead from the
  fork on (the forked move included): printed at 0 points for the strategies and the
  score, and the mover does not ignite it while it has any other main option.  Where
  igniting it is the mover's only main option later in B, the ban gives way and the mover
  ignites the dead task for 0 points (``kept_b`` = 0) instead of taking the rules' skip:
  the fork never puts the mover out of the game (an earlier version did, in 15-24% of
  forks, and those forks averaged twice the value of the rest).  Neither branch's play
  then depends on the task's printed points, so re-pricing a task moves its lit value at a
  given state by exactly the change (tested).
* ``forced`` (light forks for tasks the population rarely takes): at the sampled ``take``
  decision of task t, branch A receives t whether or not the strategy would; while that
  branch plays on, one decision where the mover could ignite t (with another main option)
  is drawn by reservoir sampling, and a ``light`` fork is played there.  So every task the
  rules let a player take gets lit forks, not only those the strategies choose.

Each play-out records the mover's final score, its share of the win (1/k of k tied winners),
whether it ended with the item lit (tasks) or owned (gnomes) and whether it ended out of the
game (``out_a`` / ``out_b``).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from bonfire_sim.rules import layout as L
from bonfire_sim.rules import tables as T
from bonfire_sim.rules.moves import apply_move, legal_moves
from bonfire_sim.rules.scoring import NLINES, final_result
from bonfire_sim.rules.setup import setup_game
from bonfire_sim.sim.loop import choose

KIND_TAKE, KIND_LIGHT, KIND_GNOME, KIND_FORCED = 0, 1, 2, 3
KIND_NAMES = ("take", "light", "gnome", "forced")
NTASK = 66
# One reservoir slot per (kind, item): tasks for take and light, then gnomes, then the
# forced light forks of the tasks (which ride on the take slots' decisions).
NSLOT = 3 * NTASK + L.NGNOME
FORCED0 = 2 * NTASK + L.NGNOME
# Output columns per slot (float64; NaN where no decision was sampled).
OUT_COLS = ("kind", "item", "seat", "turn", "decision", "candidates",
            "score_a", "score_b", "win_a", "win_b", "has_a", "has_b", "kept_b",
            "out_a", "out_b")
NOUT = len(OUT_COLS)


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
    if kind == KIND_GNOME:
        return 2 * NTASK + item
    if kind == KIND_FORCED:
        return FORCED0 + item
    return kind * NTASK + item


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
def _result(s, p, seat, kind, item, scores, lines, ranks, won, res):
    """res = (mover's score, win share, item lit/owned at the end)."""
    final_result(s, p, scores, lines, ranks, won)
    nwin = 0
    for i in range(s[L.G_NSEATS]):
        nwin += won[i]
    res[0] = scores[seat]
    res[1] = won[seat] / nwin if nwin > 0 else 0.0
    pb = L.PLAYER0 + seat * L.PSIZE
    has = 0.0
    if kind == KIND_GNOME:
        has = float(s[pb + L.P_GNOME + item])
    else:
        for k in range(7):
            if s[pb + L.P_TASK + k] == item and s[pb + L.P_LIT + k] == 1:
                has = 1.0
    res[2] = has
    res[3] = float(s[pb + L.P_OUT])


@njit(cache=True)
def _play(s, p, sids, wts, moves, alt, never_seat, never_item, watch_seat, watched, wcount,
          rng):
    """Play to the end; seat ``never_seat`` (if >= 0) does not ignite task ``never_item``
    while it has another main option.  With ``watch_seat`` >= 0, keep in ``watched`` one
    decision (reservoir sampling with ``rng``; ``wcount[0]`` counts the candidates) where
    that seat could ignite task ``wcount[1]`` and had another main option.

    Returns 1 if the ban ever had to give way (igniting was the only main option).
    """
    leaked = 0
    while s[L.G_OVER] == 0:
        n = legal_moves(s, p, moves)
        seat = s[L.G_CUR]
        if seat == watch_seat and n > 1:
            pb = L.PLAYER0 + seat * L.PSIZE
            if _light_choice(s, moves, n, pb, wcount[1]):
                wcount[0] += 1
                if wcount[0] == 1 or _xorshift(rng) % np.uint64(wcount[0]) == 0:
                    watched[:] = s
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
def _fork(s0, p, sids, wts, kind, item, moves, alt, scores, lines, ranks, won, res, out):
    """Play both branches of the decision in ``s0``; fill out[6:15]; False if one side of
    the fork has no legal move (nothing to compare)."""
    watched = np.empty(0, np.int64)
    wcount = np.zeros(2, np.int64)
    rng = np.ones(1, np.uint64)
    return _fork_watch(s0, p, sids, wts, kind, item, moves, alt, scores, lines, ranks, won,
                       res, out, -1, watched, wcount, rng, False)


@njit(cache=True)
def _fork_watch(s0, p, sids, wts, kind, item, moves, alt, scores, lines, ranks, won, res,
                out, watch_seat, watched, wcount, rng, a_only):
    """``_fork``; for a take fork with ``watch_seat`` >= 0, branch A also keeps in
    ``watched`` a decision where the mover could ignite task ``wcount[1]`` (forced forks).
    ``a_only``: play branch A only (the forced forks need no take value)."""
    seat = s0[L.G_CUR]
    pb = L.PLAYER0 + seat * L.PSIZE
    # Branch A: the best move that concerns the item, then play on.
    s = s0.copy()
    n = legal_moves(s, p, moves)
    m = _restrict(s, moves, n, pb, kind, item, True, alt)
    if m == 0:
        return False
    i = choose(s, p, alt, m, sids[seat], wts[seat])
    apply_move(s, p, alt[i])
    _play(s, p, sids, wts, moves, alt, -1, -1, watch_seat, watched, wcount, rng)
    _result(s, p, seat, kind, item, scores, lines, ranks, won, res)
    out[6], out[8], out[10], out[13] = res[0], res[1], res[2], res[3]
    if a_only:
        return True
    # Branch B: the best other move; for ``light`` the task is then dead for good.
    s = s0.copy()
    n = legal_moves(s, p, moves)
    # For ``light`` the task is dead in this branch from the fork on: the strategies see it
    # printed at 0 points and it scores 0, so the mover neither spends the forked move nor
    # later ones working towards it.  Were the first move chosen with the printed points,
    # it could prepare the ignite it is then denied, and the lit value would grow with the
    # task's own points beyond them.
    pb_choice = p
    gave_way = False
    if kind == KIND_LIGHT:
        pdead = p.copy()
        pdead[T.T_POINTS + item] = 0
        pb_choice = pdead
        m, _, gave_way = _banned_moves(s, moves, n, pb, item, alt)
    else:
        m = _restrict(s, moves, n, pb, kind, item, False, alt)
    if m == 0:
        return False
    i = choose(s, pb_choice, alt, m, sids[seat], wts[seat])
    apply_move(s, pb_choice, alt[i])
    leaked = 1 if gave_way else 0
    nowatch = np.empty(0, np.int64)
    nocount = np.zeros(2, np.int64)
    if kind == KIND_LIGHT:
        leaked |= _play(s, pdead, sids, wts, moves, alt, seat, item, -1, nowatch, nocount,
                        rng)
        _result(s, pdead, seat, kind, item, scores, lines, ranks, won, res)
    else:
        _play(s, p, sids, wts, moves, alt, -1, -1, -1, nowatch, nocount, rng)
        _result(s, p, seat, kind, item, scores, lines, ranks, won, res)
    out[7], out[9], out[11], out[14] = res[0], res[1], res[2], res[3]
    out[12] = 1.0 - leaked
    return True


@njit(cache=True)
def probe_games(template, p, pf, humans, rng_game, rng_strat, probe_seed, seat_strategy,
                seat_weights, want, out):
    """Play ``len(rng_game)`` games and fork one sampled decision per wanted item.

    The games are played under rules ``p``, the forks under ``pf`` (the same array, or
    another configuration's rules: then both configurations are judged at the very same
    decisions, see ``probes.probe_values(fork_rules=...)``).  want (NSLOT,): 1 = probe
    this (kind, item) slot; probe_seed (G,): per-game sampling seed; out (G, NSLOT, NOUT)
    is filled (NaN where an item had no eligible decision).  Returns the number of forks.
    """
    moves = np.zeros((L.MAX_MOVES, L.MOVE_W), np.int64)
    alt = np.zeros((L.MAX_MOVES, L.MOVE_W), np.int64)
    nseats_max = seat_strategy.shape[1]
    scores = np.zeros(nseats_max, np.int64)
    lines = np.zeros((nseats_max, NLINES), np.int64)
    ranks = np.zeros(nseats_max, np.int64)
    won = np.zeros(nseats_max, np.int64)
    res = np.zeros(4)
    kept = np.zeros((NSLOT, template.shape[0]), np.int64)
    watched = np.zeros(template.shape[0], np.int64)
    wcount = np.zeros(2, np.int64)
    count = np.zeros(NSLOT, np.int64)
    seen = np.zeros(NSLOT, np.int64)
    rng = np.zeros(1, np.uint64)
    forks = 0
    for gi in range(rng_game.shape[0]):
        s = template.copy()
        s[L.G_RNG] = rng_game[gi]
        s[L.G_RNG_STRAT] = rng_strat[gi]
        setup_game(s, p, humans)
        rng[0] = np.uint64(probe_seed[gi]) | np.uint64(1)
        count[:] = 0
        out[gi, :, :] = np.nan
        sids = seat_strategy[gi]
        wts = seat_weights[gi]
        while s[L.G_OVER] == 0:
            n = legal_moves(s, p, moves)
            seat = s[L.G_CUR]
            if n > 1 and not (s[L.G_SOLO] == 1 and seat == 1):
                pb = L.PLAYER0 + seat * L.PSIZE
                seen[:] = 0
                for j in range(n):
                    kind, item = _move_item(s, moves[j], pb)
                    if kind < 0 or item < 0:
                        continue
                    k = _slot(kind, item)
                    wanted = want[k] == 1 or (kind == KIND_TAKE
                                              and want[FORCED0 + item] == 1)
                    if not wanted or seen[k] == 1:
                        continue
                    if kind == KIND_LIGHT and not _light_choice(s, moves, n, pb, item):
                        continue
                    seen[k] = 1
                    count[k] += 1
                    # Reservoir of size 1: keep the c-th candidate with probability 1/c.
                    if count[k] == 1 or _xorshift(rng) % np.uint64(count[k]) == 0:
                        kept[k, :] = s
            i = choose(s, p, moves, n, sids[seat], wts[seat])
            apply_move(s, p, moves[i])
        for k in range(FORCED0):
            if count[k] == 0:
                continue
            if k < NTASK:
                kind, item = KIND_TAKE, k
            elif k < 2 * NTASK:
                kind, item = KIND_LIGHT, k - NTASK
            else:
                kind, item = KIND_GNOME, k - 2 * NTASK
            row = out[gi, k]
            s0 = kept[k]
            forced = kind == KIND_TAKE and want[FORCED0 + item] == 1
            wcount[0] = 0
            wcount[1] = item
            if _fork_watch(s0, pf, sids, wts, kind, item, moves, alt, scores, lines, ranks,
                           won, res, row, s0[L.G_CUR] if forced else -1, watched, wcount,
                           rng, want[k] == 0) and want[k] == 1:
                row[0] = kind
                row[1] = item
                row[2] = s0[L.G_CUR]
                row[3] = s0[L.G_TURN]
                row[4] = s0[L.G_DECISIONS]
                row[5] = count[k]
                forks += 1
            else:
                row[:] = np.nan
            if forced and wcount[0] > 0:
                frow = out[gi, FORCED0 + item]
                ncand = wcount[0]
                s1 = watched.copy()
                if _fork(s1, pf, sids, wts, KIND_LIGHT, item, moves, alt, scores, lines,
                         ranks, won, res, frow):
                    frow[0] = KIND_FORCED
                    frow[1] = item
                    frow[2] = s1[L.G_CUR]
                    frow[3] = s1[L.G_TURN]
                    frow[4] = s1[L.G_DECISIONS]
                    frow[5] = ncand
                    forks += 1
                else:
                    frow[:] = np.nan
    return forks
