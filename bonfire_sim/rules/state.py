"""Creating and reading game states (see ``layout`` for the encoding of every field).

``blank_state`` gives an all-empty table (no tasks dealt, nothing owned) that scenario tests
fill by hand through ``StateBuilder``; ``bonfire_sim.rules.setup.new_game`` deals a real
game.  Both return one flat ``int64`` vector.
"""

from __future__ import annotations

import numpy as np

from bonfire_sim.errors import ConfigError
from bonfire_sim.rules import components as C
from bonfire_sim.rules import layout as L
from bonfire_sim.rules import tables as T
from bonfire_sim.rules.payment import grant_card


def blank_state(n_seats: int = 2, humans: int | None = None) -> np.ndarray:
    """An empty table for ``n_seats`` seats: every sentinel set, no component dealt.

    Each player holds nothing, has no fate tile placed, owns only the own guardian (in the
    waiting area), all novices stand by the bonfire spaces, the ship is in the harbour.
    """
    if not 1 <= n_seats <= L.NP:
        raise ConfigError(f"n_seats must be 1..{L.NP}, got {n_seats}")
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
    s[L.G_PAY_KEEP] = -1
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
            raise ConfigError(f"seat {seat} not in play")
        return L.player_base(seat)

    def resources(self, seat: int, **amounts: int) -> StateBuilder:
        b = self._b(seat)
        for name, n in amounts.items():
            if n < 0:
                raise ConfigError("negative stock")
            self.s[b + L.P_RES + C.code(C.RESOURCES, name)] = n
        return self

    def tiles(self, seat: int, **amounts: int) -> StateBuilder:
        b = self._b(seat)
        for name, n in amounts.items():
            if n < 0:
                raise ConfigError("negative stock")
            self.s[b + L.P_TILES + C.code(C.ACTION_TILES, name)] = n
        return self

    def task(self, seat: int, space: int, task_id: str, lit: bool = False) -> StateBuilder:
        b = self._b(seat)
        if not 0 <= space < 7 or self.s[b + L.P_TASK + space] != -1:
            raise ConfigError(f"bonfire space {space} is not free")
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
                raise ConfigError("at most 6 path tiles")
            self.s[b + L.P_PATH + n + 1] = t
            self.s[b + L.P_NPATH] = n + 1
        return self

    def portals(self, seat: int, *notches: int) -> StateBuilder:
        b = self._b(seat)
        for k in notches:
            if self.s[b + L.P_PORTAL + k]:
                raise ConfigError(f"notch {k} already filled")
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
        """Give a gnome: 0..26 specialist card S1..S27 (with the ability the builder's
        parameters assign it), 27..32 elder."""
        b = self._b(seat)
        if self.s[b + L.P_NGNOME] >= C.MAX_GNOMES:
            raise ConfigError("at most 6 gnomes")
        grant_card(self.s, self.p, b, gnome_id)
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

    # ---- additive setters for scenario tests (islands, paths, Great Bonfire, gnomes) ----

    def ship(self, seat: int, island: int, used: bool = True) -> StateBuilder:
        """Put the ship at ``island`` (-1 harbour); ``used``: the first trip is behind it."""
        b = self._b(seat)
        if not -1 <= island < C.N_ISLANDS:
            raise ConfigError(f"island must be -1..{C.N_ISLANDS - 1}, got {island}")
        if island == -1 and used:
            raise ConfigError("a ship that has sailed is at an island, not in the harbour")
        self.s[b + L.P_SHIP] = island
        self.s[b + L.P_SHIP_USED] = int(used)
        return self

    def offering_piles(self, seat: int, pile0: str, pile1: str,
                       taken: tuple[int, int] = (0, 0)) -> StateBuilder:
        """Lay the 2 offering piles top first, e.g. ``("herb fruit ...", ...)`` (5 names each);
        ``taken`` tiles of each pile are already delivered (the face-up one is the next)."""
        b = self._b(seat)
        piles = [pile0.split(), pile1.split()]
        names = sorted(piles[0] + piles[1])
        if any(len(pl) != C.OFFERING_PILE for pl in piles) or names != sorted(C.OFFERINGS):
            raise ConfigError(f"the two piles must hold 5 tiles each, together {C.OFFERINGS}")
        for k, pl in enumerate(piles):
            if not 0 <= taken[k] <= C.OFFERING_PILE:
                raise ConfigError("taken must be 0..5 per pile")
            for i, name in enumerate(pl):
                self.s[b + L.P_OFF_PILE + k * C.OFFERING_PILE + i] = C.code(C.RESOURCES, name)
            self.s[b + L.P_OFF_TAKEN + k] = taken[k]
        return self

    def island_tasks(self, island: int, *task_ids: str) -> StateBuilder:
        """Lay tasks (ids such as ``"B1"``) into the slots of a task island."""
        if not 0 <= island < C.N_ISLANDS or C.ISLANDS[island][0] != "task":
            raise ConfigError(f"island {island} is no task island")
        if len(task_ids) > 3:
            raise ConfigError("at most 3 tasks per island")
        for j, tid in enumerate(task_ids):
            t = T.task_index(tid)
            if t in self._tasks_in_play():
                raise ConfigError(f"task {tid} is already in play")
            self.s[L.ISLAND_TASKS + island * 3 + j] = t
        return self

    def _tasks_in_play(self) -> set[int]:
        out = {int(t) for t in self.s[L.ISLAND_TASKS:L.ISLAND_TASKS + C.N_ISLANDS * 3]}
        for seat in range(int(self.s[L.G_NSEATS])):
            b = L.player_base(seat)
            out |= {int(t) for t in self.s[b + L.P_TASK:b + L.P_TASK + 7]}
        out.discard(-1)
        return out

    def _path_tiles_in_play(self, but_display: bool = False, but_deck: bool = False) -> set[int]:
        out: set[int] = set()
        if not but_display:
            out |= {int(t) for t in self.s[L.PATH_DISP:L.PATH_DISP + C.PATH_DISPLAY]}
        if not but_deck:
            h, n = int(self.s[L.G_PATH_HEAD]), int(self.s[L.G_PATH_N])
            out |= {int(self.s[L.PATH_DECK + (h + i) % L.NPATHT]) for i in range(n)}
        for seat in range(int(self.s[L.G_NSEATS])):
            b = L.player_base(seat)
            out |= {int(t) for t in self.s[b + L.P_PATH:b + L.P_PATH + 7]}
        out.discard(-1)
        return out

    def _check_path_ids(self, ids: tuple[int, ...], used: set[int]) -> None:
        real = [t for t in ids if t != -1]
        if len(set(real)) != len(real) or any(not 0 <= t < L.NPATHT for t in real):
            raise ConfigError(f"path tile ids must be distinct ids 0..{L.NPATHT - 1}")
        if used & set(real):
            raise ConfigError(f"path tiles {sorted(used & set(real))} are already in play")

    def path_display(self, *tile_ids: int) -> StateBuilder:
        """The 4 face-up path tiles (ids into ``components.PATH_TILES``; -1 = empty slot)."""
        if len(tile_ids) != C.PATH_DISPLAY:
            raise ConfigError(f"the display has {C.PATH_DISPLAY} slots")
        self._check_path_ids(tile_ids, self._path_tiles_in_play(but_display=True))
        self.s[L.PATH_DISP:L.PATH_DISP + C.PATH_DISPLAY] = tile_ids
        return self

    def path_deck(self, *tile_ids: int) -> StateBuilder:
        """The path draw deck, top first."""
        self._check_path_ids(tile_ids, self._path_tiles_in_play(but_deck=True))
        if -1 in tile_ids:
            raise ConfigError("the deck holds no empty slots")
        self.s[L.PATH_DECK:L.PATH_DECK + L.NPATHT] = 0
        self.s[L.PATH_DECK:L.PATH_DECK + len(tile_ids)] = tile_ids
        self.s[L.G_PATH_HEAD] = 0
        self.s[L.G_PATH_N] = len(tile_ids)
        return self

    def great_bonfire(self, pos: int, used: bool = True) -> StateBuilder:
        """Point the Great Bonfire at space ``pos``; ``used``: someone has used it already."""
        if not 0 <= pos < 7:
            raise ConfigError("Great Bonfire spaces are 0..6")
        self.s[L.G_GB_POS] = pos
        self.s[L.G_GB_USED] = int(used)
        return self

    def gb_portals(self, space: int, shapes: str) -> StateBuilder:
        """Replace the portals lying on Great Bonfire ``space``, e.g. ``"ACC"``."""
        if not 0 <= space < 7:
            raise ConfigError("Great Bonfire spaces are 0..6")
        at = L.GB_PORTALS + space * 7
        self.s[at:at + 7] = 0
        for ch in shapes:
            self.s[at + C.code(C.PORTAL_SHAPES, ch)] += 1
        for k in range(7):
            if self.s[L.GB_PORTALS + k:L.GB_PORTALS + 49:7].sum() > C.PORTALS_PER_SHAPE:
                raise ConfigError(f"more than {C.PORTALS_PER_SHAPE} portals of one shape")
        return self

    def board(self, seat: int, board: int) -> StateBuilder:
        """Which of the 4 player boards (portal notch orders) the seat has."""
        b = self._b(seat)
        if not 0 <= board < len(C.BOARDS):
            raise ConfigError(f"board must be 0..{len(C.BOARDS) - 1}")
        self.s[b + L.P_BOARD] = board
        return self

    def specialist_display(self, *abilities: int) -> StateBuilder:
        """The face-up specialists by ability number 1..27 (0 = empty slot), up to 6."""
        if len(abilities) > C.SPECIALIST_DISPLAY:
            raise ConfigError(f"the display has {C.SPECIALIST_DISPLAY} slots")
        real = [a for a in abilities if a]
        if len(set(real)) != len(real) or any(not 1 <= a <= C.N_SPECIALISTS for a in real):
            raise ConfigError("specialists are distinct abilities 1..27")
        ids = [a - 1 if a else -1 for a in abilities]
        ids += [-1] * (C.SPECIALIST_DISPLAY - len(ids))
        self.s[L.SPEC_DISP:L.SPEC_DISP + C.SPECIALIST_DISPLAY] = ids
        return self

    def specialist_pile(self, *abilities: int) -> StateBuilder:
        """The face-down specialist pile by ability number, top first."""
        shown = {int(g) for g in self.s[L.SPEC_DISP:L.SPEC_DISP + C.SPECIALIST_DISPLAY]}
        ids = [a - 1 for a in abilities]
        if len(set(ids)) != len(ids) or shown & set(ids) or any(
                not 0 <= g < C.N_SPECIALISTS for g in ids):
            raise ConfigError("pile specialists are distinct, 1..27 and not on display")
        self.s[L.SPEC_PILE:L.SPEC_PILE + L.NSPEC] = 0
        self.s[L.SPEC_PILE:L.SPEC_PILE + len(ids)] = ids
        self.s[L.G_SPEC_TOP] = 0
        self.s[L.G_SPEC_N] = len(ids)
        return self

    def elders(self, *numbers: int) -> StateBuilder:
        """Elders 1..6 lying on the board (all others are gone)."""
        if any(not 1 <= e <= C.N_ELDERS for e in numbers):
            raise ConfigError("elders are 1..6")
        self.s[L.ELDER_AVAIL:L.ELDER_AVAIL + C.N_ELDERS] = 0
        for e in numbers:
            self.s[L.ELDER_AVAIL + e - 1] = 1
        return self

    def fate_placed(self, seat: int, n: int) -> StateBuilder:
        """Count of fate tiles in the fate area (starting tile included), 1..8."""
        b = self._b(seat)
        if not 1 <= n <= C.N_FATE_TILES:
            raise ConfigError("1..8 fate tiles can lie in the fate area")
        self.s[b + L.P_FATE_PLACED] = n
        return self

    def build(self) -> np.ndarray:
        return self.s.copy()
