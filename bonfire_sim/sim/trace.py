"""Read game states for the trace: stock diffs, move facts, Tom's turns, board snapshots.

Pure functions over state vectors (they never change a state they are given): each turns
engine integers into the names of ``bonfire_sim.rules.components``, so a trace reads
without the layout at hand.  ``bonfire_sim.sim.play`` calls them around every move;
``bonfire_sim.sim.narrate`` turns their dicts into sentences.

Numbers kept as the engine numbers them (they match the move rows): islands 0-13, bonfire
spaces and path positions 0-6 (path 0 = the Starting Tile), portal notches 0-6, council
spaces 0-7.  Gnomes are labelled by card: ``S15`` = specialist 15 (gnome id 14), ``E3`` =
elder 3 (gnome id 29).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from bonfire_sim.rules import components as C
from bonfire_sim.rules import layout as L
from bonfire_sim.rules import tables as T
from bonfire_sim.rules.procession import extra_steps

STOCK_NAMES = C.RESOURCES + C.ACTION_TILES  # P_RES (6) then P_TILES (7), adjacent
N_STOCK = len(STOCK_NAMES)
N_RES = len(C.RESOURCES)
assert L.P_TILES == L.P_RES + N_RES, "stock() reads resources and tiles as one slice"
assert L.G_PAID + N_STOCK <= L.GLOBAL_SIZE, "G_PAID holds one count per stock slot"
STAY = -9  # procession destination "the guardian does not move" (procession.STAY)
REWARD_NAMES = ((1, "tile"), (2, "resource"), (4, "2 points"), (8, "portal"))
TOM_SEAT = 1
TOM_KINDS = T._TOM_KINDS  # card kind code -> name, as tables encodes TOM_DECK (code >> 1)


# ---- names ----------------------------------------------------------------------------
def gnome_label(gid: int) -> str:
    """``S15`` for specialist 15 (gnome id 14), ``E3`` for elder 3 (gnome id 29)."""
    if gid < C.N_SPECIALISTS:
        return f"S{gid + 1}"
    return f"E{gid - C.N_SPECIALISTS + 1}"


def gnome_info(gid: int) -> dict:
    """Label, resource and ability text of a gnome card."""
    if gid < C.N_SPECIALISTS:
        res, text = C.SPECIALIST_RESOURCE[gid], C.SPECIALIST_TEXT[gid + 1]
    else:
        e = gid - C.N_SPECIALISTS
        res, text = C.ELDER_RESOURCE[e], C.ELDER_TEXT[e]
    return {"gnome": gnome_label(gid), "resource": C.RESOURCES[res], "text": text}


def task_info(t: int, p: np.ndarray) -> dict:
    """Id, colour, points (from the parameter vector) and condition of task t."""
    task = C.TASKS[t]
    return {"task": task.id, "colour": task.colour, "points": int(p[T.T_POINTS + t]),
            "text": task.text}


def island_info(i: int) -> dict:
    """What island i offers: its resource (task island) or guardian colour, and corner."""
    kind, val, corner = C.ISLANDS[i]
    out: dict = {"island": i, "kind": kind}
    out["resource" if kind == "task" else "guardian"] = val
    out["corner"] = corner
    return out


def path_label(t: int) -> str:
    """``red/herb``: crystal colour and resource of path tile t."""
    crystal, res = C.PATH_TILES[t]
    return f"{crystal}/{res}"


def guardian_place(pos: int) -> str:
    """Where a guardian stands: ``waiting``, ``path 0`` (Starting Tile) .. ``bonfire 6``."""
    if pos == L.GP_NONE:
        return "none"
    if pos == L.GP_WAIT:
        return "waiting"
    if pos >= L.GP_BONFIRE:
        return f"bonfire {pos - L.GP_BONFIRE}"
    return f"path {pos}"


# ---- stock ----------------------------------------------------------------------------
def stock(s: np.ndarray, seat: int) -> np.ndarray:
    """The seat's resources then action tiles (13 counts, a copy)."""
    pb = L.player_base(seat)
    return s[pb + L.P_RES:pb + L.P_RES + N_STOCK].copy()


