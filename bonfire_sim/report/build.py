"""Orchestrate a balance report: load runs -> ``stats`` -> ``figures`` -> ``html``.

Each ``section_*`` function takes the combined tidy frames and returns one section dict
for ``html.render``; a section whose data is absent says so instead of failing.
"""

from __future__ import annotations

import inspect
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from bonfire_sim import __version__, fileio
from bonfire_sim import analysis as A
from bonfire_sim.analysis import flags as FL
from bonfire_sim.config import MAX_POINTS, check_float
from bonfire_sim.errors import ConfigError
from bonfire_sim.report import decided as DC
from bonfire_sim.report import figures as F
from bonfire_sim.report import html as H
from bonfire_sim.report import stats as S
from bonfire_sim.rules import components as C

# Games per run whose decisions are forked for the task and gnome values (cached per run).
DEFAULT_PROBE_GAMES = 2000
# Half-widths a conclusion needs (95% intervals): below these a figure gets no warning.
TARGET = {"seat_rate": 0.02, "seat_score": 0.5, "task_value": 1.0, "gnome_effect": 1.0,
          "tom_rate": 0.03, "handicap": 1.0}


def _section(sid: str, title: str, blocks: list[dict[str, Any]],
             absent: str | None = None) -> dict[str, Any]:
    return {"id": sid, "title": title, "blocks": blocks, "absent": absent}


def _n_games(players: pd.DataFrame) -> int:
    return int(players[["run", "game_id"]].drop_duplicates().shape[0])


def _fig(ax: Any, caption: str, warning: dict[str, Any] | None = None) -> dict[str, Any]:
    return H.figure_block(F.to_png_base64(ax), caption, warning)


# ---- sections -------------------------------------------------------------------------------
def section_overview(games: pd.DataFrame, players: pd.DataFrame) -> dict[str, Any]:
    runs = S.run_overview(games, players)
    blocks = [H.table_block(runs, {"run": ("run", ""), "n_players": ("players", "d"),
                                   "games": ("games", ","), "seat_rotation": ("rotated", ""),
                                   "strategies": ("strategy mix (share of seats)", "")},
                            caption="Runs in this report")]
    overrides = [(r, o) for r, o in _overrides(games).items() if o]
    for run, o in overrides:
        blocks.append(H.text_block(f"Run {run} overrides component data: {o}"))
    for run, v in games.attrs.get("variants", {}).items():
        changed = {f: n for f, n in C.resolve_variants(v).items()
                   if n != C.default_variants()[f]}
        if changed:
            blocks.append(H.text_block(f"Run {run} reads uncertain facts differently from the "
                                       f"default: {changed} (see Method and caveats)."))
    scores = S.score_summary(players)
    blocks.append(H.table_block(scores, {
        "n_players": ("players", "d"), "strategy": ("strategy", ""), "n": ("seats", ","),
        "mean": ("mean score", ".1f"), "lo": ("95% lo", ".1f"), "hi": ("95% hi", ".1f"),
        "sd": ("sd", ".1f"), "median": ("median", ".0f"), "win_rate": ("win rate", ".3f")},
        caption="Final score by player count and strategy (t intervals; win rate counts "
                "shared wins fractionally)"))
    blocks.append(_fig(F.score_distributions(players), "Final scores (boxes: quartiles; "
                                                       "whiskers: 1.5 IQR)."))
    reasons = S.end_reasons(games)
    blocks.append(_fig(F.end_reason_bars(reasons), "Share of games by end reason."))
    blocks.append(H.table_block(reasons, {
        "n_players": ("players", "d"), "end_reason": ("end reason", ""), "n": ("games", ","),
        "share": ("share", ".3f"), "lo": ("95% lo", ".3f"), "hi": ("95% hi", ".3f")},
        caption="End reasons (Wilson intervals)"))
    length = S.game_length(games)
    blocks.append(_fig(F.game_lengths(games), "Turns per game by player count."))
    blocks.append(H.table_block(length, {
        "n_players": ("players", "d"), "measure": ("measure", ""), "games": ("games", ","),
        "mean": ("mean", ".1f"), "lo": ("95% lo", ".1f"), "hi": ("95% hi", ".1f")},
        caption="Game length (t intervals)"))
    return _section("overview", "Overview", blocks)


def _overrides(games: pd.DataFrame) -> dict[str, Any]:
    return games.attrs.get("overrides", {})


