"""The report's first screen: the errata sheet's four answer cards (start player, tasks,
gnomes, Tom), then the population note and the robustness marks in one line each.

From an errata sheet (``report --errata DIR/errata.json``: planted together and verified
on fresh deals) or, without one, from the report's own frames: the same four questions,
each marked "not verified on fresh deals".  A task is printed once, so its card gives one
value per task (``errata_measure.card_proposals``: the inverse-variance mean over the
player counts), never one per count.  Nothing here computes a fork.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from bonfire_sim.analysis.cards.probes import gnomes_in_print_order
from bonfire_sim.analysis.errata_cards import card_proposals
from bonfire_sim.analysis.flags import flagged
from bonfire_sim.errors import DataError
from bonfire_sim.infra.numtext import number
from bonfire_sim.report import groups as G
from bonfire_sim.report import html as H
from bonfire_sim.report.answer_cards import NOT_VERIFIED, card, cards_from_sheet


def _pp(v: float) -> str:
    return f"{100 * v:+.1f}" if math.isfinite(v) else "–"


def _setting_data(by_id: Mapping[str, Any], sid: str) -> list[tuple[str, dict[str, Any]]]:
    return list((by_id.get(sid) or {}).get("data", {}).get("by_setting", []))


def _primary(by_id: Mapping[str, Any], sid: str) -> tuple[list[tuple[str, dict[str, Any]]], str]:
    """The first setting only (the runs named first), and a note naming the others.  A
    card answers for one setting: pooling the rows of two populations (other players,
    variants or overrides) into one printed value would mix games that differ; the other
    settings are the details' own answers and the robustness marks."""
    parts = _setting_data(by_id, sid)
    if len(parts) <= 1:
        return parts, ""
    return parts[:1], (f"; answered for {parts[0][0]}, the first setting named "
                       f"({len(parts) - 1} other setting(s) in the details)")


def _who(frames: Sequence[pd.DataFrame]) -> str:
    """Who played the rows behind a card, the named mixes by name (one line, not a seat
    list per configuration)."""
    from bonfire_sim.lineup import short_who

    seen = sorted({str(w) for f in frames if "who" in f for w in f["who"].dropna()})
    return short_who([s for w in seen for s in w.split("; ")])


def seat_card(by_id: Mapping[str, Any]) -> dict[str, Any]:
    parts, prints, worst = [], [], None
    primary, others = _primary(by_id, "seats")
    for _setting, data in primary:
        sa = data.get("compensation")
        if sa is None or sa.empty:
            continue
        for n, g in sa.groupby("players"):
            s0 = g[g["seat"] == 0].iloc[0]
            dev = (s0.value - s0.fair, s0.lo - s0.fair, s0.hi - s0.fair)
            parts.append((int(n), dev))
            pts = sa.attrs.get("seat_points", {}).get(int(n))
            if pts:
                prints.append(f"{int(n)} players: seat points {pts}")
            if worst is None or abs(dev[0]) > abs(worst[1][0]):
                worst = (int(n), dev)
    if worst is None:
        return card("card-seats", "Start player", "No multiplayer run here: not answered.", "–",
                    "nothing", "nothing to verify", None, "", "#answer-seats")
    n, (v, lo, hi) = worst
    return card("card-seats", "Start player",
                f"The start player wins {_pp(v)} pp against a fair share at {n} players; "
                f"the seat points below re-rank the games to fair.",
                f"start seat {_pp(v)} pp ({_pp(lo)} to {_pp(hi)}) at {n} players",
                "; ".join(prints) or "no seat points", NOT_VERIFIED, False,
                "the runs' players" + others, "#answer-seats")


