"""Offsets into the game-state vector and the parameter vector; phase and move enums.

One game is ONE flat ``int64`` numpy vector of ``STATE_SIZE`` entries (a few KiB): copied with
``s.copy()``, stacked into a batch as rows of a 2-D array, hashed for golden traces.  Each
field below states its length, index layout and sentinels.  The compiled kernels index the
vector with these module-level integers, which numba folds into constants.

Per-player blocks start at ``PLAYER0 + seat * PSIZE``; a kernel writes ``s[pb + P_RES + r]``
with ``pb = player_base(seat)``.  Seat 0 is always the starting player.
"""

from __future__ import annotations

from bonfire_sim.rules import components as C

NP = C.MAX_PLAYERS + 1  # seats: up to 4 humans; in solo, seat 1 is Tom
NT = len(C.TASKS)  # 66
NSPEC = C.N_SPECIALISTS
NGNOME = C.N_GNOMES
NPATHT = len(C.PATH_TILES)  # 28
FATE_M = C.FATE_PROTRUDE_MARGIN  # margin round the area (specialist 27's tiles protrude)
# The fate grid is square and holds the largest variant area plus the margin on each side;
# area cell (r, c) is grid cell (r + FATE_M, c + FATE_M).
FATE_W = max(max(a.rows, a.cols) for a in C.fate_areas()) + 2 * FATE_M
NEUTRAL = 4  # novice colour of the neutral novices (seats are colours 0..3)

_o = 0


def _f(n: int = 1) -> int:
    global _o
    at = _o
    _o += n
    return at


# ---- global section ------------------------------------------------------------------
G_NSEATS = _f()  # seats in play: humans, plus Tom in solo
G_HUMANS = _f()  # human (strategy) seats; 1 in solo
G_SOLO = _f()  # 1 in a solo game (seat 1 is Tom)
G_CUR = _f()  # seat to move
G_PHASE = _f()  # PH_* of the pending decision
G_RET = _f()  # phase to return to after a sub-decision chain (PH_MAIN or PH_POST)
G_NOV_COLOUR = _f()  # colour of the novice being placed: seat 0..3 or NEUTRAL
G_NOV_SRC = _f()  # ignite: bonfire space 0..6; bonus action: 10 + common task
G_PROC_LEFT = _f()  # procession: steps each guardian may take
G_PROC_NOGAIN = _f()  # procession from specialist 17: no resources
G_PROC_DONE = _f()  # bit mask of guardian colours that already had their move
G_TURN = _f()  # turns begun so far (a passed or skipped turn counts)
G_ROUND = _f()  # round number, 1-based; a round starts with seat 0
G_GB_POS = _f()  # Great Bonfire pointer 0..6
G_GB_USED = _f()  # 1 once anyone has used/turned the Great Bonfire
G_PATH_HEAD = _f()  # path draw deck: ring buffer start
G_PATH_N = _f()  # path draw deck: tiles in it
PATH_DECK = _f(NPATHT)  # ring buffer of path tile ids; top = PATH_DECK[HEAD]
PATH_DISP = _f(C.PATH_DISPLAY)  # face-up path tile ids, -1 empty
G_SPEC_TOP = _f()  # specialist pile: next index to draw
G_SPEC_N = _f()  # specialist pile: cards in it (SPEC_PILE[TOP:TOP+N])
SPEC_PILE = _f(NSPEC)  # shuffled specialist ids 0..26
SPEC_DISP = _f(C.SPECIALIST_DISPLAY)  # face-up specialist ids, -1 empty
ELDER_AVAIL = _f(C.N_ELDERS)  # 1 while elder e is on the board
G_SPEC_DISC_N = _f()  # solo: specialists Tom revealed onto the discard pile
SPEC_DISC = _f(NSPEC)  # solo: the discard pile
ISLAND_TASKS = _f(C.N_ISLANDS * 3)  # island i slot j at i*3+j: task id 0..65, -1 empty
ISLAND_GUARDS = _f(5)  # guardians left on the island of colour 1..4 (index 0 unused)
GB_PORTALS = _f(7 * 7)  # Great Bonfire space g, shape k at g*7+k: portals left there
COUNCIL = _f(C.COUNCIL_SPACES * 5)  # space c colour k at c*5+k: novices standing there
COUNCIL_FLAT = _f(C.COUNCIL_SPACES)  # solo: Tom's flat neutral novices (block nothing)
G_COUNCIL_N = _f()  # novices in the council (all colours, flat ones included)
COMMON_NOVICE = _f(C.COMMON_TASKS)  # 1 while the neutral novice stands on common task t
G_CD_ACTIVE = _f()  # 1 once the countdown is triggered
G_CD_PILE = _f()  # highest countdown tile the starting player has not yet passed; 0 = none
G_TRIGGER_TURN = _f()  # G_TURN at the trigger, -1 before
G_OVER = _f()  # 1 when the game has ended
G_END = _f()  # END_* reason
G_RNG = _f()  # game RNG state (xorshift32, 1..2^32-1): setup, deck reshuffles, Tom
G_RNG_STRAT = _f()  # strategies' RNG state, kept apart so play never shifts the deal
G_TOM_POS = _f()  # solo: next card index in TOM_DECK
G_TOM_PASSES = _f()  # solo: times Tom's deck was (re)shuffled, i.e. the playthrough number
G_TOM_CARD = _f()  # solo: last card Tom played, -1 none
G_TOM_TASKS_SEEN = _f()  # reserved
TOM_DECK = _f(C.TOM_DECK_SIZE)  # solo: card kinds in draw order
G_DECISIONS = _f()  # decisions applied so far (safety bound)
# The payer's choice (pay_choice): a paying move waits here while PH_PAY asks how to pay.
G_PAY_MOVE = _f(5)  # the move row [kind, a, b, c, d] waiting for its payment / discard
G_PAY_MAIN = _f()  # 1 if that move was made as the turn's option (PH_MAIN)
G_PAY_TILE = _f(2)  # open tile demand: type, count (count 0 = none)
G_PAY_RES = _f(4)  # open resource demands: r1, n1, r2, n2 (n 0 = none; r -1 = any)
G_PAY_KEEP = _f()  # open discard before a fate tile: tiles to keep, -1 none
G_PAID = _f(13)  # what the current action paid: resources (6) then tiles (7); for traces
GLOBAL_SIZE = _o

