"""The errata sheet as data: what to print, how sure we are, what was left alone and why.

Built from the joint loop (``errata_loop``: seat points and task prices planted together
on fresh deals), the gnome values of the runs and the solo runs against Tom.  ``Sheet`` is
plain data (lists of dicts, JSON-ready): ``report.errata`` renders it as Markdown, a
printable HTML page and the experiment file that plays the new edition.

Every line says who played (the strength rung: the players of the runs), whether it was
verified on fresh deals, and whether it holds in every population the check round played.
An answer is never "no change" when its rows are not measured: those lines are left
unchanged with the reason "not measured" and the forks they would need.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from bonfire_sim.analysis.cards.probes import gnomes_in_print_order
from bonfire_sim.analysis.errata_cards import (
    MIN_PRICE,
    MIN_SLOPE,
    card_proposals,
    pooled,
    pooled_half,
    verdict,
)
from bonfire_sim.analysis.errata_gnomes import Trial, overrides_of, proposal
from bonfire_sim.analysis.errata_loop import (
    Edition,
    Loop,
    Measure,
    next_smaller,
    seats_missed,
    seats_within,
    worst_seat,
)
from bonfire_sim.analysis.targets import Targets, resolved
from bonfire_sim.infra.numtext import number
from bonfire_sim.rules import components as C

TEXT = {t.id: t.text for t in C.TASKS}
REASONS = ("within the margin", "not measured", "no price fixes it")


@dataclass
class Sheet:
    """The errata sheet: ``targets``; ``seats``/``tasks``/``gnomes``/``tom``: the lines of
    what to print (changed or not), each a dict; ``unchanged``: lines left alone on
    purpose with their ``reason`` (``REASONS``); ``who``: who played per player count;
    ``n_changes`` and ``next_smaller`` (the sheet with one change fewer and what it would
    miss); ``loop``: seeds, rounds and whether it reached a fixed point."""

    targets: dict[str, Any]
    who: dict[str, str]
    seats: list[dict[str, Any]] = field(default_factory=list)
    tasks: list[dict[str, Any]] = field(default_factory=list)
    gnomes: list[dict[str, Any]] = field(default_factory=list)
    tom: list[dict[str, Any]] = field(default_factory=list)
    unchanged: list[dict[str, Any]] = field(default_factory=list)
    n_changes: int = 0
    next_smaller: dict[str, Any] | None = None
    loop: dict[str, Any] = field(default_factory=dict)
    overrides: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return _plain(asdict(self))

    def lines(self) -> list[dict[str, Any]]:
        """Every changed line (section 3 of the sheet)."""
        return [x for x in (*self.seats, *self.tasks, *self.gnomes, *self.tom)
                if x.get("changed")]


def _plain(v: Any) -> Any:
    """JSON-ready: numpy scalars to Python, NaN to None."""
    if isinstance(v, dict):
        return {str(k): _plain(x) for k, x in v.items()}
    if isinstance(v, list | tuple):
        return [_plain(x) for x in v]
    if isinstance(v, np.generic):
        v = v.item()
    if isinstance(v, float) and not math.isfinite(v):
        return None
    return v


def _f(v: Any) -> float:
    try:
        return float(v)
    except (TypeError, ValueError):
        return math.nan


# ---- seats ----------------------------------------------------------------------------------
def _start_share(m: Measure, n: int) -> dict[str, float]:
    g = m.seats[(m.seats["players"] == n) & (m.seats["seat"] == 0)]
    if g.empty:
        return {"value": math.nan, "lo": math.nan, "hi": math.nan, "n": 0}
    r = g.iloc[0]
    return {"value": 100 * (r["value"] - r["fair"]), "lo": 100 * (r["lo"] - r["fair"]),
            "hi": 100 * (r["hi"] - r["fair"]), "n": int(r["n"])}


def _seat_share(m: Measure, n: int, seat: int) -> dict[str, float]:
    """Seat ``seat``'s win share against 1/n at ``n`` players (pp, with its interval)."""
    g = m.seats[(m.seats["players"] == n) & (m.seats["seat"] == seat)]
    if g.empty:
        return {"value": math.nan, "lo": math.nan, "hi": math.nan, "n": 0, "seat": seat}
    r = g.iloc[0]
    return {"value": 100 * (r["value"] - r["fair"]), "lo": 100 * (r["lo"] - r["fair"]),
            "hi": 100 * (r["hi"] - r["fair"]), "n": int(r["n"]), "seat": seat}