def task_card(by_id: Mapping[str, Any], margin: float) -> dict[str, Any]:
    primary, others = _primary(by_id, "tasks")
    frames = [d["tasks"] for _s, d in primary if d.get("tasks") is not None]
    rows = [f[(f["players"] > 0)].rename(columns={"task": "card"}) for f in frames]
    rows = [r for r in rows if len(r)]
    if not rows:
        return card("card-tasks", "Tasks", "No task could be measured.", "–", "nothing",
                    "not enough play to tell", None, "", "#answer-tasks")
    t = pd.concat(rows, ignore_index=True)
    printed = {str(c): int(p) for c, p in zip(t["card"], t["printed"], strict=True)
               if pd.notna(p)}
    prop = card_proposals(t, printed, margin)
    changed = prop[prop["changed"]].drop_duplicates("card")
    unmeasured = sorted(set(prop.loc[prop["status"] != "measured", "card"]))
    need = prop.loc[prop["status"] != "measured", "forks_needed"].dropna()
    if len(changed):
        big = prop[prop["card"].isin(changed["card"])]
        top = big.loc[big["surplus"].abs().idxmax()]
        head = (f"{len(changed)} task(s) miss their tier's worth with confidence: one new "
                f"printed value each, for every player count"
                + (f"; {len(unmeasured)} more not measured." if unmeasured else "."))
        figure = (f"{top['card']} {top['surplus']:+.1f} points beyond its tier "
                  f"({top['s_lo']:+.1f} to {top['s_hi']:+.1f}) at {int(top['players'])} "
                  f"players")
        # as the sheet's card: a print at the floor that leaves the task too strong is
        # no fix, so those cards are named apart with what to do instead
        floor = changed["note"].fillna("").str.startswith("change the condition")
        to_print = ", ".join(f"{r.card} {printed[r.card]}→{int(r.proposed)}"
                             for r in changed[~floor].itertuples())
        if floor.any():
            to_print += (("; " if (~floor).any() else "") + "and change the condition of "
                         + ", ".join(f"{r.card} ({printed[r.card]}→{int(r.proposed)})"
                                     for r in changed[floor].itertuples())
                         + ": too strong even at the lowest print")
        verdict, ok = NOT_VERIFIED, False
    elif unmeasured:
        head = (f"Not enough play to tell for {len(unmeasured)} task(s); no measured task "
                f"misses its tier's worth.")
        figure = f"{len(set(prop['card'])) - len(unmeasured)} task(s) measured within ±{margin:g}"
        to_print = "nothing yet"
        verdict = (f"not enough play to tell: up to about {int(need.max()):,} forks a task"
                   if len(need) else "not enough play to tell")
        ok = None
    else:
        head, figure, to_print = ("No task change: every task is within the margin.",
                                  f"{len(set(prop['card']))} task(s) within ±{margin:g}",
                                  "nothing")
        verdict, ok = NOT_VERIFIED, False
    return card("card-tasks", "Tasks", head, figure, to_print, verdict, ok,
                _who(frames) + others,
                "#answer-tasks")


def gnome_card(by_id: Mapping[str, Any]) -> dict[str, Any]:
    primary, others = _primary(by_id, "gnomes")
    frames = [d["gnomes"] for _s, d in primary if d.get("gnomes") is not None]
    rows = [f[f["players"] > 0] for f in frames]
    rows = [r for r in rows if len(r)]
    if not rows:
        return card("card-gnomes", "Gnomes", "No gnome could be measured.", "–", "nothing",
                    "not enough play to tell", None, "", "#answer-gnomes")
    g = pd.concat(rows, ignore_index=True)
    off = gnomes_in_print_order(g.loc[g["flag"] != "", "gnome"])
    unmeasured = gnomes_in_print_order(g.loc[g["status"] != "measured", "gnome"])
    head = (f"{len(off)} gnome(s) stand out from the average gnome: `bonfire-sim errata` "
            f"tries a change of their ability on fresh deals." if off else
            f"Not enough play to tell for {len(unmeasured)} gnome(s); no measured gnome "
            f"stands out." if unmeasured else "No gnome stands out from the average gnome.")
    return card("card-gnomes", "Gnomes", head,
                f"{len(off)} off, {len(unmeasured)} not measured of {g['gnome'].nunique()}",
                (", ".join(off) + ": change the ability") if off else "nothing",
                "not enough play to tell" if unmeasured and not off else NOT_VERIFIED,
                None if unmeasured and not off else False, _who(frames) + others,
                "#answer-gnomes")


def tom_card(by_id: Mapping[str, Any]) -> dict[str, Any]:
    data = (by_id.get("tom") or {}).get("data", {})
    eq = data.get("handicaps")
    if eq is None or eq.empty:
        return card("card-tom", "Tom", "No solo run in these runs.", "–", "nothing",
                    "not enough play to tell", None, "", "#answer-tom")
    items = [f"{r.strategy}: {number(r.equilibrium)} ({number(r.lo)} to {number(r.hi)})"
             for r in eq.itertuples()]
    prints = [f"{r.strategy}: start at {int(math.floor(r.equilibrium + 0.5)):+d}"
              for r in eq.itertuples() if math.isfinite(r.equilibrium)]
    return card("card-tom", "Tom", "The handicap challenge settles where the solo player "
                "wins 2/7 of the games: print that as Tom's starting handicap.",
                "; ".join(items), "; ".join(prints) or "nothing", NOT_VERIFIED, False,
                ", ".join(str(s) for s in eq["strategy"]) + " (solo)", "#answer-tom")