# ---- per-player block (offsets relative to the block) --------------------------------
_o = 0
P_RES = _f(6)  # resources held: blossom fruit herb shell root gold
P_TILES = _f(7)  # action tiles held: ship path task fire guard gnome yellow
P_SCORE = _f()  # points scored during play (elders, council, fire, passing, Tom)
P_PTS_ELDER = _f()  # ... of which from elders (incl. specialist 4)
P_PTS_COUNCIL = _f()  # ... of which council "1 point" choices
P_PTS_FIRE = _f()  # ... of which Great Bonfire "2 points"
P_PTS_PASS = _f()  # ... of which passing in the countdown
P_PTS_TOM = _f()  # ... of which Tom's own point rules
P_PTS_SEAT = _f()  # ... of which the starting score (override seat_points)
P_SHIP = _f()  # island 0..13 of the ship; -1 harbour
P_SHIP_USED = _f()  # 1 after the first ship move (later trips cost by distance)
P_OFF_PILE = _f(C.N_OFFERINGS)  # offering resources; pile k tile i at k*5+i (i=0 top)
P_OFF_TAKEN = _f(2)  # tiles already delivered from pile k; face-up = pile[k][taken]
P_OFF_ISLAND = _f(C.N_ISLANDS)  # own offerings delivered to island i
P_TASK = _f(C.MAX_TASKS)  # task id on bonfire space k, -1 empty
P_LIT = _f(C.MAX_TASKS)  # 1 when the task on space k is flipped to its bonfire side
P_NOVICE = _f(C.MAX_TASKS)  # 1 while the novice still stands next to space k
P_NPATH = _f()  # built path tiles 0..6 (the starting tile not counted)
P_PATH = _f(7)  # path tile id at position k (k=1..6), -1 none; position 0 = starting tile
P_BOARD = _f()  # board 0..3 (portal notch order)
P_PORTAL = _f(7)  # 1 when notch k holds its portal
P_NPORTAL = _f()
P_GUARD = _f(5)  # guardian colour k: -2 not owned, -1 waiting area, 0..6 path, 10+k bonfire
P_GNOME = _f(NGNOME)  # 1 when gnome id is owned (0..26 specialists, 27..32 elders)
P_NGNOME = _f()
P_NELDER = _f()
P_FATE = _f(FATE_W * FATE_W)  # fate grid symbol 0..5, -1 empty; area (r,c) at
#                                (r + FATE_M) * FATE_W + c + FATE_M
P_FATE_SUP = _f(C.N_FATE_TILES)  # fate tile ids: [0] the one in front, [1..7] the column
P_FATE_LO = _f()  # the column is P_FATE_SUP[LO:HI]; top = LO, bottom = HI-1
P_FATE_HI = _f()
P_FATE_PLACED = _f()  # fate tiles in the area (starting tile included)
P_STARTED = _f()  # 1 once the starting fate tile is chosen and placed
P_CD_TILE = _f()  # countdown tile held (1..5), 0 none
P_PASSED = _f()  # 1 after passing in the countdown
P_OUT = _f()  # 1 when the player could do nothing and takes no more turns
P_COMMON_DONE = _f(C.COMMON_TASKS)  # 1 once common task t was fulfilled (specialist 19)
P_TOM_NOVICES = _f()  # solo, Tom: novices left beside his board
P_TURNS = _f()  # turns this player took
P_PASS_TURN = _f()  # G_TURN at which the player passed, -1 never
P_ABIL = _f(28)  # times specialist ability a (1..27) changed an outcome; index 0 unused
P_GNOME_AT = _f(NGNOME)  # G_TURN at which gnome id joined the city, 0 = never
P_TASK_AT = _f(7)  # G_TURN at which the task on space k was received, 0 = empty
P_LIT_AT = _f(7)  # G_TURN at which the task on space k was ignited, 0 = not lit
PSIZE = _o

