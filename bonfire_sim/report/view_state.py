"""Read a game-state vector into the flat, JSON-able board the game viewer draws.

``board(s, p)`` turns one engine state into ``{key: value}`` with small integer lists
(ids as the engine numbers them); ``static(p, ...)`` gives, once per game, the names and
numbers the ids refer to (tasks with their points under the game's parameters, gnomes,
path tiles, islands, boards...).  Keys are flat (``g.round``, ``s2.stock``) so that the
viewer stores each frame as the keys that changed since the previous one.

Only reads the state (never changes it); every number comes from ``layout`` offsets or
``scoring.score_lines``, so the drawing shows what the rules engine holds.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from bonfire_sim.rules import components as C
from bonfire_sim.rules import layout as L
from bonfire_sim.rules import tables as T
from bonfire_sim.rules.scoring import LINE_NAMES, NLINES, score_lines
from bonfire_sim.sim.trace import STOCK_NAMES, TOM_KINDS, TOM_SEAT, gnome_label

NCELL = L.FATE_W * L.FATE_W
# One letter per fate symbol in C.FATE_SYMBOLS order (ship path task fire guard gNome);
# "." = an empty cell.
FATE_CHARS = "SPTFGN"
assert len(FATE_CHARS) == len(C.FATE_SYMBOLS), "one letter per fate symbol"


def _ints(a: np.ndarray) -> list[int]:
    return [int(x) for x in a]


def _fate_grid(s: np.ndarray, pb: int) -> str:
    """The seat's fate grid, FATE_W x FATE_W cells row by row: a symbol letter or '.'."""
    cells = s[pb + L.P_FATE:pb + L.P_FATE + NCELL]
    return "".join("." if c < 0 else FATE_CHARS[int(c)] for c in cells)


def _fate_tiles(s: np.ndarray, p: np.ndarray, pb: int, ids: list[int]) -> list[str]:
    """Fate tiles as 3-letter strings (their symbols in order)."""
    return ["".join(FATE_CHARS[int(p[T.FATE_TILE + f * 3 + i])] for i in range(3))
            for f in ids]


def seat_board(s: np.ndarray, p: np.ndarray, seat: int) -> dict[str, Any]:
    """One seat's city, supply and scores, keyed ``s<seat>.<field>``."""
    pb = L.player_base(seat)
    lines = np.zeros(NLINES, np.int64)
    total = int(score_lines(s, p, seat, lines))
    lo, hi = int(s[pb + L.P_FATE_LO]), int(s[pb + L.P_FATE_HI])
    column = _ints(s[pb + L.P_FATE_SUP + lo:pb + L.P_FATE_SUP + hi])
    front = [] if s[pb + L.P_STARTED] else [int(s[pb + L.P_FATE_SUP])]
    taken = _ints(s[pb + L.P_OFF_TAKEN:pb + L.P_OFF_TAKEN + 2])
    piles = [_ints(s[pb + L.P_OFF_PILE + k * C.OFFERING_PILE + taken[k]:
                     pb + L.P_OFF_PILE + (k + 1) * C.OFFERING_PILE]) for k in range(2)]
    out = {
        "score": int(s[pb + L.P_SCORE]),  # points scored during play
        "total": total,  # final scoring if the game ended now
        "lines": _ints(lines),
        "stock": _ints(s[pb + L.P_RES:pb + L.P_RES + len(STOCK_NAMES)]),
        "ship": int(s[pb + L.P_SHIP]),
        "tasks": _ints(s[pb + L.P_TASK:pb + L.P_TASK + C.MAX_TASKS]),
        "lit": _ints(s[pb + L.P_LIT:pb + L.P_LIT + C.MAX_TASKS]),
        "novice": _ints(s[pb + L.P_NOVICE:pb + L.P_NOVICE + C.MAX_TASKS]),
        "paths": _ints(s[pb + L.P_PATH:pb + L.P_PATH + 7]),
        "npath": int(s[pb + L.P_NPATH]),
        "portals": _ints(s[pb + L.P_PORTAL:pb + L.P_PORTAL + 7]),
        "guards": _ints(s[pb + L.P_GUARD:pb + L.P_GUARD + 5]),
        "gnomes": [g for g in range(L.NGNOME) if s[pb + L.P_GNOME + g]],
        "fate": _fate_grid(s, pb),
        "column": _fate_tiles(s, p, pb, column),
        "front": _fate_tiles(s, p, pb, front),
        "offer": piles,  # offering tiles still to deliver, per pile, top first
        "offered": _ints(s[pb + L.P_OFF_ISLAND:pb + L.P_OFF_ISLAND + C.N_ISLANDS]),
        "cd": int(s[pb + L.P_CD_TILE]),
        "passed": int(s[pb + L.P_PASSED]),
        "out": int(s[pb + L.P_OUT]),
        "turns": int(s[pb + L.P_TURNS]),
        "board": int(s[pb + L.P_BOARD]),
    }
    return {f"s{seat}.{k}": v for k, v in out.items()}


