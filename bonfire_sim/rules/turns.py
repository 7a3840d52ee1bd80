"""Turn order, the countdown, passing, and the end of the game (rulebook p.11, RULINGS 6).

The countdown is modelled turn by turn: when the trigger count is reached the starting
player (seat 0) takes the pile; each time seat 0 ENDS a turn she hands the highest
remaining tile to seat 1; every other seat hands the tile it holds on after its turn; a
tile coming back to seat 0 leaves the game, and when that is tile 1 the game ends.  A player
holding tile n has n turns left including this one; seat 0 has as many turns left as the
highest tile still in her pile.  Passing scores those turns as points and ends the
player's participation.  A player who can do nothing takes no more turns.
"""

from __future__ import annotations

from numba import njit

from bonfire_sim.rules import layout as L


@njit(cache=True)
def pb_of(seat):
    """Base offset of a seat's player block."""
    return L.PLAYER0 + seat * L.PSIZE


@njit(cache=True)
def pass_points(s, seat):
    """Points for passing now (= turns left including this one); 0 = may not pass."""
    if s[L.G_CD_ACTIVE] == 0:
        return 0
    if seat == 0:
        return s[L.G_CD_PILE]
    return s[pb_of(seat) + L.P_CD_TILE]


@njit(cache=True)
def do_pass(s, seat):
    """Pass for points; the player takes no further turns."""
    pb = pb_of(seat)
    pts = pass_points(s, seat)
    s[pb + L.P_SCORE] += pts
    s[pb + L.P_PTS_PASS] += pts
    s[pb + L.P_PASSED] = 1
    s[pb + L.P_PASS_TURN] = s[L.G_TURN]


@njit(cache=True)
def hand_on_tile(s, seat):
    """After ``seat``'s turn: move the countdown tile on; True when the game has ended."""
    if s[L.G_CD_ACTIVE] == 0:
        return False
    nseats = s[L.G_NSEATS]
    if seat == 0:
        if s[L.G_CD_PILE] >= 1:
            tile = s[L.G_CD_PILE]
            s[L.G_CD_PILE] -= 1
            if nseats == 1:
                return tile == 1
            s[pb_of(1) + L.P_CD_TILE] = tile
        return False
    pb = pb_of(seat)
    tile = s[pb + L.P_CD_TILE]
    if tile == 0:
        return False
    s[pb + L.P_CD_TILE] = 0
    if seat + 1 < nseats:
        s[pb_of(seat + 1) + L.P_CD_TILE] = tile
        return False
    return tile == 1  # back at the starting player: into the box; "1" ends the game


@njit(cache=True)
def end_game(s, reason):
    """Mark the game over."""
    s[L.G_OVER] = 1
    s[L.G_END] = reason
    s[L.G_PHASE] = L.PH_OVER


@njit(cache=True)
def all_humans_done(s):
    """Every human seat has passed or is out."""
    for seat in range(s[L.G_NSEATS]):
        if s[L.G_SOLO] == 1 and seat == 1:
            continue
        pb = pb_of(seat)
        if s[pb + L.P_PASSED] == 0 and s[pb + L.P_OUT] == 0:
            return False
    return True
