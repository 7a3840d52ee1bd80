"""The errata sheet on paper: one page in Markdown and in self-contained, printable HTML,
and the experiment file that plays the new edition.

The page opens with the four answer cards (``answer_cards``), then, in the order a
publisher reads it: 1. the targets, 2. what to print, 3. every change with its measured
effect and interval, verified on fresh deals or not, who played and whether it holds
across populations, 4. what was left unchanged on purpose and why, 5. how the sheet was
made.  Both formats are drawn from the same ``sections`` (notes and tables of strings),
so they cannot disagree.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import jinja2

from bonfire_sim.analysis.errata_cards import toml_value
from bonfire_sim.infra.numtext import number
from bonfire_sim.report.answer_cards import cards_from_sheet, change_condition, interval, task_after
from bonfire_sim.report.html import TEMPLATES

Table = dict[str, Any]


def _table(tid: str, caption: str, headers: Sequence[str], rows: Sequence[Sequence[Any]],
           text_cols: Sequence[int] = (0,), verdict_col: int | None = None,
           classes: Sequence[str] | None = None) -> Table:
    return {"id": tid, "caption": caption, "headers": list(headers),
            "rows": [{"cells": [str(c) for c in r], "cls": (classes or [""] * len(rows))[i]}
                     for i, r in enumerate(rows)],
            "text_cols": list(text_cols), "verdict_col": verdict_col}


def _yes(v: Any) -> str:
    """A line's verification: met, missed, or not resolved by its interval."""
    return "yes" if v is True else "not resolved" if v is None else "no"


def _verified(line: Mapping[str, Any]) -> str:
    """The verified cell: ``_yes``, and for a task line the counts that keep it from a
    pass: those wholly beyond the margin of a line not verified, those the check could
    not resolve of one not resolved, each with its interval and the forks it rests on
    (the check's and its top-ups')."""
    text = _yes(line["verified"])
    why = line.get("off" if line["verified"] is False else "unresolved")
    return f"{text}: {why}" if line["verified"] is not True and why else text


def _check_forks(sheet: Mapping[str, Any]) -> str:
    """How the check measured the re-printed tasks: its rule, and the top-ups it played."""
    m = sheet["targets"]["task_margin"]
    ups = sheet["loop"].get("top_ups") or []
    played = "; ".join(_look(t) for t in ups)
    return (f"A re-printed task is verified only when its check row at every player count "
            f"is measured and its whole 95% interval lies inside ±{m:g} point(s); a row whose "
            f"interval crosses the margin is forked again on new deals (the seeds after the "
            f"check's, twice the games each look, a bounded number of looks), with "
            f"the other cards of its colour at that count on the first of those games where "
            f"its tier's reference is worth sharpening (a surplus is measured against it); "
            f"a last look takes the rows that sharper reference moved across after theirs; "
            f"a verdict rests on all the row's forks: "
            + (f"{played}." if ups else "no row needed more.")
            + " A row still open after them is 'not resolved', with its forks and interval.")


def _estimate_forks(sheet: Mapping[str, Any]) -> str:
    """How today's task and gnome values were measured: the runs' forks, then the
    survey's top-ups on fresh deals, per count their games and the rows left open."""
    e = sheet["loop"]["estimate"]
    t = sheet["targets"]
    seeds = e.get("seeds") or []
    span = (f"seed {seeds[0]}" if len(seeds) == 1 else f"seeds {seeds[0]}-{seeds[-1]}"
            if seeds else "none needed")

    def per_count(kind: str) -> str:
        return "; ".join(f"{n}p {v['games']:,} top-up games in {v['rounds']} round(s), "
                         f"{v['not_measured']} of {v['rows']} rows not measured"
                         for n, v in sorted(e.get(kind, {}).items()))

    head = (f"Today's values: every task and gnome forked on the first "
            f"{e['probe_games']:,} games of each run, then "
            + (f"every task row wider than ±{0.6 * t['task_margin']:g} point(s) and every "
               f"gnome row wider than ±{t['gnome_margin']:g} forked alone on fresh deals of "
               f"the runs' game ({span}), the games it needs, {e['top_ups']} round(s) and "
               f"{e['max_games']:,} four-player games per card at most (as 'values' and "
               f"'reprice' survey them)" if e.get("top_ups") else "no top-up (--top-ups 0)"))
    rest = [f"{k}: {per_count(k)}" for k in ("tasks", "gnomes") if e.get(k)]
    return head + (": " + "; ".join(rest) if rest else "") + "."


