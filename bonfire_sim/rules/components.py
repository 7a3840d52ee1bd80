"""Every physical fact of Bonfire, in one declarative place.

Each fact carries a provenance tag, as ``../shared/RULINGS.md`` asks:

* ``text``      stated by the rulebook (English or German);
* ``inferred``  follows from several rule statements together;
* ``assumed``   not knowable from the text (the pictures are missing); a plausible choice.

A designer who holds the physical game corrects a value here and nothing else: the engine
never hard-codes these numbers.  ``bonfire_sim.rules.tables`` compiles this module into the
flat integer parameter vector the compiled kernels read, so a change here (or an experiment
override, see ``tables.build_params``) changes the game without recompiling anything.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from bonfire_sim.errors import ConfigError

# ----------------------------------------------------------------------------------------
# Names and their integer codes.  The codes are the engine's enums; keep the order.
# ----------------------------------------------------------------------------------------
RESOURCES = ("blossom", "fruit", "herb", "shell", "root", "gold")  # [text]
GOLD = 5
ACTION_TILES = ("ship", "path", "task", "fire", "guard", "gnome", "yellow")  # [text]
YELLOW = 6
FATE_SYMBOLS = ACTION_TILES[:6]  # a fate tile shows action symbols, never yellow [text]
TASK_COLOURS = ("blue", "red", "yellow")  # blue 2-3, red 4-5, yellow 6-8 points [text]
CRYSTALS = ("blue", "red", "yellow")  # path-tile crystal colours; match bonfire colours [text]
# Guardian colour 0 is the player's own guardian (one per player colour, starts on the
# Starting Tile) [text: "1 Guardian" per player colour]; 1-4 are the island colours.
GUARDIAN_COLOURS = ("own", "grey", "pink", "red", "wood")  # island colours [assumed names]
PORTAL_SHAPES = ("A", "B", "C", "D", "E", "F", "G")  # 7 shapes x 4 [text]
PROVENANCE = ("text", "inferred", "assumed")


def code(names: tuple[str, ...], name: str) -> int:
    """Integer code of ``name`` in ``names`` with an error that lists the allowed names."""
    try:
        return names.index(name)
    except ValueError:
        raise ConfigError(f"unknown name {name!r}; expected one of {', '.join(names)}") from None


# ----------------------------------------------------------------------------------------
# Counts, limits and thresholds
# ----------------------------------------------------------------------------------------
MAX_PLAYERS = 4  # [text]
MAX_PATHS = 6  # built path tiles per city [text]
MAX_TASKS = 7  # tasks/bonfires per city [text]
MAX_GUARDIANS = 5  # guardians per city, own one included [text]
MAX_GNOMES = 6  # [text]
NOVICES_PER_PLAYER = 7  # [text]
COUNCIL_SPACES = 8  # [text]
COMMON_TASKS = 5  # [text]
N_ISLANDS = 14  # 10 task islands + 4 guardian islands [inferred]
N_GUARD_PER_COLOUR = 4  # [text: 16 guardians, 4 per colour]
N_FATE_TILES = 8  # per player [text]
FATE_SUPPLY = 7  # face-up column [text]
FATE_SWAP_INDEX = 3  # "the middle tile" of the 7-tile column [text]
N_OFFERINGS = 10  # per player, 2 piles of 5 [text]
OFFERING_PILE = 5
START_TILES_YELLOW = 2  # plus the 3 shown on the chosen starting fate tile [text]
START_RESOURCES = (1, 1, 1, 1, 1, 1)  # 1 of each of the 6 [text]
ACTION_TILE_LIMIT_FOR_FATE = 1  # "no more than 1 action tile" [text]; specialist 14: 3
COUNTDOWN_TILES = 5  # [text]
# Novices in the council that trigger the countdown, by number of human players 1..4 [text]
COUNTDOWN_TRIGGER = {1: 7, 2: 7, 3: 10, 4: 13}
# Tasks per island, indexed by island, for each player count [text]; 0 on guardian islands.
PATH_COST = (1, 1, 1, 2, 2, 2)  # cost of the 1st..6th built path tile [text]
SHIP_FIRST_COST = 1  # first trip: any island for 1 tile [text]
SHIP_COST_BY_ROUTES = (1, 2)  # 1 route = 1 tile, 2 routes = 2 tiles; anywhere = 3 [text]
SHIP_ANYWHERE_COST = 3
FIRE_FIRST_COST = 1  # first use of the Great Bonfire in the game: any space for 1 [text]
FIRE_COST_BY_STEPS = (1, 2)  # 1 or 2 spaces clockwise; anywhere = 3 [text]
FIRE_ANYWHERE_COST = 3
FIRE_POINTS = 2  # the "2 points" alternative to the resource [text]
TASK_TILE_COST = (1, 2, 3)  # 1st/2nd/3rd own offering on that island [text]
GNOME_COST = ((2, 1), (1, 2))  # (action tiles, resources): the two ways to pay [text]

# ----------------------------------------------------------------------------------------
# Islands: a ring of 14, routes between ring neighbours only [assumed layout, RULINGS 8]
# kind: "task" islands show a resource; "guardian" islands hold one guardian colour.
# ----------------------------------------------------------------------------------------
ISLANDS = (
    # (kind, resource or guardian colour, corner island?)
    ("task", "blossom", True),
    ("guardian", "grey", False),
    ("task", "fruit", False),
    ("task", "herb", False),
    ("guardian", "pink", False),
    ("task", "shell", True),
    ("task", "root", False),
    ("task", "blossom", True),
    ("guardian", "red", False),
    ("task", "fruit", False),
    ("task", "herb", False),
    ("guardian", "wood", False),
    ("task", "shell", True),
    ("task", "root", False),
)
ISLANDS_PROVENANCE = "assumed"
# Tasks dealt per island [text]: 4p 3 each; 3p 2 on corner islands, 3 elsewhere; 1-2p 2.
TASKS_PER_ISLAND = {1: (2, 2), 2: (2, 2), 3: (2, 3), 4: (3, 3)}  # (corner, other) [text]
REMOVED_TASK_SMALL = "Y2"  # "3 offering tiles on 1 island" leaves the deck in 1-2p [text]

# ----------------------------------------------------------------------------------------
# Great Bonfire: 7 spaces clockwise (action tile, resource or None for "2 points only")
# [assumed assignment; RULINGS 8]
# ----------------------------------------------------------------------------------------
GREAT_BONFIRE = (
    ("ship", "blossom"),
    ("path", "fruit"),
    ("task", "herb"),
    ("fire", "shell"),
    ("guard", "root"),
    ("gnome", "gold"),
    ("yellow", None),  # yellow tile / 2 points only
)
GREAT_BONFIRE_START = 0  # irrelevant: the first use turns it freely [assumed]
PORTALS_PER_SHAPE = 4  # [text]; 1-2 players remove one of each shape [text]

# Portal notch shapes per board; notch k lies between path position k and bonfire space k.
# Notches fill 6, 5, ..., 0 (from the right, counter-clockwise) [inferred].
BOARDS = (  # [assumed permutations; RULINGS 8]
    "ABCDEFG",
    "GECAFDB",
    "DAFCGBE",
    "BFDGAEC",
)
# Points printed next to bonfire space k for a guardian standing there [text: 2-8;
# the order assumed 2 + k, a named variant below].
GUARDIAN_POINTS_RISING = (2, 3, 4, 5, 6, 7, 8)
PORTAL_POINTS = 2  # per portal next to a bonfire [text]
PATH_MATCH_POINTS = 2  # per path tile whose crystal matches the adjacent bonfire [text]
COMMON_POINTS = 4  # [text]
COMMON_SEVEN_BONFIRES_POINTS = 7  # [text]
FATE_SUPPLY_POINTS = 3  # per fate tile left [text]
LEFTOVER_DIVISOR = 2  # 1 point per 2 action tiles/resources [text]

# ----------------------------------------------------------------------------------------
# Fate area [text: "the marked centre"; size, shape and printed cells assumed, RULINGS 8].
# The area is a named variant (see VARIANTS below): the default is 5 x 5 with the starting
# tile on row 2, columns 1-3.
# ----------------------------------------------------------------------------------------
Cell = tuple[int, int]  # (row, column) of a fate-area cell, (0, 0) = top left
# Specialist 27's tiles may protrude; one symbol stays inside, so a tile reaches at most
# 2 cells beyond the printed area [inferred: tiles are 1 x 3].
FATE_PROTRUDE_MARGIN = 2


@dataclass(frozen=True)
class FateArea:
    """A printed fate area: its size, the starting tile's cells and the printed cell sets.

    ``by_rules`` derives the printed cells from the size and the starting tile the way
    RULINGS 8 reads the 5 x 5 board; a designer holding a board may instead give every
    field literally.
    """

    rows: int
    cols: int
    start_cells: tuple[Cell, Cell, Cell]  # the starting tile, left to right
    gold_cells: tuple[Cell, ...]  # printed gold (Y22 "all gold cells covered")
    yellow_cells: tuple[Cell, ...]  # printed yellow action tile
    highlighted: tuple[Cell, ...]  # Y9 "all highlighted cells covered"
    outer_columns: tuple[int, int]  # Y21 "both outermost columns covered"

    @classmethod
    def by_rules(cls, rows: int, cols: int, start: Cell) -> FateArea:
        """Printed cells by RULINGS 8's rules: gold in the 4 corners; a yellow tile on each
        edge in line with the starting tile's middle cell; highlighted = the cells that
        touch the starting tile orthogonally; outer columns = first and last column."""
        r0, c0 = start
        tile = ((r0, c0), (r0, c0 + 1), (r0, c0 + 2))
        mid_r, mid_c = tile[1]
        gold = ((0, 0), (0, cols - 1), (rows - 1, 0), (rows - 1, cols - 1))
        yellow = ((0, mid_c), (rows - 1, mid_c), (mid_r, 0), (mid_r, cols - 1))
        around = tuple((r, c) for r in (r0 - 1, r0 + 1) for c in range(c0, c0 + 3))
        ends = ((r0, c0 - 1), (r0, c0 + 3))
        highlighted = tuple(x for x in around + ends if 0 <= x[0] < rows and 0 <= x[1] < cols)
        return cls(rows, cols, tile, gold, yellow, highlighted, (0, cols - 1))

    def cells(self) -> tuple[Cell, ...]:
        """Every cell of the area, row by row."""
        return tuple((r, c) for r in range(self.rows) for c in range(self.cols))

    def cell_sets(self) -> tuple[tuple[Cell, ...], ...]:
        """The task cell sets in TaskKind.FATE_CELLS order: highlighted, outer columns, gold."""
        outer = tuple((r, c) for r in range(self.rows) for c in self.outer_columns)
        return (self.highlighted, outer, self.gold_cells)


FATE_AREA_5X5 = FateArea.by_rules(5, 5, (2, 1))  # [assumed; RULINGS 8 lists these cells]
FATE_AREA_4X6 = FateArea.by_rules(4, 6, (1, 1))  # [assumed; all 8 fate tiles fit]
# The 8 fate tiles, each 3 different symbols, each action type 4 times [assumed]
FATE_TILES = (
    ("ship", "path", "task"),
    ("fire", "guard", "gnome"),
    ("ship", "fire", "guard"),
    ("path", "task", "gnome"),
    ("ship", "task", "guard"),
    ("path", "fire", "gnome"),
    ("ship", "fire", "task"),
    ("path", "guard", "gnome"),
)

# ----------------------------------------------------------------------------------------
# Offering tiles: 10 per player, 2 of each non-gold resource [assumed]
# ----------------------------------------------------------------------------------------
OFFERINGS = ("blossom", "fruit", "herb", "shell", "root") * 2

# ----------------------------------------------------------------------------------------
# Path tiles: (crystal, resource) [text counts; assumed resources]
# ----------------------------------------------------------------------------------------
PATH_TILES = (
    tuple(("blue", r) for r in RESOURCES[:5] for _ in range(2))
    + tuple(("red", r) for r in RESOURCES[:5] for _ in range(2))
    + tuple(("yellow", r) for r in RESOURCES[:4] for _ in range(2))
)
PATH_DISPLAY = 4  # [text]
START_PATH_RESOURCE = "gold"  # position 0 on the Starting Tile yields gold [text: spec 6, 20]

# ----------------------------------------------------------------------------------------
# Council spaces (Appendix II) [text bonuses; assumed order]
# ----------------------------------------------------------------------------------------
COUNCIL = (
    ("gold2_yellow", "2 gold and 1 yellow action tile (no point option)"),
    ("path", "a path tile from the display, or any from the draw pile (then shuffle)"),
    ("guardian", "a guardian of a colour you do not have"),
    ("great_bonfire", "turn the Great Bonfire to any space and take its rewards"),
    ("specialist", "a specialist from the display for free"),
    ("move_guardian", "move one guardian forward or backward to a free path tile or bonfire"),
    ("ship", "a free ship move to any island, then its action at normal cost"),
    ("fate", "place the next fate tile, ignoring the action-tile limit"),
)
COUNCIL_POINT = 1  # "OR: gain 1 point" on every space but the first [text]

COMMON = (
    ("tasks7", "7 tasks and/or bonfires (4 points; 7 points with 7 bonfires)"),
    ("portals7", "7 portals"),
    ("paths7", "7 path tiles including the starting tile"),
    ("guardians5", "5 guardians"),
    ("gnomes6", "6 gnomes"),
)


# ----------------------------------------------------------------------------------------
# Tasks (Appendix I).  Conditions are data: a kind and up to three integer arguments.
# ----------------------------------------------------------------------------------------
class TaskKind:
    """Condition kinds; arguments ``a, b, c`` are documented per kind."""

    PATH_RESOURCE = 0  # a = resource: a built path tile shows it
    GUARDIANS = 1  # a = bit mask of guardian colours (1..4) that must all be owned
    OFFER_ON_RESOURCE = 2  # a = resource: an own offering on an island showing it
    OFFER_ISLANDS = 3  # a islands each holding >= b own offerings
    GNOME_RESOURCE = 4  # a = resource: a gnome (specialist or elder) showing it
    BONFIRE_COLOURS = 5  # a = bit mask of task colours: a lit bonfire of each
    RESOURCE_SETS = 6  # a different resources (no gold) held b times each
    FATE_GROUPS = 7  # areas of >= c identical symbols: a, b symbols (-1 = any); distinct areas
    ADJACENT_PATH_SAME = 8  # 2 adjacent built path tiles showing the same resource
    GNOMES = 9  # a gnomes
    ELDERS = 10  # a elders
    GOLD = 11  # a gold held
    PORTALS = 12  # a portals
    COMMON = 13  # the condition of any common task holds
    OFFER_BOTH = 14  # a = resource: an own offering on both islands showing it
    RESOURCE = 15  # a = resource held b times
    COLOUR_TASKS = 16  # a = task colour: b tasks and/or bonfires of it
    GUARDIAN_COUNT = 17  # a guardians (own one included)
    DEPLETED_PILE = 18  # one offering pile empty
    CRYSTALS = 19  # a = crystal colour: b built path tiles show it
    FATE_CELLS = 20  # a = cell set (0 highlighted, 1 outer columns, 2 gold cells) covered
    GUARDIANS_ON_BONFIRES = 21  # a guardians next to bonfires
    TILES_IN_SUPPLY = 22  # a = bit mask of action-tile types held (yellow never counts)
    BONFIRES = 23  # a lit bonfires


def _r(name: str) -> int:
    return code(RESOURCES, name)


def _s(name: str) -> int:
    return code(FATE_SYMBOLS, name)


def _g(*names: str) -> int:
    return sum(1 << code(GUARDIAN_COLOURS, n) for n in names)


def _t(*names: str) -> int:
    return sum(1 << code(ACTION_TILES, n) for n in names)


@dataclass(frozen=True)
class Task:
    id: str
    colour: str
    points: int
    kind: int
    a: int = 0
    b: int = 0
    c: int = 0
    text: str = ""
    provenance: str = "assumed"  # depicted parameters and point values [RULINGS 8]


K = TaskKind
TASKS: tuple[Task, ...] = (
    # ---- blue, 2-3 points ------------------------------------------------------------
    Task("B1", "blue", 2, K.PATH_RESOURCE, _r("blossom"), text="a path tile showing blossom"),
    Task("B2", "blue", 2, K.PATH_RESOURCE, _r("fruit"), text="a path tile showing fruit"),
    Task("B3", "blue", 2, K.PATH_RESOURCE, _r("herb"), text="a path tile showing herb"),
    Task("B4", "blue", 2, K.PATH_RESOURCE, _r("shell"), text="a path tile showing shell"),
    Task("B5", "blue", 2, K.GUARDIANS, _g("grey"), text="the grey guardian"),
    Task("B6", "blue", 2, K.GUARDIANS, _g("pink"), text="the pink guardian"),
    Task("B7", "blue", 2, K.GUARDIANS, _g("red"), text="the red guardian"),
    Task("B8", "blue", 2, K.GUARDIANS, _g("wood"), text="the wood guardian"),
    Task("B9", "blue", 2, K.OFFER_ON_RESOURCE, _r("herb"), text="an offering on a herb island"),
    Task("B10", "blue", 2, K.OFFER_ON_RESOURCE, _r("shell"), text="an offering on a shell island"),
    Task("B11", "blue", 2, K.OFFER_ON_RESOURCE, _r("root"), text="an offering on a root island"),
    Task("B12", "blue", 3, K.OFFER_ISLANDS, 1, 2, text="2 offerings on 1 island"),
    Task("B13", "blue", 3, K.OFFER_ISLANDS, 3, 1, text="offerings on 3 different islands"),
    Task("B14", "blue", 2, K.GNOME_RESOURCE, _r("blossom"), text="a gnome showing blossom"),
    Task("B15", "blue", 2, K.GNOME_RESOURCE, _r("fruit"), text="a gnome showing fruit"),
    Task("B16", "blue", 2, K.GNOME_RESOURCE, _r("root"), text="a gnome showing root"),
    Task("B17", "blue", 3, K.BONFIRE_COLOURS, 0b011, text="a blue and a red bonfire"),
    Task("B18", "blue", 2, K.RESOURCE_SETS, 2, 2, text="any 2 resources 2x each (no gold)"),
    Task("B19", "blue", 3, K.FATE_GROUPS, _s("ship"), -2, 3, text="a group of 3 ship symbols"),
    Task("B20", "blue", 3, K.FATE_GROUPS, _s("path"), -2, 3, text="a group of 3 path symbols"),
    Task("B21", "blue", 3, K.FATE_GROUPS, _s("fire"), -2, 3, text="a group of 3 fire symbols"),
    Task("B22", "blue", 3, K.FATE_GROUPS, _s("gnome"), -2, 3, text="a group of 3 gnome symbols"),
    # ---- red, 4-5 points -------------------------------------------------------------
    Task("R1", "red", 5, K.ADJACENT_PATH_SAME, text="2 adjacent path tiles, same resource"),
    Task("R2", "red", 4, K.GNOMES, 3, text="3 gnomes"),
    Task("R3", "red", 5, K.GOLD, 4, text="4 gold"),
    Task("R4", "red", 4, K.GUARDIANS, _g("grey", "pink"), text="the grey and pink guardians"),
    Task("R5", "red", 4, K.GUARDIANS, _g("red", "wood"), text="the red and wood guardians"),
    Task("R6", "red", 4, K.GUARDIANS, _g("grey", "red"), text="the grey and red guardians"),
    Task("R7", "red", 4, K.PORTALS, 3, text="3 portals"),
    Task("R8", "red", 5, K.COMMON, text="the condition of a common task"),
    Task("R9", "red", 4, K.OFFER_BOTH, _r("blossom"), text="an offering on both blossom islands"),
    Task("R10", "red", 4, K.OFFER_BOTH, _r("fruit"), text="an offering on both fruit islands"),
    Task("R11", "red", 4, K.OFFER_BOTH, _r("herb"), text="an offering on both herb islands"),
    Task("R12", "red", 5, K.BONFIRE_COLOURS, 0b111, text="bonfires of all 3 colours"),
    Task("R13", "red", 5, K.FATE_GROUPS, _s("ship"), _s("path"), 3, text="groups of 3: ship, path"),
    Task("R14", "red", 5, K.FATE_GROUPS, _s("task"), _s("fire"), 3, text="groups of 3: task, fire"),
    Task("R15", "red", 5, K.FATE_GROUPS, _s("guard"), _s("gnome"), 3,
         text="groups of 3: guardian, gnome"),
    Task("R16", "red", 5, K.FATE_GROUPS, _s("ship"), _s("guard"), 3,
         text="groups of 3: ship, guardian"),
    Task("R17", "red", 5, K.FATE_GROUPS, _s("path"), _s("gnome"), 3,
         text="groups of 3: path, gnome"),
    Task("R18", "red", 4, K.RESOURCE, _r("shell"), 3, text="3 shell"),
    Task("R19", "red", 4, K.RESOURCE, _r("root"), 3, text="3 root"),
    Task("R20", "red", 4, K.RESOURCE, _r("blossom"), 3, text="3 blossom"),
    Task("R21", "red", 4, K.COLOUR_TASKS, 0, 4, text="4 blue tasks and/or bonfires"),
    Task("R22", "red", 5, K.GUARDIAN_COUNT, 4, text="4 guardians"),
    # ---- yellow, 6-8 points ----------------------------------------------------------
    Task("Y1", "yellow", 6, K.DEPLETED_PILE, text="a depleted offering pile"),
    Task("Y2", "yellow", 7, K.OFFER_ISLANDS, 1, 3, text="3 offerings on 1 island"),
    Task("Y3", "yellow", 7, K.OFFER_ISLANDS, 5, 1, text="offerings on 5 different islands"),
    Task("Y4", "yellow", 6, K.GNOMES, 5, text="5 gnomes"),
    Task("Y5", "yellow", 7, K.ELDERS, 3, text="3 elders"),
    Task("Y6", "yellow", 6, K.CRYSTALS, 1, 3, text="3 path tiles with a red crystal"),
    Task("Y7", "yellow", 7, K.COLOUR_TASKS, 1, 4, text="4 red tasks and/or bonfires"),
    Task("Y8", "yellow", 7, K.PORTALS, 5, text="5 portals"),
    Task("Y9", "yellow", 7, K.FATE_CELLS, 0, text="all highlighted fate cells covered"),
    Task("Y10", "yellow", 7, K.CRYSTALS, 0, 4, text="4 path tiles with a blue crystal"),
    Task("Y11", "yellow", 8, K.COLOUR_TASKS, 2, 4, text="4 yellow tasks and/or bonfires"),
    Task("Y12", "yellow", 8, K.GUARDIANS_ON_BONFIRES, 2, text="2 guardians next to bonfires"),
    Task("Y13", "yellow", 7, K.RESOURCE_SETS, 2, 3, text="2 resources 3x each (no gold)",
         provenance="text"),
    Task("Y14", "yellow", 7, K.RESOURCE_SETS, 1, 5, text="5 identical resources (no gold)",
         provenance="text"),
    Task("Y15", "yellow", 6, K.TILES_IN_SUPPLY, _t("ship", "path", "task", "fire", "guard"),
         text="action tiles ship, path, task, fire, guardian in supply"),
    Task("Y16", "yellow", 6, K.TILES_IN_SUPPLY, _t("path", "task", "fire", "guard", "gnome"),
         text="action tiles path, task, fire, guardian, gnome in supply"),
    Task("Y17", "yellow", 6, K.TILES_IN_SUPPLY, _t("ship", "task", "fire", "gnome", "guard"),
         text="action tiles ship, task, fire, gnome, guardian in supply"),
    Task("Y18", "yellow", 8, K.BONFIRES, 5, text="5 bonfires"),
    Task("Y19", "yellow", 8, K.OFFER_ISLANDS, 3, 2, text="2 offerings on each of 3 islands"),
    Task("Y20", "yellow", 8, K.FATE_GROUPS, -1, -1, 4, text="2 groups of 4 identical symbols"),
    Task("Y21", "yellow", 8, K.FATE_CELLS, 1, text="both outermost fate columns covered"),
    Task("Y22", "yellow", 6, K.FATE_CELLS, 2, text="all gold fate cells covered"),
)
# FATE_GROUPS arguments: a, b are the symbols of the two required areas; b = -2 means only
# one area is required; a = b = -1 means any two distinct areas (of any symbols).


# Provenance per field of a task card (issue 39): a card is not "assumed" as a whole.
# * tier: its colour and point range (blue 2-3, red 4-5, yellow 6-8) [text: Appendix I];
# * condition: the wording, Appendix I's line for the card [text], but for the cards
#   below, whose condition has no line there (a blue-and-red bonfire pair, two named
#   guardians) [assumed];
# * depicted: the resource, guardian, symbols or action tiles the card shows ("the
#   depicted Resource") [assumed: the pictures are missing, RULINGS 8]; none for the rest;
# * points: the exact value within the tier, ``Task.provenance`` [assumed but Y13, Y14].
# ``catalog.task_field_provenance`` reads these facts into one tag per field.
TASK_CONDITIONS_NOT_IN_TEXT = ("B17", "R4", "R5", "R6")
DEPICTED_KINDS = (TaskKind.PATH_RESOURCE, TaskKind.GUARDIANS, TaskKind.OFFER_ON_RESOURCE,
                   TaskKind.GNOME_RESOURCE, TaskKind.OFFER_BOTH, TaskKind.RESOURCE,
                   TaskKind.TILES_IN_SUPPLY)


def tasks_dealt(players: int) -> tuple[str, ...]:
    """The tasks in the game at ``players`` players: the whole deck, less
    ``REMOVED_TASK_SMALL`` in 1-2 player games (the rules take it out) [text]."""
    return tuple(t.id for t in TASKS if not (players <= 2 and t.id == REMOVED_TASK_SMALL))

# ----------------------------------------------------------------------------------------
# Gnomes (Appendix III).  27 specialists (abilities 1..27; 10-13 one ability per island
# guardian colour) and 6 elders.  Resources [assumed, RULINGS 8]: specialists 5, 22, 23
# show gold; the other 24 in ability order show blossom, fruit, herb, shell, root, ...
# ----------------------------------------------------------------------------------------
SPECIALIST_TEXT = {
    1: "your path tiles may hold any number of guardians (not bonfires)",
    2: "every procession: each guardian may move 1 step further than paid",
    3: "receiving a task: pay any 2 resources",
    4: "+2 points when recruiting an elder",
    5: "each yellow action tile counts as 2 identical tiles when used",
    6: "a guardian ending on a path tile: choose the resource gained",
    7: "+1 gold whenever you place a novice in the council",
    8: "+the depicted resource whenever you take a new path tile",
    9: "recruiting gnomes: pay 1 or 2 resources of your choice",
    10: "the grey guardian ending on a path tile gains its resource once more",
    11: "the pink guardian ending on a path tile gains its resource once more",
    12: "the red guardian ending on a path tile gains its resource once more",
    13: "the wood guardian ending on a path tile gains its resource once more",
    14: "keep up to 3 action tiles before placing a fate tile",
    15: "+1 yellow action tile when recruiting any gnome, this one included",
    16: "covering a printed fate symbol gains its object once more",
    17: "placing a guardian on the starting tile makes a 1-step procession without resources",
    18: "+2 points per guardian next to a bonfire at final scoring",
    19: "fulfilling a common task: +1 gold and +1 yellow tile",
    20: "any guardian ending on the first path tile: +1 gold",
    21: "moving the ship (paying >= 1 tile): 1 extra route",
    22: "using the Great Bonfire (paying >= 1 tile): 1 extra space",
    23: "using the Great Bonfire: take all 3 rewards",
    24: "novices of your colour may share a council space",
    25: "portals may be placed in any order",
    26: "receiving a task always costs 1 action tile",
    27: "fate tiles may protrude beyond the fate area (1 symbol must stay inside)",
}
SPECIALIST_18_POINTS = 2  # per guardian next to a bonfire at final scoring [text]
GOLD_SPECIALISTS = (5, 22, 23)  # [assumed: "three show gold"]


def _specialist_resources() -> tuple[int, ...]:
    plain = iter(range(27))  # the non-gold ones cycle blossom..root in ability order
    return tuple(GOLD if a in GOLD_SPECIALISTS else next(plain) % 5 for a in range(1, 28))


SPECIALIST_RESOURCE = _specialist_resources()  # index = ability - 1 [assumed]
ELDER_TEXT = (
    "1 point per path tile, starting tile included",
    "1 point per fate tile in your fate area",
    "1 point per portal",
    "1 point per task and per bonfire",
    "1 point per guardian",
    "1 point per gnome, this card included",
)
ELDER_RESOURCE = (0, 1, 2, 3, 4, 5)  # blossom..root, gold [assumed]
ELDER_POINTS_PER = (1, 1, 1, 1, 1, 1)  # "1 point per ..." of elders E1..E6 [text]
# The plain amounts the abilities give [text: SPECIALIST_TEXT], each overridable by its
# family's name (specialist_points = {S4 = 3}; ``tables.GNOME_KNOBS``).  Numbers that change
# what is legal (steps, routes, spaces, tiles kept) have none: switch the ability instead.
SPECIALIST_AMOUNTS: dict[str, dict[int, int]] = {
    "specialist_points": {4: 2, 18: SPECIALIST_18_POINTS},  # per elder; per guardian
    "specialist_gold": {7: 1, 19: 1, 20: 1},  # per novice; per common task; first tile
    "specialist_yellow": {15: 1, 19: 1},  # per gnome recruited; per common task
    "specialist_resources": {8: 1, 10: 1, 11: 1, 12: 1, 13: 1},  # extra resources gained
}
# Specialists 10-13 share one text, "the depicted Guardian": which colour each shows.
DEPICTED_GUARDIAN_SPECIALISTS = (10, 11, 12, 13)


N_SPECIALISTS = 27
N_ELDERS = 6
N_GNOMES = N_SPECIALISTS + N_ELDERS  # gnome id: 0..26 specialists (ability id+1), 27..32 elders
SPECIALIST_DISPLAY = 6  # [text]

# ----------------------------------------------------------------------------------------
# Solo: Tom's deck of 8 cards [text: 8 cards, 2 Great Bonfire, 1 Task II; the rest
# assumed, RULINGS 7]; (card, reveals a gnome first?).  The deck is a named variant.
# ----------------------------------------------------------------------------------------
TOM_DECK_SIZE = 8  # [text]
TomDeck = tuple[tuple[str, bool], ...]


def _tom_deck(eighth: tuple[str, bool]) -> TomDeck:
    """The 7 cards every variant shares plus the disputed 8th card."""
    return (("gnome", True), ("path", True), ("task1", True), eighth, ("task2", True),
            ("guardian", False), ("great_bonfire", False), ("great_bonfire", False))


TOM_DECK_PASSES = 4  # the game ends after Tom's 4th pass through the deck [text]
# Special case 1: an action Tom cannot take (its common task is done) scores instead [text]
TOM_SPECIAL_CASE_POINTS = 3
SOLO_TASKS = {"blue": 7, "red": 7, "yellow": 6}  # [text]
HANDICAP_START, HANDICAP_WIN, HANDICAP_LOSS = -10, 5, -2  # [text]


# ----------------------------------------------------------------------------------------
# Named variants: the [assumed] facts whose guess decides whole answers.  Each fact has a
# default (listed first) and alternatives a run can select (``--variant fact=name``, an
# experiment's [variants] table, ``tables.build_params(variants=...)``).  The sensitivity
# study (``bonfire-sim sensitivity``) replays identical deals under each of them.
# ----------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Variant:
    """One reading of an uncertain fact: its value, provenance and why it is plausible."""

    fact: str
    name: str
    value: Any
    provenance: str
    why: str


VARIANTS: dict[str, tuple[Variant, ...]] = {
    "tom_deck": (
        Variant("tom_deck", "task1", _tom_deck(("task1", True)), "assumed",
                "Two Task I cards make Tom a steady taker of valuable tasks, the role the "
                "rules give Task I; the default since the first release."),
        Variant("tom_deck", "gnome", _tom_deck(("gnome", True)), "assumed",
                "Tom's rules spend most words on recruiting by the revealed resource, which "
                "a second Gnome card would make routine."),
        Variant("tom_deck", "path", _tom_deck(("path", True)), "assumed",
                "A second Path card lets Tom build towards his 6 path tiles within 4 passes, "
                "a limit his special case 1 provides for."),
        Variant("tom_deck", "guardian", _tom_deck(("guardian", False)), "assumed",
                "A second Guardian card lets Tom reach the 5-guardian limit that his special "
                "case 1 provides for."),
    ),
    "fate_area": (
        Variant("fate_area", "5x5-centre", FATE_AREA_5X5, "assumed",
                "A square area with the starting tile on its marked centre (RULINGS 8); it "
                "holds only 6 more tiles, so the 8th fate tile never fits."),
        Variant("fate_area", "4x6", FATE_AREA_4X6, "assumed",
                "24 cells hold exactly the 8 tiles, so running out of fate tiles stays rare "
                "as the rulebook says; the starting tile lies in a middle row."),
    ),
    "guardian_points": (
        Variant("guardian_points", "2+k", GUARDIAN_POINTS_RISING, "assumed",
                "Points grow with the walk from the Starting Tile: bonfire space k, beside "
                "path tile k, shows 2 + k (the text gives the range 2-8)."),
        Variant("guardian_points", "8-k", GUARDIAN_POINTS_RISING[::-1], "assumed",
                "The text gives only the range 2-8; the order along the board was in a lost "
                "picture, and high points near the start are the other reading."),
    ),
}
FACTS = tuple(VARIANTS)


def variant(fact: str, name: str) -> Variant:
    """The named variant of ``fact``, with an error that lists the allowed names."""
    if fact not in VARIANTS:
        raise ConfigError(f"unknown variant fact {fact!r}; expected one of {', '.join(FACTS)}")
    for v in VARIANTS[fact]:
        if v.name == name:
            return v
    names = ", ".join(v.name for v in VARIANTS[fact])
    raise ConfigError(f"unknown {fact} variant {name!r}; expected one of {names}")


def default_variants() -> dict[str, str]:
    """{fact: default variant name} for every fact with variants."""
    return {fact: vs[0].name for fact, vs in VARIANTS.items()}


def resolve_variants(chosen: Mapping[str, str] | None = None) -> dict[str, str]:
    """Every fact's variant in force: the defaults, replaced by ``chosen`` (validated)."""
    out = default_variants()
    for fact, name in (chosen or {}).items():
        out[fact] = variant(str(fact), str(name)).name
    return out


def parse_variant(text: str) -> tuple[str, str]:
    """``"fact=name"`` -> (fact, name), validated."""
    fact, sep, name = text.partition("=")
    if not sep:
        raise ConfigError(f"a variant is written FACT=NAME (e.g. tom_deck=gnome), got {text!r}")
    return variant(fact.strip(), name.strip()).fact, name.strip()


def fact_value(fact: str, chosen: Mapping[str, str] | None = None) -> Any:
    """The value of ``fact`` under the chosen variants (its default if not chosen)."""
    return variant(fact, resolve_variants(chosen)[fact]).value


def fate_areas() -> tuple[FateArea, ...]:
    """Every fate area a variant can select (the state's grid must hold the largest)."""
    return tuple(v.value for v in VARIANTS["fate_area"])