def _least_resolved(m: Measure, n: int) -> dict[str, float]:
    """The seat whose interval reaches furthest from fair: the one that decides whether
    the count's line is verified (it is the start seat only sometimes)."""
    g = m.seats[m.seats["players"] == n]
    if g.empty:
        return _seat_share(m, n, 0)
    reach = ((g["hi"] - g["fair"]).abs()).combine((g["lo"] - g["fair"]).abs(), max)
    return _seat_share(m, n, int(g.loc[reach.idxmax(), "seat"]))


def _worst(m: Measure, n: int) -> float:
    return 100 * worst_seat(m.seats, n)


def seat_lines(loop: Loop, targets: Targets, who: Mapping[int, str]) -> list[dict[str, Any]]:
    """One line per player count: today's and the proposed seat points, the start seat's
    win share against 1/n (pp) before and on the check round's fresh deals, verified, and
    the mark across the populations the check round played."""
    out = []
    missed = seats_missed(loop.estimate.seats, targets)
    for n in sorted(missed):
        today = list(loop.start.seat_points.get(n, ()))
        prop = list(loop.edition.seat_points.get(n, ()))
        changed = str(n) in loop.edition.changes(loop.start)["seats"]
        before = _start_share(loop.estimate, n)
        checks = [m for m in loop.check if n in set(m.seats["players"])]
        after = _start_share(checks[0], n) if checks else before
        within = [seats_within(m.seats, targets).get(n, None) for m in checks]
        verified = within[0] if checks else None
        asks = {tuple(m.seat_next.get(n) or ()) for m in checks}
        if len(checks) < 2:
            holds = "one population played"
        elif all(w is True for w in within):
            holds = "holds in every population"
        elif len(asks) > 1:
            holds = "no whole-point answer holds in every population"
        else:
            holds = "only with " + ", ".join(m.population for m, w in zip(checks, within,
                                                                          strict=True)
                                             if w is True)
        out.append({"component": "seats", "item": f"{n} players", "players": n,
                    "today": today or [0] * n, "proposed": prop or [0] * n,
                    "changed": changed, "missed": missed[n],
                    "before": before, "effect": after,
                    "deciding": _least_resolved(checks[0] if checks else loop.estimate, n),
                    "worst": _worst(checks[0], n)
                    if checks else _worst(loop.estimate, n),
                    "unit": "pp", "verified": verified, "who": who.get(n, ""),
                    "populations": holds,
                    "per_population": [{"population": m.population or "runs",
                                        "within": w, "asks": list(m.seat_next.get(n) or [])}
                                       for m, w in zip(checks, within, strict=True)]})
    return out


# ---- tasks ----------------------------------------------------------------------------------
_resolved = resolved  # targets.resolved, under the name the sheet's code reads