def _look(t: Mapping[str, Any]) -> str:
    """One look of the check: "seed 2034: R10 at 4p on 3,100 new games, ..." and its
    reference forks."""
    rows = ", ".join(f"{c} at {n}p on {t['games']:,}" for c, n in t["rows"])
    return (f"seed {t['seed']}{' (rows the reference moved)' if t.get('last') else ''}: "
            + (f"{rows} new games" if rows else "no row forked")
            + _reference_forks(t.get("reference") or []))


def _reference_forks(refs: Sequence[Mapping[str, Any]]) -> str:
    """", with their reference: the 21 other blue cards at 4p on 600 of them, ..." of one
    top-up (``cards.check_topup.Reference``), or nothing where it forked none."""
    if not refs:
        return ""
    return ", with their reference: " + ", ".join(
        f"the {len(r['cards'])} other {r['group']} cards at {r['players']}p on "
        f"{r['games']:,} of them" for r in refs)


def _why(why: Mapping[Any, Mapping[str, Any]]) -> str:
    """Per count: lit share, rounds to light and lit value ('–' where not measured)."""
    return "; ".join(f"{n}p lit {number(r.get('lit_share'), '.0%')}, "
                     f"{number(r.get('rounds_to_light'), '.1f')} rounds, lit value "
                     f"{number(r.get('lit_value'), '+.1f')}"
                     for n, r in sorted(why.items(), key=lambda kv: int(kv[0])))