def seat_data(players: pd.DataFrame) -> tuple[pd.DataFrame, list[str]]:
    """Multiplayer rows for the seat analysis: rotated runs where a player count has them."""
    m = S.multiplayer(players)
    keep, notes = [], []
    for n, g in m.groupby("n_players"):
        rotated = g[g["rotated"]]
        if len(rotated):
            keep.append(rotated)
            dropped = sorted(set(g["run"]) - set(rotated["run"]))
            if dropped:
                notes.append(f"{n} players: using the seat-rotated run(s) only; not rotated "
                             f"and left out: {', '.join(dropped)}.")
        else:
            keep.append(g)
            names = ", ".join(sorted(set(g["run"])))
            notes.append(f"{n} players: no run was seat-rotated ({names}); seat effects are "
                         f"confounded with the strategy sitting there.")
    return (pd.concat(keep) if keep else m.iloc[:0]), notes


def _seat_runs(runs: Sequence[Any]) -> list[Any]:
    """Per player count the seat-rotated runs if there are any, else all (as seat_data)."""
    out = []
    for n in sorted({r.config.players for r in runs if r.config.players >= 2}):
        same = [r for r in runs if r.config.players == n]
        rotated = [r for r in same if r.config.seat_rotation]
        out += rotated or same
    return out


def _compensation_blocks(runs: Sequence[Any], margin: float) -> list[dict[str, Any]]:
    sa = A.seat_advantage(_seat_runs(runs), margin=margin)
    if sa.empty:
        return []
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
                    "Benjamini-Hochberg)", row_class="flag")]


def section_seats(players: pd.DataFrame, runs: Sequence[Any] = (),
                  margin: float = FL.MARGIN) -> dict[str, Any]:
    title = "Start-player advantage"
    data, notes = seat_data(players)
    if data.empty:
        return _section("seats", title, [], "No multiplayer games in these runs.")
    seats = S.seat_advantage(data)
    tests = S.seat_test(data)
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
    blocks += _compensation_blocks(runs, margin)
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
    return _section("seats", title, blocks)


def _precision_rows(frame: pd.DataFrame, key: str, margin: float,
                    lo: str = "lo", hi: str = "hi", n: str = "n") -> pd.DataFrame:
    """Rows whose interval is wider than ± margin, with the observations they would need."""
    bad = frame[frame["imprecise"] & frame[lo].notna()]
    need = FL.games_for_margin(bad[n], bad[lo], bad[hi], margin)
    return bad.assign(half=(bad[hi] - bad[lo]) / 2, need=need)


def _precision_block(frame: pd.DataFrame, key: str, what: str, margin: float,
                     lo: str = "lo", hi: str = "hi", n: str = "n") -> dict[str, Any]:
    bad = _precision_rows(frame, key, margin, lo, hi, n)
    if bad.empty:
        return H.text_block(f"Precision: every {what} interval is within ±{margin:g}.")
    items = "; ".join(f"{r[key]} ({int(r['players']) or 'pooled'}p) ±{r['half']:.1f}"
                      + (f", ~{int(r['need']):,} obs." if np.isfinite(r["need"]) else "")
                      for _, r in bad.head(40).iterrows())
    more = f" and {len(bad) - 40} more" if len(bad) > 40 else ""
    return H.text_block(f"Precision warning: {len(bad)} {what} rows have intervals wider "
                        f"than ±{margin:g} (too wide to resolve the margin): {items}{more}.")


def _label_task(tv: pd.DataFrame) -> pd.Series:
    short = tv["text"].str.slice(0, 28)
    printed = tv["printed"].map(lambda v: f"{int(v)}" if pd.notna(v) else "-")
    return tv["task"] + " " + short + " (" + printed + ")"


