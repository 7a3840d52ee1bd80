"""Recruit a gnome (rulebook p.10, Appendix III): costs, display, elders, specialists 4/9/15.

Gnome ids: 0..26 = specialist ability 1..27, 27..32 = elder 1..6.  Elders 1..6 show
blossom, fruit, herb, shell, root, gold; specialists show ``components.SPECIALIST_RESOURCE``
[assumed].  M_GNOME rows are [kind, gnome id, mode, 0, 0]: mode 0 = 2 tiles + 1 resource,
mode 1 = 1 tile + 2 of the resource.
"""

from __future__ import annotations

import numpy as np
import pytest

from bonfire_sim import engine
from bonfire_sim.rules import components as C
from bonfire_sim.rules import layout as L
from bonfire_sim.rules.state import StateBuilder

PB = L.player_base(0)
ELDER = {n: C.N_SPECIALISTS + n - 1 for n in range(1, 7)}  # elder number -> gnome id
RES = C.RESOURCES


def spec(ability: int) -> int:
    return ability - 1


def spec_res(ability: int) -> str:
    return RES[C.SPECIALIST_RESOURCE[ability - 1]]


def _tiles(s: np.ndarray) -> list[int]:
    return s[PB + L.P_TILES:PB + L.P_TILES + 7].tolist()


def _res(s: np.ndarray) -> list[int]:
    return s[PB + L.P_RES:PB + L.P_RES + 6].tolist()


def _score(s: np.ndarray) -> tuple[int, int]:
    return int(s[PB + L.P_SCORE]), int(s[PB + L.P_PTS_ELDER])


def _display(s: np.ndarray) -> list[int]:
    return s[L.SPEC_DISP:L.SPEC_DISP + 6].tolist()


def _market(**kw) -> StateBuilder:
    """Display specialists 1, 2, 3, 4, 6, 7 (blossom, fruit, herb, shell, root, blossom),
    pile 9, 10 (herb, shell); no elders."""
    return StateBuilder().specialist_display(1, 2, 3, 4, 6, 7).specialist_pile(9, 10).elders()


# ---- paying -----------------------------------------------------------------------------

def test_two_tiles_and_the_resource_recruit_a_gnome(main_state, moves_of):
    s = main_state(_market().tiles(0, gnome=2).resources(0, fruit=1))
    assert moves_of(s, L.M_GNOME) == [(L.M_GNOME, spec(2), 0, 0, 0)]
    engine.apply(s, (L.M_GNOME, spec(2), 0))
    assert _tiles(s) == [0] * 7 and _res(s) == [0] * 6
    assert s[PB + L.P_GNOME + spec(2)] == 1 and s[PB + L.P_NGNOME] == 1


def test_one_tile_and_twice_the_resource_recruit_a_gnome(main_state, moves_of):
    s = main_state(_market().tiles(0, gnome=1).resources(0, fruit=2))
    assert moves_of(s, L.M_GNOME) == [(L.M_GNOME, spec(2), 1, 0, 0)]
    engine.apply(s, (L.M_GNOME, spec(2), 1))
    assert _tiles(s) == [0] * 7 and _res(s) == [0] * 6
    assert s[PB + L.P_GNOME + spec(2)] == 1


def test_one_tile_and_one_resource_recruit_nothing(main_state, moves_of):
    s = main_state(_market().tiles(0, gnome=1).resources(0, fruit=1))
    assert moves_of(s, L.M_GNOME) == []


def test_the_resource_may_be_replaced_as_usual(main_state, moves_of):
    # 1 gnome tile + fruit + gold pays "1 tile and 2 fruit" (gold replaces one fruit).
    s = main_state(_market().tiles(0, gnome=1).resources(0, fruit=1, gold=1))
    assert (L.M_GNOME, spec(2), 1, 0, 0) in moves_of(s, L.M_GNOME)


# ---- the display -------------------------------------------------------------------------

def test_the_empty_display_slot_is_refilled_from_the_pile(main_state):
    s = main_state(_market().tiles(0, gnome=2).resources(0, fruit=1))
    engine.apply(s, (L.M_GNOME, spec(2), 0))
    assert _display(s) == [spec(1), spec(9), spec(3), spec(4), spec(6), spec(7)]
    assert (s[L.G_SPEC_TOP], s[L.G_SPEC_N]) == (1, 1)


def test_with_an_empty_pile_the_slot_stays_empty(main_state):
    b = StateBuilder().specialist_display(1, 2, 3).specialist_pile().elders()
    s = main_state(b.tiles(0, gnome=2).resources(0, fruit=1))
    engine.apply(s, (L.M_GNOME, spec(2), 0))
    assert _display(s) == [spec(1), -1, spec(3), -1, -1, -1]


def test_only_displayed_specialists_can_be_recruited(main_state, moves_of):
    b = StateBuilder().specialist_display(1).specialist_pile(2).elders()
    s = main_state(b.tiles(0, gnome=2).resources(0, fruit=1))  # 2 shows fruit: in the pile
    assert moves_of(s, L.M_GNOME) == []


# ---- elders ------------------------------------------------------------------------------

def _elder_city() -> StateBuilder:
    """3 path tiles, 4 fate tiles, 2 portals, 2 tasks (1 lit), 2 guardians, 2 gnomes."""
    return (StateBuilder().specialist_display().elders(1, 2, 3, 4, 5, 6)
            .tiles(0, gnome=2).resources(0, blossom=1, fruit=1, herb=1, shell=1, root=1,
                                          gold=1)
            .path(0, 0, 2, 4).fate_placed(0, 4).portals(0, 6, 5)
            .task(0, 0, "B1").task(0, 3, "B2", lit=True).guardian(0, "grey")
            .specialist(0, 1).specialist(0, 2))