def task_lines(loop: Loop, targets: Targets, who: Mapping[int, str],
               ) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """(changed task lines, unchanged task lines with their reason).  A changed line has
    ONE printed value for every count and each count's residual on the check round."""
    today = dict(loop.start.task_points)
    est = card_proposals(loop.estimate.cards, today, targets.task_margin,
                         loop.estimate.measure)
    check = loop.check[0].cards if loop.check else est.iloc[:0]
    changed = loop.edition.changes(loop.start)["tasks"]
    lines, left = [], []
    # the rows each of the check's top-ups forked again
    looks = [{(str(c), int(n)) for c, n in t["rows"]}
             for t in (loop.check[0].top_ups if loop.check else [])]
    for card in changed:
        rows = check[check["card"] == card]
        # a count verifies only when its row is measured and its whole interval lies
        # inside ±margin (cards.verdict); one crossing it got the check's top-ups
        marks = verdict(rows, targets.task_margin) if len(rows) else pd.Series(dtype=str)
        residual = {int(r["players"]): {"surplus": _f(r["surplus"]), "lo": _f(r["s_lo"]),
                                        "hi": _f(r["s_hi"]), "status": r["status"],
                                        "n": int(r["n"]), "verdict": str(marks[i]),
                                        "top_ups": sum((card, int(r["players"])) in rs
                                                       for rs in looks)}
                    for i, r in rows.iterrows()}
        after = pooled(check, card) if len(rows) else math.nan
        e = est[est["card"] == card]
        before = pooled(loop.estimate.cards, card)
        why = _why(loop.estimate.cards, card)
        ok = [{"within": True, "off": False}.get(v["verdict"]) for v in residual.values()]
        half = (pooled_half(check, card) if len(rows) and (rows["half"] > 0).all()
                else math.nan)
        # only a card still too STRONG at the lowest price is one no price fixes; one
        # shown too weak there overshot, and a higher price is the answer
        strong = any(_f(v["lo"]) > targets.task_margin for v in residual.values())
        fixes = not (loop.edition.task_points[card] <= MIN_PRICE and strong)
        # the evidence: its surplus measured at the floor, per count (the loop's and the
        # report's "change the condition" say the same of a card fair below MIN_PRICE)
        at = "; ".join(f"{n}p {number(v['surplus'])} ({number(v['lo'])} to {number(v['hi'])})"
                       for n, v in sorted(residual.items()))
        lines.append({"component": "tasks", "item": card, "text": TEXT.get(card, ""),
                      "note": "" if fixes else "no price fixes it: change the condition: "
                      f"too strong even at the lowest print {MIN_PRICE} (surplus at "
                      f"{MIN_PRICE}: {at})",
                      "change_condition": not fixes,
                      "today": today[card], "proposed": loop.edition.task_points[card],
                      "changed": True, "before": before,
                      "effect": {"value": after, "lo": after - half, "hi": after + half,
                                 "n": int(rows["n"].sum()) if len(rows) else 0},
                      "residual": residual, "why": why, "unit": "points",
                      "unresolved": _counts(residual, "unresolved", targets.task_margin),
                      "off": _counts(residual, "off", targets.task_margin),
                      "verified": (None if not ok else True if all(v is True for v in ok)
                                   else False if False in ok else None),
                      "who": "; ".join(sorted({who.get(int(n), "") for n in e["players"]})),
                      "populations": _card_marks(loop, card, targets)})
    for card, g in est.groupby("card", sort=True):
        card = str(card)
        if card in changed:
            continue
        flagged = bool((g["flag"] != "").any())
        measured = bool((g["status"] == "measured").all())
        why = _why(loop.estimate.cards, card)
        slopes = [_f(s) for s in g["slope"]] if "slope" in g else []
        if flagged and slopes and max(slopes) < MIN_SLOPE:
            lit = "; ".join(f"{n}p {v['lit_share']:.0%}" for n, v in sorted(why.items())
                            if math.isfinite(v["lit_share"]))
            reason, detail = "no price fixes it", (
                f"a printed point moves its worth by {max(slopes):.2f} at most (lit in "
                f"{lit or '–'} of receipts): no printed value fixes it: change the condition")
        elif flagged:
            reason, detail = "no price fixes it", (
                f"off at some count but no whole printed value of at least {MIN_PRICE} "
                "brings it "
                "within the margin on fresh deals: change the condition")
        elif measured:
            reason, detail = "within the margin", ""
        else:
            need = g["forks_needed"].dropna()
            reason = "not measured"
            detail = (f"not enough play to tell: needs about {int(need.max()):,} forks "
                      f"(has {int(g['n'].min()):,}{_on_games(g)})" if len(need) else
                      "not enough play to tell: never forked")
        left.append({"component": "tasks", "item": card, "reason": reason, "detail": detail,
                     "today": today.get(card), "surplus": {
                         int(r["players"]): _f(r["surplus"]) for _, r in g.iterrows()}})
    return lines, left


def _on_games(rows: pd.DataFrame) -> str:
    """" on 64,000 games at 2 players" (the games the row needing most forks got, the
    estimate's top-ups included) where the estimate says; '' where it does not."""
    if "games" not in rows or not len(rows):
        return ""
    r = rows.loc[pd.to_numeric(rows["forks_needed"], errors="coerce").fillna(-1).idxmax()]
    g = _f(r["games"])
    return f" on {int(g):,} games at {int(r['players'])} players" if math.isfinite(g) else ""


def _counts(residual: Mapping[int, Mapping[str, Any]], which: str, margin: float) -> str:
    """The counts of a changed task whose check row reads ``which`` (``unresolved``: the
    check could not tell; ``off``: wholly beyond the margin), each with the forks it got
    (the check's and its top-ups') and the interval that remained ('' when none)."""
    def bound(v: float) -> str:
        # -1.03 against a margin of 1 reads "-1.03", not "-1.0": the reason it is open
        return number(v, "+.2f" if abs(round(v, 1)) == margin else "+.1f")

    return "; ".join(
        f"{n}p {number(r['surplus'])} ({bound(r['lo'])} to {bound(r['hi'])}) on {r['n']:,} forks"
        + (f" after {r['top_ups']} top-up(s)" if r["top_ups"] else "")
        if math.isfinite(r["lo"] + r["hi"]) else f"{n}p not measured ({r['n']:,} forks)"
        for n, r in sorted(residual.items()) if r["verdict"] == which)


