"""The errata sheet's one door to the card worth: every use of the card-value API in one
small module, so a redefined worth (a receipt value, a slope-aware price) drops in here.

``card_proposals`` returns the tidy table the sheet reads: one row per task and player
count with the ONE printed value proposed for the card (the same at every count) and each
count's residual.  ``task_table`` measures the task rows of a configuration from its
forks; ``pooled``, ``next_prices``, ``check_print`` and ``response`` are the closed loop's
per-card steps (the secant step, the checked print and the printed point's response of
``reprice``, one copy each in ``cards.steps``).  All of them go through the card room's one entry,
``bonfire_sim.analysis.cards``, with its default measure (``cards.DEFAULT_MEASURE``, the
receipt value's surplus over the typical card of its colour; ``cards.MEASURES``): the
fair value divides the surplus by what a printed point moves it (``price_divisor``: 1
under the lit value, about twice the fixed-play slope under the receipt value).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from bonfire_sim.analysis import cards
from bonfire_sim.analysis.cards.probes import TASK_IDS
from bonfire_sim.analysis.cards.steps import check_print, responses  # reprice's steps
from bonfire_sim.sim.runconfig import RunConfig

printed_points = cards.printed_points
flags_across_counts = cards.flags_across_counts
pooled_half = cards.pooled_half
population = cards.population
gnome_values = cards.gnome_values
ProbeSettings = cards.ProbeSettings  # which forks (the estimate's gnome survey asks one)
MIN_SLOPE = cards.MIN_SLOPE  # below it no printed value fixes a task
MIN_PRICE = cards.MIN_PRICE  # the lowest printed value any proposal names (window.py)
DEFAULT_MEASURE = cards.DEFAULT_MEASURE  # what the sheet's tables measure unless told
CHECK_SEEDS = cards.CHECK_SEEDS  # seeds after the check's that its looks may take
CHECK_TOP_UPS = cards.CHECK_TOP_UPS  # a check row it cannot resolve: more forks, at most
top_up_check = cards.top_up_check
verdict = cards.verdict
TARGET_SHARE = cards.TARGET_SHARE  # the estimate's task rows aim at this share of the margin
SURVEY_MAX_GAMES = cards.SURVEY_MAX_GAMES  # the estimate's top-ups: 4-player games per card
SURVEY_ROUNDS = cards.SURVEY_ROUNDS  # ... and rounds (seeds) at most

PROPOSAL_COLUMNS = ("card", "players", "printed", "proposed", "surplus", "s_lo", "s_hi",
                    "half", "n", "deals", "status", "flag", "forks_needed", "changed", "slope",
                    "note")
CARD_COLUMNS = ("card", "players", "kind", "printed", "surplus", "s_lo", "s_hi", "half",
                "n", "deals", "status", "flag", "forks_needed")

__all__ = ["CARD_COLUMNS", "CHECK_SEEDS", "CHECK_TOP_UPS", "DEFAULT_MEASURE", "MIN_PRICE",
           "MIN_SLOPE", "ProbeSettings", "SURVEY_MAX_GAMES", "SURVEY_ROUNDS", "TARGET_SHARE",
           "estimate_top_ups",
           "PROPOSAL_COLUMNS", "card_proposals", "check_print", "first_price",
           "flags_across_counts",
           "gnome_values",
           "next_prices", "pooled", "pooled_half", "population", "printed_points", "response",
           "task_forks", "task_rows", "task_table", "toml_value", "top_up_check", "verdict"]


def card_proposals(table: pd.DataFrame, printed: Mapping[str, int], margin: float,
                   measure: str = DEFAULT_MEASURE) -> pd.DataFrame:
    """One row per task and player count (``PROPOSAL_COLUMNS``) from task rows of a card
    table: the card's ``surplus`` at that count with its interval, ``status`` / ``flag``,
    the ``proposed`` printed value of the card (one for every count: the inverse-variance
    mean of printed - surplus over the counts, its fair window's whole value nearest
    today's, ``cards.combine``; today's value where no count flags the card, the window
    holds it or no printed value can fix it: a card whose slope is below
    ``MIN_SLOPE``, which nobody who receives it lights) and ``changed`` (proposed
    differs from printed); ``note``: "change the condition" with the surplus predicted
    at ``MIN_PRICE`` where the card's fair window lies below it (proposed at it).
    ``measure``: what the table's rows measure (``cards.MEASURES``; the caller knows it:
    the sheet's ``errata_loop.Measure.measure``, the report's card table's default)."""
    t = table[table["kind"] == "task"] if "kind" in table else table
    t = _lit_columns(t)
    fair = cards.fair_print(pd.to_numeric(t["printed"], errors="coerce").astype(float),
                            pd.to_numeric(t["surplus"], errors="coerce").astype(float),
                            pd.to_numeric(t["slope"], errors="coerce").astype(float)
                            .fillna(1.0), measure)
    t = t.assign(kind="task", fair=fair,
                 proposed=np.maximum(np.floor(fair + 0.5), MIN_PRICE))
    est = cards.combine(t, dict(printed), margin, measure)
    one = {str(r["card"]): (int(r["proposed"]) if r["flagged"] and not r["no_price"]
                            and math.isfinite(r["proposed"]) else int(r["printed"]))
           for _, r in est.iterrows()}
    out = t.assign(proposed=t["card"].map(one))
    out["changed"] = out["proposed"] != out["card"].map(dict(printed))
    # the one value's note: "change the condition" (with its surplus at the floor) where
    # the card is fair below MIN_PRICE and proposed there, as the sheet and the loop say
    notes = {str(r["card"]): str(r["note"]) for _, r in est.iterrows()
             if str(r["note"]).startswith("change the condition") and one[str(r["card"])]
             == MIN_PRICE}
    out["note"] = [notes.get(str(c), "") for c in out["card"]]
    return out.loc[:, list(PROPOSAL_COLUMNS)].reset_index(drop=True)