def stock_diff(before: np.ndarray, after: np.ndarray) -> tuple[dict, dict]:
    """(paid, gained): decreases and increases by name, in component order."""
    paid: dict[str, int] = {}
    gained: dict[str, int] = {}
    for k, name in enumerate(STOCK_NAMES):
        d = int(after[k] - before[k])
        if d < 0:
            paid[name] = -d
        elif d > 0:
            gained[name] = d
    return paid, gained


def split_diff(before: np.ndarray, mid: np.ndarray, after: np.ndarray) -> tuple[dict, dict]:
    """(paid, gained) of a move whose stock went before -> mid (payment) -> after (gains).

    Whatever rose from before to mid (an extra such as specialist 19's reward, which the
    mid estimate leaves in) counts as gained too.
    """
    paid, _ = stock_diff(before, mid)
    _, gained = stock_diff(np.zeros_like(mid), after - mid + np.maximum(mid - before, 0))
    return paid, gained


def score(s: np.ndarray, seat: int) -> int:
    """Points scored during play so far."""
    return int(s[L.player_base(seat) + L.P_SCORE])


def pass_points(s: np.ndarray, seat: int) -> int:
    """Points scored so far by passing in the countdown."""
    return int(s[L.player_base(seat) + L.P_PTS_PASS])


def stock_after_payment(s0: np.ndarray, s1: np.ndarray, p: np.ndarray, mv: np.ndarray,
                        seat: int) -> np.ndarray | None:
    """The stock between a move's payment and its gains, for moves that paid, else None.

    A net diff would cancel a tile paid against the same tile gained (a fire tile paid to
    the Great Bonfire and a fire tile taken from it).  The engine records what the action
    paid, the payer's choices and option I's discard included (``G_PAID``), so the stock
    before the gains is the stock before the move minus that.
    """
    paid = s1[L.G_PAID:L.G_PAID + N_STOCK]
    if not paid.any():
        return None
    return stock(s0, seat) - paid


# ---- move facts: one function per move kind, (s0, s1, p, mv, seat) -> dict ------------
def _pb(seat: int) -> int:
    return L.player_base(seat)


def _d_swap(s0, s1, p, mv, seat):
    t = int(s1[_pb(seat) + L.P_FATE_SUP])
    return {"swapped": bool(mv[1]), "fate_tile": list(C.FATE_TILES[t])}


def _d_fate(s0, s1, p, mv, seat):
    pb = _pb(seat)
    end, r, c, o = (int(x) for x in mv[1:5])
    at = s0[pb + L.P_FATE_LO] if end == 0 else s0[pb + L.P_FATE_HI] - 1
    t = int(s0[pb + L.P_FATE_SUP + at])
    steps = ((0, 1), (0, -1), (1, 0), (-1, 0))[o]
    cells = [[r + i * steps[0], c + i * steps[1], sym] for i, sym in enumerate(C.FATE_TILES[t])]
    return {"end": "top" if end == 0 else "bottom", "fate_tile": list(C.FATE_TILES[t]),
            "cells": cells, "council": int(s0[L.G_PHASE]) == L.PH_C_FATE,
            "left": int(s1[pb + L.P_FATE_HI] - s1[pb + L.P_FATE_LO])}


def _d_ship(s0, s1, p, mv, seat):
    return {**island_info(int(mv[1])), "cost": int(mv[2]),
            "from": int(s0[_pb(seat) + L.P_SHIP])}


def _new_path(s1, seat):
    pb = _pb(seat)
    n = int(s1[pb + L.P_NPATH])
    return {"position": n, "path_tile": path_label(int(s1[pb + L.P_PATH + n]))}


def _d_path(s0, s1, p, mv, seat):
    a = int(mv[1])
    src = "deck" if a == 4 else f"display slot {a}"
    return {**_new_path(s1, seat), "source": src}


