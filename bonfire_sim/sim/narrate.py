"""Turn a ``GameRecord`` into text a Bonfire player can follow.

Pure functions, light to import (no numba): ``narrate(record)`` returns the whole game as
lines; ``move_clause`` / ``tom_clause`` describe one event, ``board_table`` a snapshot,
``score_table`` the final scoring.  Every number comes from the event it describes (the
move row, what was paid, gained and scored), so a line can be traced back to ``move`` in
the JSON trace.  A stored trace narrates without replaying:
``narrate(GameRecord.from_dict(json.load(f)))``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from bonfire_sim.rules import components as C
from bonfire_sim.rules import layout as L
from bonfire_sim.sim.record import GameRecord

TILE_WORDS = {"ship": "ship", "path": "path", "task": "task", "fire": "fire",
              "guard": "guardian", "gnome": "gnome", "yellow": "yellow"}
PLURAL = {"blossom": "blossoms", "fruit": "fruits", "herb": "herbs", "shell": "shells",
          "root": "roots", "gold": "gold"}
END_TEXT = {
    "countdown": "the countdown tile 1 came back to the starting player",
    "stalled": "every player was out or had passed before the countdown began",
    "tom_deck": "Tom finished his last pass through his deck",
    "limit": "the engine's safety limit of decisions was reached",
    "none": "the game did not end",
}
# Sub-decisions of an ignite / bonus action: narrated on the same line as the novice.
CHAIN_PHASES = frozenset({"council", "c_path", "c_guard", "c_fire", "c_spec", "c_move",
                          "c_ship", "c_fate"})
COUNCIL_SHORT = {
    "gold2_yellow": "2 gold + 1 yellow tile", "path": "path tile", "guardian": "new guardian",
    "great_bonfire": "Great Bonfire", "specialist": "free specialist",
    "move_guardian": "move a guardian", "ship": "free ship move", "fate": "extra fate tile",
}
LEGEND = ("Numbers as in the move rows: islands 0-13, bonfire spaces and path positions "
          "0-6 (path 0 = Starting Tile), council spaces 0-7, fate cells (row,col) "
          "from 0,0 top left; "
          "S15 = specialist 15, E3 = elder 3; [+N points, M so far] = in-game score.")


# ---- small formatters ----------------------------------------------------------------
def items(stock: Mapping[str, int]) -> str:
    """``{"task": 1, "shell": 2}`` -> ``1 task tile + 2 shells``, in component order."""
    parts = []
    for name in C.RESOURCES + C.ACTION_TILES:
        n = stock.get(name, 0)
        if not n:
            continue
        if name in TILE_WORDS:
            parts.append(f"{n} {TILE_WORDS[name]} tile{'s' if n != 1 else ''}")
        else:
            parts.append(f"{n} {PLURAL[name] if n != 1 else name}")
    return " + ".join(parts) if parts else "nothing"


def _paying(ev: Mapping[str, Any]) -> str:
    return f", paying {items(ev['paid'])}" if ev["paid"] else ""


def _gaining(ev: Mapping[str, Any]) -> str:
    return f", gaining {items(ev['gained'])}" if ev["gained"] else ""


def _island(f: Mapping[str, Any]) -> str:
    what = f.get("resource") or f"{f.get('guardian')} guardian"
    return f"island {f['island']} ({what}{', corner' if f['corner'] else ''})"


def _task(f: Mapping[str, Any]) -> str:
    return f"{f['task']} '{f['text']}' ({f['colour']}, {f['points']} points)"


def _gnome(f: Mapping[str, Any]) -> str:
    label = f["gnome"]
    kind = "specialist" if label[0] == "S" else "elder"
    return f"{kind} {label[1:]} ({f['resource']}: {f['text']})"


def _place(where: str) -> str:
    return {"waiting": "the waiting area", "path 0": "path 0 (Starting Tile)"}.get(where, where)


def _n(n: int, word: str) -> str:
    """``1 novice``, ``2 novices``."""
    return f"{n} {word}{'' if n == 1 else 's'}"


# ---- one clause per move kind: (event) -> text ---------------------------------------
def _m_swap(ev):
    f = ev["facts"]
    how = "swapped in from the middle of the column" if f["swapped"] else "kept"
    return (f"starts with fate tile {'-'.join(f['fate_tile'])} ({how}), "
            f"gaining {items(ev['gained'])}")


def _m_fate(ev):
    f = ev["facts"]
    cells = ", ".join(f"{sym} ({r},{c})" for r, c, sym in f["cells"])
    src = "(no discard) " if f["council"] else ""
    text = (f"{src}places fate tile {'-'.join(f['fate_tile'])} from the {f['end']} of the "
            f"column: {cells}")
    if ev["paid"]:
        text += f"; first discards {items(ev['paid'])} (tile limit)"
    return f"{text}; gains {items(ev['gained'])} ({_n(f['left'], 'fate tile')} left)"


def _m_ship(ev):
    f = ev["facts"]
    src = "the harbour" if f["from"] < 0 else f"island {f['from']}"
    if ev["facts"]["cost"] == 0:
        return f"sails for free from {src} to {_island(f)}"
    return f"sails from {src} to {_island(f)}{_paying(ev)}"


def _m_path(ev):
    f = ev["facts"]
    how = "builds" if ev["move"][0] == L.M_PATH else "takes"
    free = "" if ev["paid"] else " for free"
    return (f"{how} path tile {f['position']}: {f['path_tile']} ({f['source']})"
            f"{free}{_paying(ev)}{_gaining(ev)}")


def _m_refresh(ev):
    return ("refreshes the path display (all 4 tiles showed one crystal colour); new "
            f"display: {', '.join(ev['facts']['display'])}")


def _m_task(ev):
    f = ev["facts"]
    return (f"receives task {_task(f)} from island {f['island']} onto bonfire space "
            f"{f['space']}, offering {f['offering']}{_paying(ev)}")


def _m_guard(ev):
    f = ev["facts"]
    if ev["move"][0] == L.M_GUARD:
        return (f"retrieves the {f['guardian']} guardian from island {f['island']} into "
                f"the waiting area{_paying(ev)}")
    return f"takes the {f['guardian']} guardian into the waiting area"


def _m_procession(ev):
    n = ev["facts"]["steps"]
    return f"starts a procession: each guardian may move up to {n} step{'s' * (n != 1)}" + (
        _paying(ev))


def _m_move_guard(ev):
    f = ev["facts"]
    if f["to"] == "stays":
        where = "in" if f["from"] == "waiting" else "on"
        return f"the {f['guardian']} guardian stays {where} {_place(f['from'])}"
    return (f"moves the {f['guardian']} guardian from {_place(f['from'])} to "
            f"{_place(f['to'])}{_gaining(ev)}")


def _m_fire(ev):
    f = ev["facts"]
    offer = f"{TILE_WORDS[f['space_tile']]} tile, {f['space_resource'] or '2 points only'}"
    head = ("turns the Great Bonfire for free" if f["council"]
            else "turns the Great Bonfire")
    takes = [items(ev["gained"])] if ev["gained"] else []
    if "2 points" in f["rewards"]:
        takes.append("2 points")
    if "portal" in f["rewards"]:
        takes.append(f"portal {f['portal']} into notch {f['notch']}")
    return f"{head} to space {f['space']} ({offer}){_paying(ev)}: takes {' + '.join(takes)}"


def _m_gnome(ev):
    f = ev["facts"]
    if ev["move"][0] == L.M_TAKE_SPEC:
        return f"takes {_gnome(f)} for free{_gaining(ev)}"
    return f"recruits {_gnome(f)}{_paying(ev)}{_gaining(ev)}"


def _m_ignite(ev):
    f = ev["facts"]
    return (f"ignites {f['task']} '{f['text']}' on bonfire space {f['space']} "
            f"({f['points']} points at the end)")


def _m_bonus(ev):
    f = ev["facts"]
    return f"bonus action (common task '{f['text']}' fulfilled)"


def _m_council(ev):
    f = ev["facts"]
    who = "neutral novice" if f["novice"] == "neutral" else "novice"
    head = f"{who} to council space {f['space']} ({COUNCIL_SHORT.get(f['bonus'], f['bonus'])})"
    if f["choice"] == "point":
        return f"{head}: takes 1 point instead of the bonus{_gaining(ev)}"
    if f["space"] == 0:
        return f"{head}: takes {items(ev['gained'])}"
    return f"{head}{_gaining(ev)}"


def _m_pass(ev):
    return "passes for the rest of the countdown"


def _m_end(ev):
    return "takes no action on the island" if ev["facts"]["declines_island"] else ""


def _m_pay(ev):
    return f"pays {items(ev['paid'])}" if ev["move"][0] == L.M_PAY else (
        f"discards {items(ev['paid'])}")


def _m_skip(ev):
    return "can do nothing: loses the turn and is out for the rest of the game"


CLAUSES: dict[int, Callable[[Mapping[str, Any]], str]] = {
    L.M_END: _m_end, L.M_SWAP: _m_swap, L.M_FATE: _m_fate, L.M_SHIP: _m_ship,
    L.M_PATH: _m_path, L.M_PATH_REFRESH: _m_refresh, L.M_TASK: _m_task,
    L.M_GUARD: _m_guard, L.M_PROCESSION: _m_procession, L.M_FIRE: _m_fire,
    L.M_GNOME: _m_gnome, L.M_IGNITE: _m_ignite, L.M_BONUS: _m_bonus, L.M_PASS: _m_pass,
    L.M_MOVE_GUARD: _m_move_guard, L.M_COUNCIL: _m_council, L.M_TAKE_PATH: _m_path,
    L.M_TAKE_GUARD: _m_guard, L.M_TAKE_SPEC: _m_gnome, L.M_SHIP_TO: _m_ship,
    L.M_SKIP: _m_skip, L.M_PAY: _m_pay, L.M_DISCARD: _m_pay,
}


def move_clause(ev: Mapping[str, Any]) -> str:
    """What a ``move`` event did, without the seat prefix ("" for a plain end of turn)."""
    return CLAUSES[ev["move"][0]](ev)


# ---- Tom ------------------------------------------------------------------------------
def tom_clause(ev: Mapping[str, Any]) -> str:
    """Tom's automatic turn(s): cards, revealed specialists, what he took."""
    t = ev["took"]
    takes = []
    takes += [f"task {x['task']} '{x['text']}' ({x['colour']}, {x['points']} points) as a "
              f"bonfire on space {x['space']}" for x in t.get("tasks", [])]
    takes += [f"{'specialist' if g[0] == 'S' else 'elder'} {g[1:]}" for g in t.get("gnomes", [])]
    takes += [f"path tile {x}" for x in t.get("paths", [])]
    takes += [f"the {x} guardian" for x in t.get("guardians", [])]
    takes += [f"a portal into notch {k}" for k in t.get("portals", [])]
    takes += [f"a novice to council space {k}" for k in t.get("novices", [])]
    takes += [f"a neutral novice (bonus action) to council space {k}"
              for k in t.get("neutral_novices", [])]
    if takes:
        took = "takes " + "; ".join(takes)
    elif ev["points"] > 0:
        took = "cannot act, the matching common task is done: points instead (special case 1)"
    else:
        took = "takes nothing"
    if "great_bonfire" in ev:
        took = f"turns the Great Bonfire to space {ev['great_bonfire']} and {took}"
    shown = ", ".join(f"{g['gnome']} ({g['resource']})" for g in ev["revealed"])
    reveal = f"reveals {shown}; " if shown else ""
    if ev["turns"] == 1:
        return f"plays card '{ev['cards'][0]}': {reveal}{took}"
    return (f"plays {ev['turns']} turns in a row, to round {ev['last_round']} (cards: "
            f"{', '.join(ev['cards'])}): {reveal}{took}")


