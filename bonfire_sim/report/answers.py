"""The report's first section: the designer's four questions answered in plain sentences.

Built last from the frames the detail sections computed (their ``data``), shown first:
task values, gnome strength, the start-player advantage with the seat points to print,
and Tom's difficulty with the handicap per solo group, each with its figure, interval,
recommended change and a link to its details, per configuration setting; then who played
and how strong they are against the strongest reference.  Nothing here computes a fork.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from bonfire_sim.analysis import flags as FL
from bonfire_sim.analysis.intervals import IntegerSummary, mean_ci
from bonfire_sim.infra.numtext import number
from bonfire_sim.report import figures as F
from bonfire_sim.report import groups as G
from bonfire_sim.report import html as H
from bonfire_sim.report import rows as RW
from bonfire_sim.report import stats as S
from bonfire_sim.report.marks import answer_marks, win_scores

# The strongest reference player and its measured strength: not measured in the runs of a
# report, so quoted with its source (README, "Where every player stands").
REFERENCE = "tuned"
REFERENCE_WIN_SCORE = (81.9, 81.5, 82.3)
REFERENCE_SOURCE = ("4-player self-play, scripts/player_targets.py --games 2000, README "
                    "'Where every player stands'")
SHOWN = 8  # items named per answer (the detail tables list every row)


def _pct(v: float) -> str:
    return f"{100 * v:.1f}%"


def _ci(lo: float, hi: float, fmt: str = "+.1f") -> str:
    if not (np.isfinite(lo) and np.isfinite(hi)):
        return "interval not estimable"
    return f"{number(lo, fmt)} to {number(hi, fmt)}"


def _where(setting: str, many: bool) -> str:
    return f" ({setting})" if many and setting else ""


def _fig(ax: Any, caption: str) -> dict[str, Any]:
    return H.figure_block(F.to_png_base64(ax), caption)


def _by_setting(sections: Mapping[str, dict[str, Any]], sid: str) -> list[tuple[str, dict]]:
    return list((sections.get(sid) or {}).get("data", {}).get("by_setting", []))


# ---- the four questions -------------------------------------------------------------------
def _measured_note(rows: pd.DataFrame, what: str) -> str:
    """How many rows are not measured and the forks the widest of them needs."""
    wide = rows[rows["status"] != "measured"]
    if wide.empty:
        return f"Every {what} row is measured to the margin."
    need = wide["forks_needed"].dropna()
    most = f"; the widest needs about {int(need.max()):,} forks" if len(need) else ""
    # ``topped_up`` (report --measure-cards): the rows already had the games they asked
    # for up to the cap, so more probed games is not the advice.
    if "topped_up" in rows and bool(rows["topped_up"].any()):
        how = ("they stayed wider after the top-ups, at the cap of games per card: cards "
               "the rules rarely let a player light at that count")
    else:
        how = ("probe more games (`--probe-games`) or top up each row on the games it "
               "needs (`--measure-cards`)")
    return (f"{len(wide)} of {len(rows)} {what} rows are not measured (interval wider than "
            f"the margin or too few deals): flagged only where already shown beyond it"
            f"{most}: {how}.")


def _verdict(rows: pd.DataFrame) -> str:
    """"no change suggested" only when every row is measured; else not enough play."""
    wide = rows[rows["status"] != "measured"]
    if wide.empty:
        return "no change suggested."
    return (f"not enough play to tell for the {len(wide)} rows not measured (forks they "
            f"need below).")


def _who(rows: pd.DataFrame) -> str:
    who = sorted(set(rows["who"].dropna())) if "who" in rows else []
    return f"Played by {'; '.join(who)}." if who else ""


def task_answer(tv: pd.DataFrame, setting: str, many: bool) -> list[dict[str, Any]]:
    where = _where(setting, many)
    rows = tv[(tv["players"] > 0) & tv["surplus"].notna()]
    if rows.empty:
        return [H.text_block(f"Task values{where}: no task could be measured (too few "
                             f"forks); see the details.", "answer")]
    ranked = rows.reindex(rows["surplus"].abs().sort_values(ascending=False).index)
    # a task is flagged at a count, or by the test across the counts (a card a little off
    # at every count): the first screen's card re-prices both, so the list here is its list
    flagged = ranked[FL.flagged(ranked)]
    method = ("A task's surplus is its receipt value (engine forks: receive it now against "
              "the best other move, so how hard its condition is counts) minus the mean "
              "receipt value of the other tasks of its colour at that player count; the "
              "print column is where that surplus reaches zero. `bonfire-sim reprice RUN "
              "--verify` proposes one printed value for every count and checks it on "
              "fresh deals.")
    # The figure shows the flagged tasks, or the largest surpluses when none is flagged.
    shown = (flagged if len(flagged) else ranked[ranked["status"] == "measured"]).head(SHOWN)
    figure = []
    if len(shown):
        shown = shown.assign(label=shown["task"] + " " + shown["text"].map(F.wrap_label))
        what = "Flagged tasks" if len(flagged) else "Largest measured surpluses (none flagged)"
        figure = [_fig(F.value_intervals(shown, "task", "label", value="surplus", lo="s_lo",
                                         hi="s_hi", legend=F.TASK_LEGEND,
                                         title=f"{what}: surplus over the typical card",
                                         xlabel="points beyond the typical card of its colour"),
                       f"{what}{where}: surplus with 95% intervals clustered by deal; "
                       + F.legend_text(F.TASK_LEGEND) + ".")]
    tail = f"{_measured_note(rows, 'task')} {_who(rows)} {method}"
    if flagged.empty:
        return [H.text_block(f"Task values{where}: no measured task is flagged as mispriced "
                             f"(surplus within ±margin of the typical card of its colour, "
                             f"FDR 5%) in {len(rows)} task rows; {_verdict(rows)} {tail}",
                             "answer")] + figure
    tasks = list(dict.fromkeys(flagged["task"]))
    items = "; ".join(_task_item(tv, task) for task in tasks[:SHOWN])
    more = f" and {len(tasks) - SHOWN} more" if len(tasks) > SHOWN else ""
    at_count = int((flagged["flag"] != "").sum())
    return [H.text_block(f"Task values{where}: {len(tasks)} task(s) are flagged as mispriced "
                         f"at some player count or across the counts ({at_count} of "
                         f"{len(rows)} task rows flagged at their count); "
                         f"a task is printed once, so each gets one value for every count: "
                         f"{items}{more}. {tail}", "answer")] + figure


def _task_item(tv: pd.DataFrame, task: str) -> str:
    """One flagged task: today's print, ONE proposed print (the inverse-variance mean of
    printed - surplus over the counts, ``errata_measure.card_proposals``) and each count's
    surplus with its interval and flag."""
    from bonfire_sim.analysis.errata_cards import card_proposals

    rows = tv[(tv["task"] == task) & (tv["players"] > 0)].rename(columns={"task": "card"})
    printed = int(rows["printed"].iloc[0])
    prop = card_proposals(rows, {task: printed}, 1.0)
    one = int(prop["proposed"].iloc[0]) if len(prop) else printed
    counts = ", ".join(f"{int(r.players)}p {number(r.surplus)} ({_ci(r.s_lo, r.s_hi)})"
                       + (f" {r.flag}" if r.flag else "")
                       for r in rows.sort_values("players").itertuples())
    across = sorted({str(f) for f in rows.get("flag_counts", pd.Series(dtype=str)).fillna("")
                     if f})
    pooled = (f"; {'/'.join(across)} across the counts" if across else "")
    # fair below the lowest print: proposed at it with the advice and its evidence
    advice = str(prop["note"].iloc[0]) if len(prop) else ""
    return (f"{task} prints {printed}, print {one} at every count"
            + (f", but {advice} (measured: " if advice else " (")
            + f"surplus {counts}{pooled}; {int(rows['n'].sum()):,} forks)")


def gnome_answer(gv: pd.DataFrame, setting: str, many: bool) -> list[dict[str, Any]]:
    where = _where(setting, many)
    rows = gv[(gv["players"] > 0) & gv["relative"].notna()]
    if rows.empty:
        return [H.text_block(f"Gnome strength{where}: no gnome value could be measured.",
                             "answer")]
    ranked = rows.reindex(rows["relative"].abs().sort_values(ascending=False).index)
    flagged = ranked[ranked["flag"] != ""]
    shown = (flagged if len(flagged) else ranked[ranked["status"] == "measured"]).head(SHOWN)
    figure = []
    if len(shown):
        shown = shown.assign(label=shown["gnome"] + " " + shown["text"].map(F.wrap_label))
        what = ("Flagged gnomes" if len(flagged)
                else "Furthest from the average gnome (none flagged)")
        figure = [_fig(F.value_intervals(shown, "gnome", "label", value="relative",
                                         lo="rel_lo", hi="rel_hi", legend=F.GNOME_LEGEND,
                                         title=f"{what}: points against the average gnome",
                                         xlabel="points against the average gnome"),
                       f"{what}{where}: points against the average gnome of the player "
                       f"count with 95% intervals clustered by deal; "
                       + F.legend_text(F.GNOME_LEGEND) + ".")]
    tail = f"{_measured_note(rows, 'gnome')} {_who(rows)}"
    if flagged.empty:
        return [H.text_block(f"Gnome strength{where}: no measured gnome stands out from the "
                             f"average gnome of its player count by more than the margin "
                             f"(FDR 5%) in {len(rows)} gnome rows; {_verdict(rows)} "
                             f"{tail}", "answer")] + figure
    items = "; ".join(
        f"{r.gnome} at {int(r.players)} players {number(r.relative)} ({_ci(r.rel_lo, r.rel_hi)}) "
        f"points against the average gnome: {r.flag} (measured, {int(r.n):,} forks)"
        for r in flagged.head(SHOWN).itertuples())
    more = f" and {len(flagged) - SHOWN} more" if len(flagged) > SHOWN else ""
    return [H.text_block(f"Gnome strength{where}: {len(flagged)} of {len(rows)} gnome rows "
                         f"are flagged: {items}{more}. Recommended change: weaken the strong "
                         f"and strengthen the weak ones, then re-measure (a gnome prints no "
                         f"number to re-price). {tail}", "answer")] + figure


def _seat_points_now(members: Sequence[G.Group], runs: Mapping[str, Any], n: int) -> list:
    for g in members:
        if g.players == n:
            cfg = runs[g.runs[0]].manifest.get("config", {})
            return list((cfg.get("overrides") or {}).get("seat_points") or [])
    return []


def whole_points_words(check: Mapping[str, Any] | None, n: int) -> str:
    """Whether the whole points proposed are fair at ``n`` players, as measured by
    re-ranking the games under them ("" when not measured)."""
    if not check:
        return ""
    pts, shares = check["points"], check["shares"]
    spread = f"seat win shares {_pct(min(shares))} to {_pct(max(shares))}"
    if check["fair"]:
        return (f"; whole points {pts} are fair at {n} players (re-ranked: {spread}, every "
                f"seat's interval holds {_pct(1 / n)})")
    off = [f"seat {k} {_pct(s)} ({_pct(a)} to {_pct(b)})" for k, (s, a, b) in
           enumerate(zip(shares, check["lo"], check["hi"], strict=True))
           if not a <= 1 / n <= b]
    return (f"; whole points {pts} are NOT fair at {n} players (re-ranked: "
            f"{', '.join(off)} against {_pct(1 / n)}): print the exact compensation as a "
            f"per-deal lottery, or accept a {_pct(check['max_dev'])} gap")


def seat_answer(data: Mapping[str, Any], setting: str, many: bool,
                members: Sequence[G.Group], runs: Mapping[str, Any]) -> list[dict[str, Any]]:
    where = _where(setting, many)
    sa = data.get("compensation")
    seats = data.get("seats")
    if sa is None or sa.empty:
        return [H.text_block(f"Start-player advantage{where}: no multiplayer games in these "
                             f"runs.", "answer")]
    parts = []
    for n, g in sa.groupby("players"):
        n = int(n)
        s0 = g[g["seat"] == 0].iloc[0]
        pts = sa.attrs.get("seat_points", {}).get(n)
        exact = sa.attrs.get("seat_points_exact", {}).get(n)
        worst = g[g["seat"] > 0].sort_values("compensation").tail(1)
        now = _seat_points_now(members, runs, n)
        text = (f"{n} players: the start player wins {_pct(s0.value)} ({_pct(s0.lo)} to "
                f"{_pct(s0.hi)}) against a fair {_pct(1 / n)}")
        if pts and len(worst):
            w = worst.iloc[0]
            change = (f"print seat_points = {pts}" if not now else
                      f"this setting already prints seat_points = {now}; the remaining "
                      f"compensation is {pts}, so print "
                      f"{[a + b for a, b in zip(now, pts, strict=False)]}")
            text += (f"; {change} (exact compensation {exact}; seat {int(w.seat)} "
                     f"{w.compensation:+.2f}, {_ci(w.c_lo, w.c_hi, '+.2f')})")
            text += whole_points_words(sa.attrs.get("seat_points_whole", {}).get(n), n)
        parts.append(text)
    blocks = [H.text_block(f"Start-player advantage{where}: " + "; ".join(parts) + ". The "
                           "compensation re-ranks the recorded games; confirm it with a run "
                           "under those seat points.", "answer")]
    if seats is not None and len(seats):
        blocks.append(_fig(F.seat_win_rates(seats),
                           f"Win rate by seat{where} against the fair share 1/n (dashed), "
                           f"95% Wilson intervals."))
    return blocks


def tom_answer(data: Mapping[str, Any]) -> list[dict[str, Any]]:
    tom, eq = data.get("tom"), data.get("handicaps")
    if tom is None or tom.empty:
        return [H.text_block("Tom's difficulty: no solo run in this report.", "answer")]
    eq = eq.set_index("strategy") if eq is not None and len(eq) else pd.DataFrame()
    items = []
    for r in tom.itertuples():
        text = (f"{r.strategy}: wins {_pct(r.win_rate)} ({_pct(r.lo)} to {_pct(r.hi)}) at "
                f"handicap 0")
        if r.strategy in eq.index:
            e = eq.loc[r.strategy]
            text += (f"; Tom needs a head start of {e['equilibrium']:+.1f} "
                     f"({_ci(e['lo'], e['hi'])}) where the challenge settles "
                     f"(about a 2/7 win rate)")
        items.append(text)
    table = tom.merge(eq.reset_index()[["strategy", "equilibrium", "lo", "hi"]]
                      .rename(columns={"lo": "h_lo", "hi": "h_hi"}), on="strategy", how="left"
                      ) if len(eq) else tom.assign(equilibrium=np.nan, h_lo=np.nan,
                                                   h_hi=np.nan)
    return [H.text_block("Tom's difficulty, one row per solo group (solo player and Tom "
                         "deck or other setting; never pooled): " + "; ".join(items) + ". "
                         "Recommended change: print the handicap of the solo player the rules "
                         "target as Tom's starting head start.", "answer"),
            H.table_block(table, {
                "strategy": ("solo group", ""), "games": ("games", ","),
                "win_rate": ("win rate, handicap 0", ".3f"), "lo": ("95% lo", ".3f"),
                "hi": ("95% hi", ".3f"), "equilibrium": ("settle point", "+.1f"),
                "h_lo": ("95% lo", "+.1f"), "h_hi": ("95% hi", "+.1f")},
                caption="Tom's difficulty and handicap per solo group"),
            _fig(F.tom_win_rates(tom), "Win rate against Tom at handicap 0 per solo group "
                                       "(95% Wilson intervals; dashed: 2/7).")]


# ---- population ---------------------------------------------------------------------------
def population_block(players: pd.DataFrame, groups: Sequence[G.Group]) -> dict[str, Any]:
    """Who played, their mean winning score per player count, and the caveat against the
    strongest reference (quoted, with its source: not measured in these runs)."""
    multi = S.multiplayer(players)
    parts = []
    for setting, members in G.settings(groups, solo=False) or [("", [])]:
        runs = {r for g in members for r in g.runs}
        p = RW.rows_of_runs(multi, sorted(runs)) if runs else multi  # no copy of every row
        if p.empty:
            continue
        mix = S.counts(p["strategy"]) / len(p)  # value_counts(normalize) of the strings
        who = ", ".join(f"{s} ({v:.0%})" for s, v in mix.items())
        wins, versus = [], ""
        # the winners' scores per player count, each count found by a mask (no copy of
        # the winners' rows, no grouper over them)
        won = p["won"].to_numpy(bool)
        counts, scores = p["n_players"], p["score"].to_numpy()
        for n in RW.present(counts[won] if not won.all() else counts):
            same = RW.where_equal(counts, n)  # None: every row has n players (no mask)
            at = won if same is None else won & same
            winners = scores[at]
            # from the counts of each winning score where they are integers (no float64
            # copy of every winner's score, nor numpy's second one for the deviations)
            m, lo, hi = (IntegerSummary(winners).mean_ci() if winners.dtype.kind in "iu"
                         else mean_ci(winners))
            del winners
            wins.append(f"{n} players {m:.1f} ({_ci(lo, hi, '.1f')})")
            if int(n) == 4 and np.isfinite(hi):
                gap = REFERENCE_WIN_SCORE[0] - m
                versus = (f" — at 4 players they win with {m:.1f} points, {abs(gap):.1f} "
                          + ("fewer than" if gap > 0 else "more than")
                          + f" {REFERENCE}'s {REFERENCE_WIN_SCORE[0]}"
                          + (f": this population is weaker than {REFERENCE}"
                             if hi < REFERENCE_WIN_SCORE[1] else ""))
        parts.append((f"{setting}: " if setting else "") + f"{who}; mean winning score "
                     + ", ".join(wins) + versus)
    flags = players["solo"].to_numpy()
    solo = players[players["solo"].astype(bool) & (players["strategy"] != S.TOM)] if RW.any_row(
        len(flags), lambda b: flags[b].astype(bool)) else players.iloc[:0]
    if len(solo):
        parts.append("solo players: " + ", ".join(sorted(solo["strategy"].unique())))
    # the reference is a multiplayer figure; the strategies found by counting (``unique``
    # hashed every row: 32 MB at a million 4-player games)
    strategies = set(RW.present(multi["strategy"]))
    ref = (f"The multiplayer games are {REFERENCE} self-play, among the strongest fast players "
           f"(the much slower search player beats it; good human players may be stronger "
           f"still): every number below describes games among these players." if
           strategies == {REFERENCE} else
           f"The strongest reference, {REFERENCE}, wins with {REFERENCE_WIN_SCORE[0]} "
           f"({REFERENCE_WIN_SCORE[1]}-{REFERENCE_WIN_SCORE[2]}) points ({REFERENCE_SOURCE}; "
           f"not measured in these runs): a population that wins with fewer points is weaker "
           f"than {REFERENCE}, and good human players are stronger still. Every number "
           f"below describes games among these players; a stronger population may value "
           f"tasks, gnomes and the start seat differently. No ladder is part of these runs: "
           f"`bonfire-sim ladder --strategies <these players>,{REFERENCE}` measures the gap "
           f"directly.")
    return H.text_block("Who played: " + ("; ".join(parts) or "no games") + ". " + ref,
                        "answer")


# ---- the section ----------------------------------------------------------------------------
def player_answers(players: pd.DataFrame, groups: Sequence[G.Group],
                   runs: Mapping[str, Any]) -> dict[str, Any]:
    """What the answers section reads of the players rows (``stats.combine``): the "Who
    played" block and the winning scores per population (``marks.win_scores``), worked
    out while the report holds the rows; it releases them before its fork steps."""
    return {"population": population_block(players, groups),
            "scores": win_scores(players, groups, runs)}


def section_answers(sections: Sequence[dict[str, Any]],
                    players: pd.DataFrame | Mapping[str, Any],
                    groups: Sequence[G.Group], runs: Mapping[str, Any],
                    margin: float = 1.0,
                    sheet: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The answers section from the built detail sections (``data`` of each), the players
    frame (``stats.combine``) or what ``player_answers`` read of it, the groups and the
    loaded runs by label: the first screen (``first_screen``: four answer cards, from the
    errata ``sheet`` when given), then each answer's details numbered 1.1-1.6 under the
    section's own number."""
    from bonfire_sim.report.first_screen import first_screen

    held = player_answers(players, groups, runs) if isinstance(players, pd.DataFrame) \
        else players
    by_id = {s["id"]: s for s in sections}
    multi = G.settings(groups, solo=False)
    many = len(multi) > 1
    members = dict(multi)
    n_groups = len(groups)
    blocks = first_screen(by_id, groups, runs, margin, sheet)
    blocks.append(H.text_block(f"Details and method below. This report holds {n_groups} "
                               f"configuration group(s) ({', '.join(g.label for g in groups)}"
                               f"); each answer is given per group and never pools two of "
                               f"them."))
    marked = answer_marks(by_id, None, groups, runs, held["scores"])
    none = [H.text_block("No multiplayer games in these runs.", "answer")]
    blocks.append(H.heading_block("1.1 Task values", "answer-tasks"))
    blocks += [b for setting, data in _by_setting(by_id, "tasks") if data.get("tasks") is not None
               for b in task_answer(data["tasks"], setting, many)] or none
    blocks += marked["tasks"]
    blocks.append(H.links_block([("#tasks", "task details")], "Details: "))
    blocks.append(H.heading_block("1.2 Gnome strength", "answer-gnomes"))
    blocks += [b for setting, data in _by_setting(by_id, "gnomes")
               if data.get("gnomes") is not None
               for b in gnome_answer(data["gnomes"], setting, many)] or none
    blocks += marked["gnomes"]
    blocks.append(H.links_block([("#gnomes", "gnome details")], "Details: "))
    blocks.append(H.heading_block("1.3 Start-player advantage and its compensation",
                                  "answer-seats"))
    for setting, data in _by_setting(by_id, "seats"):
        blocks += seat_answer(data, setting, many, members.get(setting, []), runs)
    blocks += marked["seats"]
    blocks.append(H.links_block([("#seats", "seat details")], "Details: "))
    blocks.append(H.heading_block("1.4 Tom's difficulty", "answer-tom"))
    blocks += tom_answer((by_id.get("tom") or {}).get("data", {}))
    blocks += marked["tom"]
    blocks.append(H.links_block([("#tom", "Tom details")], "Details: "))
    blocks.append(H.heading_block("1.5 Who played", "answer-who"))
    blocks.append(held["population"])
    # Each headline figure checked across the populations of its configuration (issue 27).
    blocks.append(H.heading_block("1.6 Do the answers hold for other players?",
                                  "answer-populations"))
    blocks += marked["summary"]
    blocks.append(H.links_block([(f"#{s['id']}", s["title"]) for s in sections],
                                "Every detailed section: "))
    return {"id": "answers", "title": "Answers", "blocks": blocks, "absent": None, "data": {}}
