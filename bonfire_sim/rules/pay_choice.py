"""The payer's choice: every distinct way to pay a move, and which tiles to keep (RULINGS 4).

A missing action tile may be replaced by 1 yellow tile or by any 2 tiles, and a yellow tile
may replace any tile; a missing resource by 1 gold or by any 2 resources, gold may replace
any resource, and missing gold itself is paid with 2 resources.  Which of these the payer
uses changes the stock left, so each distinct result is a decision of its own: a paying
move (ship, path, task, guardian, procession, Great Bonfire, gnome) and option I's discard
record their demands here (``demand``), every demand with a single way to meet it is paid
at once (``settle``), and the rest wait in ``PH_PAY`` for an ``M_PAY`` / ``M_DISCARD`` row.

Alternatives are enumerated by the stock they remove, never twice for the same result:

* tiles of type t, n of them: u own tiles, y yellow (specialist 5: each covers 2), and the
  rest as pairs of any other tiles (yellow included), pairs only for tiles the payer lacks;
* resources: per demanded resource own / gold / pairs of any other resources (gold
  included), pairs only for the missing ones; "any resource" demands (specialists 3, 9):
  any resources held;
* discard before a fate tile: every multiset of ``keep`` tiles to keep.

Dominated alternatives (a pair holding the yellow tile that alone would do) are legal and
leave a different stock, so they are offered too; the strategies never prefer them.  A
decision lists at most ``MAX_MOVES`` (1024) alternatives; only a procession paid almost
entirely with pairs from a large stock could reach that, and the list is then cut there.

Codes: a removal (or the kept tiles) packs one count per stock slot in 5 bits,
``sum(count[k] << 5 * k)`` (tiles: ship path task fire guard gnome yellow; resources:
blossom fruit herb shell root gold).  ``M_PAY`` rows are ``[M_PAY, code, 0 tiles | 1
resources, 0, 0]``; ``M_DISCARD`` rows ``[M_DISCARD, code of the tiles kept, 0, 0, 0]``.
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np
from numba import njit

from bonfire_sim.errors import ConfigError
from bonfire_sim.rules import components as C
from bonfire_sim.rules import layout as L
from bonfire_sim.rules.movebuf import add
from bonfire_sim.rules.payment import has_spec, note, split_demand
from bonfire_sim.rules.stackbuf import stack_moves

YELLOW = C.YELLOW
GOLD = C.GOLD
BITS = 5
MASK = (1 << BITS) - 1
PAY_TILES, PAY_RES = 0, 1


# ---- codes --------------------------------------------------------------------------------
@njit(cache=True)
def code_count(code, k):
    """Count of slot k in a packed code."""
    return (code >> (BITS * k)) & MASK


@njit(cache=True, _nrt=False)  # no reference counting: see bonfire_sim.strategies.evaluate.NO_RT
def _pack(cnt, m):
    code = 0
    for k in range(m):
        code |= cnt[k] << (BITS * k)
    return code


@njit(cache=True, _nrt=False)  # no reference counting: see bonfire_sim.strategies.evaluate.NO_RT
def _next_multiset(idx, m, nt):
    """Advance the non-decreasing index sequence idx[:m] over nt types; False when done."""
    i = m - 1
    while i >= 0 and idx[i] == nt - 1:
        i -= 1
    if i < 0:
        return False
    idx[i] += 1
    for j in range(i + 1, m):
        idx[j] = idx[i]
    return True


@njit(cache=True, _nrt=False)  # no reference counting: see bonfire_sim.strategies.evaluate.NO_RT
def _fits(idx, m, types, avail, cnt):
    """Add the multiset idx[:m] (over ``types``) to cnt if ``avail`` holds it."""
    for j in range(m):
        cnt[types[idx[j]]] += 1
    ok = True
    for j in range(m):
        k = types[idx[j]]
        if cnt[k] > avail[k]:
            ok = False
    if not ok:
        for j in range(m):
            cnt[types[idx[j]]] -= 1
    return ok


@njit(cache=True, _nrt=False)  # no reference counting: see bonfire_sim.strategies.evaluate.NO_RT
def _unfit(idx, m, types, cnt):
    for j in range(m):
        cnt[types[idx[j]]] -= 1


@njit(cache=True, _nrt=False)  # no reference counting: see bonfire_sim.strategies.evaluate.NO_RT
def _add_unique(out, n0, n, kind, code, b):
    """Append [kind, code, b, 0, 0] unless rows n0..n-1 already hold it."""
    for i in range(n0, min(n, out.shape[0])):
        if out[i, 1] == code and out[i, 2] == b:
            return n
    return add(out, n, kind, code, b, 0, 0)


# The units a replacement payment may pay in pairs: ``types[:nt]`` and how many of each
# type are available (``avail``).
PairPool = namedtuple("PairPool", ("types", "nt", "avail"))


@njit(cache=True, _nrt=False)  # no reference counting: see bonfire_sim.strategies.evaluate.NO_RT
def _add_pairs(out, k0, k, idx, m, pool, cnt, nslots, b):
    """Append, on top of ``cnt``, every multiset of m units of the ``pool`` (``PairPool``:
    the types ``types[:nt]`` and what is ``avail``able) that fits (the replacement pairs),
    as M_PAY rows coded over ``nslots`` slots."""
    types, nt, avail = pool.types, pool.nt, pool.avail
    idx[:m] = 0
    while True:
        if _fits(idx, m, types, avail, cnt):
            k = _add_unique(out, k0, k, L.M_PAY, _pack(cnt, nslots), b)
            _unfit(idx, m, types, cnt)
        if k >= out.shape[0] or not _next_multiset(idx, m, nt):
            break
    return k


# ---- alternatives --------------------------------------------------------------------------
@njit(cache=True, _nrt=True)  # allocates; callable from runtime-free kernels
def gen_tile_payments(s, pb, t, n, out, k):
    """Every distinct payment of n action tiles of type t, as M_PAY rows."""
    base = pb + L.P_TILES
    have = s[base + t]
    yel = s[base + YELLOW]
    per = 2 if has_spec(s, pb, 5) else 1
    lacking = max(0, n - have)
    work = np.zeros(20 + 2 * n + 1, np.int64)  # one allocation for the four work arrays
    avail = work[:7]
    types = work[7:13]
    nt = 0
    for x in range(7):
        if x != t:
            avail[x] = s[base + x]
            if avail[x] > 0:
                types[nt] = x
                nt += 1
    cnt = work[13:20]
    k0 = k
    idx = work[20:]  # 2 n + 1: a procession may pay many tiles
    for u in range(min(have, n), -1, -1):  # the canonical payment comes first
        rest = n - u
        for y in range(min(yel, (rest + per - 1) // per), -1, -1):
            q = max(0, rest - per * y)
            if q > lacking:
                continue
            cnt[:] = 0
            cnt[t] = u
            cnt[YELLOW] = y
            if q == 0:
                k = _add_unique(out, k0, k, L.M_PAY, _pack(cnt, 7), PAY_TILES)
                continue
            if nt == 0:
                continue
            k = _add_pairs(out, k0, k, idx, 2 * q, PairPool(types, nt, avail), cnt, 7, PAY_TILES)
    return k


@njit(cache=True)
def _own_gold_options(have_r, have_gold, r, n):
    """(min own, max own) for n of resource r; gold covers what own tiles do not."""
    if r == GOLD:
        o = min(have_r, n)
        return o, o
    return 0, min(have_r, n)


# Long: one enumeration (own resources, gold for the rest, replacement pairs) whose loops
# share one allocation of work arrays; split, each part would take them all as arguments.
@njit(cache=True, _nrt=True)  # allocates; callable from runtime-free kernels
def gen_res_payments(s, pb, r1, n1, r2, n2, out, k):
    """Every distinct payment of n1 of r1 and n2 of r2 (r < 0: any), as M_PAY rows."""
    work = np.zeros(26, np.int64)  # one allocation for the four work arrays
    have = work[:6]
    have[:] = s[pb + L.P_RES:pb + L.P_RES + 6]
    # callers never mix "any" with a named resource (specialists 3, 9 make all any)
    n1, n2, n_any = split_demand(r1, n1, r2, n2)
    k0 = k
    cnt = work[6:12]
    idx = work[12:20]
    types = work[20:26]
    if n_any > 0:  # specialists 3 / 9: resources of the payer's choice
        nt = 0
        for x in range(6):
            if have[x] > 0:
                types[nt] = x
                nt += 1
        if nt == 0:
            return k
        idx[:n_any] = 0
        while True:
            if _fits(idx, n_any, types, have, cnt):
                k = _add_unique(out, k0, k, L.M_PAY, _pack(cnt, 6), PAY_RES)
                _unfit(idx, n_any, types, cnt)
            if k >= out.shape[0] or not _next_multiset(idx, n_any, nt):
                break
        return k
    ra = r1 if n1 > 0 else 0
    rb = r2 if n2 > 0 else 0
    lo_a, hi_a = _own_gold_options(have[ra], have[GOLD], ra, n1)
    lo_b, hi_b = _own_gold_options(have[rb], have[GOLD], rb, n2)
    for oa in range(hi_a, lo_a - 1, -1):  # own, then gold, then pairs: canonical first
        for ga in range(n1 - oa, -1, -1):
            qa = n1 - oa - ga
            if ra == GOLD and ga > 0:
                continue
            if qa > max(0, n1 - have[ra]) or ga > have[GOLD]:
                continue
            for ob in range(hi_b, lo_b - 1, -1):
                for gb in range(n2 - ob, -1, -1):
                    qb = n2 - ob - gb
                    if rb == GOLD and gb > 0:
                        continue
                    if qb > max(0, n2 - have[rb]):
                        continue
                    used_gold = ga + gb + (oa if ra == GOLD and n1 > 0 else 0) + (
                        ob if rb == GOLD and n2 > 0 else 0)
                    if used_gold > have[GOLD]:
                        continue
                    cnt[:] = 0
                    cnt[ra] += oa
                    cnt[rb] += ob
                    cnt[GOLD] += ga + gb
                    if cnt[ra] > have[ra] or cnt[rb] > have[rb]:
                        continue
                    m = 2 * (qa + qb)
                    if m == 0:
                        k = _add_unique(out, k0, k, L.M_PAY, _pack(cnt, 6), PAY_RES)
                        continue
                    nt = 0
                    for x in range(6):  # pairs: any resources the payer does not lack
                        if have[x] > cnt[x] and not (x == ra and qa > 0) and not (
                                x == rb and qb > 0):
                            types[nt] = x
                            nt += 1
                    if nt == 0:
                        continue
                    k = _add_pairs(out, k0, k, idx, m, PairPool(types, nt, have), cnt, 6, PAY_RES)
    return k


@njit(cache=True, _nrt=True)  # allocates; callable from runtime-free kernels
def gen_discards(s, pb, keep, out, k):
    """Every distinct set of ``keep`` tiles to keep before a fate tile, as M_DISCARD rows."""
    base = pb + L.P_TILES
    work = np.zeros(21 + max(keep, 0), np.int64)  # one allocation for the four work arrays
    avail = work[:7]
    avail[:] = s[base:base + 7]
    types = work[7:14]
    nt = 0
    for x in range(7):
        if avail[x] > 0:
            types[nt] = x
            nt += 1
    cnt = work[14:21]
    if keep <= 0 or nt == 0:
        return add(out, k, L.M_DISCARD, 0, 0, 0, 0)
    idx = work[21:]
    while True:
        if _fits(idx, keep, types, avail, cnt):
            k = add(out, k, L.M_DISCARD, _pack(cnt, 7), 0, 0, 0)
            _unfit(idx, keep, types, cnt)
        if k >= out.shape[0] or not _next_multiset(idx, keep, nt):
            break
    return k


# ---- pending demands --------------------------------------------------------------------------
@njit(cache=True, _nrt=False)  # no reference counting: see bonfire_sim.strategies.evaluate.NO_RT
def demand(s, mv, main, t, n, r1, n1, r2, n2, keep):
    """Record move ``mv``'s payment demands (n = 0 / keep < 0: none) for ``settle``."""
    for j in range(L.MOVE_W):
        s[L.G_PAY_MOVE + j] = mv[j]
    s[L.G_PAY_MAIN] = 1 if main else 0
    s[L.G_PAY_TILE] = t
    s[L.G_PAY_TILE + 1] = n
    s[L.G_PAY_RES] = r1
    s[L.G_PAY_RES + 1] = n1
    s[L.G_PAY_RES + 2] = r2
    s[L.G_PAY_RES + 3] = n2
    s[L.G_PAY_KEEP] = keep