def _d_refresh(s0, s1, p, mv, seat):
    disp = [path_label(int(t)) for t in s1[L.PATH_DISP:L.PATH_DISP + C.PATH_DISPLAY] if t >= 0]
    return {"display": disp}


def _d_task(s0, s1, p, mv, seat):
    pb = _pb(seat)
    i = int(s0[pb + L.P_SHIP])
    slot, pile, space = (int(x) for x in mv[1:4])
    taken = int(s0[pb + L.P_OFF_TAKEN + pile])
    offer = int(s0[pb + L.P_OFF_PILE + pile * C.OFFERING_PILE + taken])
    return {**task_info(int(s0[L.ISLAND_TASKS + i * 3 + slot]), p), "island": i,
            "space": space, "offering": C.RESOURCES[offer], "pile": pile}


def _d_guard(s0, s1, p, mv, seat):
    return {"guardian": C.GUARDIAN_COLOURS[int(mv[1])],
            "island": int(s0[_pb(seat) + L.P_SHIP])}


def _d_procession(s0, s1, p, mv, seat):
    extra = int(extra_steps(s0, _pb(seat)))
    return {"steps": int(mv[1]) + extra}


def _d_move_guard(s0, s1, p, mv, seat):
    g, dest = int(mv[1]), int(mv[2])
    return {"guardian": C.GUARDIAN_COLOURS[g],
            "from": guardian_place(int(s0[_pb(seat) + L.P_GUARD + g])),
            "to": "stays" if dest == STAY else guardian_place(dest),
            "council": int(s0[L.G_PHASE]) == L.PH_C_MOVE}


def _d_fire(s0, s1, p, mv, seat):
    pb = _pb(seat)
    g, rset, shape, cost = (int(x) for x in mv[1:5])
    tile, res = C.GREAT_BONFIRE[g]
    m = L.REWARD_SETS[rset]
    notch = [k for k in range(7) if s1[pb + L.P_PORTAL + k] > s0[pb + L.P_PORTAL + k]]
    council = int(s0[L.G_PHASE]) == L.PH_C_FIRE
    out = {"space": g, "space_tile": tile, "space_resource": res,
           "rewards": [name for bit, name in REWARD_NAMES if m & bit],
           "cost": 0 if council else cost, "council": council}
    if shape >= 0:
        out["portal"] = C.PORTAL_SHAPES[shape]
        out["notch"] = notch[0] if notch else -1
    return out


def _d_gnome(s0, s1, p, mv, seat):
    mode = int(mv[2]) if int(mv[0]) == L.M_GNOME else -1
    return {**gnome_info(int(mv[1])), "mode": mode}


def _d_ignite(s0, s1, p, mv, seat):
    k = int(mv[1])
    return {**task_info(int(s0[_pb(seat) + L.P_TASK + k]), p), "space": k}


def _d_bonus(s0, s1, p, mv, seat):
    name, text = C.COMMON[int(mv[1])]
    return {"common": name, "text": text}


def _d_council(s0, s1, p, mv, seat):
    sp = int(mv[1])
    colour = int(s0[L.G_NOV_COLOUR])
    return {"space": sp, "bonus": C.COUNCIL[sp][0], "text": C.COUNCIL[sp][1],
            "choice": "point" if mv[2] == 1 else "bonus",
            "novice": "neutral" if colour == L.NEUTRAL else "own",
            "council_novices": int(s1[L.G_COUNCIL_N])}


def _d_take_path(s0, s1, p, mv, seat):
    a = int(mv[1])
    src = f"display slot {a}" if a < 10 else "searched from the deck"
    return {**_new_path(s1, seat), "source": src}


def _d_take_guard(s0, s1, p, mv, seat):
    return {"guardian": C.GUARDIAN_COLOURS[int(mv[1])]}


def _d_ship_to(s0, s1, p, mv, seat):
    return {**island_info(int(mv[1])), "cost": 0, "from": int(s0[_pb(seat) + L.P_SHIP])}