def _why(cards: pd.DataFrame, card: str) -> dict[int, dict[str, float]]:
    """Per count, why a task is worth what it is (the estimate's rows): the share of its
    receipts lit by the end, the rounds from receipt to ignition, its lit value
    (igniting it against never) and its receipt value, each NaN where not measured."""
    rows = cards[(cards["card"] == card) & (cards["kind"] == "task")] if len(cards) else cards
    cols = ("lit_share", "rounds_to_light", "lit_value", "value")
    return {int(r["players"]): {c: _f(r.get(c)) for c in cols} for _, r in rows.iterrows()}


def _card_marks(loop: Loop, card: str, targets: Targets) -> str:
    if len(loop.check) < 2:
        return "one population played"
    ok = []
    for m in loop.check:
        s = pooled(m.cards, card)
        ok.append(math.isfinite(s) and abs(s) <= targets.task_margin)
    if all(ok):
        return "holds in every population"
    # the runs' own population has no name (""): call it "runs", as the seat lines do,
    # or a card that holds only there reads "only with none"
    return "only with " + (", ".join(m.population or "runs"
                                     for m, o in zip(loop.check, ok, strict=True) if o)
                           or "none")


# ---- gnomes ---------------------------------------------------------------------------------
def gnome_lines(gv: pd.DataFrame | None, targets: Targets, who: Mapping[int, str],
                trials: Mapping[str, Sequence[Trial]] | None = None,
                ) -> list[dict[str, Any]]:
    """One line per gnome.  A flagged gnome with a proposed change (``errata_gnomes``:
    its knob or ability tried on fresh deals) is ``changed`` with the change, whether it
    is verified (inside ±margin at every flagged count), not verified or not resolved
    (with the forks it would need) and every change tried; a flagged gnome without one is
    'no price fixes it' with what was tried; unflagged measured ones are within the
    margin; the rest are not measured, with the forks they need."""
    if gv is None or gv.empty:
        return []
    rows = gv[gv["players"] > 0]
    out = []
    by_gnome = {str(k): g for k, g in rows.groupby("gnome")}
    for gnome in gnomes_in_print_order(by_gnome):  # the components' order: S4 before S15
        g = by_gnome[gnome]
        flagged = g[g["flag"] != ""]
        tried = list((trials or {}).get(str(gnome), []))
        chosen = proposal(tried, targets.gnome_margin) if tried else None
        line: dict[str, Any] = {"component": "gnomes", "item": str(gnome), "changed": False,
                                "trials": [t.to_json() for t in tried]}
        if len(flagged):
            r = flagged.iloc[0]
            why = (f"{r['flag']} at {int(r['players'])} players, {r['relative']:+.1f} "
                   f"({r['rel_lo']:+.1f} to {r['rel_hi']:+.1f}) points against the "
                   f"average gnome")
            if chosen is not None:
                worst = max(chosen.rows.values(), key=lambda x: abs(_f(x["relative"])))
                line.update(changed=True, reason="changed", proposed=chosen.candidate.label,
                            today=f"{chosen.candidate.key} = {chosen.candidate.today}",
                            override=chosen.candidate.overrides,
                            verified=chosen.verified, unit="points",
                            before={"value": _f(r["relative"]), "lo": _f(r["rel_lo"]),
                                    "hi": _f(r["rel_hi"])},
                            effect={"value": worst["relative"], "lo": worst["lo"],
                                    "hi": worst["hi"], "n": worst["n"]},
                            populations="the runs' main population",
                            detail=f"{why}; {_trial_text(chosen)}")
            elif tried:
                line.update(reason="no price fixes it", detail=(
                    f"{why}; tried on fresh deals: "
                    + "; ".join(_trial_text(t) for t in tried)
                    + ": none brings it within the margin: change the ability"))
            else:
                line.update(reason="no price fixes it", detail=(
                    f"{why}; no knob to try (a weak specialist's ability has no amount): "
                    f"strengthen the ability, then measure the variant"))
        elif (g["status"] == "measured").all():
            line.update(reason="within the margin", detail="")
        else:
            need = g["forks_needed"].dropna()
            line.update(reason="not measured",
                        detail=(f"not enough play to tell: needs about {int(need.max()):,} "
                                f"forks" if len(need) else
                                "not enough play to tell: never forked"))
        line["who"] = "; ".join(sorted({who.get(int(n), "") for n in g["players"]}))
        out.append(line)
    return out