@njit(cache=True)
def _held(s, pb):
    n = 0
    for k in range(7):
        n += s[pb + L.P_TILES + k]
    return n


@njit(cache=True, _nrt=False)  # no reference counting: see bonfire_sim.strategies.evaluate.NO_RT
def gen_pending(s, pb, out, k):
    """The alternatives of the first open demand (tiles, then resources, then discard)."""
    if s[L.G_PAY_TILE + 1] > 0:
        return gen_tile_payments(s, pb, s[L.G_PAY_TILE], s[L.G_PAY_TILE + 1], out, k)
    if s[L.G_PAY_RES + 1] + s[L.G_PAY_RES + 3] > 0:
        return gen_res_payments(s, pb, s[L.G_PAY_RES], s[L.G_PAY_RES + 1],
                                s[L.G_PAY_RES + 2], s[L.G_PAY_RES + 3], out, k)
    if s[L.G_PAY_KEEP] >= 0 and _held(s, pb) > s[L.G_PAY_KEEP]:
        return gen_discards(s, pb, s[L.G_PAY_KEEP], out, k)
    return k


@njit(cache=True)
def pay_code(s, pb, code, what):
    """Remove a packed tile (what 0) or resource (what 1) payment; close that demand."""
    if what == PAY_TILES:
        t, n = s[L.G_PAY_TILE], s[L.G_PAY_TILE + 1]
        y = code_count(code, YELLOW)
        if y > 0 and has_spec(s, pb, 5):  # a yellow tile that paid for 2 tiles
            d = n - code_count(code, t)
            for _ in range(y):
                if d >= 2:
                    note(s, pb, 5)
                d -= 2
        for k in range(7):
            c = code_count(code, k)
            s[pb + L.P_TILES + k] -= c
            s[L.G_PAID + 6 + k] += c
        s[L.G_PAY_TILE + 1] = 0
    else:
        for k in range(6):
            c = code_count(code, k)
            s[pb + L.P_RES + k] -= c
            s[L.G_PAID + k] += c
        s[L.G_PAY_RES + 1] = 0
        s[L.G_PAY_RES + 3] = 0


