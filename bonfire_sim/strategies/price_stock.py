"""What paying costs: the value of the tiles and resources a payment or discard takes.

Prices are the cheapest way the rules allow (own tiles, yellow jokers, pairs; own
resources, gold, pairs), memoised per decision where many moves ask the same question.
"""

from __future__ import annotations

from numba import njit

from bonfire_sim.rules import layout as L
from bonfire_sim.rules.pay_choice import code_count
from bonfire_sim.rules.payment import (
    has_spec,
)
from bonfire_sim.rules.stackbuf import stack_floats, stack_ints
from bonfire_sim.strategies.price_context import (
    CX_RCOST,
    CX_TCOST,
    GOLD,
    MEMO_N,
    NO_RT,
    PAYV,
    SURPLUS,
    TILE_CAP,
    YELLOW,
)


@njit(cache=True)
def unit_tile(k, c, tv):
    """Value of the c-th held tile of type k (c >= 1): surplus when its type is dead or c
    exceeds what one action of the type pays; yellow keeps its joker value."""
    if k == YELLOW:
        return tv[YELLOW]
    if c > TILE_CAP[k]:
        return tv[SURPLUS]
    return tv[PAYV + k]


@njit(cache=True)
def tiles_loss(s, pb, code, tv):
    """Value of the tiles a packed removal takes (each type from its top count down)."""
    loss = 0.0
    for k in range(7):
        h = s[pb + L.P_TILES + k]
        for j in range(code_count(code, k)):
            loss += unit_tile(k, h - j, tv)
    return loss


@njit(**NO_RT)
def _cheapest_units(s, pb, t, m, tv):
    """Value of the m cheapest non-yellow tiles of types other than t (>= 1e9 if short)."""
    # counted down on the state itself (type t hidden) and restored: no scratch array
    b = pb + L.P_TILES
    h0, h1, h2, h3, h4, h5 = s[b], s[b + 1], s[b + 2], s[b + 3], s[b + 4], s[b + 5]
    s[b + t] = 0
    loss = _sum_cheapest(s[b:b + 6], m, tv)
    s[b], s[b + 1], s[b + 2], s[b + 3], s[b + 4], s[b + 5] = h0, h1, h2, h3, h4, h5
    return loss


@njit(**NO_RT)
def _sum_cheapest(cnt, m, tv):
    """Value of m tiles taken one by one, each the cheapest unit of the stock ``cnt``
    (tile types in order; consumed); >= 1e9 if the stock is short."""
    loss = 0.0
    for _ in range(m):
        best = -1
        bv = 0.0
        for k in range(cnt.shape[0]):
            if cnt[k] > 0:
                v = unit_tile(k, cnt[k], tv)
                if best < 0 or v < bv:
                    best, bv = k, v
        if best < 0:
            return 1.0e9
        cnt[best] -= 1
        loss += bv
    return loss


@njit(**NO_RT)
def _cheapest_pairs(s, pb, t, qmax, tv, pairs):
    """pairs[q] = ``_cheapest_units(s, pb, t, 2 * q, tv)`` for q = 1..qmax, from one run of
    the greedy: its picks do not depend on how many tiles are taken, so the value of 2q
    tiles is the running sum after 2q picks (the same additions in the same order), and
    1e9 from the first pick the stock cannot give on."""
    b = pb + L.P_TILES
    cnt = stack_ints(6)
    for k in range(6):
        cnt[k] = s[b + k]
    cnt[t] = 0
    loss = 0.0
    for q in range(1, qmax + 1):
        for _ in range(2):
            best = -1
            bv = 0.0
            for k in range(6):
                if cnt[k] > 0:
                    v = unit_tile(k, cnt[k], tv)
                    if best < 0 or v < bv:
                        best, bv = k, v
            if best < 0:
                for r in range(q, qmax + 1):
                    pairs[r] = 1.0e9
                return
            cnt[best] -= 1
            loss += bv
        pairs[q] = loss


@njit(cache=True)
def joker_for_held(u, y, q, n, have, per):
    """True if a tile payment of n tiles of the type asked (u own, y yellow each covering
    ``per``, q pairs) spends a yellow joker that covers a single tile while a held tile of
    that type is left unpaid: swapping the joker for that tile pays the same and keeps
    the joker, which can stand for any tile.  The players never choose such a payment
    (issue 39: tuned did in 3% of its payments, wherever it priced the joker below the
    tile asked), whatever their weights."""
    if y == 0 or u >= min(have, n):
        return False
    return per * y - (n - u - q) >= per - 1


MAX_PAIRS = 16  # tile_cost: pair payments priced from one greedy run up to this many
_PAIRS_BUF = MAX_PAIRS + 1  # a module int: stack buffer sizes must be compile-time constants


