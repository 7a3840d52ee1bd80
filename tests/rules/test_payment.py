"""Paying action tiles and resources (rulebook p.8, RULINGS 4, docs/rules-notes.md).

A missing action tile: 1 yellow tile or any 2 tiles.  A missing resource: 1 gold or any 2
resources; gold itself: 2 resources.  Specialist 5: a yellow tile counts as 2 identical
tiles.  The engine pays canonically (own, then the joker, then pairs of the most plentiful),
and a cost that cannot be paid makes the move illegal.
"""

from __future__ import annotations

import numpy as np

from bonfire_sim import engine
from bonfire_sim.rules import layout as L
from bonfire_sim.rules import payment as PAY
from bonfire_sim.rules.state import StateBuilder

PB = L.player_base(0)
BLOSSOM, FRUIT, HERB, SHELL, ROOT, GOLD = range(6)
SHIP, PATH, TASK, FIRE, GUARD, GNOME, YELLOW = range(7)


def _tiles(s: np.ndarray) -> list[int]:
    return s[PB + L.P_TILES:PB + L.P_TILES + 7].tolist()


def _res(s: np.ndarray) -> list[int]:
    return s[PB + L.P_RES:PB + L.P_RES + 6].tolist()


def _with(specialists: tuple[int, ...] = (), tiles: dict | None = None,
          res: dict | None = None) -> np.ndarray:
    b = StateBuilder().tiles(0, **(tiles or {})).resources(0, **(res or {}))
    for a in specialists:
        b.specialist(0, a)
    return b.build()


# ---- action tiles ------------------------------------------------------------------------

def test_an_owned_tile_of_the_asked_type_is_paid_first():
    s = _with(tiles={"ship": 1, "yellow": 1, "path": 2})
    assert PAY.pay_tiles(s, PB, SHIP, 1)
    assert _tiles(s) == [0, 2, 0, 0, 0, 0, 1]


def test_a_yellow_tile_replaces_a_missing_tile():
    s = _with(tiles={"yellow": 1, "path": 2})
    assert PAY.can_pay_tiles(s, PB, SHIP, 1)
    assert PAY.pay_tiles(s, PB, SHIP, 1)
    assert _tiles(s) == [0, 2, 0, 0, 0, 0, 0]


def test_own_tiles_then_yellow_pay_a_cost_of_two():
    s = _with(tiles={"ship": 1, "yellow": 1, "path": 2})
    assert PAY.pay_tiles(s, PB, SHIP, 2)
    assert _tiles(s) == [0, 2, 0, 0, 0, 0, 0]


def test_any_two_tiles_replace_a_missing_tile():
    s = _with(tiles={"path": 1, "task": 1})
    assert PAY.can_pay_tiles(s, PB, SHIP, 1)
    assert PAY.pay_tiles(s, PB, SHIP, 1)
    assert _tiles(s) == [0] * 7


def test_a_single_other_tile_does_not_replace_a_missing_tile():
    s = _with(tiles={"path": 1})
    assert not PAY.can_pay_tiles(s, PB, SHIP, 1)
    assert PAY.max_tiles_payable(s, PB, SHIP) == 0


def test_each_missing_tile_needs_its_own_yellow_or_pair():
    s = _with(tiles={"yellow": 1, "path": 2, "task": 1})
    assert PAY.can_pay_tiles(s, PB, SHIP, 2)  # yellow + (path, path)
    assert not PAY.can_pay_tiles(s, PB, SHIP, 3)  # the last missing tile has only 1 left
    assert PAY.max_tiles_payable(s, PB, SHIP) == 2


def test_specialist_5_yellow_tile_counts_as_two_identical_tiles():
    s = _with((5,), tiles={"yellow": 1})
    assert PAY.can_pay_tiles(s, PB, FIRE, 2)
    assert PAY.max_tiles_payable(s, PB, FIRE) == 2
    assert PAY.pay_tiles(s, PB, FIRE, 2)
    assert _tiles(s) == [0] * 7


def test_without_specialist_5_one_yellow_tile_pays_only_one_tile():
    s = _with(tiles={"yellow": 1})
    assert not PAY.can_pay_tiles(s, PB, FIRE, 2)
    assert PAY.max_tiles_payable(s, PB, FIRE) == 1


def test_pairs_are_paid_from_the_most_plentiful_types_keeping_scarce_ones():
    s = _with(tiles={"path": 3, "task": 1, "fire": 1})
    assert PAY.pay_tiles(s, PB, SHIP, 1)
    assert _tiles(s) == [0, 1, 1, 1, 0, 0, 0]


# ---- resources ---------------------------------------------------------------------------

def test_an_owned_resource_is_paid_before_gold():
    s = _with(res={"herb": 1, "gold": 1})
    assert PAY.pay_resources(s, PB, HERB, 1, 0, 0)
    assert _res(s) == [0, 0, 0, 0, 0, 1]


