"""Helpers for turn-flow scenario tests (procession, council, countdown, Tom).

States are built with ``StateBuilder`` and then put "mid-game": every seat has chosen its
starting fate tile (so option I is possible and seats are never idle by accident), the
current seat is in PH_MAIN.  Moves go through the validated public ``engine.apply``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

import numpy as np

from bonfire_sim import engine
from bonfire_sim.rules import components as C
from bonfire_sim.rules import layout as L
from bonfire_sim.rules import tables as T
from bonfire_sim.rules.fate import place_start_tile
from bonfire_sim.rules.state import StateBuilder

P = T.DEFAULT_PARAMS
BLOSSOM, FRUIT, HERB, SHELL, ROOT, GOLD = range(6)
SHIP, PATH, TASK, FIRE, GUARD, GNOME, YELLOW = range(7)
OWN, GREY, PINK, RED, WOOD = range(5)
STAY = -9  # M_MOVE_GUARD destination "does not move" (procession.STAY)
BONFIRE = L.GP_BONFIRE


def pb(seat: int) -> int:
    return L.player_base(seat)


def path_tile(crystal: str, resource: str, nth: int = 0) -> int:
    """Id of the ``nth`` path tile with this crystal and resource."""
    ids = [i for i, t in enumerate(C.PATH_TILES) if t == (crystal, resource)]
    return ids[nth]


def spec_with_resource(res: int, nth: int = 0) -> int:
    """Gnome id (0..26) of the ``nth`` specialist showing resource ``res``."""
    ids = [g for g in range(C.N_SPECIALISTS) if P[T.SPEC_RES + g] == res]
    return ids[nth]


def give_fate_supply(s: np.ndarray, seat: int, n: int = 7) -> None:
    """Seat has placed its starting tile and has ``n`` fate tiles left in its column."""
    b = pb(seat)
    for i in range(C.N_FATE_TILES):
        s[b + L.P_FATE_SUP + i] = i
    s[b + L.P_FATE_LO] = C.N_FATE_TILES - n
    s[b + L.P_FATE_HI] = C.N_FATE_TILES
    if s[b + L.P_FATE_PLACED] == 0:
        place_start_tile(s, P, b, 0)


def start(b: StateBuilder | np.ndarray, cur: int = 0, supply: int = 7,
          idle: Iterable[int] = ()) -> np.ndarray:
    """Finish a built state: all seats started (fate supply ``supply``, except the ``idle``
    seats, which get nothing), seat ``cur`` to move in PH_MAIN."""
    s = b.build() if isinstance(b, StateBuilder) else b
    idle = set(idle)
    for seat in range(int(s[L.G_NSEATS])):
        s[pb(seat) + L.P_STARTED] = 1
        if seat not in idle:
            give_fate_supply(s, seat, supply)
    s[L.G_CUR] = cur
    s[L.G_PHASE] = L.PH_MAIN
    s[L.G_RET] = L.PH_POST
    s[L.G_TURN] = 1
    return s


def legal(s: np.ndarray) -> list[tuple[int, ...]]:
    return [tuple(int(x) for x in m) for m in engine.legal_moves(s)]


def of_kind(s: np.ndarray, kind: int) -> list[tuple[int, ...]]:
    return [m for m in legal(s) if m[0] == kind]


def mv(kind: int, a: int = 0, b: int = 0, c: int = 0, d: int = 0) -> tuple[int, ...]:
    return (kind, a, b, c, d)


def can(s: np.ndarray, move: Sequence[int]) -> bool:
    return tuple(move) + (0,) * (5 - len(move)) in legal(s)


def pay_first(s: np.ndarray) -> np.ndarray:
    """While a payment / discard choice is pending, take the first (canonical) one: own
    tiles, then yellow, then pairs; own resources, then gold, then pairs."""
    while s[L.G_PHASE] == L.PH_PAY and not s[L.G_OVER]:
        engine.apply(s, engine.legal_moves(s)[0])
    return s


def play(s: np.ndarray, *moves: Sequence[int]) -> np.ndarray:
    """Apply the moves; payment choices they open are settled canonically (``pay_first``)
    unless the next move given is itself an M_PAY / M_DISCARD row."""
    for m in moves:
        if m[0] not in (L.M_PAY, L.M_DISCARD):
            pay_first(s)
        engine.apply(s, m)
    return pay_first(s)


def res(s: np.ndarray, seat: int = 0) -> list[int]:
    b = pb(seat)
    return s[b + L.P_RES:b + L.P_RES + 6].tolist()


def tiles(s: np.ndarray, seat: int = 0) -> list[int]:
    b = pb(seat)
    return s[b + L.P_TILES:b + L.P_TILES + 7].tolist()


def guard(s: np.ndarray, colour: int, seat: int = 0) -> int:
    return int(s[pb(seat) + L.P_GUARD + colour])


def score(s: np.ndarray, seat: int = 0) -> int:
    return int(s[pb(seat) + L.P_SCORE])


def council(s: np.ndarray, space: int, colour: int) -> int:
    return int(s[L.COUNCIL + space * 5 + colour])


def fill_council(s: np.ndarray, n: int, colours: Sequence[int] = (3,)) -> None:
    """Put ``n`` novices into the council, of the given colours in turn (default colour 3,
    a seat not in play in 2-3 seat tests), spread over the spaces."""
    for i in range(n):
        colour = colours[i % len(colours)]
        s[L.COUNCIL + (i % C.COUNCIL_SPACES) * 5 + colour] += 1
    s[L.G_COUNCIL_N] += n


def proc_moves(s: np.ndarray) -> list[tuple[int, int, int]]:
    """Pending procession moves as (colour, destination, resource)."""
    return [(m[1], m[2], m[3]) for m in legal(s) if m[0] == L.M_MOVE_GUARD]


Policy = Callable[[np.ndarray, np.ndarray], int]


def first_of(kinds: Sequence[int]) -> Policy:
    """Policy: the first legal move of the first kind in ``kinds`` that has one, else move 0.

    Passing (M_PASS) is never chosen unless listed."""
    def choose(s: np.ndarray, moves: np.ndarray) -> int:
        for k in kinds:
            for i, m in enumerate(moves):
                if m[0] == k:
                    return i
        for i, m in enumerate(moves):
            if m[0] != L.M_PASS:
                return i
        return 0
    return choose


def drive(s: np.ndarray, policy: Policy, max_decisions: int = 5000,
          on_turn: Callable[[np.ndarray], None] | None = None) -> np.ndarray:
    """Play until the game is over with ``policy`` for every seat."""
    for _ in range(max_decisions):
        if s[L.G_OVER]:
            return s
        moves = engine.legal_moves(s)
        assert len(moves) > 0, f"no legal move in phase {engine.phase_name(s)}"
        engine.apply(s, moves[policy(s, moves)])
    raise AssertionError("game did not end")
