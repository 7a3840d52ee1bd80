"""The answers' "holds in every population" marks (``analysis.populations``).

Runs that differ only in their players are the populations of one configuration (the
report's groups keep them apart, never pooled).  From the frames the detail sections
already computed (no fork is played here), each headline figure of a configuration with at
least two populations is marked: the start player's win share, advantage and
compensation, the winning score, each task or gnome flagged in some population, and the
win rate against Tom of the solo players of one solo setting.  ``answer_marks`` returns
the blocks the answers section shows: a table per configuration with the populations side
by side, and one line under each question.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

import pandas as pd

from bonfire_sim.analysis import populations as P
from bonfire_sim.report import groups as G
from bonfire_sim.report import html as H
from bonfire_sim.report import stats as S

QUESTIONS = ("tasks", "gnomes", "seats", "tom")


def population_name(strategies: Sequence[str], players: int, fallback: str) -> str:
    """The ``strategies.POPULATIONS`` name of a run's seat specs, else ``fallback``."""
    from bonfire_sim.strategies import POPULATIONS

    def seats(specs: Sequence[str]) -> list[str]:
        return sorted(specs[i % len(specs)] for i in range(players)) if specs else []

    for name, specs in POPULATIONS.items():
        if seats(list(specs)) == seats(list(strategies)):
            return name
    return fallback


def configurations(groups: Sequence[G.Group], runs: Mapping[str, Any],
                   ) -> list[tuple[str, dict[str, list[G.Group]]]]:
    """Multiplayer configurations (everything but the players) with 2+ populations:
    ``[(configuration label, {population: its groups}), ...]``."""
    from bonfire_sim.sim.runner import stored_config

    out: dict[str, tuple[str, dict[str, list[G.Group]]]] = {}
    for g in groups:
        if g.solo:
            continue
        manifest = runs[g.runs[0]].manifest
        cfg = stored_config(dict(manifest))
        engine = str((manifest.get("fingerprint") or {}).get("source_hash", "unrecorded"))
        parts = {k: v for k, v in G.setting_parts(cfg, engine).items() if k != "players"}
        key = json.dumps(parts, sort_keys=True)
        label = "; ".join(f"{k} = {v}" for k, v in parts.items() if k != "engine")
        pop = population_name(tuple(cfg.get("strategies", ())), g.players, g.player)
        out.setdefault(key, (label or "default game", {}))[1].setdefault(pop, []).append(g)
    return [v for v in out.values() if len(v[1]) >= 2]


def _frame(by_id: Mapping[str, Any], sid: str, setting: str, name: str) -> Any:
    data = dict((by_id.get(sid) or {}).get("data", {}).get("by_setting", []))
    return (data.get(setting) or {}).get(name)


def _cols(frame: pd.DataFrame, *candidates: tuple[str, str, str]) -> tuple[str, str, str]:
    """The (value, lo, hi) columns a card frame has (the task rows' method may change)."""
    for c in candidates:
        if all(x in frame for x in c):
            return c
    return ("value", "lo", "hi")


def card_rows(frame: pd.DataFrame | None, key: str, population: str) -> list[dict]:
    """One flag row per card and player count of a task or gnome frame: the figure its
    flag is about (a task's surplus over its colour, a gnome's points against the average
    gnome) with its interval; the flag '' when measured and not flagged, None (not
    measured) when the row's interval is wider than the margin."""
    if frame is None or frame.empty or "flag" not in frame:
        return []
    value, lo, hi = _cols(frame, ("surplus", "s_lo", "s_hi"), ("relative", "rel_lo", "rel_hi"))
    rows = []
    for r in frame[frame["players"] > 0].itertuples():
        v = getattr(r, value)
        measured = pd.notna(v) and (getattr(r, "status", "measured") == "measured")
        rows.append(P.figure_row(f"{int(r.players)} players: {key} {getattr(r, key)}", "flag",
                                 0, population, v if measured else float("nan"),
                                 getattr(r, lo), getattr(r, hi),
                                 str(r.flag) if measured else None))
    return rows


def _flagged_only(rows: list[dict]) -> list[dict]:
    """Card rows of the cards flagged in at least one population (the headline ones)."""
    frame = pd.DataFrame(rows, columns=P.FIGURE_COLUMNS)
    hit = set(frame.loc[frame["flag"].fillna("") != "", "figure"])
    return [r for r in rows if r["figure"] in hit]


def win_scores(players: pd.DataFrame, groups: Sequence[G.Group], runs: Mapping[str, Any],
               ) -> dict[tuple[tuple[str, ...], str], list[dict]]:
    """The winning-score rows ``figures_of`` shows for each group's runs and population
    of ``configurations``: worked out from the players rows while the report holds them
    (it releases them before its fork steps)."""
    multi = S.multiplayer(players)
    out = {}
    for _label, pops in configurations(groups, runs):
        for pop, members in pops.items():
            for g in members:
                out[(tuple(g.runs), pop)] = P.win_score_rows(
                    multi[multi["run"].isin(g.runs)], pop)
    return out


