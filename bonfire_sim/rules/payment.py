"""Paying action tiles and resources (rulebook p.8, RULINGS 4).

A missing action tile may be replaced by 1 yellow tile or by any 2 tiles; a missing resource
by 1 gold or by any 2 resources (gold itself by 2 resources).  This module answers whether a
cost can be paid (the move generators' test) and holds one canonical policy - own tiles of
the asked type first, then yellow, then pairs taken from the most plentiful other types -
which the strategies use as an estimate.  What the engine actually pays is the payer's
choice among every distinct alternative: see ``pay_choice``.
"""

from __future__ import annotations

from numba import njit

from bonfire_sim.rules import components as C
from bonfire_sim.rules import layout as L
from bonfire_sim.rules import tables as T

YELLOW = C.YELLOW
GOLD = C.GOLD


@njit(cache=True)
def has_spec(s, pb, ability):
    """True if the player owns a specialist card carrying this ability (1..27).

    As printed, card S<a> carries ability a; the override ``specialist_ability`` may give a
    card another ability or none, so this reads the seat's ability mask (``grant_card``),
    never which card is owned."""
    return ((s[L.ABIL_MASK + (pb - L.PLAYER0) // L.PSIZE] >> ability) & 1) == 1


@njit(cache=True)
def grant_card(s, p, pb, gid):
    """Own gnome ``gid``: mark the card and, for a specialist, put its assigned ability
    (the parameter vector's, 0 = none) in force for this seat."""
    s[pb + L.P_GNOME + gid] = 1
    if gid < C.N_SPECIALISTS:
        a = p[T.SPEC_ABIL + gid]
        if a > 0:
            s[L.ABIL_MASK + (pb - L.PLAYER0) // L.PSIZE] |= 1 << a


@njit(cache=True)
def note(s, pb, ability):
    """Count that specialist ``ability`` changed an outcome (rule-coverage statistics)."""
    s[pb + L.P_ABIL + ability] += 1


@njit(cache=True)
def _take_pair(a, base, n, skip1, skip2):
    """Remove 2 items from the most plentiful slots of a[base:base+n] except skip1/skip2."""
    for _ in range(2):
        best = -1
        for k in range(n):
            if k != skip1 and k != skip2 and a[base + k] > 0:
                if best < 0 or a[base + k] > a[base + best]:
                    best = k
        if best < 0:
            return False
        a[base + best] -= 1
    return True


@njit(cache=True)
def pay_tiles(s, pb, t, n):
    """Pay n action tiles of type t canonically; returns False (state undefined) if short."""
    return pay_tiles_sparing(s, pb, t, n, -1, -1)


@njit(cache=True)
def _take_pair_sparing(a, base, t, spare1, spare2):
    """Remove 2 tiles (not t, not yellow) from the most plentiful types, types spare1 and
    spare2 only when no other type is left."""
    for _ in range(2):
        best = -1
        for k in range(6):
            if k == t or a[base + k] <= 0:
                continue
            if best < 0:
                best = k
                continue
            k_spared = k == spare1 or k == spare2
            best_spared = best == spare1 or best == spare2
            if (best_spared and not k_spared) or (
                    k_spared == best_spared and a[base + k] > a[base + best]):
                best = k
        if best < 0:
            return False
        a[base + best] -= 1
    return True


@njit(cache=True)
def pay_tiles_sparing(s, pb, t, n, spare1, spare2):
    """Pay like ``pay_tiles`` but take replacement pairs from types spare1/spare2 last.

    Used where another action may follow in the same turn (the island action after
    sailing): the pair then keeps the tiles that action needs whenever it can.
    """
    base = pb + L.P_TILES
    use = min(s[base + t], n)
    s[base + t] -= use
    d = n - use
    per_yellow = 2 if has_spec(s, pb, 5) else 1
    while d > 0 and s[base + YELLOW] > 0:
        s[base + YELLOW] -= 1
        if per_yellow == 2 and d >= 2:
            note(s, pb, 5)
        d -= per_yellow
    while d > 0:
        if not _take_pair_sparing(s, base, t, spare1, spare2):
            return False
        d -= 1
    return True


@njit(cache=True)
def can_pay_tiles(s, pb, t, n):
    """True if n action tiles of type t can be paid (with substitutions)."""
    base = pb + L.P_TILES
    d = n - s[base + t]
    if d <= 0:
        return True
    per_yellow = 2 if has_spec(s, pb, 5) else 1
    d -= s[base + YELLOW] * per_yellow
    if d <= 0:
        return True
    others = 0
    for k in range(6):
        if k != t:
            others += s[base + k]
    return others >= 2 * d


@njit(cache=True)
def max_tiles_payable(s, pb, t):
    """The largest n for which can_pay_tiles(s, pb, t, n) holds."""
    base = pb + L.P_TILES
    per_yellow = 2 if has_spec(s, pb, 5) else 1
    others = 0
    for k in range(6):
        if k != t:
            others += s[base + k]
    return s[base + t] + s[base + YELLOW] * per_yellow + others // 2


@njit(cache=True)
def pay_resource(s, pb, r, n):
    """Pay n of resource r canonically: own, then gold, then pairs of plentiful others."""
    return _pay_on(s[pb + L.P_RES:pb + L.P_RES + 6], r, n, 0, 0)


@njit(cache=True)
def pay_any_resource(s, pb):
    """Pay 1 resource of the payer's choice: the most plentiful non-gold one, else gold."""
    return _pay_on(s[pb + L.P_RES:pb + L.P_RES + 6], -1, 1, 0, 0)


@njit(cache=True, inline="always")
def split_demand(r1, n1, r2, n2):
    """(n1, n2, n_any): both demands of one resource merged into the first, and the
    demands of the payer's choice (r < 0) pooled as n_any."""
    if r1 >= 0 and r1 == r2:
        n1 += n2
        n2 = 0
    n_any = 0
    if r1 < 0:
        n_any += n1
        n1 = 0
    if r2 < 0:
        n_any += n2
        n2 = 0
    return n1, n2, n_any


@njit(cache=True, inline="always")
def _count_own(s, b, r, n, gold, plain):
    """``_use_own`` counted: (units of r still missing, gold left, plain resources left)."""
    if n <= 0:
        return 0, gold, plain
    use = min(s[b + r], n)
    if r == GOLD:
        return n - use, gold - use, plain
    return n - use, gold, plain - use


@njit(cache=True)
def can_pay_resources(s, pb, r1, n1, r2, n2):
    """True if n1 of r1 and n2 of r2 can be paid together (r < 0 = any resource of choice).

    ``_pay_on``'s steps counted instead of paid (this runs for every recruit move and every
    priced trip): each step after the own resources and gold takes single units from
    whatever is left of its pool (pairs: plain resources; any: plain, then gold), so it
    succeeds exactly when the pool still holds enough units.
    """
    b = pb + L.P_RES
    n1, n2, n_any = split_demand(r1, n1, r2, n2)
    gold = s[b + GOLD]
    plain = s[b] + s[b + 1] + s[b + 2] + s[b + 3] + s[b + 4]
    d1, gold, plain = _count_own(s, b, r1, n1, gold, plain)
    d2, gold, plain = _count_own(s, b, r2, n2, gold, plain)
    if d1 > 0 and r1 != GOLD:
        g = min(gold, d1)
        gold -= g
        d1 -= g
    if d2 > 0 and r2 != GOLD:
        g = min(gold, d2)
        gold -= g
        d2 -= g
    plain -= 2 * (d1 + d2)
    return plain >= 0 and plain + gold >= n_any


@njit(cache=True)
def pay_resources(s, pb, r1, n1, r2, n2):
    """Pay n1 of r1 and n2 of r2 (r < 0 = any resource of the payer's choice) canonically."""
    return _pay_on(s[pb + L.P_RES:pb + L.P_RES + 6], r1, n1, r2, n2)


@njit(cache=True)
def _use_own(a, r, n):
    """Pay up to n of resource r from a itself; return how many are still missing."""
    if n <= 0:
        return 0
    use = min(a[r], n)
    a[r] -= use
    return n - use


@njit(cache=True)
def _use_gold(a, r, d):
    """Replace up to d missing non-gold resources r by gold; return how many are still missing."""
    if d <= 0 or r == GOLD:
        return d
    g = min(a[GOLD], d)
    a[GOLD] -= g
    return d - g


@njit(cache=True)
def _pay_on(a, r1, n1, r2, n2):
    """Pay n1 of r1 and n2 of r2 from the resource 6-vector ``a`` in place (False if short).

    The two demands are paid together, never one after the other: first every asked
    resource the payer owns, then gold for what is missing, then pairs of the most plentiful
    others, and last the resources of the payer's choice (r < 0; most plentiful non-gold,
    else gold).  Paying one demand's pair before the other demand's own resource could take
    that resource and make a payable cost look unpayable.
    """
    n1, n2, n_any = split_demand(r1, n1, r2, n2)
    d1 = _use_own(a, r1, n1)
    d2 = _use_own(a, r2, n2)
    d1 = _use_gold(a, r1, d1)
    d2 = _use_gold(a, r2, d2)
    for _ in range(d1 + d2):  # the missing ones are 0 in a now: pairs of any others
        if not _take_pair(a, 0, 6, GOLD, GOLD):
            return False
    for _ in range(n_any):
        best = -1
        for k in range(5):
            if a[k] > 0 and (best < 0 or a[k] > a[best]):
                best = k
        if best < 0:
            if a[GOLD] > 0:
                best = GOLD
            else:
                return False
        a[best] -= 1
    return True