def test_gold_replaces_a_missing_resource():
    s = _with(res={"gold": 1, "fruit": 2})
    assert PAY.pay_resources(s, PB, HERB, 1, 0, 0)
    assert _res(s) == [0, 2, 0, 0, 0, 0]


def test_any_two_resources_replace_a_missing_resource():
    s = _with(res={"fruit": 1, "shell": 1})
    assert PAY.can_pay_resources(s, PB, HERB, 1, 0, 0)
    assert PAY.pay_resources(s, PB, HERB, 1, 0, 0)
    assert _res(s) == [0] * 6


def test_a_single_other_resource_does_not_replace_a_missing_resource():
    s = _with(res={"fruit": 1})
    assert not PAY.can_pay_resources(s, PB, HERB, 1, 0, 0)


def test_two_resources_replace_missing_gold():
    s = _with(res={"blossom": 1, "root": 1})
    assert PAY.can_pay_resources(s, PB, GOLD, 1, 0, 0)
    assert PAY.pay_resources(s, PB, GOLD, 1, 0, 0)
    assert _res(s) == [0] * 6


def test_missing_gold_is_not_replaced_by_a_single_resource():
    s = _with(res={"blossom": 1})
    assert not PAY.can_pay_resources(s, PB, GOLD, 1, 0, 0)


def test_resource_pairs_come_from_the_most_plentiful_resources():
    s = _with(res={"fruit": 3, "shell": 1, "root": 1})
    assert PAY.pay_resources(s, PB, HERB, 1, 0, 0)
    assert _res(s) == [0, 1, 0, 1, 1, 0]


def test_two_demands_are_paid_together_so_an_owned_resource_is_not_spent_in_a_pair():
    # Needs fruit (missing) and herb (owned).  Paying fruit's pair first could take the
    # only herb; the canonical payment keeps it for the herb and pairs blossom + shell.
    s = _with(res={"blossom": 1, "herb": 1, "shell": 1})
    assert PAY.can_pay_resources(s, PB, FRUIT, 1, HERB, 1)
    assert PAY.pay_resources(s, PB, FRUIT, 1, HERB, 1)
    assert _res(s) == [0] * 6


def test_one_gold_covers_only_one_of_two_missing_resources():
    s = _with(res={"gold": 1, "root": 1})
    assert not PAY.can_pay_resources(s, PB, FRUIT, 1, HERB, 1)
    s = _with(res={"gold": 1, "root": 2})
    assert PAY.pay_resources(s, PB, FRUIT, 1, HERB, 1)
    assert _res(s) == [0] * 6


def test_resources_of_choice_are_the_most_plentiful_non_gold_ones():
    s = _with(res={"shell": 2, "root": 1, "gold": 3})
    assert PAY.pay_resources(s, PB, -1, 1, -1, 1)
    assert _res(s) == [0, 0, 0, 0, 1, 3]


def test_resources_of_choice_fall_back_to_gold():
    s = _with(res={"gold": 1})
    assert PAY.pay_resources(s, PB, -1, 1, 0, 0)
    assert _res(s) == [0] * 6
    assert not PAY.can_pay_resources(s, PB, -1, 1, 0, 0)


# ---- through the engine ----------------------------------------------------------------

def test_an_unpayable_action_is_not_a_legal_move(main_state, moves_of):
    s = main_state(StateBuilder().tiles(0, path=1))
    assert moves_of(s, L.M_SHIP) == []
    s = main_state(StateBuilder().tiles(0, path=2))
    assert len(moves_of(s, L.M_SHIP)) == 14


def test_the_engine_pays_the_substitute_it_offered(main_state):
    s = main_state(StateBuilder().tiles(0, path=2))
    engine.apply(s, (L.M_SHIP, 5, 1, 0, 0))
    assert _tiles(s) == [0] * 7
    assert s[PB + L.P_SHIP] == 5


def test_a_gnome_is_not_recruitable_when_its_resource_cannot_be_paid(main_state, moves_of):
    # Elder 1 shows blossom; 2 gnome tiles; only 1 fruit: no blossom, no gold, no pair.
    b = StateBuilder().tiles(0, gnome=2).resources(0, fruit=1).elders(1)
    assert moves_of(main_state(b), L.M_GNOME) == []
    b = StateBuilder().tiles(0, gnome=2).resources(0, fruit=2).elders(1)
    assert moves_of(main_state(b), L.M_GNOME) == [(L.M_GNOME, 27, 0, 0, 0)]


def test_a_sparing_payment_takes_the_spared_type_only_when_nothing_else_is_left():
    s = _with(tiles={"task": 3, "fire": 1, "gnome": 1})
    assert PAY.pay_tiles_sparing(s, PB, SHIP, 1, TASK, GUARD)
    assert _tiles(s) == [0, 0, 3, 0, 0, 0, 0]
    s = _with(tiles={"task": 3, "fire": 1})
    assert PAY.pay_tiles_sparing(s, PB, SHIP, 1, TASK, GUARD)
    assert _tiles(s) == [0, 0, 2, 0, 0, 0, 0]
