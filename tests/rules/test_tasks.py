"""Task conditions (Appendix I, RULINGS 8): every task passes once and fails next door.

Each case builds seat 0's city twice: once meeting the condition and once just missing
it (the neighbouring negative).  The task being checked lies unlit on the board, as it
does when the player ignites it.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest

from bonfire_sim.rules import components as C
from bonfire_sim.rules import layout as L
from bonfire_sim.rules import tables as T
from bonfire_sim.rules import tasks as TK
from bonfire_sim.rules.state import StateBuilder

P = T.DEFAULT_PARAMS
PB = L.player_base(0)
SYMBOL = {"S": "ship", "P": "path", "T": "task", "F": "fire", "G": "guard", "N": "gnome"}
Build = Callable[[StateBuilder], StateBuilder]

# Path tile ids by (crystal, resource): the first of the two copies.
BLUE = {r: 2 * i for i, r in enumerate(C.RESOURCES[:5])}
RED = {r: 10 + 2 * i for i, r in enumerate(C.RESOURCES[:5])}
YELLOW = {r: 20 + 2 * i for i, r in enumerate(C.RESOURCES[:4])}
# Task islands by resource; the two islands of each resource.
ISLANDS = {r: [i for i, isl in enumerate(C.ISLANDS) if isl[0] == "task" and isl[1] == r]
           for r in C.RESOURCES[:5]}


def gnome_showing(res: str, skip: int = 0) -> int:
    """A specialist gnome id showing resource res (the skip-th one)."""
    code = C.RESOURCES.index(res)
    return [g for g, r in enumerate(C.SPECIALIST_RESOURCE) if r == code][skip]


def grid(*rows: str) -> Build:
    """Draw fate rows 0.. with S/P/T/F/G/N letters and '.' for empty cells."""
    def build(b: StateBuilder) -> StateBuilder:
        cells = {(r, c): SYMBOL[ch] for r, row in enumerate(rows)
                 for c, ch in enumerate(row) if ch != "."}
        return b.fate(0, cells)
    return build


def put(field: int, *values: int) -> Build:
    """Write values into seat 0's block from field on."""
    def build(b: StateBuilder) -> StateBuilder:
        for i, v in enumerate(values):
            b.s[PB + field + i] = v
        return b
    return build


def tasks_on_board(*specs: str) -> Build:
    """Tasks on spaces 0, 1, ...: 'B1' unlit, 'B1*' lit."""
    def build(b: StateBuilder) -> StateBuilder:
        for k, spec in enumerate(specs):
            b.task(0, k, spec.rstrip("*"), lit=spec.endswith("*"))
        return b
    return build


def gnomes(*ids: int) -> Build:
    def build(b: StateBuilder) -> StateBuilder:
        for g in ids:
            b.gnome(0, g)
        return b
    return build


def guardians(*colours: str, pos: int = L.GP_WAIT) -> Build:
    def build(b: StateBuilder) -> StateBuilder:
        for col in colours:
            b.guardian(0, col, pos)
        return b
    return build


def offer(**per_island: int) -> Build:
    """Own offerings: offer(i3=1, i10=2) puts 1 on island 3 and 2 on island 10."""
    def build(b: StateBuilder) -> StateBuilder:
        for key, n in per_island.items():
            b.offerings(0, int(key[1:]), n)
        return b
    return build


def both(*builds: Build) -> Build:
    def build(b: StateBuilder) -> StateBuilder:
        for f in builds:
            b = f(b)
        return b
    return build


def paths(*ids: int) -> Build:
    return lambda b: b.path(0, *ids)


def res(**n: int) -> Build:
    return lambda b: b.resources(0, **n)


def tiles(**n: int) -> Build:
    return lambda b: b.tiles(0, **n)


def portals(n: int) -> Build:
    return lambda b: b.portals(0, *range(7 - n, 7))


def check(task_id: str, build: Build) -> bool:
    """Build seat 0's city, lay task_id unlit on a free space if absent, and check it."""
    b = build(StateBuilder())
    t = T.task_index(task_id)
    on_board = b.s[PB + L.P_TASK:PB + L.P_TASK + 7]
    if t not in on_board:
        free = int(np.flatnonzero(on_board == -1)[0])
        b.task(0, free, task_id)
    return bool(TK.task_fulfilled(b.build(), P, 0, t))