def section_tasks(runs: Sequence[Any], probes: Any, margin: float,
                  jobs: int = 1, quiet: bool = True) -> dict[str, Any]:
    title = "Task values"
    multi = [r for r in runs if r.config.players >= 2]
    if not multi:
        return _section("tasks", title, [], "No multiplayer games in these runs.")
    tv = A.task_values(multi, probes=probes, margin=margin, pooled=True, jobs=jobs,
                       quiet=quiet)
    tv["label"] = _label_task(tv)
    est = tv[tv["n"] > 0]
    flagged = tv[tv["flag"] != ""]
    blocks = [H.text_block(
        "Values are measured by the engine itself, not by a regression: at a sampled "
        "decision the game is copied and played on twice with the same random streams "
        "(see Method). Lit value: the owner's final score when it ignites the task at a "
        "decision where it could, minus the same game in which that task is never lit. "
        "Take value: receiving the task minus the best other move at that decision. Fair "
        "price: the printed points at which taking it would be neutral. One row per player "
        "count; a pooled row only where the counts agree (Cochran's Q, p >= 0.05)."),
        H.text_block(f"{len(flagged)} task rows flagged (fair price more than {margin:g} "
                     f"point(s) from printed, Benjamini-Hochberg FDR 5%): "
                     + (", ".join(f"{r.task} {int(r.players)}p ({r.flag})"
                                  for r in flagged.itertuples()) or "none") + ".")]
    if not est.empty:
        blocks.append(_fig(F.value_intervals(est, "task", "label", ref="printed",
                                             title="Lit value per task (| = printed points)",
                                             xlabel="points lighting adds"),
                           "Lit value with 95% t intervals per player count; green: weak "
                           "(fair price above printed), orange: strong."))
        priced = est.dropna(subset=["fair_price"]).assign(
            gap=lambda d: d["fair_price"] - d["printed"])
        if not priced.empty:
            blocks.append(_fig(F.heatmap_by_players(priced, "task", "gap", "label",
                                                    title="Fair price minus printed points",
                                                    cbar="points"),
                               "Positive: the task deserves more points; negative: fewer."))
    blocks.append(_precision_block(tv[tv["n"] > 0], "task", "lit-value", margin))
    blocks.append(H.table_block(tv.sort_values(["players", "task"]), {
        "task": ("task", ""), "players": ("players", "d"), "text": ("condition", ""),
        "printed": ("printed", "d"), "value": ("lit value", ".2f"), "lo": ("95% lo", ".2f"),
        "hi": ("95% hi", ".2f"), "n": ("forks", ","), "take_value": ("take value", "+.2f"),
        "take_lo": ("95% lo", "+.2f"), "take_hi": ("95% hi", "+.2f"),
        "win_take": ("win (take)", "+.3f"), "fair_price": ("fair price", ".1f"),
        "fp_lo": ("95% lo", ".1f"), "fp_hi": ("95% hi", ".1f"),
        "take_rate": ("taken", ".3f"), "lit_rate": ("lit | taken", ".2f"),
        "q_value": ("q", ".3f"), "flag": ("flag", ""), "imprecise": ("wide", ""),
        "games": ("example games", "")},
        caption="Tasks per player count (players 0 = pooled where counts agree); replay an "
                "example with `bonfire-sim replay --run DIR --game ID`", row_class="flag"))
    return _section("tasks", title, blocks)


def section_gnomes(runs: Sequence[Any], probes: Any, margin: float,
                   jobs: int = 1, quiet: bool = True) -> dict[str, Any]:
    title = "Gnome strength"
    multi = [r for r in runs if r.config.players >= 2]
    if not multi:
        return _section("gnomes", title, [], "No multiplayer games in these runs.")
    gv = A.gnome_values(multi, probes=probes, margin=margin, pooled=True, jobs=jobs,
                        quiet=quiet)
    gv["label"] = gv["gnome"] + " " + gv["text"].str.slice(0, 30)
    est = gv[gv["n"] > 0]
    flagged = gv[gv["flag"] != ""]
    blocks = [H.text_block(
        "Value of recruiting a gnome: the owner's final score after recruiting it at a "
        "decision where it could (main action or council bonus), minus the best other "
        "move at that decision, same random streams (see Method). Because the decision is "
        "drawn from all moments the gnome was available, most of which the strategies "
        "would have used otherwise, values are mostly negative: compare gnomes with each "
        "other. Flags: strong / weak when more than "
        f"{margin:g} point(s) above / below the typical (median) gnome of the player count, "
        "Benjamini-Hochberg FDR 5%."),
        H.text_block(f"{len(flagged)} gnome rows flagged: "
                     + (", ".join(f"{r.gnome} {int(r.players)}p ({r.flag})"
                                  for r in flagged.itertuples()) or "none") + ".")]
    if not est.empty:
        blocks.append(_fig(F.value_intervals(est, "gnome", "label",
                                             title="Value of recruiting each gnome",
                                             xlabel="points vs the best other move"),
                           "Recruit value with 95% t intervals per player count."))
    blocks.append(_precision_block(gv[gv["n"] > 0], "gnome", "gnome value", margin))
    blocks.append(H.table_block(gv.sort_values(["players", "value"], ascending=[True, False]), {
        "gnome": ("gnome", ""), "players": ("players", "d"), "kind": ("kind", ""),
        "text": ("ability", ""), "value": ("value", "+.2f"), "lo": ("95% lo", "+.2f"),
        "hi": ("95% hi", "+.2f"), "n": ("forks", ","), "win_value": ("win", "+.3f"),
        "recruit_rate": ("recruited", ".3f"), "q_value": ("q", ".3f"), "flag": ("flag", ""),
        "imprecise": ("wide", ""), "games": ("example games", "")},
        caption="Gnomes per player count (players 0 = pooled where counts agree)",
        row_class="flag"))
    return _section("gnomes", title, blocks)


