"""Build a path (rulebook p.8, RULINGS 5): display of 4, draw deck, refresh special case."""

from __future__ import annotations

import numpy as np
from numba import njit

from bonfire_sim.rules import components as C
from bonfire_sim.rules import layout as L
from bonfire_sim.rules import tables as T
from bonfire_sim.rules.movebuf import add
from bonfire_sim.rules.payment import can_pay_tiles, has_spec, note
from bonfire_sim.rules.rng import shuffle

PATH = C.ACTION_TILES.index("path")
DECK_SLOT = 4  # move argument: the top of the draw deck
SEARCH = 10  # council move argument: 10 + tile id searched from the deck


@njit(cache=True)
def deck_pop(s):
    """Draw the top tile of the path deck, -1 if empty."""
    if s[L.G_PATH_N] == 0:
        return -1
    t = s[L.PATH_DECK + s[L.G_PATH_HEAD]]
    s[L.G_PATH_HEAD] = (s[L.G_PATH_HEAD] + 1) % L.NPATHT
    s[L.G_PATH_N] -= 1
    return t


@njit(cache=True)
def deck_push_bottom(s, t):
    """Put tile t under the draw deck."""
    s[L.PATH_DECK + (s[L.G_PATH_HEAD] + s[L.G_PATH_N]) % L.NPATHT] = t
    s[L.G_PATH_N] += 1


@njit(cache=True)
def refill_display(s):
    """Fill empty display slots from the deck (as long as it lasts)."""
    for j in range(C.PATH_DISPLAY):
        if s[L.PATH_DISP + j] < 0:
            s[L.PATH_DISP + j] = deck_pop(s)


@njit(cache=True)
def can_build(s, p, pb):
    """Room for a path tile, a tile to take, and the cost payable."""
    n = s[pb + L.P_NPATH]
    if n >= C.MAX_PATHS:
        return False
    if not can_pay_tiles(s, pb, PATH, p[T.PATH_COST + n]):
        return False
    if s[L.G_PATH_N] > 0:
        return True
    for j in range(C.PATH_DISPLAY):
        if s[L.PATH_DISP + j] >= 0:
            return True
    return False


@njit(cache=True)
def display_one_colour(s, p):
    """All 4 display tiles are present and show the same crystal colour."""
    c0 = -1
    for j in range(C.PATH_DISPLAY):
        t = s[L.PATH_DISP + j]
        if t < 0:
            return False
        if c0 < 0:
            c0 = p[T.PATH_CRYSTAL + t]
        elif p[T.PATH_CRYSTAL + t] != c0:
            return False
    return True


@njit(cache=True)
def gen_pick(s, pb, out, n, kind):
    """Take a display tile or the top of the deck."""
    for j in range(C.PATH_DISPLAY):
        if s[L.PATH_DISP + j] >= 0:
            n = add(out, n, kind, j, 0, 0, 0)
    if s[L.G_PATH_N] > 0:
        n = add(out, n, kind, DECK_SLOT, 0, 0, 0)
    return n


@njit(cache=True)
def gen_path(s, p, pb, out, n):
    """Build-path moves (and the refresh special case)."""
    if not can_build(s, p, pb):
        return n
    n = gen_pick(s, pb, out, n, L.M_PATH)
    if display_one_colour(s, p) and s[L.G_PATH_N] > 0:  # an empty deck brings no new tile
        n = add(out, n, L.M_PATH_REFRESH, 0, 0, 0, 0)
    return n


@njit(cache=True)
def do_refresh(s):
    """Put the 4 one-colour display tiles under the deck and refill; a pick must follow."""
    for j in range(C.PATH_DISPLAY):
        deck_push_bottom(s, s[L.PATH_DISP + j])
        s[L.PATH_DISP + j] = -1
    refill_display(s)
    s[L.G_PHASE] = L.PH_PATH_PICK


@njit(cache=True)
def add_path_tile(s, p, pb, t):
    """Attach tile t at the next position (specialist 8: gain its resource)."""
    n = s[pb + L.P_NPATH] + 1
    s[pb + L.P_PATH + n] = t
    s[pb + L.P_NPATH] = n
    if has_spec(s, pb, 8):
        s[pb + L.P_RES + p[T.PATH_RES + t]] += p[T.ABIL_RES + 8]
        note(s, pb, 8)


@njit(cache=True)
def take_from(s, slot):
    """Remove and return the tile at display ``slot`` (refilled) or the deck top."""
    if slot == DECK_SLOT:
        return deck_pop(s)
    t = s[L.PATH_DISP + slot]
    s[L.PATH_DISP + slot] = -1
    refill_display(s)
    return t


@njit(cache=True)
def do_path(s, p, pb, slot):
    """Build, after paying 1 (tiles 1-3) or 2 (tiles 4-6) path tiles (pay_choice)."""
    add_path_tile(s, p, pb, take_from(s, slot))


@njit(cache=True)
def gen_council_path(s, p, pb, out, n):
    """Council bonus: a display tile, or any tile type searched from the deck."""
    for j in range(C.PATH_DISPLAY):
        if s[L.PATH_DISP + j] >= 0:
            n = add(out, n, L.M_TAKE_PATH, j, 0, 0, 0)
    seen = 0  # bit per (crystal, resource) already offered: equal tiles are one choice
    for i in range(s[L.G_PATH_N]):
        t = s[L.PATH_DECK + (s[L.G_PATH_HEAD] + i) % L.NPATHT]
        bit = 1 << (p[T.PATH_CRYSTAL + t] * 6 + p[T.PATH_RES + t])
        if not seen & bit:
            seen |= bit
            n = add(out, n, L.M_TAKE_PATH, SEARCH + t, 0, 0, 0)
    return n


@njit(cache=True, _nrt=True)  # allocates; callable from runtime-free kernels
def do_council_path(s, p, pb, a):
    """Take the chosen tile for free; a searched deck is shuffled afterwards."""
    if a < SEARCH:
        add_path_tile(s, p, pb, take_from(s, a))
        return
    t = a - SEARCH
    head = s[L.G_PATH_HEAD]
    cnt = s[L.G_PATH_N]
    tmp = np.empty(cnt, np.int64)  # unroll the ring buffer first: in place would overwrite
    for i in range(cnt):
        tmp[i] = s[L.PATH_DECK + (head + i) % L.NPATHT]
    w = 0
    removed = False
    for i in range(cnt):
        x = tmp[i]
        if x == t and not removed:
            removed = True
            continue
        s[L.PATH_DECK + w] = x
        w += 1
    s[L.G_PATH_HEAD] = 0
    s[L.G_PATH_N] = w
    shuffle(s, L.G_RNG, s, L.PATH_DECK, w)
    add_path_tile(s, p, pb, t)


@njit(cache=True)
def can_take_council_path(s, pb):
    """Council path bonus possible: room on the board and a tile anywhere."""
    if s[pb + L.P_NPATH] >= C.MAX_PATHS:
        return False
    if s[L.G_PATH_N] > 0:
        return True
    for j in range(C.PATH_DISPLAY):
        if s[L.PATH_DISP + j] >= 0:
            return True
    return False
