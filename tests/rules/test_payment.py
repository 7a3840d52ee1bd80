"""Paying action tiles and resources (rulebook p.8, RULINGS 4, docs/rules-notes.md).

A missing action tile: 1 yellow tile or any 2 tiles.  A missing resource: 1 gold or any 2
resources; gold itself: 2 resources.  Specialist 5: a yellow tile counts as 2 identical
tiles.  A cost that cannot be paid makes the move illegal.  ``payment``'s canonical
policies (own, then the joker, then pairs of the most plentiful) remain the strategies'
estimates; what is actually paid is the payer's choice (RULINGS 4, ``pay_choice``): every
distinct resulting stock is a follow-up M_PAY decision, and a single one is paid at once.
"""

from __future__ import annotations

import numpy as np

from bonfire_sim import engine
from bonfire_sim.rules import layout as L
from bonfire_sim.rules import payment as PAY
from bonfire_sim.rules.invariants import MESSAGES, payment_consistent
from bonfire_sim.rules.pay_choice import pack, unpack
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


# ---- the payer's choice (RULINGS 4) --------------------------------------------------------

def _paying(s: np.ndarray, move: tuple[int, ...]) -> list[list[int]]:
    """Apply the move; the removals offered by the M_PAY decision it opens (sorted)."""
    engine.apply(s, move)
    if s[L.G_PHASE] != L.PH_PAY:
        return []
    rows = [m for m in engine.legal_moves(s)]
    assert rows and all(m[0] == L.M_PAY for m in rows)
    slots = 7 if rows[0][2] == 0 else 6
    codes = [int(m[1]) for m in rows]
    assert len(set(codes)) == len(codes)  # no two alternatives leave the same stock
    return sorted(unpack(c, slots) for c in codes)


FIRE_ON_3 = (L.M_FIRE, 3, 0, -1, 1)  # first use: any space for 1 fire tile; tile + shell


def _fire(tiles: dict, *specialists: int) -> np.ndarray:
    b = StateBuilder().tiles(0, **tiles).great_bonfire(0, used=False)
    for a in specialists:
        b.specialist(0, a)
    return b


def test_own_tile_or_yellow_is_the_payers_choice(main_state):
    s = main_state(_fire({"fire": 1, "yellow": 1}))
    assert _paying(s, FIRE_ON_3) == [[0, 0, 0, 0, 0, 0, 1], [0, 0, 0, 1, 0, 0, 0]]
    assert payment_consistent(s)
    engine.apply(s, (L.M_PAY, pack((0, 0, 0, 0, 0, 0, 1)), 0))
    assert _tiles(s) == [0, 0, 0, 2, 0, 0, 0]  # kept its fire tile, gained the space's one
    assert _res(s)[SHELL] == 1 and s[L.G_PHASE] != L.PH_PAY


def test_without_a_yellow_tile_the_own_tile_is_paid_at_once(main_state):
    s = main_state(_fire({"fire": 1, "ship": 2}))
    assert _paying(s, FIRE_ON_3) == []  # a pair may replace only a tile one lacks
    assert _tiles(s) == [2, 0, 0, 1, 0, 0, 0]


def test_a_missing_tile_offers_the_yellow_tile_and_every_distinct_pair(main_state):
    s = main_state(_fire({"ship": 2, "path": 1, "yellow": 1}))
    assert _paying(s, FIRE_ON_3) == sorted([
        [0, 0, 0, 0, 0, 0, 1],  # the yellow tile
        [2, 0, 0, 0, 0, 0, 0], [1, 1, 0, 0, 0, 0, 0],  # a pair of plain tiles
        [1, 0, 0, 0, 0, 0, 1], [0, 1, 0, 0, 0, 0, 1],  # "any 2 tiles": yellow in a pair too
    ])
    engine.apply(s, (L.M_PAY, pack((1, 1, 0, 0, 0, 0, 0)), 0))
    assert _tiles(s) == [1, 0, 0, 1, 0, 0, 1]


def test_pairs_that_leave_the_same_stock_are_one_alternative(main_state):
    s = main_state(_fire({"ship": 5}))
    assert _paying(s, FIRE_ON_3) == []
    assert _tiles(s) == [3, 0, 0, 1, 0, 0, 0]


def test_a_larger_payment_mixes_own_yellow_and_pairs(main_state):
    s = main_state(StateBuilder().tiles(0, fire=1, yellow=1, ship=2).great_bonfire(2))
    offered = _paying(s, (L.M_FIRE, 4, 0, -1, 2))  # 2 spaces clockwise: 2 fire tiles
    assert offered == sorted([
        [0, 0, 0, 1, 0, 0, 1],  # own + yellow
        [2, 0, 0, 1, 0, 0, 0], [1, 0, 0, 1, 0, 0, 1],  # own + a pair for the missing one
        [2, 0, 0, 0, 0, 0, 1],  # yellow for the own one, a pair for the missing one
    ])


def test_specialist_5_pays_two_tiles_with_one_yellow(main_state):
    b = StateBuilder().tiles(0, yellow=1, ship=4).great_bonfire(2).specialist(0, 5)
    s = main_state(b)
    offered = _paying(s, (L.M_FIRE, 4, 0, -1, 2))
    assert offered == sorted([[0, 0, 0, 0, 0, 0, 1], [4, 0, 0, 0, 0, 0, 0],
                              [3, 0, 0, 0, 0, 0, 1]])
    engine.apply(s, (L.M_PAY, pack((0, 0, 0, 0, 0, 0, 1)), 0))
    assert _tiles(s)[:3] == [4, 0, 0] and s[PB + L.P_ABIL + 5] == 1