def task_table(configs: Sequence[tuple[str, RunConfig, Any]], games: int, margin: float,
               alpha: float, *, focus: Sequence[str] = (), focus_games: int = 0,
               jobs: int = 1, quiet: bool = True,
               progress: Callable[[int, int], None] | None = None,
               detail: bool = False) -> pd.DataFrame:
    """The task rows (``CARD_COLUMNS``) of ``(label, config, run_dir)`` configurations:
    every task forked on the first ``games`` games, the ``focus`` cards alone on
    ``focus_games`` (their own intervals); forks clustered by label and deal.  ``detail``:
    the lit value's forks too (``lit_value`` beside a receipt value: why a card is worth
    what it is; the sheet's estimate shows it, the fresh rounds need only the value)."""
    forks = task_forks(configs, games, focus=focus, focus_games=focus_games, jobs=jobs,
                       quiet=quiet, progress=progress, detail=detail)
    return task_rows(forks, {cfg.players: cards.printed_points(cfg) for _, cfg, _ in configs},
                     margin, alpha)


def task_forks(configs: Sequence[tuple[str, RunConfig, Any]], games: int, *,
               focus: Sequence[str] = (), focus_games: int = 0, tasks: Sequence[str] = (),
               jobs: int = 1, quiet: bool = True,
               progress: Callable[[int, int], None] | None = None,
               detail: bool = False,
               cache_as: Mapping[str, Any] | None = None) -> pd.DataFrame:
    """``task_table``'s fork table (a ``cluster`` column: label and deal); ``tasks``: only
    these cards' forks (a check's top-up, on new games: ``run_dir`` None, cached under
    ``cache_as`` with the configuration, so a sheet made again replays none of them)."""
    from bonfire_sim.infra.progress import part_of

    parts = []
    sizes = [min(games, cfg.games) for _, cfg, _ in configs]
    for i, (label, cfg, path) in enumerate(configs):
        kinds = cards.task_kinds()
        every = tuple(dict.fromkeys(kinds + (cards.DETAIL_KINDS if detail else ())))
        t = cards.probe_values(cfg, cards.ProbeSettings(games=games, kinds=every,
                                                        tasks=tuple(tasks) or None),
                               run_dir=path, jobs=jobs, quiet=quiet,
                               progress=part_of(progress, sum(sizes[:i]), sum(sizes)),
                               cache_as=None if path else cache_as)
        if focus and focus_games > games:
            extra = cards.probe_values(cfg, cards.ProbeSettings(games=focus_games, kinds=kinds,
                                                                tasks=tuple(focus)),
                                       run_dir=path, jobs=jobs, quiet=quiet)
            t = pd.concat([t[~t["item"].isin(focus)], extra], ignore_index=True)
        parts.append(t.assign(cluster=label + "|" + t["deal"].astype(str)))
    return pd.concat(parts, ignore_index=True) if parts else pd.DataFrame()