def _trial_text(t: Trial) -> str:
    """``S4: +2 -> +1 points, verified: 4p +0.3 (-0.5 to +1.1)`` or ``not resolved:
    needs about 2,400 forks (has 300)``."""
    per = "; ".join(f"{n}p {number(r['relative'])} ({number(r['lo'])} to {number(r['hi'])})"
                    + _trial_looks(t, n, r)
                    for n, r in sorted(t.rows.items()) if math.isfinite(r["relative"]))
    if t.verified is True:
        state = "verified"
    elif t.verified is False:
        state = "not verified (beyond the margin)"
    else:
        need = [r["forks_needed"] for r in t.rows.values() if math.isfinite(r["forks_needed"])]
        has = min((int(r["n"]) for r in t.rows.values()), default=0)
        state = (f"not resolved: needs about {int(max(need)):,} forks (has {has:,})"
                 if need else "not resolved")
    return f"{t.candidate.label}, {state}" + (f": {per}" if per else "")


def _trial_looks(t: Trial, n: int, r: Mapping[str, float]) -> str:
    """`` on 1,204 forks of 5,400 games (seeds 2034-2036: 2 top-up(s); reference +-0.9
    of +-1.1)`` for a count topped up (``errata_gnomes.measure_trial``), and why it
    stopped open; empty for a count played once."""
    looks = t.looks.get(n, [])
    own, ref = _f(r.get("own_half")), _f(r.get("ref_half"))
    half = math.hypot(own, ref) if math.isfinite(own) and math.isfinite(ref) else math.nan
    why = {"cap": ", stopped at the cap", "margin": ", its estimate on the margin",
           "reference": ", today's reference alone wider than its distance to the margin"}.get(
               t.stopped.get(n, ""), "")
    if len(looks) < 2:
        return (f" (not forked again{why}: reference ±{ref:.2f} of ±{half:.2f})"
                if why else "")
    seeds = f"{looks[0][0]}-{looks[-1][0]}"
    return (f" on {int(r['n']):,} forks of {int(r.get('games', 0)):,} games (seeds {seeds}: "
            f"{len(looks) - 1} top-up(s); reference ±{ref:.2f} of ±{half:.2f}{why})")


# ---- Tom ------------------------------------------------------------------------------------
def tom_lines(tom: pd.DataFrame | None, fresh: Mapping[str, Mapping[str, float]],
              targets: Targets) -> list[dict[str, Any]]:
    """Per Tom-deck reading and solo player: today's starting handicap, the one to print
    (where the challenge settles, whole), and the fresh solo games' check (``fresh``:
    per ``key`` its ``equilibrium``/``lo``/``hi`` on new deals at the proposal)."""
    if tom is None or tom.empty:
        return []
    out = []
    today = C.HANDICAP_START
    for r in tom.to_dict("records"):
        key = str(r["key"])
        eq, lo, hi = _f(r["handicap"]), _f(r["h_lo"]), _f(r["h_hi"])
        missed = (math.isfinite(lo) and math.isfinite(hi)
                  and (lo > today + targets.tom_tolerance or hi < today - targets.tom_tolerance))
        prop = int(math.floor(eq + 0.5)) if missed else today
        f = fresh.get(key)
        verified = (f is not None and math.isfinite(_f(f.get("equilibrium")))
                    and abs(_f(f["equilibrium"]) - prop) <= targets.tom_tolerance)
        out.append({"component": "Tom", "item": key, "reading": r.get("reading", ""),
                    "today": today, "proposed": prop, "changed": prop != today,
                    "missed": bool(missed),
                    "before": {"value": eq, "lo": lo, "hi": hi, "n": int(r["n"])},
                    "effect": dict(f) if f is not None else None, "unit": "points",
                    "verified": bool(verified), "who": f"{r['strategy']} (solo)",
                    "populations": "one solo player per line"})
    return out