def read_sheet(path: str | Path) -> dict[str, Any]:
    """An errata sheet's JSON (``bonfire-sim errata``), checked for its parts."""
    p = Path(path)
    if not p.is_file():
        raise DataError(f"errata sheet {p} not found: give the errata.json that "
                        f"`bonfire-sim errata --out DIR` wrote")
    try:
        doc = json.loads(p.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as e:
        raise DataError(f"cannot read errata sheet {p}: {e}") from None
    need = ("targets", "who", "seats", "tasks", "gnomes", "tom", "unchanged")
    if not isinstance(doc, dict) or any(k not in doc for k in need):
        raise DataError(f"{p} is not an errata sheet (it lacks "
                        f"{', '.join(k for k in need if k not in (doc or {}))})")
    return doc


def _flagged_here(by_id: Mapping[str, Any], sid: str, key: str) -> list[str]:
    """The cards the report's own section flags for its first setting (a task also where
    the test across the counts flags it; a gnome only at its count, as its section
    says), in the components' order."""
    primary, _ = _primary(by_id, sid)
    out: set[str] = set()
    for _s, d in primary:
        f = d.get(sid)
        if f is None or not len(f):
            continue
        f = f[f["players"] > 0]
        out |= {str(x) for x in f.loc[flagged(f, across_counts=key == "task"), key]}
    return gnomes_in_print_order(out) if key == "gnome" else sorted(out, key=_task_key)


def _task_key(task: str) -> tuple[str, int]:
    return task[0], int(task[1:]) if task[1:].isdigit() else 0


def _lists_differ(by_id: Mapping[str, Any], sheet: Mapping[str, Any]) -> str:
    """A note where the sheet's lists and the sections' own differ.  They are two
    measurements of the same runs (the sheet's forks and fresh deals; the sections' forks
    and top-ups), so a card near the margin can be flagged in one and not the other; the
    reader must not meet two lists without being told which one is planted and checked."""
    notes = []
    for sid, key, what in (("tasks", "task", "tasks"), ("gnomes", "gnome", "gnomes")):
        mine = _flagged_here(by_id, sid, key)
        theirs = sorted({str(x["item"]) for x in sheet.get(what, []) if x.get("changed")}
                        | {str(x["item"]) for x in sheet.get("unchanged", [])
                           if x.get("component") == what
                           and x.get("reason") == "no price fixes it"}
                        | {str(x["item"]) for x in sheet.get(what, [])
                           if x.get("reason") == "no price fixes it"})
        if set(mine) != set(theirs):
            theirs = (gnomes_in_print_order(theirs) if key == "gnome"
                      else sorted(theirs, key=_task_key))
            notes.append(f"{what}: {', '.join(mine) or 'none'} in the sections below, "
                         f"{', '.join(theirs) or 'none'} on the sheet")
    if not notes:
        return ""
    return (" The sections below measure the same runs on their own forks, and flag other "
            "cards near the margin (" + "; ".join(notes) + "): the sheet's are the ones "
            "planted together and checked.")


def first_screen(by_id: Mapping[str, Any], groups: Sequence[G.Group], runs: Mapping[str, Any],
                 margin: float, sheet: Mapping[str, Any] | None = None,
                 ) -> list[dict[str, Any]]:
    """The blocks of the first screen: the four cards, then one line each for who
    played and for the robustness marks, each with a link to its details below."""
    from bonfire_sim.report.marks import configurations

    cards = (cards_from_sheet(sheet) if sheet is not None else
             [seat_card(by_id), task_card(by_id, margin), gnome_card(by_id), tom_card(by_id)])
    where = ("from the errata sheet: every change planted together and checked on fresh deals"
             if sheet is not None else "from these runs; run `bonfire-sim errata` to plant "
             "the changes together and verify them on fresh deals")
    confs = configurations(groups, runs)
    marks = (f"Across populations: {len(confs)} configuration(s) played by 2+ populations; "
             f"each answer is marked below." if confs else
             "Across populations: one population per configuration, so no answer is "
             "checked against other players.")
    who = ("Who played: " + "; ".join(f"{g.players} player(s): {g.player}" if not g.solo
                                      else f"solo: {g.player}" for g in groups)
           + "; how strong they are against the strongest reference:")
    differ = _lists_differ(by_id, sheet) if sheet is not None else ""
    return [H.text_block(f"The four answers, {where}.{differ}"),
            {"kind": "cards", "cards": cards},
            H.links_block([("#answer-who", "who played")], who + " "),
            H.links_block([("#answer-populations", "robustness marks")], marks + " ")]