def _d_end(s0, s1, p, mv, seat):
    return {"declines_island": int(s0[L.G_PHASE]) == L.PH_SHIP_ACTION}


def _d_none(s0, s1, p, mv, seat):
    return {}


MOVE_FACTS: dict[int, Callable[..., dict]] = {
    L.M_END: _d_end,
    L.M_SWAP: _d_swap,
    L.M_FATE: _d_fate,
    L.M_SHIP: _d_ship,
    L.M_PATH: _d_path,
    L.M_PATH_REFRESH: _d_refresh,
    L.M_TASK: _d_task,
    L.M_GUARD: _d_guard,
    L.M_PROCESSION: _d_procession,
    L.M_FIRE: _d_fire,
    L.M_GNOME: _d_gnome,
    L.M_IGNITE: _d_ignite,
    L.M_BONUS: _d_bonus,
    L.M_PASS: _d_none,
    L.M_MOVE_GUARD: _d_move_guard,
    L.M_COUNCIL: _d_council,
    L.M_TAKE_PATH: _d_take_path,
    L.M_TAKE_GUARD: _d_take_guard,
    L.M_TAKE_SPEC: _d_gnome,
    L.M_SHIP_TO: _d_ship_to,
    L.M_SKIP: _d_none,
    L.M_PAY: _d_none,
    L.M_DISCARD: _d_none,
}


def move_facts(s0: np.ndarray, s1: np.ndarray, p: np.ndarray, mv: np.ndarray, seat: int) -> dict:
    """What a move did, in component names, read from the states before and after it."""
    return MOVE_FACTS.get(int(mv[0]), _d_none)(s0, s1, p, mv, seat)


# ---- Tom (solo) -----------------------------------------------------------------------
def _tom_cards(s0: np.ndarray, s1: np.ndarray, turns: int) -> list[str]:
    """Names of the cards Tom played between s0 and s1 ("?" where a reshuffle hid one)."""
    n = C.TOM_DECK_SIZE
    pos0, pos1 = int(s0[L.G_TOM_POS]), int(s1[L.G_TOM_POS])
    passes = int(s1[L.G_TOM_PASSES] - s0[L.G_TOM_PASSES])
    if passes == 0:
        codes = list(s1[L.TOM_DECK + pos1 - turns:L.TOM_DECK + pos1])
    elif passes == 1:
        codes = list(s0[L.TOM_DECK + pos0:L.TOM_DECK + n]) + list(s1[L.TOM_DECK:L.TOM_DECK + pos1])
    else:
        codes = [-1] * (turns - pos1) + list(s1[L.TOM_DECK:L.TOM_DECK + pos1])
    return [TOM_KINDS[c >> 1] if c >= 0 else "?" for c in codes[-turns:]]


def _revealed(s0: np.ndarray, s1: np.ndarray) -> list[dict]:
    """Specialists Tom turned onto the discard pile, with the resource that steers him."""
    n0, n1 = int(s0[L.G_SPEC_DISC_N]), int(s1[L.G_SPEC_DISC_N])
    start = n0 if n1 >= n0 else 0  # a reshuffle of the discards restarts the pile
    return [{"gnome": gnome_label(int(g)), "resource": C.RESOURCES[C.SPECIALIST_RESOURCE[int(g)]]}
            for g in s1[L.SPEC_DISC + start:L.SPEC_DISC + n1]]


