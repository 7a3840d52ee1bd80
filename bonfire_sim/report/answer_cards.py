"""The four answer cards (start player, tasks, gnomes, Tom): the first screen of the errata
sheet and of the report.

A card is a dict: ``id``, ``title``, ``headline`` (one sentence), ``figure`` (the number
with its interval), ``print`` (what to print), ``verdict`` (verified on fresh deals or
not, or "not enough play to tell"), ``verified`` (True / False / None), ``who`` (who
played) and ``link`` (its details).  ``cards_from_sheet`` reads an errata ``Sheet``;
``report.answers`` builds the report's own cards from its sections' frames.  Each card is
one answer for a printed component: a card printed once gets one value, never one per
player count.  The template partial ``_answer_cards.html.j2`` draws them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from bonfire_sim.infra.numtext import number
from bonfire_sim.lineup import short_who

NOT_VERIFIED = "not verified on fresh deals: `bonfire-sim errata` plants it and checks it"


def card(cid: str, title: str, headline: str, figure: str, to_print: str, verdict: str,
         verified: bool | None, who: str, link: str) -> dict[str, Any]:
    """One answer card (see the module docstring)."""
    return {"id": cid, "title": title, "headline": headline, "figure": figure,
            "print": to_print, "verdict": verdict, "verified": verified, "who": who,
            "link": link, "state": {True: "verified", False: "unverified",
                                    None: "untold"}[verified]}


def interval(e: Mapping[str, Any] | None, unit: str) -> str:
    """"+0.4 pp (-0.9 to +1.7)" from an effect dict (value, lo, hi)."""
    if not e:
        return "not measured"
    return f"{number(e.get('value'))} {unit} ({number(e.get('lo'))} to {number(e.get('hi'))})"


def task_after(line: Mapping[str, Any], margin: float) -> str:
    """A line's figure on fresh deals.  A task's is pooled over the counts, but each count
    must be within the margin: where one is not shown within, name it, or a pooled
    interval inside the margin would sit beside "not resolved" unexplained."""
    text = interval(line["effect"], line["unit"])
    if line["component"] != "tasks" or line["verified"] is True:
        return text
    # a line not verified names a count wholly beyond the margin, the reason it failed
    rows = sorted(line.get("residual", {}).items(), key=lambda kv: (
        not (line["verified"] is False and _beyond(kv[1], margin)), int(kv[0])))
    for n, r in rows:
        lo, hi = r.get("lo"), r.get("hi")
        if lo is None or hi is None or not (-margin <= lo and hi <= margin):
            return (f"{text} over the counts; at {int(n)} players "
                    f"{interval({'value': r.get('surplus'), 'lo': lo, 'hi': hi}, 'points')}")
    return text


def _beyond(row: Mapping[str, Any], margin: float) -> bool:
    """A residual row whose interval lies wholly beyond ±margin."""
    lo, hi = row.get("lo"), row.get("hi")
    return lo is not None and hi is not None and (lo > margin or hi < -margin)


def _verdict(lines: Sequence[Mapping[str, Any]]) -> tuple[str, bool | None]:
    if not lines:
        return "nothing to verify", None
    ok = sum(x.get("verified") is True for x in lines)
    off = sum(x.get("verified") is False for x in lines)
    open_ = len(lines) - ok - off
    text = f"verified on fresh deals ({ok} of {len(lines)} line(s) meet the target"
    if off:
        text += f"; {off} shown to miss it"
    if open_:
        text += (f"; {open_} not resolved: the interval crosses the target, more play "
                 f"needed")
    return text + ")", (True if ok == len(lines) else False if off else None)


def seat_card(sheet: Mapping[str, Any]) -> dict[str, Any]:
    seats = sheet["seats"]
    tol = sheet["targets"]["seat_tolerance"]
    if not seats:
        return card("card-seats", "Start player", "No multiplayer run here: not answered.", "–",
                    "nothing", "nothing to verify", None, "", "#sheet-seats")
    changed = [s for s in seats if s["changed"]]
    worst = max(seats, key=lambda s: abs(s["effect"].get("value") or 0))
    to_print = "; ".join(f"{s['players']} players: seat points {s['proposed']}"
                         + ("" if s["changed"] else " (as today)") for s in seats)
    head = (f"Print seat points at {', '.join(str(s['players']) for s in changed)} players: "
            f"then every seat wins within {tol:g} pp of a fair share on fresh deals."
            if changed and all(s["verified"] for s in seats) else
            f"Print seat points at {', '.join(str(s['players']) for s in changed)} players; "
            f"not every seat is within {tol:g} pp of fair on fresh deals yet."
            if changed else
            "No seat change: every seat is within the tolerance of a fair share."
            if all(s["verified"] for s in seats) else
            "Not enough play to tell: no seat is shown beyond the tolerance, but not "
            "every seat is measured within it."
            if not any(s["missed"] for s in seats) else
            "No whole-point seat change brings every seat within the tolerance.")
    verdict, ok = _verdict(seats)
    if not changed and not all(s["verified"] for s in seats) and not any(
            s["missed"] for s in seats):
        verdict, ok = "not enough play to tell: more games per player count", None
    kinds = {s["populations"] for s in seats}
    marks = (kinds.pop() if len(kinds) == 1 else
             "; ".join(f"{s['players']}p {s['populations']}" for s in seats))
    figure = (f"start seat {interval(worst['effect'], 'pp')} against fair at "
              f"{worst['players']} players")
    open_ = [s for s in seats if s["verified"] is not True and s.get("deciding")
             and s["deciding"].get("seat", 0) != 0]
    if open_:  # the seat that keeps the line from being verified, when it is not seat 0
        d = open_[0]["deciding"]
        figure += (f"; seat {int(d['seat']) + 1} (of {open_[0]['players']}) "
                   f"{interval(d, 'pp')}")
    return card("card-seats", "Start player", head, figure, to_print, f"{verdict}; {marks}",
                ok,
                short_who([s["who"] for s in seats]), "#sheet-seats")


def task_card(sheet: Mapping[str, Any]) -> dict[str, Any]:
    tasks = sheet["tasks"]
    margin = sheet["targets"]["task_margin"]
    left = [x for x in sheet["unchanged"] if x["component"] == "tasks"]
    unmeasured = [x for x in left if x["reason"] == "not measured"]
    within = [x for x in left if x["reason"] == "within the margin"]
    who = short_who(list(sheet["who"].values()))
    if tasks:
        # a task printed at the lowest value and still too strong there is not fixed by
        # its print: a designer scanning "Print" must see that its condition has to change
        floor = [t for t in tasks if change_condition(t)]
        priced = [t for t in tasks if not change_condition(t)]
        to_print = ", ".join(f"{t['item']} {t['today']}→{t['proposed']}" for t in priced)
        if floor:
            to_print += (("; " if priced else "") + "and change the condition of "
                         + ", ".join(f"{t['item']} ({t['today']}→{t['proposed']})"
                                     for t in floor)
                         + ": too strong even at the lowest print")
        big = max(tasks, key=lambda t: abs(t["before"] or 0))
        figure = (f"{big['item']}: {number(big['before'])} points beyond its tier today, "
                  f"{task_after(big, margin)} after")
        head = (f"Re-print {len(tasks)} task(s), one value each for every player count"
                + (f"; {len(floor)} of them still too strong at the lowest print: change "
                   f"their condition" if floor else "")
                + (f"; {len(unmeasured)} more not measured: not enough play to tell."
                   if unmeasured else "."))
    else:
        to_print = "nothing"
        figure = f"{len(within)} task(s) measured within ±{margin:g} point(s)"
        head = ((f"Not enough play to tell for {len(unmeasured)} task(s); the "
                 f"{len(within)} measured ones are within the margin." if within else
                 f"Not enough play to tell: none of the {len(unmeasured)} tasks is measured "
                 f"yet.") if unmeasured else "No task change: every task is within the margin.")
    verdict, ok = _verdict(tasks)
    if not tasks and unmeasured:
        need = max((_need(x["detail"]) for x in unmeasured), default=0)
        verdict, ok = (f"not enough play to tell: {len(unmeasured)} task(s) need up to "
                       f"about {need:,} forks each"), None
    return card("card-tasks", "Tasks", head, figure, to_print, verdict, ok, who,
                "#sheet-tasks")


def change_condition(line: Mapping[str, Any]) -> bool:
    """Whether a sheet's task line is one no price fixes (``analysis.errata.task_lines``'
    ``change_condition``: printed at the lowest value and still too strong there)."""
    return bool(line.get("change_condition"))


def _need(detail: str) -> int:
    import re

    m = re.search(r"about ([\d,]+) forks", detail)
    return int(m[1].replace(",", "")) if m else 0


def gnome_card(sheet: Mapping[str, Any]) -> dict[str, Any]:
    g = sheet["gnomes"]
    changed = [x for x in g if x.get("changed")]
    off = [x for x in g if not x.get("changed") and x["reason"] == "no price fixes it"]
    unmeasured = [x for x in g if x["reason"] == "not measured"]
    if not g:
        return card("card-gnomes", "Gnomes", "No gnome was measured.", "–", "nothing",
                    "not enough play to tell", None, "", "#sheet-gnomes")
    if changed or off:
        # say "brings it within the margin" only of a verified change: an unresolved one
        # is the best candidate so far, not a fix
        fixed = sum(x.get("verified") is True for x in changed)
        head = (f"{len(changed) + len(off)} gnome(s) stand out from the average gnome"
                + (f": {len(changed)} change(s) tried on fresh deals, "
                   + (f"{fixed} verified within the margin" if fixed else "none verified yet")
                   if changed else "")
                + (f"; {len(off)} with no change found: change the ability" if off else "")
                + ".")
        verdict, ok = _verdict(changed) if changed else (
            "no change tried brings it within the margin", False)
        if off and ok is True:
            ok = None
    else:
        head = ((f"Not enough play to tell for {len(unmeasured)} gnome(s); the rest are "
                 f"within the margin." if len(unmeasured) < len(g) else
                 f"Not enough play to tell: none of the {len(g)} gnomes is measured yet.")
                if unmeasured else "No gnome change: all within the margin.")
        verdict, ok = ("not enough play to tell", None) if unmeasured else (
            "within the margin", True)
    to_print = "; ".join([x["proposed"] for x in changed]
                         + [f"{x['item']}: change the ability" for x in off]) or "nothing"
    return card("card-gnomes", "Gnomes", head,
                f"{len(changed)} changed, {len(off)} off, {len(unmeasured)} not measured "
                f"of {len(g)}", to_print, verdict, ok,
                short_who(sorted({p for x in g if x.get("who") for p in x["who"].split("; ")})),
                "#sheet-gnomes")


def tom_card(sheet: Mapping[str, Any]) -> dict[str, Any]:
    tom = sheet["tom"]
    if not tom:
        return card("card-tom", "Tom", "No solo run in these runs: add one per Tom-deck "
                    "reading to answer.", "–", "nothing", "not enough play to tell", None,
                    "", "#sheet-tom")
    to_print = "; ".join(f"{t['item']}: start at {t['proposed']:+d}" for t in tom)
    changed = [t for t in tom if t["changed"]]
    head = (f"Print a new starting handicap for {len(changed)} Tom-deck reading(s)."
            if changed else "No change to Tom's starting handicap.")
    verdict, ok = _verdict(tom)
    return card("card-tom", "Tom", head,
                "; ".join(f"{t['item']} settles at {interval(t['before'], 'points')}"
                          for t in tom), to_print, verdict, ok,
                "; ".join(sorted({t["who"] for t in tom})), "#sheet-tom")


def cards_from_sheet(sheet: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The four answer cards of an errata sheet (its ``to_json()``)."""
    return [seat_card(sheet), task_card(sheet), gnome_card(sheet), tom_card(sheet)]