@pytest.mark.parametrize("elder, points", [
    (1, 4),  # path tiles including the starting tile: 3 + 1
    (2, 4),  # fate tiles in the fate area
    (3, 2),  # portals
    (4, 2),  # tasks and bonfires: 1 task + 1 bonfire
    (5, 2),  # guardians: own + grey
    (6, 3),  # gnomes including this card: 2 + 1
])
def test_an_elder_scores_its_formula_immediately(main_state, elder, points):
    s = main_state(_elder_city())
    engine.apply(s, (L.M_GNOME, ELDER[elder], 0))
    if elder != 6:  # its resource or the gold: the payer's choice
        assert s[L.G_PHASE] == L.PH_PAY
        engine.apply(s, engine.legal_moves(s)[0])
    assert _score(s) == (points, points)
    assert s[L.ELDER_AVAIL + elder - 1] == 0
    assert (s[PB + L.P_NELDER], s[PB + L.P_NGNOME]) == (1, 3)


def test_an_elder_pays_its_own_resource(main_state):
    s = main_state(_elder_city())
    engine.apply(s, (L.M_GNOME, ELDER[6], 0))
    assert _res(s) == [1, 1, 1, 1, 1, 0]  # elder 6 shows gold


def test_a_taken_elder_is_gone_for_everyone(main_state, moves_of):
    s = main_state(_elder_city().elders(1, 2, 3, 4, 5))
    assert ELDER[6] not in {m[1] for m in moves_of(s, L.M_GNOME)}


def test_a_specialist_scores_no_points(main_state):
    s = main_state(_market().tiles(0, gnome=2).resources(0, fruit=1))
    engine.apply(s, (L.M_GNOME, spec(2), 0))
    assert _score(s) == (0, 0)


def test_specialist_4_adds_two_points_to_an_elder(main_state):
    s = main_state(_elder_city().specialist(0, 4))
    engine.apply(s, (L.M_GNOME, ELDER[6], 0))
    assert _score(s) == (4 + 2, 4 + 2)  # 4 gnomes with this card, +2


def test_specialist_4_adds_nothing_to_a_specialist(main_state):
    s = main_state(_market().tiles(0, gnome=2).resources(0, fruit=1).specialist(0, 4))
    engine.apply(s, (L.M_GNOME, spec(2), 0))
    assert _score(s) == (0, 0)


# ---- specialists 9 and 15 ---------------------------------------------------------------

def test_specialist_9_pays_gnomes_with_resources_of_choice(main_state, moves_of):
    b = _market().tiles(0, gnome=1).resources(0, root=1, shell=1)
    assert moves_of(main_state(b), L.M_GNOME) == []
    s = main_state(b.specialist(0, 9))
    assert {(m[1], m[2]) for m in moves_of(s, L.M_GNOME)} == {
        (spec(a), 1) for a in (1, 2, 3, 4, 6, 7)}
    engine.apply(s, (L.M_GNOME, spec(1), 1))
    assert _res(s) == [0] * 6


def test_specialist_9_also_pays_elders(main_state, moves_of):
    b = StateBuilder().elders(1).tiles(0, gnome=2).resources(0, root=1).specialist(0, 9)
    assert moves_of(main_state(b), L.M_GNOME) == [(L.M_GNOME, ELDER[1], 0, 0, 0)]


def test_specialist_15_gives_a_yellow_tile_for_an_elder_and_a_specialist(main_state):
    s = main_state(_market().tiles(0, gnome=2).resources(0, fruit=1).specialist(0, 15))
    engine.apply(s, (L.M_GNOME, spec(2), 0))
    assert _tiles(s) == [0, 0, 0, 0, 0, 0, 1]
    b = StateBuilder().elders(1).tiles(0, gnome=2).resources(0, blossom=1).specialist(0, 15)
    s = main_state(b)
    engine.apply(s, (L.M_GNOME, ELDER[1], 0))
    assert _tiles(s) == [0, 0, 0, 0, 0, 0, 1]


def test_specialist_15_pays_for_its_own_recruitment(main_state):
    res = spec_res(15)
    b = StateBuilder().specialist_display(15).elders().tiles(0, gnome=2).resources(0, **{res: 1})
    s = main_state(b)
    engine.apply(s, (L.M_GNOME, spec(15), 0))
    assert _tiles(s) == [0, 0, 0, 0, 0, 0, 1]


def test_without_specialist_15_no_yellow_tile(main_state):
    s = main_state(_market().tiles(0, gnome=2).resources(0, fruit=1))
    engine.apply(s, (L.M_GNOME, spec(2), 0))
    assert _tiles(s) == [0] * 7


# ---- the limit -------------------------------------------------------------------------

@pytest.mark.parametrize("owned, allowed", [(5, True), (6, False)])
def test_a_city_recruits_at_most_six_gnomes(main_state, moves_of, owned, allowed):
    b = _market().tiles(0, gnome=2).resources(0, fruit=1)
    for a in (10, 11, 12, 13, 14, 16)[:owned]:
        b.specialist(0, a)
    assert bool(moves_of(main_state(b), L.M_GNOME)) is allowed