# (task id, positive city, neighbouring negative city)
CASES: list[tuple[str, Build, Build]] = [
    ("B1", paths(BLUE["fruit"], RED["blossom"]), paths(BLUE["fruit"], RED["herb"])),
    ("B2", paths(YELLOW["fruit"]), paths(YELLOW["blossom"])),
    ("B3", paths(RED["herb"]), paths(RED["shell"])),
    ("B4", paths(BLUE["shell"]), paths(BLUE["root"])),
    ("B5", guardians("grey"), guardians("pink")),
    ("B6", guardians("pink"), guardians("grey", "red", "wood")),
    ("B7", guardians("red", pos=12), guardians("wood")),
    ("B8", guardians("wood"), guardians("red")),
    ("B9", offer(**{f"i{ISLANDS['herb'][1]}": 1}), offer(**{f"i{ISLANDS['shell'][0]}": 1})),
    ("B10", offer(**{f"i{ISLANDS['shell'][0]}": 1}), offer(**{f"i{ISLANDS['root'][0]}": 2})),
    ("B11", offer(**{f"i{ISLANDS['root'][1]}": 1}), offer(**{f"i{ISLANDS['herb'][1]}": 1})),
    ("B12", offer(i2=2), offer(i2=1, i3=1)),
    ("B13", offer(i0=1, i2=1, i3=2), offer(i0=2, i2=1)),
    ("B14", gnomes(gnome_showing("blossom")), gnomes(gnome_showing("fruit"))),
    ("B15", gnomes(27 + 1), gnomes(27 + 0, gnome_showing("herb"))),  # elder 2 shows fruit
    ("B16", gnomes(gnome_showing("root", 1)), gnomes(gnome_showing("shell"))),
    ("B17", tasks_on_board("B1*", "R2*"), tasks_on_board("B1*", "R2")),
    ("B18", res(blossom=2, fruit=2), res(blossom=2, gold=2, fruit=1)),
    ("B19", grid("SS...", ".S..."), grid("SS...", "..S..")),
    ("B20", grid("..P..", "..P..", "..P.."), grid("..P..", "..P..", "...P.")),
    ("B21", grid("F....", "FF..."), grid("F....", ".F...", "..F..")),
    ("B22", grid("NNNN."), grid("NN.N.")),
    ("R1", paths(BLUE["fruit"], RED["blossom"], YELLOW["blossom"]),
     paths(BLUE["blossom"], RED["fruit"], YELLOW["blossom"])),
    ("R2", gnomes(0, 1, 27), gnomes(0, 27)),
    ("R3", res(gold=4), both(res(gold=3), tiles(yellow=1))),
    ("R4", guardians("grey", "pink"), guardians("grey", "red")),
    ("R5", guardians("red", "wood"), guardians("red", "grey", "pink")),
    ("R6", guardians("grey", "red", "wood"), guardians("grey", "wood")),
    ("R7", portals(3), portals(2)),
    ("R8", guardians("grey", "pink", "red", "wood"), guardians("grey", "pink", "red")),
    ("R9", offer(**{f"i{i}": 1 for i in ISLANDS["blossom"]}),
     offer(**{f"i{ISLANDS['blossom'][0]}": 2})),
    ("R10", offer(**{f"i{i}": 1 for i in ISLANDS["fruit"]}),
     offer(**{f"i{ISLANDS['fruit'][1]}": 1, f"i{ISLANDS['herb'][0]}": 1})),
    ("R11", offer(**{f"i{i}": 2 for i in ISLANDS["herb"]}),
     offer(**{f"i{ISLANDS['herb'][1]}": 3})),
    ("R12", tasks_on_board("B1*", "R2*", "Y1*"), tasks_on_board("B1*", "R2*", "Y1")),
    ("R13", grid("SSS..", ".....", "PP...", ".P..."), grid("SSS..", ".....", "PP...", "..P..")),
    ("R14", grid("TTT..", "...FF", "....F"), grid("TTT..", "...FF", "...T.")),
    ("R15", grid("GG...", "G...N", "...NN"), grid("GGG..", ".....", "...NN")),
    ("R16", grid("S.G..", "S.G..", "S.G.."), grid("S.P..", "S.P..", "S.P..")),
    ("R17", grid("P.N..", "P.N..", "P.N.."), grid("P.G..", "P.G..", "P.G..")),
    ("R18", res(shell=3), res(shell=2, gold=1)),
    ("R19", res(root=4), res(root=2, gold=3)),
    ("R20", res(blossom=3), res(blossom=2, fruit=1)),
    ("R21", tasks_on_board("B1*", "B2*", "B3", "B4"), tasks_on_board("B1*", "B2*", "B3", "R2")),
    ("R22", guardians("grey", "pink", "wood"), guardians("grey", "pink")),
    ("Y1", put(L.P_OFF_TAKEN, 2, 5), put(L.P_OFF_TAKEN, 4, 4)),
    ("Y2", offer(i5=3), offer(i5=2, i6=1)),
    ("Y3", offer(i0=1, i2=1, i3=1, i5=1, i6=1), offer(i0=2, i2=2, i3=1, i5=1)),
    ("Y4", gnomes(0, 1, 2, 27, 28), gnomes(0, 1, 27, 28)),
    ("Y5", gnomes(27, 30, 32), gnomes(27, 30, 0)),
    ("Y6", paths(RED["blossom"], BLUE["fruit"], RED["herb"], RED["root"]),
     paths(RED["blossom"], RED["herb"], YELLOW["herb"])),
    ("Y7", tasks_on_board("R1*", "R2", "R3*", "R4"), tasks_on_board("R1*", "R2", "R3*", "B1")),
    ("Y8", portals(5), portals(4)),
    ("Y9", grid(".....", ".SSS.", "PTFGN", ".SSS."), grid(".....", ".SSS.", "PTFG.", ".SSS.")),
    ("Y10", paths(BLUE["blossom"], BLUE["fruit"], BLUE["herb"], BLUE["root"]),
     paths(BLUE["blossom"], BLUE["fruit"], BLUE["herb"], RED["root"])),
    # Y11 itself lies unlit on the board and counts as one of the 4 yellow tasks [ruling].
    ("Y11", tasks_on_board("Y11", "Y1*", "Y2", "Y3"), tasks_on_board("Y11", "Y1*", "Y2", "R1")),
    ("Y12", both(guardians("own", pos=13), guardians("grey", pos=14)),
     both(guardians("grey", pos=13), guardians("own", pos=3))),
    ("Y13", res(fruit=3, herb=4), res(fruit=3, herb=2, gold=3)),
    ("Y14", res(herb=5), res(herb=4, gold=5, blossom=4)),
    ("Y15", tiles(ship=1, path=1, task=2, fire=1, guard=1),
     tiles(ship=1, path=1, task=1, fire=1, yellow=1)),
    ("Y16", tiles(path=1, task=1, fire=1, guard=1, gnome=1),
     tiles(path=1, task=1, fire=1, guard=1, yellow=2, ship=1)),
    ("Y17", tiles(ship=1, task=1, fire=1, gnome=1, guard=1),
     tiles(path=1, task=1, fire=1, gnome=1, guard=1)),
    # Y18 lies unlit on the board: a task, not a bonfire [ruling].
    ("Y18", tasks_on_board("B1*", "B2*", "B3*", "R1*", "Y1*"),
     tasks_on_board("B1*", "B2*", "B3*", "R1*", "Y18")),
    ("Y19", offer(i0=2, i2=2, i3=3), offer(i0=2, i2=2, i3=1, i5=1)),
    ("Y20", grid("SS...", "SS...", ".....", "..SS.", "..SS."), grid("SS...", "SSSS.", "...SS")),
    ("Y21", grid("S...F", "S...F", "S...F", "T...G", "T...G"),
     grid("S...F", "S...F", "S...F", "T...G", "T....")),
    ("Y22", grid("S...P", ".....", ".....", ".....", "T...F"),
     grid("S...P", ".....", ".....", ".....", "TT...")),
]


