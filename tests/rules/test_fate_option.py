"""Option I as a move: the player discards down to the tile limit (1; specialist 14: 3),
choosing which tiles to keep (RULINGS 4: "you may discard")."""

from __future__ import annotations

import numpy as np

from bonfire_sim import engine
from bonfire_sim.rules import layout as L
from bonfire_sim.rules.pay_choice import pack, unpack
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


def _place_above(s: np.ndarray, keep: tuple[int, ...] | None = None) -> np.ndarray:
    """Option I above the starting tile; ``keep``: the 7 tile counts to keep, if asked."""
    pb = L.player_base(0)
    move = next(m for m in engine.legal_moves(s)
                if m[0] == L.M_FATE and (m[2], m[3], m[4]) == (1, 1, 0))
    engine.apply(s, move)
    if keep is not None:
        assert s[L.G_PHASE] == L.PH_PAY
        engine.apply(s, (L.M_DISCARD, pack(keep)))
    assert s[pb + L.P_FATE + fate_index(1, 1)] == FIRE
    return s[pb + L.P_TILES:pb + L.P_TILES + 7]


def _kept(s: np.ndarray) -> list[list[int]]:
    return sorted(unpack(m[1], 7) for m in engine.legal_moves(s) if m[0] == L.M_DISCARD)


def _asked(s: np.ndarray) -> np.ndarray:
    move = next(m for m in engine.legal_moves(s)
                if m[0] == L.M_FATE and (m[2], m[3], m[4]) == (1, 1, 0))
    engine.apply(s, move)
    return s


def test_placing_a_fate_tile_first_asks_which_one_tile_to_keep(main_state):
    s = _asked(_state(main_state, with_14=False))
    assert s[L.G_PHASE] == L.PH_PAY
    assert _kept(s) == sorted([[1, 0, 0, 0, 0, 0, 0], [0, 1, 0, 0, 0, 0, 0],
                               [0, 0, 0, 0, 0, 0, 1]])  # ship, path or yellow


def test_the_player_may_keep_the_yellow_tile(main_state):
    tiles = _place_above(_state(main_state, with_14=False), keep=(0, 0, 0, 0, 0, 0, 1))
    assert tiles[YELLOW] == 1 and tiles[SHIP] == 0 and tiles[PATH] == 0
    assert tiles[FIRE] == 1 and tiles[GUARD] == 1 and tiles[GNOME] == 1  # the new gains


def test_the_player_may_keep_a_plain_tile_instead(main_state):
    tiles = _place_above(_state(main_state, with_14=False), keep=(0, 1, 0, 0, 0, 0, 0))
    assert tiles[YELLOW] == 0 and tiles[SHIP] == 0 and tiles[PATH] == 1


def test_specialist_14_keeps_any_three_tiles_before_placing(main_state):
    s = _asked(_state(main_state, with_14=True))
    # ship <= 2, path <= 3, yellow <= 1, three in all: 6 distinct ways to keep
    assert len(_kept(s)) == 6 and [0, 2, 0, 0, 0, 0, 1] in _kept(s)
    engine.apply(s, (L.M_DISCARD, pack((2, 1, 0, 0, 0, 0, 0))))
    tiles = s[L.player_base(0) + L.P_TILES:L.player_base(0) + L.P_TILES + 7]
    assert tiles.tolist() == [2, 1, 0, 1, 1, 1, 0]


def test_without_excess_tiles_nothing_is_asked(main_state):
    s = _state(main_state, with_14=True)
    pb = L.player_base(0)
    s[pb + L.P_TILES:pb + L.P_TILES + 7] = [1, 1, 0, 0, 0, 0, 1]  # 3 = the limit
    tiles = _place_above(s)
    assert tiles.tolist() == [1, 1, 0, 1, 1, 1, 1]


def test_tiles_of_one_type_only_leave_no_choice(main_state):
    s = _state(main_state, with_14=False)
    pb = L.player_base(0)
    s[pb + L.P_TILES:pb + L.P_TILES + 7] = [3, 0, 0, 0, 0, 0, 0]
    tiles = _place_above(s)
    assert tiles.tolist() == [1, 0, 0, 1, 1, 1, 0]