# ---- tables ---------------------------------------------------------------------------
def table_lines(rows: Sequence[Mapping[str, Any]], indent: str = "  ") -> list[str]:
    """Rows as aligned columns under a header; numbers right-aligned."""
    if not rows:
        return []
    cols = list(rows[0])
    cells = [[("" if r[c] is None else str(r[c])) for c in cols] for r in rows]
    width = [max(len(c), *(len(x[i]) for x in cells)) for i, c in enumerate(cols)]
    num = [all(isinstance(r[c], int) for r in rows) for c in cols]

    def line(vals: Sequence[str]) -> str:
        return indent + "  ".join(v.rjust(w) if n else v.ljust(w)
                                  for v, w, n in zip(vals, width, num, strict=True)).rstrip()

    return [line(cols), line(["-" * w for w in width])] + [line(x) for x in cells]


def board_table(board: Mapping[str, Any], strategies: Sequence[str]) -> list[str]:
    """A snapshot as a small table, one row per seat (``*`` marks a lit bonfire)."""
    rows = []
    for st in board["seats"]:
        rows.append({
            "seat": st["seat"],
            "who": strategies[st["seat"]],
            "pts": st["score"],
            "tasks (space:id)": " ".join(f"{t['space']}:{t['task']}{'*' if t['lit'] else ''}"
                                         for t in st["tasks"]) or "-",
            "paths": " ".join(st["paths"]) or "-",
            "portals": " ".join(str(k) for k in st["portals"]) or "-",
            "guardians": " ".join(f"{c}@{w.replace(' ', '')}"
                                  for c, w in st["guardians"].items()) or "-",
            "gnomes": " ".join(st["gnomes"]) or "-",
        })
    cd = board["countdown"]
    foot = (f"  Great Bonfire at space {board['great_bonfire']}; High Council: "
            f"{_n(board['council_novices'], 'novice')}"
            + ("" if cd is None else f"; countdown running (pile at {cd})"))
    return table_lines(rows) + [foot]