def build_sheet(loop: Loop, targets: Targets, who: Mapping[int, str],
                gnomes: pd.DataFrame | None = None, tom: pd.DataFrame | None = None,
                tom_fresh: Mapping[str, Mapping[str, float]] | None = None,
                gnome_trials: Mapping[str, Sequence[Trial]] | None = None) -> Sheet:
    """The sheet from the joint loop, the gnome values (with the changes tried for the
    flagged gnomes, ``errata_gnomes.try_changes``) and the Tom rows."""
    sheet = Sheet(targets=targets.to_json(), who={str(n): w for n, w in sorted(who.items())})
    sheet.seats = seat_lines(loop, targets, who)
    sheet.tasks, left = task_lines(loop, targets, who)
    sheet.gnomes = gnome_lines(gnomes, targets, who, gnome_trials)
    sheet.tom = tom_lines(tom, tom_fresh or {}, targets)
    for s in sheet.seats:
        if not s["changed"]:
            reason = ("within the margin" if s["verified"] else
                      "not measured" if not s["missed"] else "no price fixes it")
            more = ("; not enough play to tell: more games per player count"
                    if reason == "not measured" else "")
            sheet.unchanged.append({"component": "seats", "item": s["item"],
                                    "reason": reason,
                                    "detail": f"worst seat {s['worst']:.1f} pp from fair"
                                              + more})
    sheet.unchanged += left + [g for g in sheet.gnomes if not g["changed"]]
    sheet.unchanged += [{"component": "Tom", "item": t["item"], "reason": "within the margin",
                         "detail": f"settles at {t['before']['value']:+.1f}"}
                        for t in sheet.tom if not t["changed"]]
    sheet.n_changes = (loop.edition.n_changes(loop.start) + sum(t["changed"] for t in sheet.tom)
                       + sum(g["changed"] for g in sheet.gnomes))
    sheet.next_smaller = next_smaller(loop, targets)
    sheet.loop = {"rounds": [{"seed": m.seed, "changes": e.n_changes(loop.start)}
                             for e, m in loop.rounds],
                  "check_seed": loop.check[0].seed if loop.check else None,
                  "fixed_point": loop.fixed_point,
                  "populations": [m.population or "runs" for m in loop.check],
                  "top_ups": loop.check[0].top_ups if loop.check else []}
    sheet.overrides = edition_overrides(loop.edition, loop.start)
    sheet.overrides.update(overrides_of(gnome_trials or {}, targets.gnome_margin))
    return sheet


def edition_overrides(edition: Edition, today: Edition) -> dict[str, Any]:
    """``[overrides]`` of the new edition: the changed task points and, per player count,
    the seat points (an experiment file plays one count per point of a ``players``
    sweep, so seat points are given per count)."""
    out: dict[str, Any] = {}
    cards = edition.changes(today)["tasks"]
    if cards:
        out["task_points"] = {c: int(edition.task_points[c]) for c in cards}
    seats = {str(n): [int(v) for v in p] for n, p in sorted(edition.seat_points.items())
             if any(p)}
    if seats:
        out["seat_points"] = seats
    return out


def no_change(sheet: Sheet) -> bool:
    """True when the sheet changes nothing."""
    return sheet.n_changes == 0


def lines_agree(a: Sheet, b: Sheet, within: float = 1.0) -> tuple[int, int]:
    """(lines within ``within`` point of each other, lines compared) of two sheets: every
    seat point and printed task value either sheet proposes (the second-seed check)."""
    def values(s: Sheet) -> dict[str, float]:
        v = {f"seat {x['players']}/{i}": float(p) for x in s.seats
             for i, p in enumerate(x["proposed"])}
        v.update({f"task {x['item']}": float(x["proposed"]) for x in s.tasks})
        v.update({f"tom {x['item']}": float(x["proposed"]) for x in s.tom})
        return v
    va, vb = values(a), values(b)
    keys = sorted(set(va) | set(vb))
    today = {**{f"task {x['item']}": float(x["today"]) for x in (*a.unchanged, *b.unchanged)
                if x.get("component") == "tasks" and x.get("today") is not None},
             **{f"task {x['item']}": float(x["today"]) for x in (*a.tasks, *b.tasks)}}
    agree = sum(abs(va.get(k, today.get(k, 0.0)) - vb.get(k, today.get(k, 0.0))) <= within
                for k in keys)
    return agree, len(keys)


def reasons_count(sheet: Sheet) -> dict[str, int]:
    """How many lines were left unchanged for each reason."""
    out = dict.fromkeys(REASONS, 0)
    for x in sheet.unchanged:
        out[x["reason"]] = out.get(x["reason"], 0) + 1
    return out


def who_played(runs: Sequence[Any]) -> dict[int, str]:
    """Who played per player count (the strength rung): the runs' players."""
    from bonfire_sim.analysis.errata_cards import population

    out: dict[int, str] = {}
    for r in runs:
        if r.config.players >= 2:
            out.setdefault(r.config.players, population(r.config.strategies))
    return out