def estimate_top_ups(forks: pd.DataFrame, groups: Mapping[int, Sequence[Any]],
                     probe_games: int, margin: float, alpha: float, *, max_games: int,
                     top_ups: int, seed: int, jobs: int = 1, quiet: bool = True,
                     note: Callable[[str], None] | None = None,
                     progress: Callable[[str, int, int], None] | None = None,
                     batches: list[Any] | None = None,
                     ) -> tuple[pd.DataFrame, dict[int, dict[str, int]]]:
    """The estimate's task top-ups: the survey ``values`` and ``reprice`` estimate from
    (``cards.top_up_runs``), so the sheet sees the rows they see.  Per player count of
    ``groups`` (its runs, one game), every task row the runs' ``forks`` (their first
    ``probe_games`` games, a ``cluster`` column) leave wider than ``TARGET_SHARE`` x
    ``margin`` is forked alone on fresh deals of the runs' game, the games it needs, round
    after round (seeds ``seed`` .. ``seed + top_ups - 1``), at most ``max_games``
    four-player games per card (as many seat-games at the other counts); each probe is
    appended to ``batches`` (``survey.Batch``).  Returns (the extra forks, per count the
    games each card was forked on in all)."""
    forked = cards.forked_games(groups, probe_games)
    return cards.top_up_runs(forks, groups, forked, cards=TASK_IDS,
                             target=cards.TARGET_SHARE * margin, alpha=alpha,
                             max_games=max_games, rounds=top_ups, seed=seed, jobs=jobs,
                             quiet=quiet, note=note, measure=DEFAULT_MEASURE,
                             progress=progress, batches=batches)


def task_rows(forks: pd.DataFrame, printed: Mapping[int, Mapping[str, int]], margin: float,
              alpha: float) -> pd.DataFrame:
    """The task rows (``CARD_COLUMNS``) of a fork table (``task_forks``) at the printed
    task points per player count."""
    if forks.empty:
        return pd.DataFrame(columns=list(CARD_COLUMNS))
    tab = cards.card_table(forks, printed, margin, alpha)
    return tab[tab["kind"] == "task"].reset_index(drop=True)


def _lit_columns(table: pd.DataFrame) -> pd.DataFrame:
    """The card table's columns of the lit value where a caller's rows lack them (the
    sheet's own tables): a printed point moves it by one (``slope``), and no test across
    counts was run (``flag_counts``) nor price note written."""
    missing = {col: default for col, default in (("slope", 1.0), ("flag_counts", ""),
                                                 ("price_note", "")) if col not in table}
    return table.assign(**missing) if missing else table


def first_price(table: pd.DataFrame, card: str, printed: int,
                measure: str = DEFAULT_MEASURE) -> float:
    """A flagged card's first whole price (the errata loop's round 0): printed - its
    pooled surplus / the default measure's ``price_divisor`` of its pooled slope (1
    under the lit value: printed - surplus), rounded; NaN where the surplus is unknown or
    the slope is below ``MIN_SLOPE`` (no printed value fixes it: change its condition)."""
    t = _lit_columns(table)
    s, slope = cards.pooled(t, card), cards.pooled(t, card, "slope")
    if not (math.isfinite(s) and math.isfinite(slope)) or slope < cards.MIN_SLOPE:
        return math.nan
    return float(math.floor(float(cards.fair_print(printed, s, slope, measure)) + 0.5))


def pooled(table: pd.DataFrame, card: str) -> float:
    """A card's surplus pooled over the counts (inverse-variance; NaN if none)."""
    return cards.pooled(table, card)


def next_prices(table: pd.DataFrame, current: dict[str, int], printed: dict[str, int],
                history: dict[str, list[tuple[float, float]]],
                margin: float,
                measure: str = DEFAULT_MEASURE,
                counts: dict[str, list[Any]] | None = None,
                ) -> tuple[dict[str, int], list[str]]:
    """(the cards to move after a fresh round, the re-priced cards too wide to steer by):
    ``reprice``'s secant steps.  A card's first step divides by the default measure's
    response to a printed point (``RESPONSE_RATIO`` x its pooled fixed-play slope in
    ``table``: 1 under the lit value, whose slope is exactly 1), as ``reprice`` does;
    ``counts``: each card's per-count rows round by round (the minimax print's per-count
    responses, ``cards.steps.minimax_print``), extended in place as ``history`` is."""
    t = _lit_columns(table)
    slopes = _first_responses(t, history, measure)
    return cards.next_prices(t, current, history, slopes, margin, measure, counts)


def _first_responses(table: pd.DataFrame, which: Iterable[str],
                     measure: str) -> dict[str, float]:
    """Each card's first response in ``table``: ``RESPONSE_RATIO`` x its pooled
    fixed-play slope (measured ones only)."""
    ratio = cards.RESPONSE_RATIO[measure]
    slopes = {c: ratio * cards.pooled(table, c, "slope") for c in which}
    return {c: s for c, s in slopes.items() if math.isfinite(s)}


def response(line: Sequence[tuple[float, float]], table: pd.DataFrame, card: str,
             measure: str = DEFAULT_MEASURE) -> float:
    """What a printed point does to ``card``'s surplus (``cards.steps.responses``, as
    ``reprice``'s check reads it): the slope of its (printed, pooled surplus) ``line``
    over the loop's prices, or its first response in ``table`` where the line has one
    price (1 under the lit value)."""
    first = _first_responses(_lit_columns(table), [card], measure)
    return responses({card: list(line)}, first, measure)[card]


def toml_value(v: Any) -> str:
    """A value written as TOML."""
    return cards.toml_value(v)