def test_every_task_has_a_case():
    assert sorted(c[0] for c in CASES) == sorted(T.TASK_IDS)


@pytest.mark.parametrize("task_id, good, _bad", CASES, ids=[c[0] for c in CASES])
def test_task_is_fulfilled_by_its_positive_city(task_id, good, _bad):
    assert check(task_id, good)


@pytest.mark.parametrize("task_id, _good, bad", CASES, ids=[c[0] for c in CASES])
def test_task_is_not_fulfilled_by_its_neighbouring_negative_city(task_id, _good, bad):
    assert not check(task_id, bad)


def test_a_path_tile_resource_task_ignores_the_gold_starting_tile():
    # B1 asks for blossom; the starting tile at position 0 shows gold and no path tile is built.
    assert not check("B1", lambda b: b)


def test_two_groups_of_four_may_share_a_symbol_if_they_are_different_areas():
    assert check("Y20", grid("SSSS.", ".....", "SSSS."))
    assert check("Y20", grid("SSSS.", ".....", "FFFF."))
    assert not check("Y20", grid("SSSS.", "S....", "S...."))  # one area of 6


def test_two_groups_of_three_in_one_area_do_not_count_twice():
    # R13 needs a ship area and a path area; six ships in one area give no path group.
    assert not check("R13", grid("SSS..", "SSS.."))