def section_tom(players: pd.DataFrame) -> dict[str, Any]:
    title = "Tom difficulty"
    if not players["solo"].astype(bool).any():
        return _section("tom", title, [], "No solo run (players = 1) in these runs: run e.g. "
                        "`bonfire-sim run --players 1 --strategies greedy --games 2000` and "
                        "add it to the report.")
    solo = S.solo_games(players)
    tom = S.tom_difficulty(solo)
    eq, paths = S.handicaps(solo)
    lines = S.tom_lines(players[players["solo"].astype(bool)])
    n = len(solo)
    blocks = [_fig(F.tom_win_rates(tom), "Win rate against Tom at handicap 0 (Wilson).",
                   S.precision_warning(tom, n / max(len(tom), 1), TARGET["tom_rate"],
                                       "Win rates against Tom")),
              H.table_block(tom, {
                  "strategy": ("strategy", ""), "games": ("games", ","),
                  "win_rate": ("win rate", ".3f"), "lo": ("95% lo", ".3f"),
                  "hi": ("95% hi", ".3f"), "score": ("score", ".1f"),
                  "score_lo": ("95% lo", ".1f"), "score_hi": ("95% hi", ".1f"),
                  "tom": ("Tom", ".1f"), "tom_lo": ("95% lo", ".1f"),
                  "tom_hi": ("95% hi", ".1f"), "margin": ("mean margin", "+.1f")},
                  caption="Solo games against Tom"),
              _fig(F.solo_score_hist(solo), "Score distributions of the strategies and Tom."),
              _fig(F.tom_line_bars(lines), "Tom's mean points per score line (t intervals).")]
    if not lines.empty:
        blocks.append(H.table_block(lines, {"line": ("line", ""), "mean": ("mean", ".2f"),
                                            "lo": ("95% lo", ".2f"), "hi": ("95% hi", ".2f")},
                                    caption="Tom's score lines"))
    blocks.append(_fig(F.handicap_paths(paths, eq),
                       "The handicap challenge (start -10, +5 per win, -2 per loss) played "
                       "over the games in order.",
                       S.precision_warning(eq, n / max(len(eq), 1), TARGET["handicap"],
                                           "Equilibrium handicaps")))
    blocks.append(H.table_block(eq, {
        "strategy": ("strategy", ""), "games": ("games", ","),
        "equilibrium": ("handicap at 2/7", "+.1f"), "lo": ("95% lo", "+.1f"),
        "hi": ("95% hi", "+.1f"), "settled": ("challenge mean, 2nd half", "+.1f"),
        "final": ("challenge end", "+d")},
        caption="Handicap where the strategy's win rate is 2/7 (margin quantile, bootstrap "
                "interval) and where the simulated challenge settles"))
    return _section("tom", title, blocks)


def variants_in_force(runs: Sequence[tuple[str, Any]]) -> pd.DataFrame:
    """One row per (run, fact): the variant in force, whether it is the default, why."""
    rows = []
    for label, data in runs:
        chosen = C.resolve_variants(data.manifest.get("config", {}).get("variants"))
        for fact, name in chosen.items():
            v = C.variant(fact, name)
            rows.append({"run": label, "fact": fact, "variant": name,
                         "default": name == C.default_variants()[fact],
                         "provenance": v.provenance, "why": v.why})
    return pd.DataFrame(rows)


