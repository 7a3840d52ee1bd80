"""Orchestrate a balance report: group runs -> load -> ``stats`` -> ``figures`` -> ``html``.

Runs are grouped by configuration first (``groups``: never pooled across groups); each
``section_*`` function takes the tidy frames of one setting and returns one section dict
for ``html.render``; a section whose data is absent says so instead of failing.  The
answers section (``answers``) is built last from the sections' frames and shown first.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from bonfire_sim import __version__
from bonfire_sim import analysis as A
from bonfire_sim.analysis import flags as FL
from bonfire_sim.analysis.intervals import games_needed
from bonfire_sim.config import MAX_POINTS, check_float
from bonfire_sim.infra import extras, fileio
from bonfire_sim.infra.memory import give_back
from bonfire_sim.report import decided as DC
from bonfire_sim.report import figures as F
from bonfire_sim.report import groups as G
from bonfire_sim.report import html as H
from bonfire_sim.report import rows as RW
from bonfire_sim.report import stats as S
from bonfire_sim.report.data import (  # noqa: F401 (public here: compare and callers)
    PLAYER_COLUMNS,
    check_distinct_runs,
    load_runs,
    report_columns,
    returning_memory,
    rowless,
    run_labels,
)
from bonfire_sim.report.first_screen import read_sheet
from bonfire_sim.report.method import (  # noqa: F401 (public here: compare and callers)
    TARGET,
    forks_text,
    load_sensitivity,
    provenance,
    section_method,
    variants_in_force,
)
from bonfire_sim.report.overview import players_block, section_overview  # noqa: F401
from bonfire_sim.report.rows import seat_data  # noqa: F401 (public here: tests, callers)
from bonfire_sim.report.skill import section_skill
from bonfire_sim.studies.skill import read_matrix

# Games per run whose decisions are forked for the task and gnome values (cached per run).
DEFAULT_PROBE_GAMES = 2000


def _section(sid: str, title: str, blocks: list[dict[str, Any]],
             absent: str | None = None, data: dict[str, Any] | None = None) -> dict[str, Any]:
    """A section for ``html.render``; ``data`` keeps the frames behind it for the answers
    section (the template ignores it)."""
    return {"id": sid, "title": title, "blocks": blocks, "absent": absent, "data": data or {}}


def _n_games(players: pd.DataFrame) -> int:
    return S.n_games(players)


def _fig(ax: Any, caption: str, warning: dict[str, Any] | None = None) -> dict[str, Any]:
    return H.figure_block(F.to_png_base64(ax), caption, warning)


# ---- sections -------------------------------------------------------------------------------
def _compensation_blocks(runs: Sequence[Any], margin: float,
                         ) -> tuple[list[dict[str, Any]], pd.DataFrame]:
    sa = A.seat_advantage(runs, margin=margin)
    if sa.empty:
        return [], sa
    exact = sa.attrs.get("seat_points_exact", {})
    suggest = "; ".join(f"{n} players: seat_points = {pts} (exactly {exact.get(n)})"
                        for n, pts in sorted(sa.attrs.get("seat_points", {}).items()) if pts)
    return [
        H.text_block("Compensation: the starting points per seat (seat 0 = 0) at which every "
                     "seat would win 1/n of the games, found by re-ranking the recorded "
                     "games with those offsets (ties broken by bonfires as in the rules), "
                     "95% sandwich intervals clustered by deal. It assumes play does not "
                     "change with a head start; test it directly with the override "
                     "(experiment TOML [overrides]; a fraction is a per-deal lottery, "
                     f"2.4 = 3 points in 40% of deals): {suggest or 'none'}."),
        _fig(F.seat_compensation(sa), "Starting points per seat that equalise win rates."),
        _precision_block(sa[sa["seat"] > 0], "seat", "compensation", margin, "c_lo", "c_hi"),
        H.table_block(sa, {
            "players": ("players", "d"), "seat": ("seat", "d"), "n": ("games", ","),
            "value": ("win share", ".3f"), "lo": ("95% lo", ".3f"), "hi": ("95% hi", ".3f"),
            "fair": ("fair 1/n", ".3f"), "compensation": ("compensation", "+.2f"),
            "c_lo": ("95% lo", "+.2f"), "c_hi": ("95% hi", "+.2f"), "q_value": ("q", ".3f"),
            "flag": ("flag", ""), "imprecise": ("wide", ""), "games": ("example games won", "")},
            caption="Seats and their compensation (flag: compensation beyond ± margin, "
                    "Benjamini-Hochberg)", row_class="flag")], sa


def section_seats(players: pd.DataFrame, runs: Sequence[Any] = (),
                  margin: float = FL.MARGIN) -> dict[str, Any]:
    title = "Start-player advantage"
    data, notes = seat_data(players)
    if data.empty:
        return _section("seats", title, [], "No multiplayer games in these runs.")
    seats = S.seat_advantage(data)
    tests = S.seat_test(data, seats)
    n = _n_games(data)
    blocks = [H.text_block("Shared wins are counted fractionally: each of k tied winners "
                           "gets 1/k of a win, so wins per game sum to 1 (0 if nobody won).")]
    blocks += [H.text_block(t) for t in notes]
    rate_warn = S.precision_warning(seats, n, TARGET["seat_rate"], "Seat win rates")
    blocks.append(_fig(F.seat_win_rates(seats), "Win rate by seat against the fair share 1/n "
                                                "(dashed).", rate_warn))
    blocks.append(_fig(F.seat_scores(seats), "Mean final score by seat.",
                       S.precision_warning(seats, n, TARGET["seat_score"], "Seat mean scores",
                                           "score_lo", "score_hi")))
    blocks.append(H.table_block(seats, {
        "n_players": ("players", "d"), "seat": ("seat", "d"), "games": ("games", ","),
        "win_rate": ("win rate", ".3f"), "lo": ("95% lo", ".3f"), "hi": ("95% hi", ".3f"),
        "fair": ("fair 1/n", ".3f"), "excess": ("rate - 1/n", "+.3f"),
        "score": ("mean score", ".2f"), "score_lo": ("95% lo", ".2f"),
        "score_hi": ("95% hi", ".2f")}, caption="Seats (0 = start player; Wilson / t)"))
    blocks.append(H.table_block(tests, {
        "n_players": ("players", "d"), "games": ("games", ","),
        "wins_counted": ("wins counted", ".1f"), "chi2": ("chi-square", ".2f"),
        "df": ("df", "d"), "p_value": ("p value", ".4f"), "rotated": ("rotated", "")},
        caption="Test of no seat advantage: chi-square goodness of fit of wins by seat to "
                "equal shares (fractional wins)"))
    give_back()  # the tables' freed blocks, before the compensation's matrices
    # the compensation of the runs whose rows the seat table reads (``seat_data``: per
    # count the seat-rotated runs where there are any), so both tables read one choice
    kept = {str(r) for r in RW.present(data["run"])}
    comp, sa = _compensation_blocks([r for r in runs if r.label in kept], margin)
    blocks += comp
    by = S.seat_advantage(data, by=("strategy",))
    if data["strategy"].nunique() > 1:
        blocks.append(_fig(F.seat_excess_by_strategy(by),
                           "Start seat's win rate minus the same strategy's win rate "
                           "over all seats (Wilson interval of the seat's rate, shifted).",
                           S.precision_warning(by[by["seat"] == 0], n, TARGET["seat_rate"],
                                               "Start-seat edge by strategy")))
    blocks.append(H.table_block(by, {
        "n_players": ("players", "d"), "strategy": ("strategy", ""), "seat": ("seat", "d"),
        "games": ("games", ","), "win_rate": ("win rate", ".3f"), "lo": ("95% lo", ".3f"),
        "hi": ("95% hi", ".3f"), "edge": ("rate - strategy's rate", "+.3f"),
        "score": ("mean score", ".2f")}, caption="Seats by strategy"))
    return _section("seats", title, blocks, data={"seats": seats, "compensation": sa})


def _precision_rows(frame: pd.DataFrame, key: str, margin: float,
                    lo: str = "lo", hi: str = "hi", n: str = "n") -> pd.DataFrame:
    """Rows whose interval is wider than ± margin, with the observations they would need."""
    bad = frame[frame["imprecise"] & frame[lo].notna()]
    half = (bad[hi] - bad[lo]) / 2
    return bad.assign(half=half, need=games_needed(bad[n], half, margin))


def precision_table(frame: pd.DataFrame, key: str, margin: float, lo: str = "lo",
                    hi: str = "hi", n: str = "n") -> pd.DataFrame:
    """One row per player count: rows with an interval, how many are wider than ± margin,
    their median and widest half-width, the median observations a wide row would need,
    and the flagged rows among the wide ones (a flag on a wide row is still a finding)."""
    est = frame[frame[lo].notna()]
    bad = _precision_rows(frame, key, margin, lo, hi, n)
    rows = []
    for players, g in est.groupby("players"):
        b = bad[bad["players"] == players]
        flagged = b[b["flag"] != ""] if "flag" in b else b.iloc[:0]
        rows.append({"players": int(players), "rows": len(g), "wide": len(b),
                     "median": float(b["half"].median()) if len(b) else np.nan,
                     "widest": float(b["half"].max()) if len(b) else np.nan,
                     "need": float(np.nanmedian(b["need"])) if b["need"].notna().any()
                     else np.nan,
                     "flagged": ", ".join(f"{key} {v}" for v in flagged[key]) or "none"})
    return pd.DataFrame(rows, columns=["players", "rows", "wide", "median", "widest", "need",
                                       "flagged"])


def _precision_block(frame: pd.DataFrame, key: str, what: str, margin: float,
                     lo: str = "lo", hi: str = "hi", n: str = "n") -> dict[str, Any]:
    table = precision_table(frame, key, margin, lo, hi, n)
    if not table["wide"].any():
        return H.text_block(f"Precision: every {what} interval is within ±{margin:g}.")
    return H.table_block(table, {
        "players": ("players (0 = pooled)", "d"), "rows": ("rows", "d"),
        "wide": (f"wider than ±{margin:g}", "d"), "median": ("median ±", ".1f"),
        "widest": ("widest ±", ".1f"), "need": ("obs. a wide row needs (median)", ",.0f"),
        "flagged": ("flagged rows among the wide ones", "")},
        caption=f"Precision warning: {what} intervals too wide to resolve ±{margin:g} "
                f"(halving a width takes 4x the observations)")


def _label_task(tv: pd.DataFrame) -> pd.Series:
    printed = tv["printed"].map(lambda v: f"{int(v)}" if pd.notna(v) else "-")
    text = tv["task"] + " " + tv["text"] + " (" + printed + ")"
    return text.map(F.wrap_label)


_STATUS_COLUMNS = {"status": ("status", ""), "forks_needed": ("forks for ±margin", ",.0f"),
                   "q_value": ("q", ".3f"), "flag": ("flag", ""), "who": ("who played", "")}


def section_tasks(runs: Sequence[Any], probes: Any, margin: float,
                  jobs: int = 1, quiet: bool = True) -> dict[str, Any]:
    title = "Task values"
    multi = [r for r in runs if r.config.players >= 2]
    if not multi:
        return _section("tasks", title, [], "No multiplayer games in these runs.")
    tv = A.task_values(multi, probes=probes, margin=margin, pooled=True, jobs=jobs,
                       quiet=quiet)
    tv["topped_up"] = bool(getattr(probes, "survey", False))
    tv["label"] = _label_task(tv)
    est = tv[(tv["players"] > 0) & tv["surplus"].notna()]
    flagged = tv[tv["flag"] != ""]
    wide = tv[(tv["players"] > 0) & (tv["status"] != "measured")]
    blocks = [H.text_block(
        "Values are measured by the engine itself, not by a regression: at a sampled "
        "decision the game is copied and played on twice with the same random streams "
        "(see Method). Receipt value: the owner's final score when it receives the task at "
        "a decision where it could, minus the best other move (the effort and risk of its "
        "condition included). Surplus: the receipt value minus the mean receipt value of "
        "the other tasks of its colour at that player count, i.e. the points it gives "
        "beyond the typical card of its tier. Beside it, why: lit share (receipts lit by "
        "the end), rounds from receipt to ignition, take rate and lit value (igniting it "
        "against never). Print: where the surplus reaches zero, whole (`bonfire-sim "
        "reprice` checks it on fresh deals). Intervals clustered by deal; a row is "
        f"measured when its surplus interval is within ±{margin:g} point(s) (10+ deals); "
        "one on 10+ deals is flagged where its interval lies beyond the margin. Pooled "
        "rows only where the counts agree (Cochran's Q)."),
        H.text_block(f"{len(flagged)} task rows flagged (surplus beyond ±{margin:g} "
                     f"point(s), Benjamini-Hochberg FDR 5%): " + (", ".join(
                         f"{r.task} {int(r.players)}p ({r.flag}, " + (f"print {r.proposed:.0f}"
                         + (": change the condition" if str(r.price_note).startswith(
                             "change the condition") else "") + ")"
                         if pd.notna(r.proposed) else "no price)") for r in flagged.itertuples())
                        or "none") + f". {len(wide)} rows not measured.")]
    if not est.empty:
        blocks.append(_fig(F.value_intervals(est, "task", "label", value="surplus",
                                             lo="s_lo", hi="s_hi", legend=F.TASK_LEGEND,
                                             title="Surplus per task over the typical card "
                                                   "of its colour",
                                             xlabel="points"),
                           "Surplus with 95% intervals clustered by deal, per player count, "
                           "coloured by its flag: " + F.legend_text(F.TASK_LEGEND) + "."))
        blocks.append(_fig(F.heatmap_by_players(tv[tv["surplus"].notna()], "task", "surplus",
                                                "label", title="Surplus (points)",
                                                cbar="points"),
                           "Positive: the task is worth more than its points (print it "
                           "lower); negative: fewer."))
    blocks.append(_precision_block(tv[tv["n"] > 0], "task", "surplus", margin, "s_lo",
                                   "s_hi"))
    blocks.append(H.table_block(tv.sort_values(["players", "task"]), {
        "task": ("task", ""), "players": ("players", "d"), "text": ("condition", ""),
        "printed": ("printed", "d"), "value": ("receipt value", ".2f"), "lo": ("95% lo", ".2f"),
        "hi": ("95% hi", ".2f"), "n": ("forks", ","), "n_forced": ("forced", ","),
        "deals": ("deals", ","), "reference": ("tier mean", ".2f"), "surplus": ("surplus", "+.2f"),
        "s_lo": ("95% lo", "+.2f"), "s_hi": ("95% hi", "+.2f"), "fair": ("fair", ".1f"),
        "proposed": ("print", ".0f"), "take_rate": ("taken", ".3f"), "lit_rate": (
            "lit | taken", ".2f"), "lit_share": ("lit share", ".2f"), "rounds_to_light": (
            "rounds to light", ".1f"), "lit_value": ("lit value", ".2f"),
        **_STATUS_COLUMNS, "games": ("example games", "")},
        caption="Tasks per player count (players 0 = pooled where counts agree); replay an "
                "example with `bonfire-sim replay --run DIR --game ID`", row_class="flag"))
    return _section("tasks", title, blocks, data={"tasks": tv})


def section_gnomes(runs: Sequence[Any], probes: Any, margin: float,
                   jobs: int = 1, quiet: bool = True) -> dict[str, Any]:
    title = "Gnome strength"
    multi = [r for r in runs if r.config.players >= 2]
    if not multi:
        return _section("gnomes", title, [], "No multiplayer games in these runs.")
    gv = A.gnome_values(multi, probes=probes, margin=margin, pooled=True, jobs=jobs,
                        quiet=quiet)
    gv["topped_up"] = bool(getattr(probes, "survey", False))
    gv["label"] = (gv["gnome"] + " " + gv["text"]).map(F.wrap_label)
    est = gv[(gv["players"] > 0) & gv["relative"].notna()]
    flagged = gv[gv["flag"] != ""]
    blocks = [H.text_block(
        "Points against the average gnome: the owner's final score after recruiting the "
        "gnome at a decision where it could (main action or council bonus), minus the best "
        "other move at that decision, same random streams (see Method), minus the same "
        "figure of the other gnomes of the player count. Intervals clustered by deal; a "
        f"row is measured when its interval is within ±{margin:g} point(s). Flags (measured "
        f"rows only): strong / weak when more than {margin:g} point(s) above / below the "
        "average gnome, Benjamini-Hochberg FDR 5%. A gnome prints no number, so nothing is "
        "proposed here; `bonfire-sim errata` tries a change of a flagged gnome's ability "
        "(its amounts or the ability itself, as overrides) on fresh deals."),
        H.text_block(f"{len(flagged)} gnome rows flagged: "
                     + (", ".join(f"{r.gnome} {int(r.players)}p ({r.flag})"
                                  for r in flagged.itertuples()) or "none") + ".")]
    if not est.empty:
        blocks.append(_fig(F.value_intervals(est, "gnome", "label", value="relative",
                                             lo="rel_lo", hi="rel_hi", legend=F.GNOME_LEGEND,
                                             title="Points against the average gnome",
                                             xlabel="points"),
                           "Points against the average gnome with 95% intervals clustered "
                           "by deal per player count, coloured by its flag: "
                           + F.legend_text(F.GNOME_LEGEND) + "."))
    blocks.append(_precision_block(gv[gv["n"] > 0], "gnome", "gnome value", margin,
                                   "rel_lo", "rel_hi"))
    blocks.append(H.table_block(gv.sort_values(["players", "relative"],
                                               ascending=[True, False]), {
        "gnome": ("gnome", ""), "players": ("players", "d"), "kind": ("kind", ""),
        "text": ("ability", ""), "relative": ("vs average", "+.2f"),
        "rel_lo": ("95% lo", "+.2f"), "rel_hi": ("95% hi", "+.2f"),
        "value": ("recruit value", "+.2f"), "n": ("forks", ","), "deals": ("deals", ","),
        "recruit_rate": ("recruited", ".3f"), **_STATUS_COLUMNS,
        "games": ("example games", "")},
        caption="Gnomes per player count (players 0 = pooled where counts agree)",
        row_class="flag"))
    return _section("gnomes", title, blocks, data={"gnomes": gv})


def section_tom(players: pd.DataFrame,
                groups: Sequence[G.Group] | None = None) -> dict[str, Any]:
    """Tom's difficulty, one row per solo group (a solo player under one setting): runs
    under different Tom decks or overrides are never pooled."""
    title = "Tom difficulty"
    solo_flags = players["solo"].to_numpy()
    if not RW.any_row(len(solo_flags), lambda b: solo_flags[b].astype(bool)):
        return _section("tom", title, [], "No solo run (players = 1) in these runs: run e.g. "
                        "`bonfire-sim run --players 1 --strategies greedy --games 2000` and "
                        "add it to the report.")
    solo = S.solo_games(players)
    of = G.group_of(groups or [])
    solo["group"] = [of[r].label if r in of else s
                     for r, s in zip(solo["run"], solo["strategy"], strict=True)]
    tom = S.solo_figures(solo, key="group")
    eq, paths = S.handicaps(solo, key="group")
    n = len(solo)
    blocks = [_fig(F.tom_win_rates(tom), "Win rate against Tom at handicap 0 (Wilson), one "
                                         "bar per solo group.",
                   S.precision_warning(tom, n / max(len(tom), 1), TARGET["tom_rate"],
                                       "Win rates against Tom")),
              H.table_block(tom, {
                  "strategy": ("group", ""), "games": ("games", ","),
                  "win_rate": ("win rate", ".3f"), "lo": ("95% lo", ".3f"),
                  "hi": ("95% hi", ".3f"), "score": ("score", ".1f"),
                  "score_lo": ("95% lo", ".1f"), "score_hi": ("95% hi", ".1f"),
                  "tom": ("Tom", ".1f"), "tom_lo": ("95% lo", ".1f"),
                  "tom_hi": ("95% hi", ".1f"), "margin": ("mean margin", "+.1f")},
                  caption="Solo games against Tom, one row per group (solo player and "
                          "setting)"),
              _fig(F.solo_score_hist(solo.assign(strategy=solo["group"])),
                   "Score distributions of the solo groups and Tom.")]
    for setting, members in G.settings(groups or [], solo=True) or [("", [])]:
        runs = [r for g in members for r in g.runs]
        tp = players[players["solo"].astype(bool)
                     & (players["run"].isin(runs) if runs else True)]
        lines = S.tom_line_means(tp)
        where = f" ({setting})" if setting else ""
        blocks.append(_fig(F.tom_line_bars(lines), f"Tom's mean points per score line "
                                                   f"(t intervals){where}."))
        if not lines.empty:
            blocks.append(H.table_block(lines, {
                "line": ("line", ""), "mean": ("mean", ".2f"), "lo": ("95% lo", ".2f"),
                "hi": ("95% hi", ".2f")}, caption=f"Tom's score lines{where}"))
    blocks.append(_fig(F.handicap_paths(paths, eq),
                       "The handicap challenge (start -10, +5 per win, -2 per loss) played "
                       "over the games of each group in order.",
                       S.precision_warning(eq, n / max(len(eq), 1), TARGET["handicap"],
                                           "Equilibrium handicaps")))
    blocks.append(H.table_block(eq, {
        "strategy": ("group", ""), "games": ("games", ","),
        "equilibrium": ("settle point", "+.1f"), "lo": ("95% lo", "+.1f"),
        "hi": ("95% hi", "+.1f"), "settled": ("challenge mean, 2nd half", "+.1f"),
        "final": ("challenge end", "+d")},
        caption="Handicap where the challenge settles: where the expected change per game, "
                "5 P(win) - 2 P(loss), is zero (a tie changes nothing; interpolated between "
                "whole handicaps; bootstrap interval over games), and where the simulated "
                "challenge settles"))
    return _section("tom", title, blocks, data={"tom": tom, "handicaps": eq})


# ---- the report ----------------------------------------------------------------------------
STEPS = 9  # progress units of the smallest report; ``report_steps`` counts a given one


def report_steps(groups: Sequence[G.Group]) -> int:
    """Progress units of ``build_report``: load, overview, seats/tasks/gnomes per
    multiplayer setting, Tom, method, answers, write."""
    return 6 + 3 * max(len(G.settings(groups, solo=False)), 1)


def _per_setting(sid: str, title: str,
                 parts: Sequence[tuple[str, dict[str, Any]]]) -> dict[str, Any]:
    """One section from the same section built for each multiplayer setting: each under
    its own heading (never pooled); ``data["by_setting"]`` keeps every part's frames."""
    by_setting = [(setting, sec["data"]) for setting, sec in parts]
    if len(parts) == 1:
        return {**parts[0][1], "data": {"by_setting": by_setting}}
    blocks: list[dict[str, Any]] = []
    for i, (setting, sec) in enumerate(parts):
        blocks.append(H.heading_block(f"Setting: {setting}", f"{sid}-{i + 1}"))
        if sec["absent"]:
            blocks.append(H.text_block(sec["absent"]))
        blocks += sec["blocks"]
    return _section(sid, title, blocks, data={"by_setting": by_setting})


