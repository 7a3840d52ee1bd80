"""Play a chunk of games in one compiled call and fill result matrices.

One numba call per chunk keeps Python out of the per-game path.  Outputs are plain int64
matrices whose columns are named in ``GAME_COLS`` / ``PLAYER_COLS`` / ``TURN_COLS``;
``bonfire_sim.sim.tables`` turns them into Arrow tables.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from bonfire_sim.rules import layout as L
from bonfire_sim.rules.moves import apply_move, legal_moves
from bonfire_sim.rules.scoring import NLINES, final_result
from bonfire_sim.rules.setup import setup_game
from bonfire_sim.sim.loop import choose

GAME_COLS = ("n_rounds", "n_turns", "end_reason", "trigger_turn", "winner_seat",
             "n_decisions")
PLAYER_COLS = (
    "seat", "board", "score", "rank", "won",
    "score_bonfires", "score_guardians", "score_portals", "score_paths", "score_common",
    "score_fate_supply", "score_leftovers", "score_ingame",
    "n_bonfires", "n_tasks_unlit", "n_paths", "n_portals", "n_guardians", "n_gnomes",
    "n_elders", "passed_at_countdown", "pass_turn", "n_turns_played",
    "pts_elders", "pts_council", "pts_fire", "pts_pass", "pts_tom",
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
    out[row, 0] = s[L.G_TURN]
    out[row, 1] = s[L.G_ROUND]
    out[row, 2] = seat
    out[row, 5] = res
    out[row, 6] = tiles
    out[row, 7] = s[pb + L.P_TILES + 6]
    out[row, 8] = s[pb + L.P_RES + 5]
    out[row, 9] = s[pb + L.P_SCORE]
    out[row, 10] = held
    out[row, 11] = lit
    out[row, 12] = s[pb + L.P_NPATH]
    out[row, 13] = s[pb + L.P_NPORTAL]
    out[row, 14] = guards
    out[row, 15] = s[pb + L.P_NGNOME]
    out[row, 16] = s[pb + L.P_FATE_HI] - s[pb + L.P_FATE_LO]
    out[row, 17] = s[L.G_COUNCIL_N]
    out[row, 18] = s[L.G_CD_ACTIVE]
    out[row, 19] = left


@njit(cache=True)
def play_games(template, p, humans, rng_game, rng_strat, seat_strategy, seat_weights,
               log_turns, games, players, tasks, gnomes, abilities, turns, turn_game):
    """Play ``len(rng_game)`` games and fill the output matrices.

    template: blank state; rng_game/rng_strat: per-game RNG seeds; seat_strategy (G, NP):
    strategy id per game and seat; seat_weights (G, NP, W); log_turns (G,): 1 = keep the
    turn log of that game.  Outputs: games (G, len(GAME_COLS)); players (G, NP,
    len(PLAYER_COLS)); tasks, gnomes, abilities as described at TASK_W; turns (rows,
    len(TURN_COLS)) with turn_game (rows,) = game row.
    Returns the number of turn-log rows written.
    """
    moves = np.zeros((L.MAX_MOVES, L.MOVE_W), np.int64)
    trow = 0
    for gi in range(rng_game.shape[0]):
        s = template.copy()
        s[L.G_RNG] = rng_game[gi]
        s[L.G_RNG_STRAT] = rng_strat[gi]
        setup_game(s, p, humans)
        while s[L.G_OVER] == 0:
            n = legal_moves(s, p, moves)
            seat = s[L.G_CUR]
            i = choose(s, p, moves, n, seat_strategy[gi, seat], seat_weights[gi, seat])
            kind = moves[i, 0]
            ph = s[L.G_PHASE]
            if log_turns[gi] == 1 and trow < turns.shape[0] and (
                    ph == L.PH_MAIN or (ph == L.PH_POST and kind == L.M_BONUS)):
                _turn_row(s, trow, turns)
                turns[trow, 3] = kind
                turns[trow, 4] = moves[i, 1]
                turn_game[trow] = gi
                trow += 1
            apply_move(s, p, moves[i])
        record_game(s, p, gi, games, players, tasks, gnomes, abilities)
    return trow


@njit(cache=True)
def record_game(s, p, gi, games, players, tasks, gnomes, abilities):
    """Write finished game ``s`` into row ``gi`` of the output matrices (see play_games)."""
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
    games[gi, 0] = s[L.G_ROUND]
    games[gi, 1] = s[L.G_TURN]
    games[gi, 2] = s[L.G_END]
    games[gi, 3] = s[L.G_TRIGGER_TURN]
    games[gi, 4] = winner if nwin == 1 else -1
    games[gi, 5] = s[L.G_DECISIONS]
    for seat in range(nseats):
        pb = L.PLAYER0 + seat * L.PSIZE
        row = players[gi, seat]
        row[0] = seat
        row[1] = s[pb + L.P_BOARD]
        row[2] = scores[seat]
        row[3] = ranks[seat]
        row[4] = won[seat]
        for k in range(NLINES):
            row[5 + k] = lines[seat, k]
        lit = 0
        unlit = 0
        for k in range(7):
            t = s[pb + L.P_TASK + k]
            tasks[gi, seat, k] = t
            tasks[gi, seat, 7 + k] = s[pb + L.P_LIT + k] if t >= 0 else 0
            tasks[gi, seat, 14 + k] = s[pb + L.P_TASK_AT + k]
            tasks[gi, seat, 21 + k] = s[pb + L.P_LIT_AT + k]
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
        row[13] = lit
        row[14] = unlit
        row[15] = s[pb + L.P_NPATH]
        row[16] = s[pb + L.P_NPORTAL]
        row[17] = guards
        row[18] = s[pb + L.P_NGNOME]
        row[19] = s[pb + L.P_NELDER]
        row[20] = s[pb + L.P_PASSED]
        row[21] = s[pb + L.P_PASS_TURN]
        row[22] = s[pb + L.P_TURNS]
        row[23] = s[pb + L.P_PTS_ELDER]
        row[24] = s[pb + L.P_PTS_COUNCIL]
        row[25] = s[pb + L.P_PTS_FIRE]
        row[26] = s[pb + L.P_PTS_PASS]
        row[27] = s[pb + L.P_PTS_TOM]