def _sensitivity_blocks(doc: dict[str, Any] | None) -> list[dict[str, Any]]:
    if doc is None:
        return [H.text_block(
            "How much each headline figure moves when an assumed fact is read another way "
            "(Tom's deck, the fate area, guardian points): run `bonfire-sim sensitivity "
            "--config experiments/sensitivity.toml` (paired games on identical deals) and "
            "pass its JSON with `bonfire-sim report --sensitivity FILE` to show the table "
            "here.")]
    wide = pd.DataFrame(doc["wide"])
    return [H.text_block(
                f"Sensitivity to the assumed facts: each variant replayed the default's deals "
                f"({doc['games']:,} seat-rotated games per player count, {doc['solo_games']:,} "
                f"solo games per style, seed {doc['seed']}). Cells: variant - default with "
                f"the 95% interval of the paired difference (rates in percentage points)."),
            H.table_block(wide, {c: (c, "") for c in wide.columns},
                          caption="How each headline figure moves under each variant")]


FORK_METHOD = (
    "Task and gnome values are interventions in the engine, not correlations. The game "
    "state is one integer vector that carries its random streams, so copying it at a "
    "decision forks the game: both copies draw the same numbers until their moves make "
    "them differ (common random numbers). In every probed game, for every task and gnome, "
    "one decision at which the mover could receive the task, ignite it, or recruit the "
    "gnome is drawn uniformly at random (reservoir sampling from a seed per game, so the "
    "result is the same for any number of workers), and that decision is played out twice "
    "with the seats' own strategies. Take fork: A = the strategy's best move among those "
    "receiving the task, B = its best move among all others; the difference in the mover's "
    "final score and win share is the take value (it includes the risk of never lighting "
    "the task and what the action could have done instead). Light fork: A = ignite now, "
    "B = the best other move, and the mover never ignites that task in the rest of the "
    "game (if that ignite was its only main option, nothing is possible and it is out, as "
    "the rules say); the difference is the lit value. We chose this design for the lit "
    "value because the printed points enter branch A and never branch B, so re-pricing a "
    "task by k points moves its lit value by k up to the strategies' reaction to the new "
    "price; the alternatives considered (the take fork conditional on lighting, or a "
    "regression on lit tasks) select on the outcome or mix in who lights which task. The "
    "fair price is printed - take value / slope, where slope = share lit in A - share lit "
    "in B of the take forks: the points one more printed point adds to the take value (a "
    "first-order price; the strategies' play is held fixed). Intervals: Student t over "
    "forks (fair price: linearised ratio). Values are per player count; a pooled row is "
    "shown only where Cochran's Q does not reject equal values (p >= 0.05).")
FLAG_METHOD = (
    "Flags: a row is flagged only when its estimate lies more than the practical margin "
    "from its reference (fair price vs printed points, gnome value vs 0, compensation vs "
    "0): one-sided test of |difference| <= margin, Benjamini-Hochberg false discovery rate "
    "5% within each family (e.g. the tasks of one player count; scipy.stats."
    "false_discovery_control). Every row whose 95% interval is wider than ± the margin "
    "gets a precision warning with the observations it would need.")


def section_method(games: pd.DataFrame, warnings: list[str],
                   provenance: Sequence[str] = (),
                   variants: pd.DataFrame | None = None,
                   sensitivity: dict[str, Any] | None = None) -> dict[str, Any]:
    facts = S.assumed_facts(inspect.getsource(C))
    blocks = [H.text_block(FORK_METHOD), H.text_block(FLAG_METHOD)]
    blocks += [H.text_block(p) for p in provenance]
    blocks += [
        H.text_block("Intervals are 95%: Wilson score intervals for rates (win rates, take, "
                     "light and recruitment rates, end-reason shares); Student t intervals "
                     "for means; OLS with HC3 heteroskedasticity-robust standard errors for "
                     "adjusted task and gnome effects (normal approximation); a percentile "
                     "bootstrap (500 resamples) for the equilibrium handicap. Tests: "
                     "chi-square goodness of fit of fractional wins by seat."),
        H.text_block("Precision: an interval's width shrinks as 1/sqrt(games), so halving it "
                     "takes 4x the games; the games needed for a target half-width h are "
                     "n x (current half-width / h)^2. Target half-widths used for the "
                     "warnings: " + ", ".join(f"{k} ±{v:g}" for k, v in TARGET.items()) + "."),
        H.text_block("Solo games are used only in the Tom section; Tom's rows never enter "
                     "the seat, task or gnome analyses."),
    ]
    if warnings:
        blocks.append(H.text_block("Warnings in this report: " + " | ".join(warnings)))
    blocks.append(H.table_block(facts, {"name": ("fact", ""), "note": ("note", ""),
                                        "line": ("components.py line", "d")},
                                caption="Component facts in force that are [assumed] (the "
                                        "rulebook pictures are missing): every figure above "
                                        "depends on them"))
    if variants is not None and len(variants):
        blocks.append(H.table_block(variants, {
            "run": ("run", ""), "fact": ("fact", ""), "variant": ("variant in force", ""),
            "default": ("default?", ""), "provenance": ("provenance", ""),
            "why": ("why it is plausible", "")},
            caption="Assumptions in force: the named variant of each uncertain fact, per run "
                    "(bonfire-sim cards --kind variants lists the alternatives)"))
    blocks += _sensitivity_blocks(sensitivity)
    return _section("method", "Method and caveats", blocks)