def figures_of(by_id: Mapping[str, Any], players: pd.DataFrame | None,
               pops: Mapping[str, list[G.Group]],
               scores: Mapping[tuple[tuple[str, ...], str], list[dict]] | None = None,
               ) -> dict[str, list[dict]]:
    """Tidy figure rows per question for one configuration's populations (the winning
    scores from ``players``, or as ``win_scores`` gave them)."""
    out: dict[str, list[dict]] = {q: [] for q in QUESTIONS}
    out["score"] = []
    multi = S.multiplayer(players) if scores is None and players is not None else None
    cards: dict[str, list[dict]] = {"tasks": [], "gnomes": []}
    for pop, members in pops.items():
        # one group per player count; their settings differ when the players part names
        # every seat ("tuned, tuned" at 2, four at 4), so each count reads its own frames
        for g in sorted(members, key=lambda g: g.players):
            sa = _frame(by_id, "seats", g.setting, "compensation")
            if sa is not None and len(sa):
                out["seats"] += P.seat_rows(sa[sa["players"] == g.players], pop)
            if scores is not None:
                out["score"] += scores[(tuple(g.runs), pop)]
            else:
                assert multi is not None
                out["score"] += P.win_score_rows(multi[multi["run"].isin(g.runs)], pop)
            for q, key in (("tasks", "task"), ("gnomes", "gnome")):
                frame = _frame(by_id, q, g.setting, q)
                if frame is not None and "players" in frame:
                    cards[q] += card_rows(frame[frame["players"] == g.players], key, pop)
    out["tasks"] = _flagged_only(cards["tasks"])
    out["gnomes"] = _flagged_only(cards["gnomes"])
    return out


def tom_figures(by_id: Mapping[str, Any], groups: Sequence[G.Group]) -> list[tuple[str, list]]:
    """Per solo setting with 2+ solo players: the win rate against Tom of each."""
    tom = (by_id.get("tom") or {}).get("data", {}).get("tom")
    if tom is None or tom.empty:
        return []
    rates = tom.set_index("strategy")
    out = []
    for setting, members in G.settings(groups, solo=True):
        rows = [P.figure_row("win rate against Tom (handicap 0)", "share",
                             P.TOLERANCE["share"], g.player, rates.loc[g.label, "win_rate"],
                             rates.loc[g.label, "lo"], rates.loc[g.label, "hi"])
                for g in members if g.label in rates.index]
        if len(rows) >= 2:
            out.append((setting, rows))
    return out


def _table(marked: pd.DataFrame, caption: str) -> dict[str, Any]:
    columns = {"figure": ("figure", ""), "mark": ("across populations", ""),
               **{c: (c, "") for c in marked.columns[3:]}, "detail": ("why", "")}
    return H.table_block(marked, columns, caption=caption, row_class="mark")


def _line(question: str, marked: pd.DataFrame, where: str) -> dict[str, Any]:
    items = "; ".join(f"{r.figure}: {r.mark}" for r in marked.itertuples())
    return H.text_block(f"Across populations{where}: {items}.", "answer")


def answer_marks(by_id: Mapping[str, Any], players: pd.DataFrame | None,
                 groups: Sequence[G.Group], runs: Mapping[str, Any],
                 scores: Mapping[tuple[tuple[str, ...], str], list[dict]] | None = None,
                 ) -> dict[str, list[dict[str, Any]]]:
    """Blocks for the answers section: ``summary`` (a table per configuration) and one
    per question (``tasks``, ``gnomes``, ``seats``, ``tom``) with its marks (the winning
    scores from ``players``, or as ``win_scores`` gave them)."""
    out: dict[str, list[dict[str, Any]]] = {"summary": [], **{q: [] for q in QUESTIONS}}
    confs = configurations(groups, runs)
    toms = tom_figures(by_id, groups)
    how = (f"A number holds in every population when each pair of populations agrees within "
           f"its tolerance (the 95% interval of their difference inside ±"
           f"{P.TOLERANCE['share']:g} for a win share, ±{P.TOLERANCE['win score']:g} points for "
           f"the winning score, ±margin for a compensation), differs when a pair is shown "
           f"apart by more, and is undecided otherwise; a flag holds when every population "
           f"raises it, else it is marked with the populations that do.")
    if not confs and not toms:
        out["summary"].append(H.text_block(
            "Across populations: every configuration here was played by one population, so "
            "no finding is checked against other players. Play the same configuration with "
            "other players (an experiment's `[run] populations = [\"strong\", \"old_mix\"]`) "
            "and report the runs together.", "answer"))
        return out
    out["summary"].append(H.text_block(how))
    for label, pops in confs:
        where = f" ({label}; {', '.join(pops)})"
        figs = figures_of(by_id, players, pops, scores)
        # the seat and score rows stay short and open; the card rows may fold
        for qs, what in ((("seats", "score"), "Headline figures per population"),
                         (("tasks", "gnomes"), "Tasks and gnomes flagged in some population")):
            rows = [r for q in qs for r in figs[q]]
            if rows:
                out["summary"].append(_table(P.marks(pd.DataFrame(
                    rows, columns=P.FIGURE_COLUMNS)), f"{what}{where}"))
        for q in ("tasks", "gnomes", "seats"):
            rows = figs[q] + (figs["score"] if q == "seats" else [])
            if rows:
                out[q].append(_line(q, P.marks(pd.DataFrame(rows, columns=P.FIGURE_COLUMNS)),
                                    where))
            elif q != "seats":
                out[q].append(H.text_block(f"Across populations{where}: no {q[:-1]} is "
                                           f"flagged in any population.", "answer"))
    for setting, rows in toms:
        marked = P.marks(pd.DataFrame(rows, columns=P.FIGURE_COLUMNS))
        where = f" (solo, {setting})"
        out["tom"].append(_line("tom", marked, where))
        out["summary"].append(_table(marked, f"Win rate against Tom per solo player{where}"))
    return out
