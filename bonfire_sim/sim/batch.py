"""Play a chunk of games in one compiled call and fill result matrices.

One numba call per chunk keeps Python out of the per-game path.  Outputs are plain int64
matrices whose columns are named in ``GAME_COLS`` / ``PLAYER_COLS`` / ``TURN_COLS``;
``bonfire_sim.sim.frames`` turns them into Arrow tables.
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np
from numba import njit

from bonfire_sim.rules import layout as L
from bonfire_sim.rules.moves import apply_move, legal_moves
from bonfire_sim.rules.scoring import NLINES, final_result
from bonfire_sim.rules.setup import setup_game
from bonfire_sim.sim.loop import choose_in, new_scratch

GAME_COLS = ("n_rounds", "n_turns", "end_reason", "trigger_turn", "winner_seat",
             "n_decisions")
PLAYER_COLS = (
    "seat", "board", "score", "rank", "won",
    "score_bonfires", "score_guardians", "score_portals", "score_paths", "score_common",
    "score_fate_supply", "score_leftovers", "score_ingame",
    "n_bonfires", "n_tasks_unlit", "n_paths", "n_portals", "n_guardians", "n_gnomes",
    "n_elders", "passed_at_countdown", "pass_turn", "n_turns_played",
    "pts_elders", "pts_council", "pts_fire", "pts_pass", "pts_tom", "pts_seat",
)
# Per player: tasks (G, NP, TASK_W) = 7 task ids (-1 empty), 7 lit flags, 7 turns taken,
# 7 turns lit; gnomes (G, NP, NGNOME) = turn the gnome joined (0 = not owned); abilities
# (G, NP, 28) = times specialist ability a changed an outcome.
TASK_SLOTS = 7
TASK_W = 28
TURN_COLS = (
    "turn", "round", "seat", "kind", "a", "resources", "tiles", "yellow", "gold",
    "score_ingame", "tasks_held", "bonfires", "paths", "portals", "guardians", "gnomes",
    "fate_left", "council", "countdown", "turns_left",
)
MAX_TURN_ROWS_PER_GAME = 400

# The output matrices of a chunk (one argument for seven arrays; numba passes a tuple of
# arrays as its arrays): games (G, len(GAME_COLS)); players (G, NP, len(PLAYER_COLS));
# tasks, gnomes, abilities as described at TASK_W; turns (rows, len(TURN_COLS)) with
# turn_game (rows,) = the game row of each turn-log row.
Outputs = namedtuple("Outputs", ("games", "players", "tasks", "gnomes", "abilities", "turns",
                                 "turn_game"))


def new_outputs(games: int, turn_rows: int) -> Outputs:
    """Zeroed ``Outputs`` for ``games`` games and ``turn_rows`` turn-log rows."""
    return Outputs(np.zeros((games, len(GAME_COLS)), np.int64),
                   np.zeros((games, L.NP, len(PLAYER_COLS)), np.int64),
                   np.zeros((games, L.NP, TASK_W), np.int64),
                   np.zeros((games, L.NP, L.NGNOME), np.int64),
                   np.zeros((games, L.NP, 28), np.int64),
                   np.zeros((turn_rows, len(TURN_COLS)), np.int64),
                   np.zeros(turn_rows, np.int64))

# Column positions by name (module constants are compile-time constants in numba), so the
# kernel below never fills a matrix column by a bare number.
_G = {c: i for i, c in enumerate(GAME_COLS)}
_P = {c: i for i, c in enumerate(PLAYER_COLS)}
_T = {c: i for i, c in enumerate(TURN_COLS)}
GC_ROUNDS, GC_TURNS, GC_END = _G["n_rounds"], _G["n_turns"], _G["end_reason"]
GC_TRIGGER, GC_WINNER, GC_DECISIONS = _G["trigger_turn"], _G["winner_seat"], _G["n_decisions"]
PC_SEAT, PC_BOARD, PC_SCORE, PC_RANK, PC_WON = (
    _P["seat"], _P["board"], _P["score"], _P["rank"], _P["won"])
PC_LINE0 = _P["score_bonfires"]  # the NLINES score lines follow in scoring order
PC_BONFIRES, PC_UNLIT, PC_PATHS, PC_PORTALS = (
    _P["n_bonfires"], _P["n_tasks_unlit"], _P["n_paths"], _P["n_portals"])
PC_GUARDIANS, PC_GNOMES, PC_ELDERS = _P["n_guardians"], _P["n_gnomes"], _P["n_elders"]
PC_PASSED, PC_PASS_TURN, PC_TURNS_PLAYED = (
    _P["passed_at_countdown"], _P["pass_turn"], _P["n_turns_played"])
PC_PTS_ELDERS, PC_PTS_COUNCIL, PC_PTS_FIRE, PC_PTS_PASS, PC_PTS_TOM = (
    _P["pts_elders"], _P["pts_council"], _P["pts_fire"], _P["pts_pass"], _P["pts_tom"])
PC_PTS_SEAT = _P["pts_seat"]
TC_TURN, TC_ROUND, TC_SEAT, TC_KIND, TC_A = (
    _T["turn"], _T["round"], _T["seat"], _T["kind"], _T["a"])
TC_RES, TC_TILES, TC_YELLOW, TC_GOLD, TC_SCORE = (
    _T["resources"], _T["tiles"], _T["yellow"], _T["gold"], _T["score_ingame"])
TC_HELD, TC_LIT, TC_PATHS, TC_PORTALS, TC_GUARDS, TC_GNOMES = (
    _T["tasks_held"], _T["bonfires"], _T["paths"], _T["portals"], _T["guardians"], _T["gnomes"])
TC_FATE, TC_COUNCIL, TC_COUNTDOWN, TC_LEFT = (
    _T["fate_left"], _T["council"], _T["countdown"], _T["turns_left"])
# Blocks of the tasks matrix (each TASK_SLOTS wide): task id, lit flag, turn taken, turn lit.
TK_ID, TK_LIT, TK_TAKEN, TK_LIT_AT = 0, TASK_SLOTS, 2 * TASK_SLOTS, 3 * TASK_SLOTS


@njit(cache=True)
def _turn_row(s, row, out):
    """Write the features of the seat to move (before its decision) into ``out[row]``."""
    seat = s[L.G_CUR]
    pb = L.PLAYER0 + seat * L.PSIZE
    res = 0
    for k in range(6):
        res += s[pb + L.P_RES + k]
    tiles = 0
    for k in range(7):
        tiles += s[pb + L.P_TILES + k]
    held = 0
    lit = 0
    for k in range(7):
        if s[pb + L.P_TASK + k] >= 0:
            held += 1
            lit += s[pb + L.P_LIT + k]
    guards = 0
    for g in range(5):
        if s[pb + L.P_GUARD + g] != L.GP_NONE:
            guards += 1
    left = 0
    if s[L.G_CD_ACTIVE] == 1:
        left = s[L.G_CD_PILE] if seat == 0 else s[pb + L.P_CD_TILE]
    out[row, TC_TURN] = s[L.G_TURN]
    out[row, TC_ROUND] = s[L.G_ROUND]
    out[row, TC_SEAT] = seat
    out[row, TC_RES] = res
    out[row, TC_TILES] = tiles
    out[row, TC_YELLOW] = s[pb + L.P_TILES + 6]
    out[row, TC_GOLD] = s[pb + L.P_RES + 5]
    out[row, TC_SCORE] = s[pb + L.P_SCORE]
    out[row, TC_HELD] = held
    out[row, TC_LIT] = lit
    out[row, TC_PATHS] = s[pb + L.P_NPATH]
    out[row, TC_PORTALS] = s[pb + L.P_NPORTAL]
    out[row, TC_GUARDS] = guards
    out[row, TC_GNOMES] = s[pb + L.P_NGNOME]
    out[row, TC_FATE] = s[pb + L.P_FATE_HI] - s[pb + L.P_FATE_LO]
    out[row, TC_COUNCIL] = s[L.G_COUNCIL_N]
    out[row, TC_COUNTDOWN] = s[L.G_CD_ACTIVE]
    out[row, TC_LEFT] = left


@njit(cache=True)
def play_games(template, p, humans, rng_game, rng_strat, seat_strategy, seat_weights,
               log_turns, out):
    """Play ``len(rng_game)`` games and fill the matrices of ``out`` (``Outputs``).

    template: blank state; rng_game/rng_strat: per-game RNG seeds; seat_strategy (G, NP):
    strategy id per game and seat; seat_weights (G, NP, W); log_turns (G,): 1 = keep the
    turn log of that game.  Returns the number of turn-log rows written.
    """
    turns, turn_game = out.turns, out.turn_game
    moves = np.zeros((L.MAX_MOVES, L.MOVE_W), np.int64)
    floats, ints = new_scratch(p)  # the evaluator's scratch, allocated once
    trow = 0
    for gi in range(rng_game.shape[0]):
        s = template.copy()
        s[L.G_RNG] = rng_game[gi]
        s[L.G_RNG_STRAT] = rng_strat[gi]
        setup_game(s, p, humans)
        while s[L.G_OVER] == 0:
            n = legal_moves(s, p, moves)
            seat = s[L.G_CUR]
            i = choose_in(s, p, moves, n, seat_strategy[gi, seat], seat_weights[gi, seat],
                          floats, ints)
            kind = moves[i, 0]
            ph = s[L.G_PHASE]
            if log_turns[gi] == 1 and trow < turns.shape[0] and (
                    ph == L.PH_MAIN or (ph == L.PH_POST and kind == L.M_BONUS)):
                _turn_row(s, trow, turns)
                turns[trow, TC_KIND] = kind
                turns[trow, TC_A] = moves[i, 1]
                turn_game[trow] = gi
                trow += 1
            apply_move(s, p, moves[i])
        record_game(s, p, gi, out)
    return trow


# Long: one row of every output matrix, column by named column, straight-line; split,
# it would only pass the same four matrices around again.
@njit(cache=True)
def record_game(s, p, gi, out):
    """Write finished game ``s`` into row ``gi`` of the ``Outputs`` matrices."""
    games, players, tasks, gnomes, abilities = (out.games, out.players, out.tasks, out.gnomes,
                                                out.abilities)
    nseats_max = players.shape[1]
    scores = np.zeros(nseats_max, np.int64)
    lines = np.zeros((nseats_max, NLINES), np.int64)
    ranks = np.zeros(nseats_max, np.int64)
    won = np.zeros(nseats_max, np.int64)
    nseats = s[L.G_NSEATS]
    final_result(s, p, scores, lines, ranks, won)
    winner = -1
    nwin = 0
    for seat in range(nseats):
        if won[seat] == 1:
            nwin += 1
            winner = seat
    games[gi, GC_ROUNDS] = s[L.G_ROUND]
    games[gi, GC_TURNS] = s[L.G_TURN]
    games[gi, GC_END] = s[L.G_END]
    games[gi, GC_TRIGGER] = s[L.G_TRIGGER_TURN]
    games[gi, GC_WINNER] = winner if nwin == 1 else -1
    games[gi, GC_DECISIONS] = s[L.G_DECISIONS]
    for seat in range(nseats):
        pb = L.PLAYER0 + seat * L.PSIZE
        row = players[gi, seat]
        row[PC_SEAT] = seat
        row[PC_BOARD] = s[pb + L.P_BOARD]
        row[PC_SCORE] = scores[seat]
        row[PC_RANK] = ranks[seat]
        row[PC_WON] = won[seat]
        for k in range(NLINES):
            row[PC_LINE0 + k] = lines[seat, k]
        lit = 0
        unlit = 0
        for k in range(7):
            t = s[pb + L.P_TASK + k]
            tasks[gi, seat, TK_ID + k] = t
            tasks[gi, seat, TK_LIT + k] = s[pb + L.P_LIT + k] if t >= 0 else 0
            tasks[gi, seat, TK_TAKEN + k] = s[pb + L.P_TASK_AT + k]
            tasks[gi, seat, TK_LIT_AT + k] = s[pb + L.P_LIT_AT + k]
            if t >= 0:
                if s[pb + L.P_LIT + k] == 1:
                    lit += 1
                else:
                    unlit += 1
        guards = 0
        for g in range(5):
            if s[pb + L.P_GUARD + g] != L.GP_NONE:
                guards += 1
        for g in range(L.NGNOME):
            if s[pb + L.P_GNOME + g] == 1:
                gnomes[gi, seat, g] = max(1, s[pb + L.P_GNOME_AT + g])
        for a in range(28):
            abilities[gi, seat, a] = s[pb + L.P_ABIL + a]
        row[PC_BONFIRES] = lit
        row[PC_UNLIT] = unlit
        row[PC_PATHS] = s[pb + L.P_NPATH]
        row[PC_PORTALS] = s[pb + L.P_NPORTAL]
        row[PC_GUARDIANS] = guards
        row[PC_GNOMES] = s[pb + L.P_NGNOME]
        row[PC_ELDERS] = s[pb + L.P_NELDER]
        row[PC_PASSED] = s[pb + L.P_PASSED]
        row[PC_PASS_TURN] = s[pb + L.P_PASS_TURN]
        row[PC_TURNS_PLAYED] = s[pb + L.P_TURNS]
        row[PC_PTS_ELDERS] = s[pb + L.P_PTS_ELDER]
        row[PC_PTS_COUNCIL] = s[pb + L.P_PTS_COUNCIL]
        row[PC_PTS_FIRE] = s[pb + L.P_PTS_FIRE]
        row[PC_PTS_PASS] = s[pb + L.P_PTS_PASS]
        row[PC_PTS_TOM] = s[pb + L.P_PTS_TOM]
        row[PC_PTS_SEAT] = s[pb + L.P_PTS_SEAT]