@njit(cache=True)
def keep_code(s, pb, code):
    """Discard every tile but the packed kept ones; close the discard demand."""
    for k in range(7):
        c = code_count(code, k)
        s[L.G_PAID + 6 + k] += s[pb + L.P_TILES + k] - c
        s[pb + L.P_TILES + k] = c
    s[L.G_PAY_KEEP] = -1


@njit(cache=True, _nrt=False)  # no reference counting: see bonfire_sim.strategies.evaluate.NO_RT
def apply_choice(s, pb, mv):
    """Apply an M_PAY / M_DISCARD row to the open demand."""
    if mv[0] == L.M_DISCARD:
        keep_code(s, pb, mv[1])
    else:
        pay_code(s, pb, mv[1], mv[2])


@njit(cache=True)
def settle(s, pb):
    """Pay every open demand that has a single way; True if a choice remains (PH_PAY)."""
    while True:
        if s[L.G_PAY_TILE + 1] > 0:
            t, n = s[L.G_PAY_TILE], s[L.G_PAY_TILE + 1]
            base = pb + L.P_TILES
            if s[base + t] >= n and s[base + YELLOW] == 0:  # the common case: own tiles
                s[base + t] -= n
                s[L.G_PAID + 6 + t] += n
                s[L.G_PAY_TILE + 1] = 0
                continue
        elif s[L.G_PAY_RES + 1] + s[L.G_PAY_RES + 3] == 0 and (
                s[L.G_PAY_KEEP] < 0 or _held(s, pb) <= s[L.G_PAY_KEEP]):
            s[L.G_PAY_KEEP] = -1
            return False
        step = _settle_step(s, pb)
        if step >= 0:
            return step == 1