def test_a_group_may_extend_into_the_margin():
    def margin(b: StateBuilder) -> StateBuilder:
        return b.fate(0, {(0, 4): "fire", (0, 5): "fire", (-1, 5): "fire"})
    assert check("B21", margin)


def test_r1_needs_the_same_resource_on_consecutive_positions():
    assert check("R1", paths(RED["root"], BLUE["root"]))
    assert not check("R1", paths(RED["root"], BLUE["fruit"], YELLOW["herb"], BLUE["root"]))


def test_the_own_guardian_counts_towards_four_guardians():
    assert check("R22", guardians("grey", "pink", "red"))
    lost_own = both(guardians("grey", "pink", "red"), put(L.P_GUARD, L.GP_NONE))
    assert not check("R22", lost_own)


def test_the_depleted_pile_may_be_either_pile():
    assert check("Y1", put(L.P_OFF_TAKEN, 5, 0))


# ---- common tasks ------------------------------------------------------------------------
SEVEN_TASKS = tasks_on_board("B1", "B2*", "B3", "R1", "R2*", "Y1", "Y2")
SIX_TASKS = tasks_on_board("B1", "B2*", "B3", "R1", "R2*", "Y1")
COMMON_CASES: list[tuple[int, Build, Build]] = [
    (TK.COMMON_TASKS7, SEVEN_TASKS, SIX_TASKS),
    (TK.COMMON_PORTALS7, portals(7), portals(6)),
    (TK.COMMON_PATHS7, paths(0, 1, 2, 3, 4, 5), paths(0, 1, 2, 3, 4)),
    (TK.COMMON_GUARDIANS5, guardians("grey", "pink", "red", "wood"),
     guardians("grey", "pink", "red")),
    (TK.COMMON_GNOMES6, gnomes(0, 1, 2, 3, 27, 28), gnomes(0, 1, 2, 27, 28)),
]


@pytest.mark.parametrize("common, good, bad", COMMON_CASES,
                         ids=[n for n, _ in C.COMMON])
def test_common_task_holds_for_its_positive_city_only(common, good, bad):
    assert TK.common_fulfilled(good(StateBuilder()).build(), P, 0, common)
    assert not TK.common_fulfilled(bad(StateBuilder()).build(), P, 0, common)


@pytest.mark.parametrize("common, good, _bad", COMMON_CASES, ids=[n for n, _ in C.COMMON])
def test_r8_holds_whenever_any_common_task_holds(common, good, _bad):
    # R8 must sit on the board too; keep a space free for it except for the 7-task city.
    if common == TK.COMMON_TASKS7:
        good = tasks_on_board("B1", "B2*", "B3", "R1", "R2*", "Y1", "R8")
    assert check("R8", good)


def test_the_checked_task_counts_towards_seven_tasks_for_r8():
    assert check("R8", SIX_TASKS)  # R8 itself is the seventh task on the board


def test_counting_helpers_read_the_board():
    b = both(tasks_on_board("B1*", "R1", "Y1*"), guardians("grey", pos=11),
             guardians("red"))(StateBuilder())
    s = b.build()
    assert (TK.n_tasks(s, PB), TK.n_bonfires(s, PB)) == (3, 2)
    assert (TK.n_guardians(s, PB), TK.n_guardians_on_bonfires(s, PB)) == (3, 1)
    assert TK.n_colour_tasks(s, P, PB, 1) == 1


def test_task_amount_makes_a_count_condition_harder_and_refuses_a_condition_without_count():
    """``task_amount`` (a planted difficulty): R7 asking for 5 portals is not met by 3."""
    from bonfire_sim.errors import ConfigError

    hard = T.build_params({"task_amount": {"R7": 5}})
    t = T.task_index("R7")
    for n, want in ((3, False), (4, False), (5, True)):
        b = portals(n)(StateBuilder())
        b.task(0, 0, "R7")
        assert bool(TK.task_fulfilled(b.build(), hard, 0, t)) is want
    with pytest.raises(ConfigError, match="no count to change"):
        T.build_params({"task_amount": {"B1": 2}})
    with pytest.raises(ConfigError, match="give 1..7"):
        T.build_params({"task_amount": {"R7": 9}})