def players_block(runs: Sequence[tuple[str, Any]]) -> dict[str, Any] | None:
    """Which players produced the numbers: each run's seat players from its manifest."""
    rows = []
    for lab, r in runs:
        for spec, rec in (r.manifest.get("seat_players") or {}).items():
            detail = {"search": f"budget {rec.get('budget')}, rollouts by "
                                f"{rec.get('rollout_policy')}",
                      "weights": f"weights file sha256 {str(rec.get('weights_sha256'))[:12]}",
                      "plugin": "Python plug-in"}.get(rec.get("kind"), "built-in weights")
            rows.append({"run": lab, "spec": spec, "kind": rec.get("kind"), "detail": detail})
    if not rows:
        return None
    return H.table_block(pd.DataFrame(rows), {
        "run": ("run", ""), "spec": ("player", ""), "kind": ("kind", ""),
        "detail": ("detail", "")},
        caption="Players of each run (the manifest records every weight; the search "
                "player is the strength reference)")


# ---- the report ----------------------------------------------------------------------------
def load_runs(run_dirs: Sequence[str | Path]) -> list[tuple[str, Any]]:
    from bonfire_sim.sim.load import load

    check_distinct_runs(run_dirs)
    labels = [Path(d).name or str(d) for d in run_dirs]
    if len(set(labels)) < len(labels):
        labels = [str(d) for d in run_dirs]
    return [(lab, load(d, turns=False, categorical=False))
            for lab, d in zip(labels, run_dirs, strict=True)]


def check_distinct_runs(run_dirs: Sequence[str | Path]) -> None:
    """Refuse a run given twice (it would be counted twice)."""
    seen: dict[Path, str] = {}
    for d in run_dirs:
        key = Path(d).resolve()
        if key in seen:
            raise ConfigError(f"run {d} is given twice (as {seen[key]} and {d}); each run "
                              f"may appear once")
        seen[key] = str(d)


def provenance(runs: Sequence[Any], command: str | None = None,
               probes: Any = None) -> list[str]:
    """Lines recording how the report was made: engine, runs and their seeds, command."""
    from bonfire_sim._jitcache import source_hash

    lines = [f"Made by bonfire_sim {__version__} (engine source hash {source_hash()}) on "
             f"{time.strftime('%Y-%m-%d %H:%M')}"
             + (f" with: {command}" if command else "") + "."]
    for r in runs:
        c = r.config
        lines.append(f"Run {r.label}: {c.games:,} games, {c.players} players, seed {c.seed}, "
                     f"strategies {', '.join(c.strategies)}, seat rotation {c.seat_rotation}, "
                     f"overrides {dict(c.overrides) or 'none'}"
                     + (f", directory {r.path}" if r.path else "") + ".")
    games = getattr(probes, "games", probes)
    lines.append("Forks: " + (f"the first {games:,} games of each run" if games else
                              "every game of each run") + " (cached under each run's "
                 "analysis/ directory).")
    return lines


STEPS = 8  # progress units of build_report: load, six sections, write