def sections(sheet: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The sheet's numbered sections after the cards: ``{"id", "title", "notes",
    "tables"}``."""
    t = sheet["targets"]
    targets = _table("targets", "Targets (change them in the experiment file's [targets] "
                     "table)", ["component", "target", "setting", "value"], [
        ("seats", f"every seat within {t['seat_tolerance']:g} pp of the fair 1/n",
         "seat_tolerance", f"{t['seat_tolerance']:g}"),
        ("tasks", f"every task within {t['task_margin']:g} point(s) of its tier's "
                  f"typical task, or 'change the condition'", "task_margin",
         f"{t['task_margin']:g}"),
        ("gnomes", f"every gnome within {t['gnome_margin']:g} point(s) of the average "
                   f"gnome", "gnome_margin", f"{t['gnome_margin']:g}"),
        ("Tom", f"the challenge settles within {t['tom_tolerance']:g} point(s) of the "
                f"printed start, per Tom-deck reading", "tom_tolerance",
         f"{t['tom_tolerance']:g}")], text_cols=(0, 1, 2))
    first = {"id": "sheet-targets", "title": "Targets", "tables": [targets], "notes": [
        f"A component is changed only where its target is missed with confidence "
        f"(shown beyond the tolerance, false discovery rate {t['alpha']:g})."]}

    seats = _table("print-seats", "Seat points (starting score per seat, start player "
                   "first), per player count", ["players", "today", "print", "changed"],
                   [(f"{s['players']}", s["today"], s["proposed"], _yes(s["changed"]))
                    for s in sheet["seats"]])
    tasks = _table("print-tasks", "Tasks to re-print: ONE value for every player count; "
                   "each count's residual worth beyond its tier after the change (the "
                   "receipt value: receive the task against the best other move), and "
                   "why, before the change: receipts lit by the end, rounds from "
                   "receipt to ignition, lit value (ignite it against never)",
                   ["task", "card", "today", "print", "residual per count (points)",
                    "why (today, per count)"],
                   [(x["item"], x["text"], x["today"],
                     f"{x['proposed']}, and change the condition" if change_condition(x)
                     else x["proposed"],
                     "; ".join(f"{n}p {number(r['surplus'])} ({number(r['lo'])} to "
                               f"{number(r['hi'])})" for n, r in sorted(
                                   x["residual"].items(), key=lambda kv: int(kv[0]))),
                     _why(x.get("why") or {}))
                    for x in sheet["tasks"]], text_cols=(0, 1, 3, 4, 5))
    off = [g for g in sheet["gnomes"]
           if g.get("changed") or g["reason"] == "no price fixes it"]
    gnomes = _table("print-gnomes", "Gnomes to change (the change tried on fresh deals)",
                    ["gnome", "change", "check", "why"],
                    [(g["item"], g.get("proposed") or "none found",
                      _gnome_check(g), g["detail"]) for g in off], text_cols=(0, 1, 2, 3))
    tom = _table("print-tom", "Tom's starting handicap per Tom-deck reading",
                 ["reading and solo player", "today", "print"],
                 [(x["item"], f"{x['today']:+d}", f"{x['proposed']:+d}")
                  for x in sheet["tom"]])
    notes = []
    if not sheet["tasks"]:
        notes.append("No task is re-printed.")
    if not off:
        notes.append("No gnome is flagged for a change.")
    if not sheet["tom"]:
        notes.append("No solo run: Tom's handicap is not answered.")
    second = {"id": "sheet-print", "title": "What to print", "notes": notes,
              "tables": [x for x in (seats, tasks, gnomes, tom) if x["rows"]]}

    rows, classes = [], []
    for x in sheet["seats"] + sheet["tasks"] + sheet["gnomes"] + sheet["tom"]:
        if not x.get("changed"):
            continue
        unit = x["unit"]
        rows.append((f"{x['component']} {x['item']}", x["today"], x["proposed"],
                     interval(x["before"] if isinstance(x["before"], Mapping) else
                              {"value": x["before"]}, unit) if x["component"] != "tasks"
                     else f"{number(x['before'])} points",
                     task_after(x, sheet["targets"]["task_margin"]), _verified(x),
                     x["who"],
                     x["populations"] + (f"; {x['note']}" if x.get("note") else "")))
        classes.append("yes" if x["verified"] is True else "no")
    lines = _table("lines", "Each change: the target's figure before (the runs) and after "
                   "(fresh deals of the check round, all changes planted together)",
                   ["line", "today", "proposed", "before", "after, on fresh deals",
                    "verified", "who played", "across populations"], rows,
                   text_cols=(0, 5, 6, 7), verdict_col=5, classes=classes)
    ns = sheet.get("next_smaller")
    third_notes = [f"The sheet makes {sheet['n_changes']} change(s)."]
    if ns:
        third_notes.append(
            f"The next-smaller sheet drops {ns['drop']}: its figure would be about "
            f"{ns['without']:+.1f} against a target of ±{ns['target']:g} ("
            + ("it would miss the target)." if ns["misses"] else "still within: a "
               "candidate to drop)."))
    seat_by_pop = [p for s in sheet["seats"] for p in s.get("per_population", [])]
    if len({p["population"] for p in seat_by_pop}) > 1:
        third_notes.append("Seats per population on the check round: " + "; ".join(
            f"{p['population']} within: {_yes(p['within'])}, asks {p['asks']}"
            for p in seat_by_pop) + ".")
    third = {"id": "sheet-lines", "title": "Each line: today → proposed, measured and "
             "verified", "notes": third_notes, "tables": [lines] if rows else []}

    left = sheet["unchanged"]
    counts: dict[str, int] = {}
    for x in left:
        counts[x["reason"]] = counts.get(x["reason"], 0) + 1
    shown = [x for x in left if x["reason"] != "within the margin"]
    within = [f"{x['component']} {x['item']}" for x in left
              if x["reason"] == "within the margin"]
    fourth = {"id": "sheet-unchanged", "title": "Left unchanged on purpose", "notes": [
        "; ".join(f"{k}: {v}" for k, v in counts.items()) or "nothing",
        ("Within the margin: " + ", ".join(within) + ".") if within else ""],
        "tables": [_table("unchanged", "Left unchanged for another reason than the margin",
                          ["line", "reason", "detail"],
                          [(f"{x['component']} {x['item']}", x["reason"], x["detail"])
                           for x in shown], text_cols=(0, 1, 2))] if shown else []}
    fourth["notes"] = [n for n in fourth["notes"] if n]

    loop = sheet["loop"]
    fifth = {"id": "sheet-method", "title": "How the sheet was made", "tables": [], "notes": [
        "Every proposed change was planted together at every player count of the runs on "
        "fresh deals (seeds the runs never played), every target re-measured, and the set "
        "moved where a target was still missed with confidence (cards by a secant step, "
        "seat points to the whole points the re-ranked fresh games ask for) until nothing "
        "moved; a last round on new deals, which moves nothing, verifies each line.",
        f"Rounds: {', '.join(str(r['seed']) for r in loop.get('rounds', [])) or 'none'}; "
        f"check round seed {loop.get('check_seed')}; "
        + ("fixed point reached" if loop.get("fixed_point") else
           "rounds spent before a fixed point") + "; populations on the check round: "
        + ", ".join(loop.get("populations", [])) + ".",
        *([_estimate_forks(sheet)] if loop.get("estimate") else []),
        *([_check_forks(sheet)] if sheet["tasks"] else []),
        "Who played: " + "; ".join(f"{n} players: {w}" for n, w in sheet["who"].items())
        + ". Stronger players may value tasks, gnomes and the start seat differently: "
        "bonfire-sim strength measures each answer on a ladder up to the search player "
        "(docs/howto/strength-ladder.md).  On the base game the tasks kept their order "
        "under strong play at 2-4 players and at 2 players sat about a third further from "
        "their tier (docs/findings/2026-11-30-cards-against-strength.md): a proposed print "
        "is a fast-player reading."]}
    return [first, second, third, fourth, fifth]


def render_html(sheet: Mapping[str, Any], title: str, subtitle: str) -> str:
    """The sheet as one self-contained, printable HTML page."""
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(TEMPLATES),
                             autoescape=jinja2.select_autoescape(["html", "j2"]),
                             trim_blocks=True, lstrip_blocks=True)
    return env.get_template("errata.html.j2").render(
        title=title, subtitle=subtitle, cards=cards_from_sheet(sheet),
        sections=sections(sheet))


def _md_cell(v: str) -> str:
    return v.replace("|", "\\|").replace("\n", " ")


def render_markdown(sheet: Mapping[str, Any], title: str, subtitle: str) -> str:
    """The same page in Markdown."""
    out = [f"# {title}", "", subtitle, ""]
    for c in cards_from_sheet(sheet):
        mark = {True: "✓", False: "✗", None: "?"}[c["verified"]]
        out += [f"**{c['title']}** — {c['headline']}  ", f"{c['figure']}  ",
                f"Print: {c['print']}  ", f"{mark} {c['verdict']}  ",
                f"Who played: {c['who'] or '–'}", ""]
    for i, s in enumerate(sections(sheet), 1):
        out += [f"## {i}. {s['title']}", ""]
        for n in s["notes"]:
            out += [n, ""]
        for t in s["tables"]:
            out += [f"*{t['caption']}*", "", "| " + " | ".join(t["headers"]) + " |",
                    "|" + "---|" * len(t["headers"])]
            out += ["| " + " | ".join(_md_cell(c) for c in r["cells"]) + " |"
                    for r in t["rows"]]
            out.append("")
    return "\n".join(out)


def _gnome_check(line: Mapping[str, Any]) -> str:
    """``verified`` / ``not verified`` / ``not resolved`` for a changed gnome line; what
    was tried for one left unchanged."""
    if not line.get("changed"):
        return f"{len(line.get('trials') or [])} change(s) tried, none within the margin"
    v = line.get("verified")
    return "verified" if v is True else "not verified" if v is False else "not resolved"


def edition_toml(sheet: Mapping[str, Any], counts: Sequence[int], strategies: Sequence[str],
                 games: int, seed: int, variants: Mapping[str, str],
                 base_overrides: Mapping[str, Any], source: str) -> str:
    """An experiment file that plays the new edition: ``[run]`` at every player count of
    the sheet (a ``players`` sweep; seat points differ per count, so one file per count
    when any are printed), ``[overrides]`` with the changed task points and the gnome
    changes (``specialist_points = {S4 = 1}``, ...) on top of the runs' own."""
    over = dict(sheet.get("overrides") or {})
    seat = over.pop("seat_points", {})
    lines = [f"# bonfire-sim errata: the new edition from {source}",
             f"# {sheet['n_changes']} change(s); verified lines: "
             + ", ".join(f"{x['component']} {x['item']}" for x in
                         (*sheet["seats"], *sheet["tasks"], *sheet["gnomes"],
                          *sheet["tom"])
                         if x.get("changed") and x.get("verified") is True), "[run]",
             f"games = {games}"]
    if len(counts) > 1 and not seat:
        lines.append(f"players = [{', '.join(str(n) for n in counts)}]")
    else:
        lines.append(f"players = {max(counts) if not seat else max(int(k) for k in seat)}")
    if strategies:
        lines.append("strategies = [" + ", ".join(f'"{s}"' for s in strategies) + "]")
    lines += ["seat_rotation = true", f"seed = {seed}", "", "[overrides]"]
    prices = dict(base_overrides.get("task_points", {})) | dict(over.get("task_points", {}))
    if prices:
        lines.append("task_points = { " + ", ".join(f"{k} = {int(v)}" for k, v in
                                                     sorted(prices.items())) + " }")
    if seat:
        n = max(int(k) for k in seat)
        lines.append(f"seat_points = {seat[str(n)]}")
        for k, v in sorted(seat.items()):
            if int(k) != n:
                lines.append(f"# at {k} players: seat_points = {v} (a file of its own)")
    merged = dict(base_overrides)
    for k, v in over.items():  # the gnome changes, merged into the runs' own tables
        if k != "task_points":
            merged[k] = {**dict(merged.get(k, {})), **dict(v)}
    for k, v in sorted(merged.items()):
        if k not in ("task_points", "seat_points"):
            lines.append(f"{k} = {toml_value(v)}")
    if variants:
        lines += ["", "[variants]"] + [f'{k} = "{v}"' for k, v in sorted(variants.items())]
    return "\n".join(lines) + "\n"


def write_sheet(out_dir: Path, sheet: Any, title: str, subtitle: str, toml: str) -> dict[
        str, Path]:
    """Write ``errata.html``, ``errata.md``, ``errata.json`` and ``edition.toml`` into
    ``out_dir`` (each atomically); returns their paths."""
    from bonfire_sim.infra import fileio

    doc = sheet.to_json()
    paths = {"html": out_dir / "errata.html", "md": out_dir / "errata.md",
             "json": out_dir / "errata.json", "toml": out_dir / "edition.toml"}
    fileio.write_text(paths["html"], render_html(doc, title, subtitle))
    fileio.write_text(paths["md"], render_markdown(doc, title, subtitle))
    fileio.write_text(paths["json"], fileio.dumps_json(doc, paths["json"], indent=1,
                                                       sort_keys=True))
    fileio.write_text(paths["toml"], toml)
    return paths

