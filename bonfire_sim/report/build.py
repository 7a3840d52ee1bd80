"""Orchestrate a balance report: load runs -> ``stats`` -> ``figures`` -> ``html``.

Each ``section_*`` function takes the combined tidy frames and returns one section dict
for ``html.render``; a section whose data is absent says so instead of failing.
"""

from __future__ import annotations

import inspect
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from bonfire_sim import __version__
from bonfire_sim.report import figures as F
from bonfire_sim.report import html as H
from bonfire_sim.report import stats as S
from bonfire_sim.rules import components as C

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


def section_seats(players: pd.DataFrame) -> dict[str, Any]:
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


def section_tasks(players: pd.DataFrame, overrides: dict[str, Any]) -> dict[str, Any]:
    title = "Task values"
    m = S.multiplayer(players)
    if m.empty:
        return _section("tasks", title, [], "No multiplayer games in these runs.")
    tv = S.task_values(m, overrides)
    n = _n_games(m)
    flagged = tv[tv["flag"] != ""]
    blocks = [H.text_block(
        "Empirical value = adjusted effect of lighting the task on the final score: OLS of "
        "score on 66 lit-task indicators plus strategy and run x player-count x seat fixed "
        "effects, HC3 robust 95% intervals; the win effect is the same linear probability "
        "model on winning. Tasks lit by fewer than 20 players get no estimate. A task is "
        "flagged only when its interval excludes the printed points: under-valued (worth "
        "more than printed) or over-valued (worth less). The effect includes what lighting "
        "brings besides the printed points (bonfire space, guardian spots, elder and common "
        "task progress) and the skill it signals, so read it as association, not cause."),
        H.text_block(f"{len(flagged)} of {tv['value'].notna().sum()} estimated tasks flagged: "
                     + (", ".join(f"{r.id} ({r.flag})" for r in flagged.itertuples()) or
                        "none") + "."),
        H.text_block(
            f"On average a lit task is worth {tv.attrs['mean_surplus']:+.2f} points beyond "
            f"its printed value (lit-weighted mean surplus: the bonfire's other benefits and "
            f"the selection of who lights it). Relative to that par, above par: "
            + (", ".join(tv.loc[tv["relative_flag"] == "above par", "id"]) or "none")
            + "; below par: "
            + (", ".join(tv.loc[tv["relative_flag"] == "below par", "id"]) or "none")
            + ".")]
    est = tv.dropna(subset=["value"])
    warn = S.precision_warning(est, n, TARGET["task_value"], "Task values",
                               "value_lo", "value_hi")
    blocks.append(_fig(F.task_value_scatter(tv), "Printed points vs empirical value "
                                                 "(flagged tasks labelled).", warn))
    blocks.append(_fig(F.ranked_effects(est.assign(label=est["id"] + " " + est["colour"]),
                                        "value", "value_lo", "value_hi", "label", ref="printed",
                                        title="Tasks ranked by empirical value",
                                        xlabel="score effect of lighting (| = printed)"),
                       "Ranked empirical task values; green: under-valued, orange: "
                       "over-valued.", warn))
    blocks.append(_fig(F.rate_bars(tv, "take_rate", "take_lo", "take_hi",
                                   title="How often each task is taken (per player)",
                                   ylabel="share of players"), "Take rate per task."))
    ranked = tv.sort_values("value", ascending=False, na_position="last")
    blocks.append(H.table_block(ranked, {
        "id": ("task", ""), "colour": ("colour", ""), "text": ("condition", ""),
        "printed": ("printed", "d"), "take_rate": ("taken", ".3f"),
        "lit_rate": ("lit | taken", ".2f"), "lit": ("lit (n)", ","),
        "value": ("value", ".2f"), "value_lo": ("95% lo", ".2f"), "value_hi": ("95% hi", ".2f"),
        "win_effect": ("win effect", "+.3f"), "win_lo": ("95% lo", "+.3f"),
        "win_hi": ("95% hi", "+.3f"), "flag": ("flag", ""),
        "relative": ("vs par", "+.2f"), "relative_flag": ("", "")},
        caption="All 66 tasks ranked by empirical value", row_class="flag"))
    return _section("tasks", title, blocks)


