"""Creating and reading game states (see ``layout`` for the encoding of every field).

``blank_state`` gives an all-empty table (no tasks dealt, nothing owned) that scenario tests
fill by hand through ``StateBuilder``; ``bonfire_sim.rules.setup.new_game`` deals a real
game.  Both return one flat ``int64`` vector.
"""

from __future__ import annotations

import numpy as np

from bonfire_sim.rules import components as C
from bonfire_sim.rules import layout as L
from bonfire_sim.rules import tables as T


def blank_state(n_seats: int = 2, humans: int | None = None) -> np.ndarray:
    """An empty table for ``n_seats`` seats: every sentinel set, no component dealt.

    Each player holds nothing, has no fate tile placed, owns only the own guardian (in the
    waiting area), all novices stand by the bonfire spaces, the ship is in the harbour.
    """
    if not 1 <= n_seats <= L.NP:
        raise ValueError(f"n_seats must be 1..{L.NP}, got {n_seats}")
    s = np.zeros(L.STATE_SIZE, dtype=np.int64)
    s[L.G_NSEATS] = n_seats
    s[L.G_HUMANS] = n_seats if humans is None else humans
    s[L.G_PHASE] = L.PH_MAIN
    s[L.G_RET] = L.PH_POST
    s[L.G_ROUND] = 1
    s[L.PATH_DISP:L.PATH_DISP + C.PATH_DISPLAY] = -1
    s[L.SPEC_DISP:L.SPEC_DISP + C.SPECIALIST_DISPLAY] = -1
    s[L.ISLAND_TASKS:L.ISLAND_TASKS + C.N_ISLANDS * 3] = -1
    s[L.ISLAND_GUARDS + 1:L.ISLAND_GUARDS + 5] = C.N_GUARD_PER_COLOUR
    s[L.COMMON_NOVICE:L.COMMON_NOVICE + C.COMMON_TASKS] = 1
    s[L.G_TRIGGER_TURN] = -1
    s[L.G_RNG] = 1
    s[L.G_RNG_STRAT] = 1
    s[L.G_TOM_CARD] = -1
    for seat in range(L.NP):
        b = L.player_base(seat)
        s[b + L.P_SHIP] = -1
        s[b + L.P_TASK:b + L.P_TASK + 7] = -1
        s[b + L.P_NOVICE:b + L.P_NOVICE + 7] = 1
        s[b + L.P_PATH:b + L.P_PATH + 7] = -1
        s[b + L.P_GUARD:b + L.P_GUARD + 5] = L.GP_NONE
        s[b + L.P_GUARD] = L.GP_WAIT
        s[b + L.P_FATE:b + L.P_FATE + L.FATE_W * L.FATE_W] = -1
        s[b + L.P_FATE_SUP:b + L.P_FATE_SUP + C.N_FATE_TILES] = -1
        s[b + L.P_BOARD] = seat % len(C.BOARDS)
        s[b + L.P_PASS_TURN] = -1
    return s


def fate_index(r: int, c: int) -> int:
    """Grid index (relative to P_FATE) of fate-area cell (row r, column c); may be outside."""
    return (r + L.FATE_M) * L.FATE_W + (c + L.FATE_M)


class StateBuilder:
    """Validating builder for hand-made scenario states.

    Every setter checks its arguments against the rules' limits, so a test cannot build a
    state the game could never reach by accident (7 guardians, gold path tiles, ...).
    """

    def __init__(self, n_seats: int = 2, params: np.ndarray | None = None):
        self.s = blank_state(n_seats)
        self.p = T.DEFAULT_PARAMS if params is None else params

    def _b(self, seat: int) -> int:
        if not 0 <= seat < self.s[L.G_NSEATS]:
            raise ValueError(f"seat {seat} not in play")
        return L.player_base(seat)

    def resources(self, seat: int, **amounts: int) -> StateBuilder:
        b = self._b(seat)
        for name, n in amounts.items():
            if n < 0:
                raise ValueError("negative stock")
            self.s[b + L.P_RES + C.code(C.RESOURCES, name)] = n
        return self

    def tiles(self, seat: int, **amounts: int) -> StateBuilder:
        b = self._b(seat)
        for name, n in amounts.items():
            if n < 0:
                raise ValueError("negative stock")
            self.s[b + L.P_TILES + C.code(C.ACTION_TILES, name)] = n
        return self

    def task(self, seat: int, space: int, task_id: str, lit: bool = False) -> StateBuilder:
        b = self._b(seat)
        if not 0 <= space < 7 or self.s[b + L.P_TASK + space] != -1:
            raise ValueError(f"bonfire space {space} is not free")
        self.s[b + L.P_TASK + space] = T.task_index(task_id)
        if lit:
            self.s[b + L.P_LIT + space] = 1
            self.s[b + L.P_NOVICE + space] = 0
        return self

    def path(self, seat: int, *tile_ids: int) -> StateBuilder:
        """Append built path tiles (ids into ``components.PATH_TILES``) at positions 1, 2, ..."""
        b = self._b(seat)
        for t in tile_ids:
            n = int(self.s[b + L.P_NPATH])
            if n >= C.MAX_PATHS:
                raise ValueError("at most 6 path tiles")
            self.s[b + L.P_PATH + n + 1] = t
            self.s[b + L.P_NPATH] = n + 1
        return self

    def portals(self, seat: int, *notches: int) -> StateBuilder:
        b = self._b(seat)
        for k in notches:
            if self.s[b + L.P_PORTAL + k]:
                raise ValueError(f"notch {k} already filled")
            self.s[b + L.P_PORTAL + k] = 1
            self.s[b + L.P_NPORTAL] += 1
        return self

    def guardian(self, seat: int, colour: str, pos: int = L.GP_WAIT) -> StateBuilder:
        """Give a guardian; ``pos``: -1 waiting area, 0..6 path, 10+k bonfire k."""
        b = self._b(seat)
        k = C.code(C.GUARDIAN_COLOURS, colour)
        self.s[b + L.P_GUARD + k] = pos
        if k > 0:
            self.s[L.ISLAND_GUARDS + k] -= 1
        return self

    def gnome(self, seat: int, gnome_id: int) -> StateBuilder:
        """Give a gnome: 0..26 specialist (ability id - 1), 27..32 elder."""
        b = self._b(seat)
        if self.s[b + L.P_NGNOME] >= C.MAX_GNOMES:
            raise ValueError("at most 6 gnomes")
        self.s[b + L.P_GNOME + gnome_id] = 1
        self.s[b + L.P_NGNOME] += 1
        if gnome_id >= C.N_SPECIALISTS:
            self.s[b + L.P_NELDER] += 1
        return self

    def specialist(self, seat: int, ability: int) -> StateBuilder:
        return self.gnome(seat, ability - 1)

    def fate(self, seat: int, cells: dict[tuple[int, int], str]) -> StateBuilder:
        """Write symbols on fate-area cells directly: {(row, col): "ship", ...}."""
        b = self._b(seat)
        for (r, c), name in cells.items():
            self.s[b + L.P_FATE + fate_index(r, c)] = C.code(C.FATE_SYMBOLS, name)
        return self

    def offerings(self, seat: int, island: int, n: int) -> StateBuilder:
        b = self._b(seat)
        self.s[b + L.P_OFF_ISLAND + island] = n
        return self

    def build(self) -> np.ndarray:
        return self.s.copy()
