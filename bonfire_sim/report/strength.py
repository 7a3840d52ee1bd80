"""The strength section: each headline answer as a small curve over the rungs of play.

Compute lives in ``studies.strength`` (the answers per rung and their marks); this module
draws one small panel per figure (value and 95% interval at each rung, weakest first, the
mark in the panel's title) and a table per answer with the rungs side by side, and
assembles them into its own section (``id`` "strength"), so the section can sit in the
main report or stand alone on its own page (``write_page``).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from bonfire_sim.lineup import is_search_name
from bonfire_sim.report import figures as F
from bonfire_sim.report import html as H
from bonfire_sim.studies import strength as ST
from bonfire_sim.studies import strength_sizing as SZ

TITLE = "Answers against strength"
ANSWER_TITLES = {"start player": "Start player: win share and compensation per seat",
                 "tom": "Tom: win rate and handicap per deck",
                 "tasks": "Tasks flagged at some rung: surplus over the colour (points)",
                 "gnomes": "Gnomes flagged at some rung: points against the average gnome"}
MARK_COLOURS = {ST.CONVERGED: "#1b9e77", ST.MOVES: "#d95f02", ST.UNDECIDED: "#777777",
                ST.NOT_MEASURED: "#777777", ST.SAME_PLAYER: "#777777"}
PANELS_PER_ROW = 4


def curves(answers: pd.DataFrame, marked: pd.DataFrame, ax: Any = None,
           labels: Mapping[str, str] | None = None) -> Any:
    """Small multiples: per figure its value and interval at each rung (x, weakest
    first, named by ``labels`` where given), titled with the figure and coloured by its
    mark; returns the first axes."""
    from matplotlib.figure import Figure

    figures = list(dict.fromkeys(answers["figure"]))
    rungs = list(dict.fromkeys(answers.sort_values("step")["rung"]))
    cols = min(PANELS_PER_ROW, len(figures))
    rows = math.ceil(len(figures) / cols)
    fig = Figure(figsize=(3.0 * cols, 2.3 * rows), dpi=90) if ax is None else ax.figure
    axes = np.atleast_1d(fig.subplots(rows, cols, squeeze=False)).ravel()
    mark_of = dict(zip(marked["figure"], marked["mark"], strict=True))
    for a, name in zip(axes, figures, strict=False):
        g = answers[answers["figure"] == name].sort_values("step")
        x = [rungs.index(r) for r in g["rung"]]
        colour = MARK_COLOURS.get(mark_of.get(name, ""), "#777777")
        a.errorbar(x, g["value"], yerr=F._err(g["value"], g["lo"], g["hi"]), fmt="o-",
                   color=colour, capsize=3, markersize=4)
        a.set_xticks(range(len(rungs)), [(labels or {}).get(r, r) for r in rungs],
                     rotation=30, fontsize=7)
        a.tick_params(axis="y", labelsize=7)
        a.set_xlim(-0.5, len(rungs) - 0.5)
        a.set_title(F.wrap_label(f"{name}\n[{mark_of.get(name, '')}]", 34), fontsize=8,
                    color=colour)
    for a in axes[len(figures):]:
        a.set_visible(False)
    return axes[0]


def _rung_lines(meta: Mapping[str, Any]) -> str:
    parts = []
    # a ladder without Tom decks (or without player counts) names no player it did not seat
    solo, multi = bool(meta.get("decks", [None])), bool(meta.get("players", [None]))
    for r in meta.get("rungs", []):
        sized = r.get("sized") or {}
        grown = (", sized to " + ", ".join(f"{n:,} ({k})" for k, n in sized.items())
                 if sized else "")
        games = ", ".join(([f"{r['games']} games per player count"] if multi else [])
                          + ([f"{r['solo_games']} per Tom deck"] if solo else []))
        seats = ", ".join(r["seats"]) if multi else f"solo {r['solo']}"
        parts.append(f"{r['name']}: {seats} ("
                     + (f"solo: {r['solo']}; " if solo and multi else "") + games
                     # the same seats reuse multiplayer games; the solo player differs
                     + (f", the same multiplayer games as {r['same_as']}"
                        if r.get("same_as") and multi else "")
                     + grown + ")")
    return "; ".join(parts)


def _rung_labels(answer: str, meta: Mapping[str, Any]) -> dict[str, str]:
    """Rung -> tick label where the rung's player differs for this answer: against Tom
    its solo player (search:16's rung plays search:32 there), for the cards the search
    rung's card budget (its forks play search:4)."""
    rungs = meta.get("rungs", [])
    if answer == "tom":
        return {r["name"]: f"{r['name']} (solo: {r['solo']})" for r in rungs
                if r["solo"] != r["name"]}
    budget = int(meta.get("card_budget") or 0)
    if answer in ("tasks", "gnomes") and budget:
        return {r["name"]: f"{r['name']} (cards: search:{budget})" for r in rungs
                if any(is_search_name(s) for s in r["seats"])}
    return {}


def _card_note(answers: pd.DataFrame, meta: Mapping[str, Any]) -> str:
    """How the card values were measured, or why there are none."""
    probes = int(meta.get("probe_games") or 0)
    if not probes:
        return "Card values were not measured on this ladder (its probe_games is 0)."
    budget = int(meta.get("card_budget") or 0)
    shown = answers["answer"].isin(["tasks", "gnomes"])
    return (f"Card values: the receipt value of bonfire-sim values (a task's surplus over "
            f"its colour, a gnome's over the average gnome) from the forks of the first "
            f"{probes:,} games of each rung, without top-ups, so the search rung's rows are "
            f"wide"
            + (f"; the search rung's forks are played by search:{budget} in every seat on "
               f"its deals (a fork plays the rest of a game twice)" if budget else "")
            + ".  Only cards flagged (surplus beyond ±1 point) at some rung are shown"
            + ("" if shown.any() else ": none was") + ".")


def _agreement_blocks(agreement: pd.DataFrame, meta: Mapping[str, Any]
                      ) -> list[dict[str, Any]]:
    """The cards' order at the top two rungs: one table row per count and kind."""
    names = [r["name"] for r in meta.get("rungs", [])][-2:]
    below, top = names if len(names) == 2 else ("below", "top")
    a = agreement.copy()
    a["corr"] = [f"{r:.2f} ({lo:.2f} to {hi:.2f})" for r, lo, hi in
                 zip(a["r"], a["r_lo"], a["r_hi"], strict=True)]
    a["true_corr"] = [f"{c:.2f} ({lo:.2f} to {hi:.2f})" for c, lo, hi in
                      zip(a["corrected"], a["c_lo"], a["c_hi"], strict=True)]
    a["spread"] = [f"{b:.1f} / {t:.1f}: x{q:.2f} ({lo:.2f} to {hi:.2f})" for b, t, q, lo, hi
                   in zip(a["spread_below"], a["spread_top"], a["ratio"], a["ratio_lo"],
                          a["ratio_hi"], strict=True)]
    a["flags"] = [f"{len(b.split())} / {len(t.split())}, both: {both or 'none'}"
                  for b, t, both in zip(a["flagged_below"], a["flagged_top"],
                                        a["flagged_both"], strict=True)]
    columns = {"players": ("players", ""), "kind": ("cards", ""), "cards": ("n", ""),
               "corr": (f"correlation {below} / {top} (95%)", ""),
               "true_corr": ("corrected for fork noise (at most 1)", ""),
               "spread": (f"spread of the true surpluses, {below} / {top}", ""),
               "flags": (f"flagged at {below} / {top}", "")}
    return [H.heading_block("Do the cards keep their order under stronger play?",
                            "strength-order"),
            H.text_block(
                f"Each card's own mark above is read against ±1 point and rests on few forks "
                f"at the search rung.  Across the cards the noise averages out: the "
                f"correlation of the cards' surpluses at {below} and {top} (bootstrap over "
                f"cards), the same corrected for the forks' noise (the correlation of the "
                f"true values: about 1 when stronger play keeps the cards' order, 0 when it "
                f"reshuffles them), and the spread of the true surpluses across the cards "
                f"at each rung (points; above x1 when stronger players make the good cards "
                f"better and the bad ones worse).  studies/strength_cards.py."),
            H.table_block(a, columns, caption="The cards' order at the top two rungs")]


def section(answers: pd.DataFrame, meta: Mapping[str, Any],
            needs: pd.DataFrame | None = None,
            agreement: pd.DataFrame | None = None) -> dict[str, Any]:
    """The report section (``{"id": "strength", "title", "blocks", "absent"}``);
    ``needs``: the sizing table of a sized ladder (each mark then says its cost);
    ``agreement``: whether the cards keep their order at the top two rungs."""
    if answers.empty:
        return {"id": "strength", "title": TITLE, "blocks": [], "absent":
                "no strength ladder was played (bonfire-sim strength FILE.toml)"}
    marked = SZ.with_costs(ST.marks(answers), needs)
    counts = marked["mark"].value_counts()
    blocks: list[dict[str, Any]] = [H.text_block(
        f"Each headline answer measured at every rung of play, weakest first, on the same "
        f"deals: {_rung_lines(meta)}.  A figure is marked {ST.CONVERGED} when the 95% "
        f"interval of the difference between the top two rungs lies within its tolerance "
        f"(±{ST.TOLERANCE['share']:g} for a win share, ±{ST.TOLERANCE['points']:g} point for "
        f"a compensation or a card value, ±{ST.TOLERANCE['handicap']:g} for a handicap), "
        f"{ST.MOVES} when it lies wholly outside, and {ST.UNDECIDED} when the games cannot "
        f"tell; two rungs of the same player are never compared ({ST.SAME_PLAYER})."
        + (f"  The search runs were sized from a {meta.get('pilot_games')}-game pilot for a "
           f"difference half-width of {meta.get('aim'):g} times the tolerance, at most "
           f"{meta.get('search_max_games'):,} games a run; each figure's why says what it "
           f"needed." if needs is not None and not needs.empty else "")
        + "  Marks here: " + ", ".join(f"{k} {v}" for k, v in counts.items()) + ".",
        "answer")]
    note = _card_note(answers, meta)
    for answer in ST.ANSWERS:
        part = answers[answers["answer"] == answer]
        if part.empty:
            continue
        if answer in ("tasks", "gnomes") and note:  # how the cards were measured, first
            blocks.append(H.text_block(note))
            note = ""
        m = marked[marked["answer"] == answer]
        # against Tom a rung is its solo player (search:16's rung plays search:32 there):
        # the curves' ticks and the table's columns name it
        named = _rung_labels(answer, meta)
        blocks.append(H.heading_block(ANSWER_TITLES[answer], f"strength-{answer[:5]}"))
        blocks.append(H.figure_block(
            F.to_png_base64(curves(part, m, labels=named)),
            f"{ANSWER_TITLES[answer]}, per rung with its 95% interval; who played: "
            f"{'; '.join(dict.fromkeys(part['who']))}"))
        rung_cols = [c for c in m.columns if c not in ("answer", "figure", "mark", "detail")]
        columns = {"figure": ("figure", ""),
                   **{c: (named.get(c, c), "") for c in rung_cols},
                   "mark": ("mark", ""), "detail": ("why", "")}
        blocks.append(H.table_block(m, columns, caption=ANSWER_TITLES[answer],
                                    row_class="mark"))
    if note:
        blocks.append(H.text_block(note))
    if agreement is not None and not agreement.empty:
        blocks += _agreement_blocks(agreement, meta)
    return {"id": "strength", "title": TITLE, "blocks": blocks, "absent": None}


def write_page(path: str | Path, answers: pd.DataFrame, meta: Mapping[str, Any],
               title: str = TITLE, extra: Sequence[dict[str, Any]] = (),
               needs: pd.DataFrame | None = None,
               agreement: pd.DataFrame | None = None) -> Path:
    """The strength section on a page of its own (``agreement``: the cards' order at the
    top two rungs, ``studies.strength_cards``)."""
    decks = ", ".join(meta.get("decks", []))
    counts = ", ".join(str(n) for n in meta.get("players", []))
    subtitle = (f"seed {meta.get('seed')}; "
                + (f"player counts {counts}; " if counts else "solo only; ")
                + (f"Tom decks {decks}" if decks else "no solo games"))
    return H.write(path, H.render(title, subtitle, [section(answers, meta, needs, agreement),
                                                    *extra]))