def _gnome(res: dict, elder: int = 4) -> StateBuilder:
    return StateBuilder().tiles(0, gnome=2).resources(0, **res).elders(elder)


ELDER_4 = (L.M_GNOME, 30, 0, 0, 0)  # elder 4 shows shell: 2 gnome tiles + 1 shell
ELDER_6 = (L.M_GNOME, 32, 0, 0, 0)  # elder 6 shows gold


def test_the_resource_itself_or_gold_is_the_payers_choice(main_state):
    s = main_state(_gnome({"shell": 1, "gold": 1}))
    assert _paying(s, ELDER_4) == [[0, 0, 0, 0, 0, 1], [0, 0, 0, 1, 0, 0]]
    engine.apply(s, (L.M_PAY, pack((0, 0, 0, 0, 0, 1)), 1))
    assert _res(s) == [0, 0, 0, 1, 0, 0] and s[PB + L.P_NELDER] == 1


def test_without_gold_the_own_resource_is_paid_at_once(main_state):
    s = main_state(_gnome({"shell": 1, "herb": 2}))
    assert _paying(s, ELDER_4) == []
    assert _res(s) == [0, 0, 2, 0, 0, 0]


def test_a_missing_resource_offers_gold_and_every_distinct_pair(main_state):
    s = main_state(_gnome({"gold": 1, "herb": 2, "fruit": 1}))
    assert _paying(s, ELDER_4) == sorted([[0, 0, 0, 0, 0, 1], [0, 1, 1, 0, 0, 0],
                                          [0, 0, 2, 0, 0, 0], [0, 0, 1, 0, 0, 1],
                                          [0, 1, 0, 0, 0, 1]])


def test_missing_gold_is_paid_with_any_2_resources_but_held_gold_is_paid(main_state):
    s = main_state(_gnome({"herb": 2, "fruit": 1}, elder=6))
    assert _paying(s, ELDER_6) == sorted([[0, 1, 1, 0, 0, 0], [0, 0, 2, 0, 0, 0]])
    s = main_state(_gnome({"gold": 1, "herb": 2, "fruit": 1}, elder=6))
    assert _paying(s, ELDER_6) == []
    assert _res(s) == [0, 1, 2, 0, 0, 0]


def test_two_demands_are_enumerated_together_without_duplicates():
    from bonfire_sim.rules.pay_choice import gen_res_payments

    out = np.zeros((L.MAX_MOVES, L.MOVE_W), np.int64)
    s = _with(res={"herb": 1, "gold": 1, "fruit": 2})
    n = gen_res_payments(s, PB, HERB, 1, SHELL, 1, out, 0)
    assert sorted(unpack(c, 6) for c in out[:n, 1]) == sorted([
        [0, 0, 1, 0, 0, 1],  # herb + gold for the shell
        [0, 2, 1, 0, 0, 0], [0, 1, 1, 0, 0, 1],  # herb + a pair for the shell
        [0, 2, 0, 0, 0, 1],  # gold for the herb, a pair for the shell
    ])
    # herb and shell both missing: gold for either + a pair for the other is ONE stock
    s = _with(res={"gold": 1, "fruit": 2, "root": 2})
    n = gen_res_payments(s, PB, HERB, 1, SHELL, 1, out, 0)
    codes = [int(c) for c in out[:n, 1]]
    assert len(codes) == len(set(codes))
    assert [0, 1, 0, 0, 1, 1] in [unpack(c, 6) for c in codes]


def test_an_open_payment_outside_its_decision_breaks_an_invariant(main_state):
    s = main_state(_fire({"fire": 1, "yellow": 1}))
    engine.apply(s, FIRE_ON_3)
    assert payment_consistent(s)
    s[L.G_PHASE] = L.PH_MAIN
    assert not payment_consistent(s)
    assert MESSAGES[19].startswith("a payment choice is open")


def _pays(s: np.ndarray, r1: int, n1: int, r2: int, n2: int) -> bool:
    """What the canonical payment itself says, on a copy."""
    return bool(PAY.pay_resources(s.copy(), PB, r1, n1, r2, n2))


def test_the_counted_check_agrees_with_paying_for_every_small_stock_and_demand():
    # can_pay_resources counts instead of paying: every stock of 0..2 of each resource,
    # every demand of 1..2 of r1 (r < 0: of choice) with 0..2 of r2
    s = _with()
    b = PB + L.P_RES
    mismatches = []
    for code in range(3 ** 6):
        for k in range(6):
            s[b + k] = (code // 3 ** k) % 3
        for r1 in range(-1, 6):
            for n1 in (1, 2):
                for r2 in range(-1, 6):
                    for n2 in (0, 1, 2):
                        if PAY.can_pay_resources(s, PB, r1, n1, r2, n2) != _pays(
                                s, r1, n1, r2, n2):
                            mismatches.append((_res(s), r1, n1, r2, n2))
    assert mismatches == []
    assert _res(s) == [2] * 6  # the check leaves the stock as it is


def test_the_counted_check_refuses_a_pair_of_gold_for_a_missing_resource():
    # pairs are plain resources only: gold beyond its one-for-one use does not pair
    s = _with(res={"gold": 1, "root": 1})
    assert not PAY.can_pay_resources(s, PB, FRUIT, 2, 0, 0)
    assert not _pays(s, FRUIT, 2, 0, 0)
    s = _with(res={"gold": 1, "root": 2})
    assert PAY.can_pay_resources(s, PB, FRUIT, 2, 0, 0)