@njit(cache=True, _nrt=False)  # no reference counting: see bonfire_sim.strategies.evaluate.NO_RT
def _settle_step(s, pb):
    """``settle`` for a demand the common cases did not pay: 1 if a choice remains, 0 if
    nothing is left to pay, -1 after paying its single way (settle carries on)."""
    buf = stack_moves(2)
    k = gen_pending(s, pb, buf, 0)
    if k >= 2:
        s[L.G_PHASE] = L.PH_PAY
        return 1
    if k == 0:  # unpayable: the move generators never offer such a move
        s[L.G_PAY_TILE + 1] = 0
        s[L.G_PAY_RES + 1] = 0
        s[L.G_PAY_RES + 3] = 0
        s[L.G_PAY_KEEP] = -1
        return 0
    apply_choice(s, pb, buf[0])
    return -1


@njit(cache=True)
def clear_paid(s):
    """Start a new action's record of what it paid (the trace reads ``G_PAID``)."""
    for k in range(13):
        s[L.G_PAID + k] = 0


# ---- Python helpers (traces, describe_move, tests) --------------------------------------------
def pack(counts) -> int:
    """Packed code of a count per slot (tiles: 7 slots, resources: 6)."""
    code = 0
    for k, c in enumerate(counts):
        if not 0 <= int(c) <= MASK:
            raise ConfigError(f"count {c} of slot {k} does not fit {BITS} bits")
        code |= int(c) << (BITS * k)
    return code


def unpack(code: int, slots: int) -> list[int]:
    """Counts per slot of a packed code."""
    return [(int(code) >> (BITS * k)) & MASK for k in range(slots)]
