"""Setup (rulebook pp.4-5; solo p.12): deal a fresh game into a blank state.

``setup_game`` is a kernel over a blank state whose RNG slots are already seeded; the
Python wrapper ``new_game`` seeds them from the game seed.  Everything random in the deal
draws from ``G_RNG`` in a fixed order, so (seed, players) fixes the deal completely.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from bonfire_sim.errors import ConfigError
from bonfire_sim.rules import components as C
from bonfire_sim.rules import layout as L
from bonfire_sim.rules import tables as T
from bonfire_sim.rules.rng import MASK32, seed_words, shuffle
from bonfire_sim.rules.state import blank_state

NT = len(C.TASKS)
NI = C.N_ISLANDS


@njit(cache=True)
def _deal_tasks(s, p, humans, buf):
    """Shuffle the task deck (minus the removed task in 1-2p) and deal it onto the islands."""
    n = 0
    for t in range(NT):
        if humans <= 2 and t == p[T.REMOVED_SMALL]:
            continue
        buf[n] = t
        n += 1
    shuffle(s, L.G_RNG, buf, 0, n)
    k = 0
    for i in range(NI):
        if p[T.ISL_KIND + i] != 0:
            continue
        m = p[T.TPI_CORNER_N + humans] if p[T.ISL_CORNER + i] == 1 else p[T.TPI_OTHER + humans]
        for j in range(m):
            s[L.ISLAND_TASKS + i * 3 + j] = buf[k]
            k += 1


@njit(cache=True)
def _deal_solo_tasks(s, p, buf):
    """Solo: 7 blue, 7 red, 6 yellow; every island gets 2 tasks of different colours.

    With 7/7/6 tasks on 10 islands the colour pairs are forced to 4 blue-red, 3 blue-yellow
    and 3 red-yellow islands; which island gets which pair and which tasks is random.
    """
    want = np.array([7, 7, 6])
    piles = np.full((3, NT), -1, np.int64)
    cnt = np.zeros(3, np.int64)
    for t in range(NT):
        if t == p[T.REMOVED_SMALL]:
            continue
        col = p[T.T_COLOUR + t]
        piles[col, cnt[col]] = t
        cnt[col] += 1
    for col in range(3):
        shuffle(s, L.G_RNG, piles[col], 0, cnt[col])
    pairs = np.array([0, 0, 0, 0, 1, 1, 1, 2, 2, 2])  # 0 BR, 1 BY, 2 RY
    shuffle(s, L.G_RNG, pairs, 0, 10)
    first = np.array([0, 0, 1])
    second = np.array([1, 2, 2])
    used = np.zeros(3, np.int64)
    k = 0
    for i in range(NI):
        if p[T.ISL_KIND + i] != 0:
            continue
        a, b = first[pairs[k]], second[pairs[k]]
        s[L.ISLAND_TASKS + i * 3] = piles[a, used[a]]
        s[L.ISLAND_TASKS + i * 3 + 1] = piles[b, used[b]]
        used[a] += 1
        used[b] += 1
        k += 1
    return used[0] == want[0] and used[1] == want[1] and used[2] == want[2]


@njit(cache=True)
def _deal_portals(s, p, humans, solo):
    """7 shapes x 4 (x 3 in 1-2p), shuffled and dealt evenly onto the 7 spaces.

    Solo: all portals on one space must differ, so the shuffled portals are redealt until
    no space holds two equal shapes (RULINGS 7).  Rejection keeps every valid deal equally
    likely (each one arises from the same number of orders); about 1 deal in 10 is valid.
    """
    per = p[T.N_PORTAL_PER_SHAPE] - (1 if humans <= 2 else 0)
    buf = np.empty(7 * per, np.int64)
    for k in range(7):
        for j in range(per):
            buf[k * per + j] = k
    while True:
        shuffle(s, L.G_RNG, buf, 0, 7 * per)
        if not solo or _all_different_per_space(buf, per):
            break
    for i in range(7 * per):
        s[L.GB_PORTALS + (i % 7) * 7 + buf[i]] += 1


@njit(cache=True)
def _all_different_per_space(buf, per):
    """No space gets two equal shapes when ``buf`` is dealt round-robin onto 7 spaces."""
    for g in range(7):
        seen = 0
        for j in range(per):
            bit = 1 << buf[j * 7 + g]
            if seen & bit:
                return False
            seen |= bit
    return True


@njit(cache=True)
def _deal_paths_and_gnomes(s, p, solo):
    """Path deck + display of 4; specialist pile + display of 6 (solo: no gold ones)."""
    npt = L.NPATHT
    for i in range(npt):
        s[L.PATH_DECK + i] = i
    shuffle(s, L.G_RNG, s, L.PATH_DECK, npt)
    s[L.G_PATH_HEAD] = 0
    s[L.G_PATH_N] = npt
    for j in range(C.PATH_DISPLAY):
        s[L.PATH_DISP + j] = s[L.PATH_DECK + s[L.G_PATH_HEAD]]
        s[L.G_PATH_HEAD] += 1
        s[L.G_PATH_N] -= 1
    n = 0
    for g in range(L.NSPEC):
        if solo and p[T.SPEC_RES + g] == C.GOLD:
            continue
        s[L.SPEC_PILE + n] = g
        n += 1
    shuffle(s, L.G_RNG, s, L.SPEC_PILE, n)
    s[L.G_SPEC_TOP] = 0
    s[L.G_SPEC_N] = n
    for j in range(C.SPECIALIST_DISPLAY):
        s[L.SPEC_DISP + j] = s[L.SPEC_PILE + j]
    s[L.G_SPEC_TOP] = C.SPECIALIST_DISPLAY
    s[L.G_SPEC_N] = n - C.SPECIALIST_DISPLAY
    for e in range(C.N_ELDERS):
        s[L.ELDER_AVAIL + e] = 1


@njit(cache=True)
def _setup_player(s, seat, board):
    """Player board: offerings in 2 piles, fate tiles (1 in front, 7 in the column), stock."""
    pb = L.PLAYER0 + seat * L.PSIZE
    s[pb + L.P_BOARD] = board
    for i in range(C.N_OFFERINGS):
        s[pb + L.P_OFF_PILE + i] = i % 5  # 2 of each non-gold resource [assumed]
    shuffle(s, L.G_RNG, s, pb + L.P_OFF_PILE, C.N_OFFERINGS)
    for i in range(C.N_FATE_TILES):
        s[pb + L.P_FATE_SUP + i] = i
    shuffle(s, L.G_RNG, s, pb + L.P_FATE_SUP, C.N_FATE_TILES)
    s[pb + L.P_FATE_LO] = 1
    s[pb + L.P_FATE_HI] = C.N_FATE_TILES
    for r in range(6):
        s[pb + L.P_RES + r] = C.START_RESOURCES[r]


@njit(cache=True)
def _setup_tom(s, p):
    """Solo: Tom (seat 1) keeps 4 novices, a board and a shuffled deck of 8 cards."""
    pb = L.PLAYER0 + 1 * L.PSIZE
    for k in range(7):
        s[pb + L.P_NOVICE + k] = 0
    s[pb + L.P_TOM_NOVICES] = 4
    s[pb + L.P_STARTED] = 1
    for r in range(6):
        s[pb + L.P_RES + r] = 0
    s[pb + L.P_FATE_LO] = 0
    s[pb + L.P_FATE_HI] = 0
    n = C.TOM_DECK_SIZE
    for i in range(n):
        s[L.TOM_DECK + i] = p[T.TOM_CARD + i] * 2 + p[T.TOM_REVEAL + i]
    shuffle(s, L.G_RNG, s, L.TOM_DECK, n)
    s[L.G_TOM_POS] = 0
    s[L.G_TOM_PASSES] = 1


@njit(cache=True)
def _mul32(x, c):
    """(x * c) mod 2**32 for 32-bit x and c, with every product below 2**48 (int64-safe,
    so jitted and plain-Python runs agree)."""
    lo = x * (c & 0xFFFF)
    hi = ((x * (c >> 16)) & 0xFFFF) << 16
    return (lo + hi) & MASK32


@njit(cache=True)
def seat_lottery(deal_word, seat):
    """A uniform draw in [0, FRAC_UNIT) for seat ``seat`` of the deal whose RNG starts at
    ``deal_word``: independent per seat, fixed by the seed, and drawn outside the game's
    streams (the same deal with or without fractional ``seat_points``).  murmur3's
    finaliser: a linear mix (xorshift) would correlate the seats of one deal."""
    x = (deal_word + _mul32(seat + 1, 0x9E3779B9)) & MASK32
    for _ in range(2):
        x ^= x >> 16
        x = _mul32(x, 0x85EBCA6B)
        x ^= x >> 13
        x = _mul32(x, 0xC2B2AE35)
        x ^= x >> 16
    return (x * T.FRAC_UNIT) >> 32


@njit(cache=True)
def setup_game(s, p, humans):
    """Deal a game for ``humans`` players (1 = solo against Tom) into blank state ``s``."""
    solo = humans == 1
    nseats = 2 if solo else humans
    deal_word = s[L.G_RNG]  # before any draw: the seat lottery never shifts the deal
    s[L.G_NSEATS] = nseats
    s[L.G_HUMANS] = humans
    s[L.G_SOLO] = 1 if solo else 0
    buf = np.empty(NT, np.int64)
    if solo:
        _deal_solo_tasks(s, p, buf)
    else:
        _deal_tasks(s, p, humans, buf)
    _deal_portals(s, p, humans, solo)
    _deal_paths_and_gnomes(s, p, solo)
    boards = np.arange(4)
    shuffle(s, L.G_RNG, boards, 0, 4)
    for seat in range(nseats):
        _setup_player(s, seat, boards[seat])
        if not (solo and seat == 1):  # a designer's start-player compensation; never Tom
            pts = p[T.SEAT_PTS + seat]
            if seat_lottery(deal_word, seat) < p[T.SEAT_FRAC + seat]:
                pts += 1
            s[L.PLAYER0 + seat * L.PSIZE + L.P_SCORE] = pts
            s[L.PLAYER0 + seat * L.PSIZE + L.P_PTS_SEAT] = pts
    if solo:
        _setup_tom(s, p)
    s[L.G_GB_POS] = C.GREAT_BONFIRE_START
    s[L.G_CUR] = 0
    s[L.G_PHASE] = L.PH_SWAP
    s[L.G_TURN] = 1
    s[L.G_ROUND] = 1
    s[L.G_RET] = L.PH_POST
    s[L.G_CD_PILE] = 0


def new_game(seed: int, players: int, params: np.ndarray | None = None) -> np.ndarray:
    """A freshly dealt game: ``players`` 1..4 (1 = solo against Tom), any seed >= 0."""
    if not 1 <= players <= 4:
        raise ConfigError(f"players must be 1..4, got {players}")
    if seed < 0:
        raise ConfigError(f"seed must be >= 0, got {seed}")
    p = T.DEFAULT_PARAMS if params is None else params
    s = blank_state(L.NP)
    s[L.G_RNG] = seed_words(seed, 0)
    s[L.G_RNG_STRAT] = seed_words(seed, 1)
    setup_game(s, p, players)
    return s


__all__ = ["setup_game", "new_game"]
