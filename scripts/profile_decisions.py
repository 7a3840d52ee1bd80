"""Per-decision profile of the compiled decision loop: legal moves, strategy choice, apply.

    python scripts/profile_decisions.py --games 72 --players 4 --save /tmp/profile.npz
    python scripts/profile_decisions.py --check /tmp/profile.npz

Plays default-mix games (``strategies.DEFAULT_MIX``, seeds from ``--seed``) and records the
state before every decision, its legal moves and the move chosen.  Then times the three
jitted kernels of ``bonfire_sim.sim.loop.play_out`` over all recorded states (best of
``--reps`` passes, microseconds per decision, the cost of copying the state in and out
subtracted).  ``--save`` keeps the recording; ``--check`` replays a saved recording and
verifies that the current code generates the same legal moves and chooses the same move
in every state (a speed change must not change a single decision).
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from numba import njit

from bonfire_sim.rules import layout as L
from bonfire_sim.rules import tables as T
from bonfire_sim.rules.moves import apply_move, legal_moves
from bonfire_sim.rules.setup import new_game
from bonfire_sim.sim.loop import choose, choose_in, new_buffer, new_scratch, no_weights
from bonfire_sim.strategies import DEFAULT_MIX, STRATEGY_IDS


def record(games: int, players: int, seed: int) -> dict[str, np.ndarray]:
    """Play ``games`` default-mix games; every decision's state, moves and choice."""
    p = T.DEFAULT_PARAMS
    sids = np.array([STRATEGY_IDS[DEFAULT_MIX[k % len(DEFAULT_MIX)]] for k in range(L.NP)],
                    np.int64)
    w = no_weights()
    buf = new_buffer()
    states, offsets, rows, chosen = [], [0], [], []
    for g in range(games):
        s = new_game(seed + g, players)
        while s[L.G_OVER] == 0:
            n = legal_moves(s, p, buf)
            seat = s[L.G_CUR]
            states.append(s.copy())
            i = choose(s, p, buf, n, sids[seat], w[seat])
            rows.append(buf[:n].copy())
            offsets.append(offsets[-1] + n)
            chosen.append(i)
            apply_move(s, p, buf[i])
    return {"states": np.array(states), "offsets": np.array(offsets, np.int64),
            "rows": np.concatenate(rows), "chosen": np.array(chosen, np.int64),
            "sids": sids}


@njit(cache=False)
def _copy_only(S, p, rows, off, sids, w, scratch, buf, reps):
    acc = 0
    for _ in range(reps):
        for k in range(S.shape[0]):
            scratch[:] = S[k]
            n = off[k + 1] - off[k]
            buf[:n] = rows[off[k]:off[k + 1]]
            acc += scratch[L.G_CUR] + buf[0, 0]
    return acc


@njit(cache=False)
def _legal(S, p, rows, off, sids, w, scratch, buf, reps):
    acc = 0
    for _ in range(reps):
        for k in range(S.shape[0]):
            scratch[:] = S[k]
            n = off[k + 1] - off[k]
            buf[:n] = rows[off[k]:off[k + 1]]
            acc += legal_moves(scratch, p, buf)
    return acc


@njit(cache=False)
def _choose(S, p, rows, off, sids, w, scratch, buf, reps):
    acc = 0
    floats, ints = new_scratch(p)  # as the batch runner's game loop does
    for _ in range(reps):
        for k in range(S.shape[0]):
            scratch[:] = S[k]
            n = off[k + 1] - off[k]
            buf[:n] = rows[off[k]:off[k + 1]]
            seat = scratch[L.G_CUR]
            acc += choose_in(scratch, p, buf, n, sids[seat], w[seat], floats, ints)
    return acc


@njit(cache=False)
def _apply(S, p, rows, off, chosen, w, scratch, buf, reps):
    acc = 0
    for _ in range(reps):
        for k in range(S.shape[0]):
            scratch[:] = S[k]
            n = off[k + 1] - off[k]
            buf[:n] = rows[off[k]:off[k + 1]]
            apply_move(scratch, p, buf[chosen[k]])
            acc += scratch[L.G_CUR]
    return acc


@njit(cache=False)
def _check(S, p, rows, off, sids, w, chosen, scratch, buf):
    """Index of the first state whose legal moves or choice differ (-1: none)."""
    floats, ints = new_scratch(p)
    for k in range(S.shape[0]):
        scratch[:] = S[k]
        n = legal_moves(scratch, p, buf)
        if n != off[k + 1] - off[k]:
            return k
        for i in range(n):
            for j in range(L.MOVE_W):
                if buf[i, j] != rows[off[k] + i, j]:
                    return k
        seat = scratch[L.G_CUR]
        if choose(scratch, p, buf, n, sids[seat], w[seat]) != chosen[k]:
            return k
        if choose_in(scratch, p, buf, n, sids[seat], w[seat], floats, ints) != chosen[k]:
            return k  # the game loops' variant with scratch reused from the last decision
        for j in range(scratch.shape[0]):
            if scratch[j] != S[k, j]:
                return k  # choose must leave the state as it found it
    return -1


def _best(fn, args, reps: int) -> float:
    fn(*args, 1)  # compile and warm
    best = 1.0e9
    for _ in range(reps):
        t0 = time.process_time()
        fn(*args, 1)
        best = min(best, time.process_time() - t0)
    return best


def profile(rec: dict[str, np.ndarray], reps: int) -> dict[str, float]:
    """Microseconds per decision of each kernel (best of ``reps`` passes)."""
    p = T.DEFAULT_PARAMS
    S, off, rows = rec["states"], rec["offsets"], rec["rows"]
    w = no_weights()
    scratch = np.empty(S.shape[1], np.int64)
    buf = new_buffer()
    base = (S, p, rows, off, rec["sids"], w, scratch, buf)
    n = S.shape[0]
    copy = _best(_copy_only, base, reps)
    out = {}
    for name, fn, args in (("legal", _legal, base), ("choose", _choose, base),
                           ("apply", _apply, (S, p, rows, off, rec["chosen"], w, scratch,
                                              buf))):
        out[name] = (_best(fn, args, reps) - copy) / n * 1e6
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=72)
    ap.add_argument("--players", type=int, default=4)
    ap.add_argument("--seed", type=int, default=1000)
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--save", help="keep the recorded states in this .npz file")
    ap.add_argument("--check", help="replay a saved recording and compare every decision")
    args = ap.parse_args()
    if args.check:
        rec = dict(np.load(args.check))
        k = _check(rec["states"], T.DEFAULT_PARAMS, rec["rows"], rec["offsets"], rec["sids"],
                   no_weights(), rec["chosen"], np.empty(rec["states"].shape[1], np.int64),
                   new_buffer())
        if k >= 0:
            raise SystemExit(f"Error: decision {k} differs from the recording")
        print(f"all {rec['states'].shape[0]:,} recorded decisions identical")
    else:
        rec = record(args.games, args.players, args.seed)
        if args.save:
            np.savez_compressed(args.save, **rec)
    res = profile(rec, args.reps)
    print(f"{rec['states'].shape[0]:,} states, {rec['rows'].shape[0] / rec['states'].shape[0]:.1f}"
          " legal moves per decision; microseconds per decision: "
          + ", ".join(f"{k} {v:.2f}" for k, v in res.items()))


if __name__ == "__main__":
    main()