def _fork_count(data: dict[str, Any]) -> int:
    """Forks behind a task or gnome section's rows (pooled rows left out: no double count)."""
    frame = data.get("tasks", data.get("gnomes"))
    if frame is None or frame.empty:
        return 0
    rows = frame[frame["players"] > 0]
    return int(rows["n"].sum())


def report_sections(runs: Sequence[tuple[str, Any]], *, paths: Sequence[Any] = (),
                    probes: Any = DEFAULT_PROBE_GAMES, margin: float = FL.MARGIN,
                    command: str | None = None, jobs: int = 1,
                    sensitivity: dict[str, Any] | None = None,
                    progress: Callable[[], None] | None = None,
                    quiet: bool = True, groups: Sequence[G.Group] | None = None,
                    status: Callable[[str], None] | None = None,
                    skill_depth: str | Path | None = None,
                    errata: Mapping[str, Any] | None = None,
                    release: bool = False) -> list[dict[str, Any]]:
    """Compute and draw every section of the report for loaded runs (``paths``: their
    directories, where fork tables are cached; ``sensitivity``: the JSON document of
    ``bonfire-sim sensitivity``, shown in the method section; ``groups``: the runs'
    configuration groups, from their manifests when not given; ``skill_depth``: a
    skill-depth matrix for its own section; ``errata``: an errata sheet's JSON, whose
    four answer cards open the report instead of the report's own, unverified ones).

    The answers section comes first; the seat, task and gnome sections are built once per
    multiplayer setting.  ``progress()`` is called after each unit of ``report_steps``
    but load and write; ``status(text)`` names each step before it starts.

    The sections that read the runs' rows (overview, seats, Tom, the answers' population
    and winning scores) are worked out before the fork steps, which read none.
    ``release``: the rows leave then: each entry of the list ``runs`` is replaced by the
    run without its rows (``rowless``), so a caller that holds only the list holds no
    row through the fork steps (at a million 4-player games about 50 bytes a game).
    """
    from bonfire_sim.analysis.runs import Run
    from bonfire_sim.report.answers import player_answers, section_answers

    tick = progress or (lambda: None)
    say = status or (lambda _text: None)
    if groups is None:
        groups = G.group_manifests([(lab, r.manifest) for lab, r in runs])
    games, players = S.combine(runs, lists=False, lean=True)  # task/gnome lists: per run
    overrides = {lab: r.manifest.get("config", {}).get("overrides", {}) for lab, r in runs}
    games.attrs["overrides"] = overrides
    games.attrs["variants"] = {lab: r.manifest.get("config", {}).get("variants")
                               for lab, r in runs}
    paths = list(paths) or [None] * len(runs)
    aruns = [Run(lab, Path(p) if p else None, data)
             for (lab, data), p in zip(runs, paths, strict=True)]
    multi = G.settings(groups, solo=False) or [("", [])]

    def runs_of(members: Sequence[G.Group]) -> list[Any]:
        labels = {r for g in members for r in g.runs}
        return [r for r in aruns if r.label in labels] if members else []

    say("section overview")
    overview = section_overview(games, players, groups)
    roster = players_block(runs)  # who played each seat, weights included
    if roster is not None:
        overview["blocks"].insert(2, roster)
    tick()
    seats = []
    for setting, members in multi:
        rs = runs_of(members)
        where = f" ({setting})" if len(multi) > 1 else ""
        say(f"section seats{where}: {len(rs)} run(s)")
        seats.append((setting, section_seats(RW.rows_of_runs(players, [r.label for r in rs]),
                                             rs, margin)))
        tick()
    # Tom and what the answers read of the rows are worked out here, while the rows are
    # held: the fork steps below read none of them (their games come from the runs' files
    # and fork tables), so the rows leave first and the forks do not stand on them
    say("section tom")
    tom = section_tom(players, groups)
    tick()
    held = player_answers(players, groups, dict(runs))
    if release:
        assert isinstance(runs, list)  # replaced in place: the caller's list holds them
        del games, players
        runs[:] = [(lab, rowless(data)) for lab, data in runs]
        aruns = [Run(r.label, r.path, data) for r, (_, data) in zip(aruns, runs, strict=True)]
        games = runs[0][1].games if runs else pd.DataFrame()
    sections = [overview, _per_setting("seats", "Start-player advantage", seats)]
    for sid, title in (("tasks", "Task values"), ("gnomes", "Gnome strength")):
        parts = []
        for setting, members in multi:
            rs = runs_of(members)
            where = f" ({setting})" if len(multi) > 1 else ""
            say(f"section {sid}{where}: {forks_text(probes, rs)}")
            build = section_tasks if sid == "tasks" else section_gnomes
            sec = build(rs, probes, margin, jobs, quiet)
            say(f"section {sid}{where}: {_fork_count(sec['data']):,} forks used")
            parts.append((setting, sec))
            tick()
        sections.append(_per_setting(sid, title, parts))
    sections.append(tom)
    say("section decided")
    sections.append(DC.section_decided(aruns))
    if skill_depth is not None:  # the matrix is its own games: shown beside, never pooled
        sections.append(section_skill(skill_depth, [g.label for g in groups], say))
    warnings = [b["warning"] for s in sections for b in s["blocks"]
                if b["kind"] == "figure" and b.get("warning")]
    say("section method")
    sections.append(section_method(games, warnings, provenance(aruns, command, probes),
                                   variants_in_force(runs), sensitivity))
    tick()
    say("section answers")
    answers = section_answers(sections, held, groups, dict(runs), margin, errata)
    tick()
    return [answers, *sections]