@njit(**NO_RT)
def tile_cost(s, pb, t, n, tv):
    """Value lost by the cheapest way to pay n tiles of type t (own, yellow, pairs)."""
    have = s[pb + L.P_TILES + t]
    yel = s[pb + L.P_TILES + YELLOW]
    per = 2 if has_spec(s, pb, 5) else 1
    lacking = max(0, n - have)
    # the pair payments of every q <= lacking at once (``_cheapest_pairs``): the loops
    # below asked ``_cheapest_units`` for the same q again and again
    pairs = stack_floats(_PAIRS_BUF)
    fast = 0 < lacking <= MAX_PAIRS
    if fast:
        _cheapest_pairs(s, pb, t, lacking, tv, pairs)
    best = 1.0e9
    for u in range(min(have, n), -1, -1):
        own = 0.0
        for j in range(u):
            own += unit_tile(t, have - j, tv)
        rest = n - u
        for y in range(min(yel, (rest + per - 1) // per) + 1):
            q = max(0, rest - per * y)
            if q > lacking or joker_for_held(u, y, q, n, have, per):
                continue
            c = own + y * tv[YELLOW]
            if q > 0:
                c += pairs[q] if fast else _cheapest_units(s, pb, t, 2 * q, tv)
            best = min(best, c)
    return best


@njit(**NO_RT)
def _res_cost_any(s, pb, n, rv):
    """``res_cost`` of n resources of the payer's choice."""
    cnt = stack_ints(6)
    for k in range(6):
        cnt[k] = s[pb + L.P_RES + k]
    c = 0.0
    for _ in range(n):
        best = -1
        for k in range(6):
            if cnt[k] > 0 and (best < 0 or rv[k] < rv[best]):
                best = k
        if best < 0:
            return c + 1.0e9
        cnt[best] -= 1
        c += rv[best]
    return c


@njit(cache=True)
def res_cost(s, pb, r, n, rv):
    """Value lost by the cheapest way to pay n of resource r (r < 0: any resources):
    own, gold, or (for what the payer lacks) pairs of the cheapest other plain ones."""
    if r < 0:
        return _res_cost_any(s, pb, n, rv)
    have = s[pb + L.P_RES + r]
    gold = s[pb + L.P_RES + GOLD] if r != GOLD else 0
    pair = 0.0  # the two cheapest other plain resources (one pair is all one unit needs)
    a = -1
    b = -1
    for k in range(5):
        if k == r:
            continue
        for _ in range(min(2, s[pb + L.P_RES + k])):
            if a < 0 or rv[k] < rv[a]:
                a, b = k, a
            elif b < 0 or rv[k] < rv[b]:
                b = k
    pair = rv[a] + rv[b] if b >= 0 else 1.0e9
    best = 1.0e9
    for o in range(min(have, n), -1, -1):
        for g in range(min(gold, n - o) + 1):
            q = n - o - g
            if q > max(0, n - have):
                continue
            best = min(best, o * rv[r] + g * rv[GOLD] + q * pair)
    return best


@njit(cache=True, inline="always")
def tile_cost_memo(s, pb, t, n, tv, cx):
    """``tile_cost`` of the decision's own stock, computed once per (t, n) and decision
    (never on a stock changed for pricing: the ship payment in ``island_value``)."""
    if n < 0 or n >= MEMO_N:
        return tile_cost(s, pb, t, n, tv)
    j = CX_TCOST + t * MEMO_N + n
    v = cx[j]
    if v != v:
        v = tile_cost(s, pb, t, n, tv)
        cx[j] = v
    return v


@njit(cache=True, inline="always")
def res_cost_memo(s, pb, r, n, rv, cx):
    """``res_cost``, computed once per (r, n) and decision (resources are never changed
    for pricing)."""
    if n < 0 or n >= 4:
        return res_cost(s, pb, r, n, rv)
    j = CX_RCOST + (r + 1) * 4 + n
    v = cx[j]
    if v != v:
        v = res_cost(s, pb, r, n, rv)
        cx[j] = v
    return v


@njit(**NO_RT)
def discard_loss(s, pb, m, tv):
    """Value of the m tiles option I discards: the player's cheapest choice."""
    # counted down on the state itself and restored: no copy
    b = pb + L.P_TILES
    h0, h1, h2, h3, h4, h5 = s[b], s[b + 1], s[b + 2], s[b + 3], s[b + 4], s[b + 5]
    h6 = s[b + 6]
    loss = _sum_cheapest(s[b:b + 7], m, tv)
    s[b], s[b + 1], s[b + 2], s[b + 3], s[b + 4], s[b + 5] = h0, h1, h2, h3, h4, h5
    s[b + 6] = h6
    return loss