PLAYER0 = GLOBAL_SIZE
# Abilities in force, one bit mask per seat after the player blocks: bit a (1..27) is set
# once the seat owns a specialist card carrying ability a.  A card's ability is the
# parameter vector's (override ``specialist_ability``), so the rules ask the mask, never
# which card is owned.  The mask is derived from P_GNOME and the parameters, so it lies
# outside ``HASHED_SIZE``: the search's state hash (and so its random stream) ignores it.
ABIL_MASK = PLAYER0 + NP * PSIZE
HASHED_SIZE = ABIL_MASK
STATE_SIZE = ABIL_MASK + NP


def player_base(seat: int) -> int:
    return PLAYER0 + seat * PSIZE


# ---- phases: what the pending decision is about --------------------------------------
PH_SWAP = 0  # choose the starting fate tile (keep / swap with the middle of the column)
PH_MAIN = 1  # choose option I, II or III, a bonus action, or pass in the countdown
PH_SHIP_ACTION = 2  # after moving the ship: the island's action, or not
PH_PROCESSION = 3  # move the next guardian of a procession
PH_PATH_PICK = 4  # after refreshing the path display: take a tile
PH_COUNCIL = 5  # place the novice and choose bonus or point
PH_C_PATH = 6  # council bonus: which path tile
PH_C_GUARD = 7  # council bonus: which guardian colour
PH_C_FIRE = 8  # council bonus: which Great Bonfire space and rewards
PH_C_SPEC = 9  # council bonus: which specialist
PH_C_MOVE = 10  # council bonus: which guardian to where
PH_C_SHIP = 11  # council bonus: which island
PH_C_FATE = 12  # council bonus: which fate tile where
PH_POST = 13  # after the option: bonus actions or end the turn
PH_OVER = 14
PH_PAY = 15  # how to pay the move just chosen / which tiles to keep (pay_choice)
PHASE_NAMES = (
    "swap", "main", "ship_action", "procession", "path_pick", "council", "c_path",
    "c_guard", "c_fire", "c_spec", "c_move", "c_ship", "c_fate", "post", "over", "pay",
)