def board(s: np.ndarray, p: np.ndarray) -> dict[str, Any]:
    """The whole table after a decision: shared board (``g.*``) and every seat."""
    n_disc = int(s[L.G_SPEC_DISC_N])
    g = {
        "round": int(s[L.G_ROUND]),
        "turn": int(s[L.G_TURN]),
        "cur": int(s[L.G_CUR]),
        "phase": L.PHASE_NAMES[int(s[L.G_PHASE])],
        "over": int(s[L.G_OVER]),
        "gb": int(s[L.G_GB_POS]),
        "gb_used": int(s[L.G_GB_USED]),
        "gb_portals": _ints(s[L.GB_PORTALS:L.GB_PORTALS + 49]),
        "council": _ints(s[L.COUNCIL:L.COUNCIL + C.COUNCIL_SPACES * 5]),
        "council_flat": _ints(s[L.COUNCIL_FLAT:L.COUNCIL_FLAT + C.COUNCIL_SPACES]),
        "council_n": int(s[L.G_COUNCIL_N]),
        "common": _ints(s[L.COMMON_NOVICE:L.COMMON_NOVICE + C.COMMON_TASKS]),
        "cd_active": int(s[L.G_CD_ACTIVE]),
        "cd_pile": int(s[L.G_CD_PILE]),
        "islands": _ints(s[L.ISLAND_TASKS:L.ISLAND_TASKS + C.N_ISLANDS * 3]),
        "island_guards": _ints(s[L.ISLAND_GUARDS:L.ISLAND_GUARDS + 5]),
        "path_disp": _ints(s[L.PATH_DISP:L.PATH_DISP + C.PATH_DISPLAY]),
        "path_deck": int(s[L.G_PATH_N]),
        "spec_disp": _ints(s[L.SPEC_DISP:L.SPEC_DISP + C.SPECIALIST_DISPLAY]),
        "spec_pile": int(s[L.G_SPEC_N]),
        "elders": _ints(s[L.ELDER_AVAIL:L.ELDER_AVAIL + C.N_ELDERS]),
    }
    if s[L.G_SOLO]:
        g["tom_pos"] = int(s[L.G_TOM_POS])
        g["tom_passes"] = int(s[L.G_TOM_PASSES])
        card = int(s[L.G_TOM_CARD])
        g["tom_card"] = TOM_KINDS[card >> 1] if card >= 0 else ""
        g["tom_deck"] = [TOM_KINDS[int(c) >> 1] for c in s[L.TOM_DECK:L.TOM_DECK + C.TOM_DECK_SIZE]]
        g["tom_novices"] = int(s[L.player_base(TOM_SEAT) + L.P_TOM_NOVICES])
        g["spec_disc"] = _ints(s[L.SPEC_DISC:L.SPEC_DISC + n_disc])
    out = {f"g.{k}": v for k, v in g.items()}
    for seat in range(int(s[L.G_NSEATS])):
        out.update(seat_board(s, p, seat))
    return out


def static(p: np.ndarray) -> dict[str, Any]:
    """What the ids in ``board`` name, under the game's parameter vector ``p``."""
    fate_print = _ints(p[T.FATE_PRINT:T.FATE_PRINT + NCELL])
    return {
        "resources": list(C.RESOURCES),
        "tiles": list(C.ACTION_TILES),
        "fate_chars": FATE_CHARS,
        "fate_symbols": list(C.FATE_SYMBOLS),
        "fate_w": L.FATE_W,
        "fate_m": L.FATE_M,
        "fate_rows": int(p[T.FATE_ROWS]),
        "fate_cols": int(p[T.FATE_COLS]),
        "fate_print": fate_print,
        "tasks": [[t.id, t.colour, int(p[T.T_POINTS + i]), t.text]
                  for i, t in enumerate(C.TASKS)],
        "gnomes": [[gnome_label(g), C.RESOURCES[C.SPECIALIST_RESOURCE[g]]
                    if g < C.N_SPECIALISTS else C.RESOURCES[C.ELDER_RESOURCE[g - C.N_SPECIALISTS]],
                    C.SPECIALIST_TEXT[g + 1] if g < C.N_SPECIALISTS
                    else C.ELDER_TEXT[g - C.N_SPECIALISTS]] for g in range(L.NGNOME)],
        "path_tiles": [list(t) for t in C.PATH_TILES],
        "islands": [list(i) for i in C.ISLANDS],
        "great_bonfire": [[a, b] for a, b in C.GREAT_BONFIRE],
        "portal_shapes": list(C.PORTAL_SHAPES),
        "boards": list(C.BOARDS),
        "council": [name for name, _ in C.COUNCIL],
        "council_text": [text for _, text in C.COUNCIL],
        "common": [[name, text] for name, text in C.COMMON],
        "guardian_colours": list(C.GUARDIAN_COLOURS),
        "guard_points": _ints(p[T.GUARD_PTS:T.GUARD_PTS + 7]),
        "line_names": list(LINE_NAMES),
        "start_path": C.START_PATH_RESOURCE,
    }
