"""Gnome overrides (issue 36): the amounts the abilities give, the elders' points per thing,
and the ability switch ``specialist_ability`` that gives a card another ability or none.

Each test builds a scenario with ``StateBuilder(params=...)`` (the builder grants a card the
ability its parameters assign) and checks what the rule gives with the override.
"""

from __future__ import annotations

import numpy as np
import pytest

from bonfire_sim import engine
from bonfire_sim.config import MAX_GNOME_AMOUNT, OVERRIDE_FIELDS, check_overrides
from bonfire_sim.errors import ConfigError
from bonfire_sim.rules import components as C
from bonfire_sim.rules import council as CO
from bonfire_sim.rules import layout as L
from bonfire_sim.rules import moves as MV
from bonfire_sim.rules import paths as PA
from bonfire_sim.rules import procession as PR
from bonfire_sim.rules import scoring as SC
from bonfire_sim.rules import tables as T
from bonfire_sim.rules.payment import has_spec
from bonfire_sim.rules.state import StateBuilder

PB = L.player_base(0)
ELDER = {n: C.N_SPECIALISTS + n - 1 for n in range(1, 7)}  # elder number -> gnome id
GREY = C.GUARDIAN_COLOURS.index("grey")


def params(**overrides: dict[str, int]) -> np.ndarray:
    return T.build_params(overrides)


def _recruit_elder(main_state, p: np.ndarray, elder: int, *specialists: int) -> np.ndarray:
    """Recruit ``elder`` (paid with its own resource) holding ``specialists``; the state."""
    res = C.RESOURCES[C.ELDER_RESOURCE[elder - 1]]
    b = StateBuilder(params=p).elders(elder).tiles(0, gnome=2).resources(0, **{res: 1})
    for a in specialists:
        b.specialist(0, a)
    s = main_state(b)
    engine.apply(s, (L.M_GNOME, ELDER[elder], 0), p)
    while s[L.G_PHASE] == L.PH_PAY:
        engine.apply(s, engine.legal_moves(s, p)[0], p)
    return s


def _elder_points(s: np.ndarray) -> int:
    return int(s[PB + L.P_PTS_ELDER])


def _guardian_line(p: np.ndarray, *specialists: int) -> int:
    """Guardian points of a city with the own guardian next to bonfire 0 (2 printed) and
    the pink one next to bonfire 6 (8 printed)."""
    b = StateBuilder(params=p).task(0, 0, "B1", lit=True).task(0, 6, "B2", lit=True)
    b.guardian(0, "own", L.GP_BONFIRE + 0).guardian(0, "pink", L.GP_BONFIRE + 6)
    for a in specialists:
        b.specialist(0, a)
    out = np.zeros(SC.NLINES, dtype=np.int64)
    SC.score_lines(b.build(), p, 0, out)
    return int(out[SC.LN_GUARDIANS])


# ---- amounts ------------------------------------------------------------------------------

def test_specialist_4_at_3_adds_three_points_to_an_elder(main_state):
    # Elder 6 counts 2 gnomes with itself (S4 and the elder): 2 points, +3 from S4.
    assert _elder_points(_recruit_elder(main_state, T.DEFAULT_PARAMS, 6, 4)) == 2 + 2
    s4_at_3 = params(specialist_points={"S4": 3})
    assert _elder_points(_recruit_elder(main_state, s4_at_3, 6, 4)) == 2 + 3


def test_an_elder_at_two_points_per_thing_doubles_its_score(main_state):
    plain = _elder_points(_recruit_elder(main_state, T.DEFAULT_PARAMS, 6, 1, 2))
    assert plain == 3  # S1, S2 and the elder itself
    e6_at_2 = params(elder_points={"E6": 2})
    assert _elder_points(_recruit_elder(main_state, e6_at_2, 6, 1, 2)) == 6
    # Another elder's knob leaves elder 6 alone.
    e1_at_2 = params(elder_points={"E1": 2})
    assert _elder_points(_recruit_elder(main_state, e1_at_2, 6, 1, 2)) == 3


def test_specialist_18_at_0_gives_nothing_and_at_3_three_per_guardian():
    assert _guardian_line(T.DEFAULT_PARAMS, 18) == 2 + 8 + 2 * 2
    assert _guardian_line(params(specialist_points={"S18": 0}), 18) == 2 + 8
    assert _guardian_line(params(specialist_points={"S18": 3}), 18) == 2 + 8 + 2 * 3


def test_specialist_15_at_2_gives_two_yellow_tiles_per_recruit(main_state):
    s = _recruit_elder(main_state, params(specialist_yellow={"S15": 2}), 6, 15)
    assert s[PB + L.P_TILES + C.YELLOW] == 2


def test_specialists_20_and_10_give_their_gold_and_extra_resource_amounts():
    """A grey guardian ending on the starting tile (path 0): its resource once, +1 more with
    S10 and +1 gold with S20; the knobs change both amounts."""
    def gains(p: np.ndarray) -> list[int]:
        s = StateBuilder(params=p).specialist(0, 10).specialist(0, 20).build()
        PR.gain_on_path(s, p, PB, GREY, 0, -1)
        return s[PB + L.P_RES:PB + L.P_RES + 6].tolist()

    def expected(extra: int, gold: int) -> list[int]:
        out = [0] * 6
        out[C.RESOURCES.index(C.START_PATH_RESOURCE)] += 1 + extra
        out[C.GOLD] += gold
        return out

    assert gains(T.DEFAULT_PARAMS) == expected(1, 1)
    tuned = params(specialist_gold={"S20": 3}, specialist_resources={"S10": 0})
    assert gains(tuned) == expected(0, 3)
    assert gains(params(specialist_resources={"S10": 2})) == expected(2, 1)