def score_table(record: GameRecord) -> list[str]:
    """The final scoring: rows = seats; the 8 score lines, total and rank."""
    rows = [{"seat": row.pop("seat"), "who": row.pop("strategy"), **row}
            for row in record.table()]
    return table_lines(rows)


# ---- the whole game --------------------------------------------------------------------
def _who(record: GameRecord, seat: int) -> str:
    if record.solo and seat == 1:
        return "Tom"
    return f"seat {seat} ({record.strategies[seat]})"


def header(record: GameRecord) -> list[str]:
    """Title lines: seed, players, who sits where."""
    seats = ", ".join(_who(record, k) for k in range(len(record.strategies)))
    mode = "solo against Tom" if record.solo else f"{record.players} players"
    return [f"Bonfire, seed {record.seed}, {mode}: {seats}; seat 0 starts.", LEGEND]


def _points(ev: Mapping[str, Any], totals: dict[int, int]) -> str:
    if not ev.get("points"):
        return ""
    totals[ev["seat"]] = totals.get(ev["seat"], 0) + ev["points"]
    word = "point" if abs(ev["points"]) == 1 else "points"
    return f" [{ev['points']:+d} {word}, {totals[ev['seat']]} so far]"


def narrate(record: GameRecord) -> list[str]:
    """The whole game as lines of text: moves, Tom, countdown, snapshots, final scoring."""
    out = header(record)
    totals: dict[int, int] = {}
    turn_key = None
    for ev in record.events:
        kind = ev["kind"]
        who = _who(record, ev["seat"])
        prefix = f"Round {ev['round']}, {who}: "
        if kind == "move":
            text = move_clause(ev)
            if not text:
                continue
            text += _points(ev, totals)
            key = (ev["turn"], ev["seat"])
            if key == turn_key and ev["phase"] in CHAIN_PHASES:
                out[-1] += f"{': ' if ev['phase'] != 'council' else '; '}{text}"
            elif key == turn_key:
                out.append(f"    then {text}")
            else:
                out.append(prefix + text)
            turn_key = key
            continue
        turn_key = None
        if kind == "tom":
            out.append(prefix + tom_clause(ev) + _points(ev, totals))
        elif kind == "countdown":
            out.append(f"*** Round {ev['round']}: the High Council holds "
                       f"{ev['council_novices']} novices, the countdown begins (turn "
                       f"{ev['turn']}); the starting player takes the countdown tiles. ***")
        elif kind == "out":
            out.append(prefix + "can do nothing and is out for the rest of the game")
        elif kind == "auto_pass":
            out.append(prefix + "passes (countdown)" + _points(ev, totals))
        elif kind == "snapshot":
            what = "ignite" if ev["after"] == "ignite" else "bonus action"
            out.append(f"  Board after the {what} of {who}:")
            out += board_table(ev["board"], record.strategies)
        elif kind == "end":
            out += footer(record, ev)
    return out


def footer(record: GameRecord, end: Mapping[str, Any]) -> list[str]:
    """Game over: reason, the final board, the scoring table and the winner."""
    out = [f"Game over after turn {record.n_turns} (round {record.n_rounds}): "
           f"{END_TEXT.get(record.end_reason, record.end_reason)}.", "Final board:"]
    out += board_table(end["board"], record.strategies)
    out += ["Final scoring:"] + score_table(record)
    winners = [k for k, w in enumerate(record.won) if w]
    if winners:
        names = " and ".join(_who(record, k) for k in winners)
        out.append(f"Winner: {names} with {record.scores[winners[0]]} points.")
    else:
        out.append("No winner (a solo tie wins for nobody).")
    return out