def report_sections(runs: Sequence[tuple[str, Any]], *, paths: Sequence[Any] = (),
                    probes: Any = DEFAULT_PROBE_GAMES, margin: float = FL.MARGIN,
                    command: str | None = None, jobs: int = 1,
                    sensitivity: dict[str, Any] | None = None,
                    progress: Callable[[], None] | None = None,
                    quiet: bool = True) -> list[dict[str, Any]]:
    """Compute and draw every section of the report for loaded runs (``paths``: their
    directories, where fork tables are cached; ``sensitivity``: the JSON document of
    ``bonfire-sim sensitivity``, shown in the method section).

    ``progress()`` is called after each section (six calls).
    """
    from bonfire_sim.analysis.runs import Run

    tick = progress or (lambda: None)
    games, players = S.combine(runs)
    overrides = {lab: r.manifest.get("config", {}).get("overrides", {}) for lab, r in runs}
    games.attrs["overrides"] = overrides
    games.attrs["variants"] = {lab: r.manifest.get("config", {}).get("variants")
                               for lab, r in runs}
    paths = list(paths) or [None] * len(runs)
    aruns = [Run(lab, Path(p) if p else None, data)
             for (lab, data), p in zip(runs, paths, strict=True)]
    def overview() -> dict[str, Any]:
        section = section_overview(games, players)
        roster = players_block(runs)  # who played each seat, weights included
        if roster is not None:
            section["blocks"].insert(1, roster)
        return section

    steps = (overview,
             lambda: section_seats(players, aruns, margin),
             lambda: section_tasks(aruns, probes, margin, jobs, quiet),
             lambda: section_gnomes(aruns, probes, margin, jobs, quiet),
             lambda: section_tom(players))
    sections = []
    for step in steps:
        sections.append(step())
        tick()
    sections.append(DC.section_decided(aruns))
    warnings = [b["warning"] for s in sections for b in s["blocks"]
                if b["kind"] == "figure" and b.get("warning")]
    sections.append(section_method(games, warnings, provenance(aruns, command, probes),
                                   variants_in_force(runs), sensitivity))
    tick()
    return sections


def load_sensitivity(path: str | Path) -> dict[str, Any]:
    """The JSON document ``bonfire-sim sensitivity --json`` wrote."""
    import json

    from bonfire_sim.errors import DataError

    try:
        doc = json.loads(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise DataError(f"sensitivity file {path} not found") from None
    except (OSError, ValueError) as e:
        raise DataError(f"{path} is unreadable or not JSON ({e})") from None
    if not isinstance(doc, dict) or doc.get("format") != "bonfire_sim-sensitivity":
        raise DataError(f"{path} is not written by bonfire-sim sensitivity --json")
    return doc


def build_report(run_dirs: Sequence[str | Path], out: str | Path,
                 title: str = "Bonfire balance report", *,
                 probes: Any = DEFAULT_PROBE_GAMES, margin: float = FL.MARGIN,
                 command: str | None = None, jobs: int = 1,
                 sensitivity: str | Path | None = None,
                 progress: Callable[[int, int], None] | None = None,
                 quiet: bool = True, views: bool = True) -> Path:
    """Write one self-contained HTML report for the runs; returns its path.

    ``probes``: games per run to fork for the task and gnome values (None = all), or
    ``ProbeSettings``; ``margin``: the practical margin of the flags, in points;
    ``progress(done, STEPS)`` after loading, after each section and after writing;
    ``views``: write view pages of the example games into ``views/`` beside the page.
    """
    fileio.check_output_file(out)
    margin = check_float("margin", margin, 0, MAX_POINTS)
    done = 0

    def tick() -> None:
        nonlocal done
        done += 1
        if progress is not None:
            progress(done, STEPS)

    runs = load_runs(run_dirs)
    tick()
    sections = report_sections(runs, paths=run_dirs, probes=probes, margin=margin,
                               command=command, jobs=jobs,
                               sensitivity=load_sensitivity(sensitivity) if sensitivity
                               else None, progress=tick, quiet=quiet)
    total = sum(len(r.games) for _, r in runs)
    subtitle = (f"{total:,} games from {len(runs)} run(s): {', '.join(lab for lab, _ in runs)}"
                f" — bonfire_sim {__version__}, built {time.strftime('%Y-%m-%d %H:%M')}")
    if views:
        DC.link_example_games(sections, runs, run_dirs, out)
    path = H.write(out, H.render(title, subtitle, sections))
    tick()
    return path
