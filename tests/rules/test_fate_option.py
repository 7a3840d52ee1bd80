"""Option I as a move: discarding down to the tile limit (1; specialist 14: 3)."""

from __future__ import annotations

import numpy as np

from bonfire_sim import engine
from bonfire_sim.rules import layout as L
from bonfire_sim.rules.state import StateBuilder, fate_index

SHIP, PATH, TASK, FIRE, GUARD, GNOME, YELLOW = range(7)


def _state(main_state, with_14: bool) -> np.ndarray:
    b = StateBuilder(2).tiles(0, ship=2, path=3, yellow=1)
    b.fate(0, {(2, 1): "ship", (2, 2): "path", (2, 3): "task"})  # the starting tile
    if with_14:
        b.specialist(0, 14)
    s = main_state(b)
    pb = L.player_base(0)
    s[pb + L.P_FATE_PLACED] = 1
    s[pb + L.P_FATE_SUP + 1] = 1  # fire-guard-gnome: gains no ship/path/task tiles
    s[pb + L.P_FATE_LO], s[pb + L.P_FATE_HI] = 1, 2
    return s


def _place_above(s: np.ndarray) -> np.ndarray:
    pb = L.player_base(0)
    move = next(m for m in engine.legal_moves(s)
                if m[0] == L.M_FATE and (m[2], m[3], m[4]) == (1, 1, 0))
    engine.apply(s, move)
    assert s[pb + L.P_FATE + fate_index(1, 1)] == FIRE
    return s[pb + L.P_TILES:pb + L.P_TILES + 7]


def test_placing_a_fate_tile_first_discards_all_but_one_tile_keeping_yellow(main_state):
    tiles = _place_above(_state(main_state, with_14=False))
    assert tiles[YELLOW] == 1 and tiles[SHIP] == 0 and tiles[PATH] == 0
    assert tiles[FIRE] == 1 and tiles[GUARD] == 1 and tiles[GNOME] == 1  # the new gains


def test_specialist_14_keeps_three_tiles_before_placing(main_state):
    tiles = _place_above(_state(main_state, with_14=True))
    assert tiles[YELLOW] + tiles[SHIP] + tiles[PATH] == 3
    assert tiles[YELLOW] == 1 and tiles[PATH] == 2  # the most plentiful type is kept
    assert tiles[FIRE] == 1 and tiles[GUARD] == 1 and tiles[GNOME] == 1