def build_report(run_dirs: Sequence[str | Path], out: str | Path,
                 title: str = "Bonfire balance report", *,
                 probes: Any = DEFAULT_PROBE_GAMES, margin: float = FL.MARGIN,
                 command: str | None = None, jobs: int = 1,
                 sensitivity: str | Path | None = None,
                 progress: Callable[[int, int], None] | None = None,
                 quiet: bool = True, status: Callable[[str], None] | None = None,
                 views: bool = True, skill_depth: str | Path | None = None,
                 errata: str | Path | None = None) -> Path:
    """Write one self-contained HTML report for the runs; returns its path.

    ``probes``: games per run to fork for the task and gnome values (None = all), or
    ``ProbeSettings``; ``margin``: the practical margin of the flags, in points;
    ``progress(done, total)`` after loading, after each section and after writing;
    ``status(text)``: which run, which section and how many forks, before each step;
    ``views``: write view pages of the example games into ``views/`` beside the page;
    ``skill_depth``: a ``bonfire-sim ladder --skill-depth`` matrix, checked before loading;
    ``errata``: an ``errata.json`` of ``bonfire-sim errata`` for the first screen.

    The runs are grouped by configuration from their manifests first (``groups``), so a
    meaningless mix is refused before any table is read or fork computed.
    """
    fileio.check_output_file(out)
    extras.check("seaborn")  # before minutes of loading and forks
    margin = check_float("margin", margin, 0, MAX_POINTS)
    say = status or (lambda _text: None)
    if skill_depth is not None:
        read_matrix(skill_depth)  # a bad file: refused before any run is read
    sheet = read_sheet(errata) if errata is not None else None
    check_distinct_runs(run_dirs)
    groups = G.group_dirs(run_dirs, run_labels(run_dirs))
    total = report_steps(groups)
    say(f"{len(groups)} configuration group(s): " + "; ".join(g.label for g in groups))
    sens = load_sensitivity(sensitivity) if sensitivity else None
    done = 0

    def tick() -> None:
        nonlocal done
        done += 1
        if progress is not None:
            progress(done, total)

    with returning_memory() as give_back:  # each step starts from what is still held

        def step(text: str) -> None:
            give_back()
            say(text)

        runs = load_runs(run_dirs, status=step, categories=True)
        give_back()  # the read's buffers, before the sections combine the runs
        tick()
        n_games = sum(len(r.games) for _, r in runs)
        # ``release``: the list is all that holds the runs' rows here; the sections replace
        # its entries by the runs without their rows before the fork steps
        sections = report_sections(runs, paths=run_dirs, probes=probes, margin=margin,
                                   command=command, jobs=jobs, sensitivity=sens,
                                   progress=tick, quiet=quiet, groups=groups, status=step,
                                   skill_depth=skill_depth, errata=sheet, release=True)
        subtitle = (f"{n_games:,} games from {len(runs)} run(s) in {len(groups)} group(s): "
                    f"{', '.join(lab for lab, _ in runs)} — bonfire_sim {__version__}, built "
                    f"{time.strftime('%Y-%m-%d %H:%M')}")
        write_views = DC.link_example_games(sections, runs, run_dirs, out) if views else None
        # the runs' rows, read by no later step, leave before the page and its views are
        # written (the view pages' replays then start from the sections alone: at a
        # million 4-player games the rows were about 60 MB of that step's peak)
        del runs
        step(f"writing {out}")
        path = H.write(out, H.render(title, subtitle, sections))
        if write_views is not None:  # after the page: a page that fails leaves no views/
            step("view pages of the example games")
            write_views()
        tick()
    return path