def tom_facts(s0: np.ndarray, s1: np.ndarray, p: np.ndarray) -> dict | None:
    """What Tom did between two states (his automatic turns), None if he had no turn."""
    pb = _pb(TOM_SEAT)
    turns = int(s1[pb + L.P_TURNS] - s0[pb + L.P_TURNS])
    if turns <= 0:
        return None
    took: dict[str, list] = {}
    gnomes = [gnome_label(g) for g in range(L.NGNOME)
              if s1[pb + L.P_GNOME + g] > s0[pb + L.P_GNOME + g]]
    paths = [path_label(int(s1[pb + L.P_PATH + k]))
             for k in range(int(s0[pb + L.P_NPATH]) + 1, int(s1[pb + L.P_NPATH]) + 1)]
    tasks = [{**task_info(int(s1[pb + L.P_TASK + k]), p), "space": k} for k in range(7)
             if s1[pb + L.P_TASK + k] >= 0 and s0[pb + L.P_TASK + k] < 0]
    guards = [C.GUARDIAN_COLOURS[g] for g in range(5)
              if s0[pb + L.P_GUARD + g] == L.GP_NONE and s1[pb + L.P_GUARD + g] != L.GP_NONE]
    portals = [k for k in range(7) if s1[pb + L.P_PORTAL + k] > s0[pb + L.P_PORTAL + k]]
    council = [sp for sp in range(C.COUNCIL_SPACES)
               for _ in range(int(s1[L.COUNCIL + sp * 5 + TOM_SEAT]
                                  - s0[L.COUNCIL + sp * 5 + TOM_SEAT]))]
    flat = [sp for sp in range(C.COUNCIL_SPACES)
            for _ in range(int(s1[L.COUNCIL_FLAT + sp] - s0[L.COUNCIL_FLAT + sp]))]
    for key, val in (("gnomes", gnomes), ("paths", paths), ("tasks", tasks),
                     ("guardians", guards), ("portals", portals), ("novices", council),
                     ("neutral_novices", flat)):
        if val:
            took[key] = val
    out = {"turns": turns, "cards": _tom_cards(s0, s1, turns),
           "revealed": _revealed(s0, s1), "took": took,
           "points": score(s1, TOM_SEAT) - score(s0, TOM_SEAT),
           "deck_pass": int(s1[L.G_TOM_PASSES]), "last_round": int(s1[L.G_ROUND])}
    if portals:  # he turns it clockwise to the portal (a full turn if it points there)
        out["great_bonfire"] = int(s1[L.G_GB_POS])
    return out


# ---- board snapshots and the score table ----------------------------------------------
def seat_summary(s: np.ndarray, seat: int) -> dict:
    """A compact view of one city: tasks/bonfires, paths, portals, guardians, gnomes, score."""
    pb = _pb(seat)
    tasks = [{"space": k, "task": C.TASKS[int(s[pb + L.P_TASK + k])].id,
              "lit": bool(s[pb + L.P_LIT + k])}
             for k in range(C.MAX_TASKS) if s[pb + L.P_TASK + k] >= 0]
    st = stock(s, seat)
    return {
        "seat": seat,
        "score": score(s, seat),
        "bonfires": sum(t["lit"] for t in tasks),
        "tasks": tasks,
        "paths": [path_label(int(s[pb + L.P_PATH + k]))
                  for k in range(1, int(s[pb + L.P_NPATH]) + 1)],
        "portals": [k for k in range(7) if s[pb + L.P_PORTAL + k]],
        "guardians": {C.GUARDIAN_COLOURS[g]: guardian_place(int(s[pb + L.P_GUARD + g]))
                      for g in range(5) if s[pb + L.P_GUARD + g] != L.GP_NONE},
        "gnomes": [gnome_label(g) for g in range(L.NGNOME) if s[pb + L.P_GNOME + g]],
        "fate_left": int(s[pb + L.P_FATE_HI] - s[pb + L.P_FATE_LO]),
        "stock": {name: int(st[k]) for k, name in enumerate(STOCK_NAMES) if st[k]},
    }


def board_snapshot(s: np.ndarray) -> dict:
    """Every seat's summary plus the shared board: Great Bonfire, council, countdown."""
    return {
        "great_bonfire": int(s[L.G_GB_POS]),
        "council_novices": int(s[L.G_COUNCIL_N]),
        "countdown": int(s[L.G_CD_PILE]) if s[L.G_CD_ACTIVE] else None,
        "seats": [seat_summary(s, seat) for seat in range(int(s[L.G_NSEATS]))],
    }