# ---- moves: rows of MOVE_W int32 [kind, a, b, c, d] ------------------------------------
MOVE_W = 5
MAX_MOVES = 1024
M_END = 0  # end the turn (PH_POST) / decline the island action (PH_SHIP_ACTION)
M_SWAP = 1  # a: 0 keep the front tile, 1 swap it with the middle of the column
M_FATE = 2  # a: 0 top / 1 bottom of the column; b, c: grid row, col of symbol 0; d: orient
M_SHIP = 3  # a: island; b: tiles paid
M_PATH = 4  # a: display slot 0..3, or 4 = top of the draw deck
M_PATH_REFRESH = 5  # put the 4 same-crystal display tiles under the deck, refill, then pick
M_TASK = 6  # a: island slot 0..2; b: offering pile 0/1; c: bonfire space 0..6
M_GUARD = 7  # retrieve: a = guardian colour 1..4 (from the ship's island)
M_PROCESSION = 8  # a: tiles paid (>= 1)
M_FIRE = 9  # a: Great Bonfire space; b: reward set (REWARD_SETS); c: portal shape or -1
M_GNOME = 10  # a: gnome id; b: 0 = 2 tiles + 1 resource, 1 = 1 tile + 2 resources
M_IGNITE = 11  # a: bonfire space 0..6
M_BONUS = 12  # a: common task 0..4 (neutral novice to the council)
M_PASS = 13  # pass in the countdown for points
M_MOVE_GUARD = 14  # a: guardian colour; b: destination (-1 stay, 0..6 path, 10+k bonfire);
#                   c: resource chosen with specialist 6, else -1
M_COUNCIL = 15  # a: council space; b: 0 bonus, 1 the point
M_TAKE_PATH = 16  # council: a = display slot 0..3, or 10 + tile id searched from the deck
M_TAKE_GUARD = 17  # council: a = guardian colour
M_TAKE_SPEC = 18  # council: a = specialist id
M_SHIP_TO = 19  # council: a = island (free move)
M_SKIP = 20  # nothing possible: the turn is lost (the player is out)
M_PAY = 21  # a: packed removal (pay_choice: 5 bits per slot); b: 0 tiles, 1 resources
M_DISCARD = 22  # before a fate tile: a = packed tiles KEPT (5 bits per tile type)
MOVE_NAMES = (
    "end", "swap", "fate", "ship", "path", "path_refresh", "task", "guard", "procession",
    "fire", "gnome", "ignite", "bonus", "pass", "move_guard", "council", "take_path",
    "take_guard", "take_spec", "ship_to", "skip", "pay", "discard",
)

# Great Bonfire reward sets (b of M_FIRE): bit 0 tile, bit 1 resource, bit 2 points,
# bit 3 portal.  "2 of the 3": tile, resource-or-2-points, portal; specialist 23: all 3.
# A space offers the resource sets or (only the space showing 2 points) the points sets.
REWARD_SETS = (
    0b0011,  # tile + resource
    0b0101,  # tile + 2 points
    0b1001,  # tile + portal
    0b1010,  # resource + portal
    0b1100,  # 2 points + portal
    0b1011,  # tile + resource + portal (specialist 23)
    0b1101,  # tile + 2 points + portal (specialist 23)
)

# ---- end reasons -----------------------------------------------------------------------
END_NONE = 0
END_COUNTDOWN = 1  # the "1" countdown tile returned to the starting player
END_STALLED = 2  # every player was out (or passed) before the countdown ended the game
END_TOM_DECK = 3  # solo: Tom finished his 4th pass through his deck
END_LIMIT = 4  # safety bound on decisions reached (never expected; counted in tests)
END_NAMES = ("none", "countdown", "stalled", "tom_deck", "limit")
MAX_DECISIONS = 20000

# ---- guardian positions ----------------------------------------------------------------
GP_NONE = -2
GP_WAIT = -1
GP_BONFIRE = 10  # + space