def section_gnomes(players: pd.DataFrame) -> dict[str, Any]:
    title = "Gnome strength"
    m = S.multiplayer(players)
    if m.empty:
        return _section("gnomes", title, [], "No multiplayer games in these runs.")
    gs = S.gnome_strength(m)
    n = _n_games(m)
    blocks = [H.text_block(
        "Adjusted effect of owning each gnome at game end on the final score (and on "
        "winning, linear probability), with the same fixed effects and HC3 intervals as the "
        "task values. Flags: strong / weak when the interval excludes zero. Owning a gnome "
        "also signals having spent the actions to recruit it.")]
    est = gs.dropna(subset=["effect"])
    warn = S.precision_warning(est, n, TARGET["gnome_effect"], "Gnome effects")
    blocks.append(_fig(F.ranked_effects(est.assign(label=est["id"] + " " + est["kind"]),
                                        title="Gnomes ranked by adjusted score effect",
                                        xlabel="score effect of owning", label="label"),
                       "Ranked gnome effects (95% HC3).", warn))
    blocks.append(_fig(F.rate_bars(gs, "recruit_rate", "recruit_lo", "recruit_hi",
                                   title="Recruitment rate per gnome",
                                   ylabel="share of players"), "Recruitment rate."))
    blocks.append(H.table_block(gs.sort_values("effect", ascending=False, na_position="last"), {
        "id": ("gnome", ""), "kind": ("kind", ""), "text": ("ability", ""),
        "recruit_rate": ("recruited", ".3f"), "effect": ("score effect", "+.2f"),
        "lo": ("95% lo", "+.2f"), "hi": ("95% hi", "+.2f"),
        "win_effect": ("win effect", "+.3f"), "win_lo": ("95% lo", "+.3f"),
        "win_hi": ("95% hi", "+.3f"), "flag": ("flag", "")},
        caption="Gnomes ranked by score effect", row_class="flag"))
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


def section_method(games: pd.DataFrame, warnings: list[str]) -> dict[str, Any]:
    facts = S.assumed_facts(inspect.getsource(C))
    blocks = [
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

    labels = [Path(d).name or str(d) for d in run_dirs]
    if len(set(labels)) < len(labels):
        labels = [str(d) for d in run_dirs]
    return [(lab, load(d, turns=False)) for lab, d in zip(labels, run_dirs, strict=True)]


def report_sections(runs: Sequence[tuple[str, Any]]) -> list[dict[str, Any]]:
    """Compute and draw every section of the report for loaded runs."""
    games, players = S.combine(runs)
    overrides = {lab: r.manifest.get("config", {}).get("overrides", {}) for lab, r in runs}
    games.attrs["overrides"] = overrides
    multi = [o for lab, o in overrides.items()
             if not S.multiplayer(players[players["run"] == lab]).empty]
    overview = section_overview(games, players)
    roster = players_block(runs)
    if roster is not None:
        overview["blocks"].insert(1, roster)
    sections = [overview, section_seats(players),
                section_tasks(players, multi[0] if multi else {}),
                section_gnomes(players), section_tom(players)]
    warnings = [b["warning"] for s in sections for b in s["blocks"]
                if b["kind"] == "figure" and b.get("warning")]
    sections.append(section_method(games, warnings))
    return sections


def build_report(run_dirs: Sequence[str | Path], out: str | Path,
                 title: str = "Bonfire balance report") -> Path:
    """Write one self-contained HTML report for the runs; returns its path."""
    runs = load_runs(run_dirs)
    sections = report_sections(runs)
    total = sum(len(r.games) for _, r in runs)
    subtitle = (f"{total:,} games from {len(runs)} run(s): {', '.join(lab for lab, _ in runs)}"
                f" — bonfire_sim {__version__}, built {time.strftime('%Y-%m-%d %H:%M')}")
    return H.write(out, H.render(title, subtitle, sections))