@pytest.mark.parametrize("ability, key, amount", [
    (7, "specialist_gold", 3), (8, "specialist_resources", 2), (19, "specialist_gold", 2),
    (19, "specialist_yellow", 3),
])
def test_a_gold_or_resource_ability_gives_its_overridden_amount(ability, key, amount):
    """S7 placing a novice, S8 taking a path tile, S19 completing a common task (7
    portals): printed 1 each; the stock grows by the override instead."""
    def stock(p: np.ndarray) -> int:
        b = StateBuilder(params=p).specialist(0, ability)
        if ability == 19:
            b.portals(0, 0, 1, 2, 3, 4, 5, 6)
        s = b.build()
        if ability == 7:
            CO.place_novice(s, p, PB, 0, 0)
        elif ability == 8:
            PA.add_path_tile(s, p, PB, 0)
        else:
            MV.check_common_rewards(s, p, 0)
        return int(s[PB + L.P_TILES + C.YELLOW] if key == "specialist_yellow"
                   else s[PB + L.P_RES:PB + L.P_RES + 6].sum())

    assert stock(T.DEFAULT_PARAMS) == 1
    assert stock(params(**{key: {f"S{ability}": amount}})) == amount
    assert stock(params(**{key: {f"S{ability}": 0}})) == 0


# ---- the ability switch ---------------------------------------------------------------------

def test_a_switched_off_specialist_does_nothing(main_state):
    off = params(specialist_ability={"S18": 0, "S4": 0})
    assert _guardian_line(off, 18) == 2 + 8
    assert _elder_points(_recruit_elder(main_state, off, 6, 4)) == 2
    s = StateBuilder(params=off).specialist(0, 4).build()
    assert not has_spec(s, PB, 4) and s[PB + L.P_GNOME + 3] == 1  # the card is still owned


def test_a_card_given_another_ability_acts_as_that_ability():
    as18 = params(specialist_ability={"S23": 18})
    assert _guardian_line(T.DEFAULT_PARAMS, 23) == 2 + 8
    assert _guardian_line(as18, 23) == 2 + 8 + 2 * 2
    s = StateBuilder(params=as18).specialist(0, 23).build()
    assert has_spec(s, PB, 18) and not has_spec(s, PB, 23)
    # The amount belongs to the ability wherever it sits.
    both = params(specialist_ability={"S23": 18}, specialist_points={"S18": 5})
    assert _guardian_line(both, 23) == 2 + 8 + 2 * 5


def test_a_recruited_card_brings_its_assigned_ability(main_state):
    """Through the move, not the builder: S6 given ability 4 adds its points to an elder."""
    p = params(specialist_ability={"S6": 4})
    res = C.RESOURCES[C.SPECIALIST_RESOURCE[5]]
    b = (StateBuilder(params=p).specialist_display(6).elders(6).tiles(0, gnome=4)
         .resources(0, **{res: 1}, gold=1))
    s = main_state(b)
    engine.apply(s, (L.M_GNOME, 5, 0), p)
    while s[L.G_PHASE] == L.PH_PAY:
        engine.apply(s, engine.legal_moves(s, p)[0], p)
    assert has_spec(s, PB, 4) and not has_spec(s, PB, 6)


# ---- validation -------------------------------------------------------------------------------

@pytest.mark.parametrize("overrides, message", [
    ({"specialist_points": {"S5": 1}}, "S5.*no such knob.*S4, S18"),
    ({"elder_points": {"E7": 1}}, "E7.*no such knob"),
    ({"specialist_points": {"S4": -1}}, "integer 0..9"),
    ({"specialist_gold": {"S7": 1.5}}, "integer 0..9"),
    ({"specialist_gold": {"S7": float("inf")}}, "integer 0..9"),
    ({"specialist_yellow": {"S15": float("nan")}}, "integer 0..9"),
    ({"specialist_ability": {"S28": 1}}, "S1-S27"),
    ({"specialist_ability": {"S2": 28}}, "integer 0..27"),
    ({"specialist_ability": [1]}, "table of gnome"),
])
def test_bad_gnome_overrides_are_refused_with_the_allowed_names_or_range(overrides, message):
    with pytest.raises(ConfigError, match=message):
        T.build_params(overrides)


def test_the_run_config_schema_knows_the_gnome_knobs_and_their_range():
    assert MAX_GNOME_AMOUNT == T.MAX_GNOME_AMOUNT
    for key, (_, knobs) in T.GNOME_KNOBS.items():
        keys = OVERRIDE_FIELDS[key].keys
        assert keys is not None and list(keys()) == list(knobs)
    assert check_overrides({"elder_points": {"E2": 3}}) == {"elder_points": {"E2": 3}}
    with pytest.raises(ConfigError, match="unknown key 'S9'"):
        check_overrides({"specialist_gold": {"S9": 1}})
    with pytest.raises(ConfigError):
        check_overrides({"specialist_ability": {"S3": -1}})


def test_the_printed_game_keeps_every_card_on_its_own_ability_and_amount():
    p = T.DEFAULT_PARAMS
    assert p[T.SPEC_ABIL:T.SPEC_ABIL + C.N_SPECIALISTS].tolist() == list(range(1, 28))
    assert (p[T.ABIL_PTS + 4], p[T.ABIL_PTS + 18]) == (2, C.SPECIALIST_18_POINTS)
    assert p[T.ELDER_PER:T.ELDER_PER + 6].tolist() == [1] * 6
