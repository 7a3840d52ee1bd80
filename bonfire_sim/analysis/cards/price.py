"""Whole-point printed task values that survive a closed loop (``bonfire-sim reprice``).

``reprice(runs)`` measures the card values (``card_table``) of finished runs, topped up
as ``bonfire-sim values`` surveys them (``survey.top_up_runs``: every row to 0.6 x the
margin, so that a 2-point change at one count is flagged), and proposes,
for every task flagged at some player count (its surplus shown to lie beyond ± margin),
one whole printed value for all counts: around the inverse-variance mean over the counts
of printed - surplus / slope, the card's fair printed window (``window``), and the
window's whole value nearest the print, or the print where the window holds it (a card
near the detection floor, flagged on one seed only, moved its whole surplus / slope
there: 2-4 printed points for a flat card); never below its colour's lowest
printing on rows not measured; each count's own value stays in the table.  With
``verify=True`` it then plays FRESH deals (seeds disjoint from the estimating runs') at
the proposal and moves each re-priced card by a secant step (the surplus is not exactly
linear in the printed value: a card printed higher is taken and lit at other moments),
all cards at once, round after round, until no card moves (a fixed point, as the seat
lottery does) or the rounds are spent; the re-priced cards get more forks than the rest
(``focus_games``), since their own interval decides whether they are done.  Finally one
**check** round on new deals, whose figures change nothing, says per re-priced card
whether its surplus lies within ± margin: the out-of-sample test of the proposal.  It
checks every card the loop steered, also one moved and brought back to its start value
(R20 at 4 players went 2 -> 7 -> 4 -> 2 and was never checked when only changed prices
were).

Runs are grouped per player count; runs that differ in anything but their seed and size
(variants, overrides, players) are never pooled.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
import pandas as pd

from bonfire_sim.analysis import flags as FL
from bonfire_sim.analysis.cards import survey as SV
from bonfire_sim.analysis.cards.check_topup import CHECK_SEEDS, top_up_check
from bonfire_sim.analysis.cards.groups import group_runs
from bonfire_sim.analysis.cards.probes import TASK_IDS, ProbeSettings, probe_values
from bonfire_sim.analysis.cards.steps import (
    SLOPE_HI,
    SLOPE_LO,
    check_print,
    count_responses,
    minimax_print,
    responses,
    secant_step,
)
from bonfire_sim.analysis.cards.table import (
    DEFAULT_MEASURE,
    MIN_SLOPE,
    PRICE_SLOPE_HI,
    PRICE_SLOPE_LO,
    RESPONSE_RATIO,
    card_table,
    check_measure,
    price_divisor,
    printed_points,
    task_kinds,
    tier_floor,
)
from bonfire_sim.analysis.cards.window import (
    MIN_PRICE,
    below_floor,
    floor_note,
    into_window,
    price_window,
    verdict,
)
from bonfire_sim.analysis.runs import Run, RunLike, as_runs
from bonfire_sim.errors import ConfigError, DataError
from bonfire_sim.sim.runconfig import RunConfig

ROUNDS = 3  # iteration rounds (fresh deals each) by default, then one check round
VERIFY_GAMES = 1000  # fresh games per player count and round by default


@dataclass
class Round:
    """One verification round: the prices played, the fresh seed, the card table."""

    seed: int
    prices: dict[str, int]
    table: pd.DataFrame
    flagged: list[str]
    # card -> (the secant's print, the print fair at every count played instead)
    minimax: dict[str, tuple[int, int]] = field(default_factory=dict)


@dataclass
class Reprice:
    """The result: ``proposal`` (task id -> whole printed value, changed cards only),
    ``estimate`` (per task: printed, each count's own fair value and proposal, the
    combined one), the ``rounds`` of verification and ``verified`` (per steered card and
    count, the surplus measured on the check's fresh deals, and in printed points:
    ``price_window``)."""

    printed: dict[str, int]
    proposal: dict[str, int]
    estimate: pd.DataFrame
    rounds: list[Round] = field(default_factory=list)
    verified: pd.DataFrame | None = None
    fixed_point: bool = False
    check: Round | None = None
    table: pd.DataFrame | None = None  # the card table the proposal came from
    verify: bool = False  # --verify was asked for (it plays nothing when nothing moved)
    batches: list[Any] = field(default_factory=list)  # the estimate's top-ups (survey.Batch)


def task_settings(probes: ProbeSettings | int | None = None,
                  measure: str = DEFAULT_MEASURE) -> ProbeSettings:
    """The task forks of the estimate (``task_kinds(measure)``; gnomes print no number,
    so their forks would only cost time): a number of games (None = all) or given
    settings."""
    if isinstance(probes, ProbeSettings):
        return replace(probes, kinds=task_kinds(measure))
    return ProbeSettings(games=probes, kinds=task_kinds(measure))


def _forks(configs: Sequence[tuple[str, RunConfig, Any]], settings: ProbeSettings, jobs: int,
           quiet: bool) -> pd.DataFrame:
    """Fork tables of (label, config, run_dir) with a deal ``cluster`` column."""
    parts = []
    for label, cfg, path in configs:
        t = probe_values(cfg, settings, run_dir=path, jobs=jobs, quiet=quiet)
        parts.append(t.assign(cluster=label + "|" + t["deal"].astype(str)))
    return pd.concat(parts, ignore_index=True)


def combine(table: pd.DataFrame, printed: dict[str, int], margin: float,
            measure: str = DEFAULT_MEASURE) -> pd.DataFrame:
    """Per task: each count's fair value, surplus and slope, the one fair value for all
    counts (the inverse-variance mean of the counts' fair values, weights (slope /
    half)^2) with its **fair printed window** ``fair_lo`` .. ``fair_hi`` (each count's
    surplus interval over ``price_divisor``, pooled with the same weights: ``window``),
    and the ``proposed`` printed value: the print where the window ``holds`` it, else the
    window's whole value nearest the print (``window.into_window``, never below
    ``MIN_PRICE``: a card whose whole window lies below it is proposed there with the
    advice to change its condition, ``window.floor_note``), never below the
    colour's lowest printing without the evidence (every count's row measured; else held
    there, ``below_floor``).  Each count's **residual** there is its surplus moved by
    slope x the change; ``flagged`` where any count, or the test across counts, flags
    it; ``no_price`` where the pooled slope is below ``MIN_SLOPE`` (no printed value
    fixes it: change its condition), ``note`` the evidence or why a flagged card stays."""
    t = table[table["kind"] == "task"].copy()
    t["w"] = (t["slope"].clip(PRICE_SLOPE_LO, PRICE_SLOPE_HI) / t["half"]) ** 2
    t["fair_half"] = t["half"] / price_divisor(t["slope"], measure)
    rows = []
    for card, g in t.groupby("card", sort=False):
        ok = g["fair"].notna() & np.isfinite(g["w"]) & g["fair_half"].notna()
        w = g.loc[ok, "w"] / g.loc[ok, "w"].sum() if ok.any() else g.loc[ok, "w"]
        fair = float((g.loc[ok, "fair"] * w).sum()) if ok.any() else math.nan
        half = float(np.sqrt((w ** 2 * g.loc[ok, "fair_half"] ** 2).sum())) \
            if ok.any() else math.nan
        has = g["slope"].notna() & np.isfinite(g["w"])
        slope = (float((g.loc[has, "slope"] * g.loc[has, "w"]).sum() / g.loc[has, "w"].sum())
                 if has.any() else math.nan)
        flagged = bool((g["flag"] != "").any() or (g["flag_counts"] != "").any())
        no_price = flagged and math.isfinite(slope) and slope < MIN_SLOPE
        p = printed[card]
        step = into_window(p, fair - half, fair + half)
        proposed = (math.nan if not math.isfinite(fair) else p if step is None else step)
        floor = tier_floor(str(card))
        # a count's own "below its colour's lowest printing" says nothing where the one
        # value for all counts is not below it
        # ... nor its "no price fixes this card" where the pooled slope does price it (B21:
        # one count's slope 0.08, pooled 0.10, was re-priced under that note)
        note = next((n for n in g["price_note"] if n and not (
            n.startswith("below") and not proposed < floor) and not (
            n.startswith("no price") and not no_price) and not (
            n.startswith("change the condition") and not below_floor(fair + half))), "")
        # a move below the tier's floor needs every count's row measured
        below = (flagged and bool(proposed < min(floor, p))
                 and not (g.loc[ok, "status"] == "measured").all())
        if below:
            proposed = min(floor, p)
            note = (f"not proposed below its colour's lowest printing ({floor}) on rows "
                    f"not measured: fair {fair:.1f} ({fair - half:.1f} to {fair + half:.1f})")
        elif flagged and not no_price and below_floor(fair + half):
            # no print a proposal may name is fair: the floor, and the advice with the
            # surplus the pooled line predicts there (the loop's check then measures it)
            r = float(price_divisor(slope, measure))
            note = floor_note(r * (MIN_PRICE - fair), r * (MIN_PRICE - fair - half),
                              r * (MIN_PRICE - fair + half), fair)
        elif proposed < min(floor, p) and not note.startswith("below"):  # the evidence
            note = (f"below its colour's lowest printing ({floor}) on measured rows: fair "
                    f"{fair:.1f} ({fair - half:.1f} to {fair + half:.1f})")
        if flagged and not no_price and step is None and math.isfinite(fair):
            note = (f"flagged, window holds the print: fair printed {fair - half:.1f} to "
                    f"{fair + half:.1f}")
        row: dict[str, Any] = {"card": card, "printed": p, "fair": fair,
                               "fair_lo": fair - half, "fair_hi": fair + half,
                               "holds": step is None and math.isfinite(fair),
                               "proposed": proposed, "slope": slope, "flagged": flagged,
                               "no_price": no_price, "below_floor": below, "note": note}
        for _, r in g.iterrows():
            n = int(r["players"])
            row[f"surplus_{n}"] = r["surplus"]
            row[f"half_{n}"] = r["half"]
            row[f"own_{n}"] = r["proposed"]
            row[f"status_{n}"] = r["status"]
            row[f"slope_{n}"] = r["slope"]
            # printed higher, the card gives more: its surplus rises by slope x the change
            row[f"resid_{n}"] = (r["surplus"] + r["slope"] * (proposed - p)
                                 if math.isfinite(proposed) else math.nan)
        rows.append(row)
    out = pd.DataFrame(rows)
    out.attrs["margin"] = margin
    return out


def _fresh(cfg: RunConfig, seed: int, games: int, prices: dict[str, int]) -> RunConfig:
    overrides = dict(cfg.overrides)
    overrides["task_points"] = dict(prices)
    g = games - games % cfg.players if cfg.seat_rotation else games
    return replace(cfg, seed=seed, games=max(g, cfg.players), overrides=overrides)


def fresh_table(groups: dict[int, list[Run]], prices: dict[str, int], seed: int, games: int,
                focus: Sequence[str], focus_games: int, margin: float, alpha: float,
                tasks: tuple[str, ...] | None = None, jobs: int = 1,
                quiet: bool = True,
                measure: str = DEFAULT_MEASURE) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The card table (and its forks) of fresh deals (``seed``) played at ``prices``:
    every task's forks on the first ``games`` games (the colour references), the
    ``focus`` cards' own forks on ``focus_games`` games (their intervals: a fork of a few
    cards costs a fraction of one of all 66, so the cards being re-priced get many
    more)."""
    parts = []
    for n, g in groups.items():
        cfg = _fresh(g[0].config, seed, max(games, focus_games), prices)
        kinds = task_kinds(measure)
        base = probe_values(cfg, ProbeSettings(games=games, kinds=kinds, tasks=tasks),
                            jobs=jobs, quiet=quiet)
        if focus:
            base = base[~base["item"].isin(focus)]
            extra = probe_values(cfg, ProbeSettings(games=focus_games, kinds=kinds,
                                                    tasks=tuple(focus)),
                                 jobs=jobs, quiet=quiet)
            base = pd.concat([base, extra], ignore_index=True)
        parts.append(base.assign(cluster=f"fresh{seed}|{n}|" + base["deal"].astype(str)))
    forks = pd.concat(parts, ignore_index=True)
    return card_table(forks, {n: prices for n in groups}, margin, alpha,
                      measure=measure), forks


def reprice(runs: RunLike | Sequence[RunLike], *, margin: float = FL.MARGIN,
            alpha: float = FL.ALPHA, probe_games: ProbeSettings | int | None = None,
            verify: bool = False, verify_games: int = VERIFY_GAMES,
            focus_games: int | None = None, max_games: int = SV.MAX_GAMES,
            top_ups: int = SV.ROUNDS, rounds: int = ROUNDS, seed: int | None = None,
            jobs: int = 1, quiet: bool = True,
            note: Callable[[str], None] | None = None,
            measure: str = DEFAULT_MEASURE) -> Reprice:
    """Propose whole printed task values from ``runs`` and, with ``verify``, iterate them
    on fresh deals and check the result on deals no proposal was estimated from.

    Round 0 is the runs' own estimate topped up as ``bonfire-sim values`` surveys the
    table (``survey.top_up_runs``): up to ``top_ups`` rounds on fresh deals (seeds
    ``seed`` .. ``seed + top_ups - 1``; 0 = none), every task row wider than
    ``survey.TARGET_SHARE`` x margin forked alone on the games it needs, at most
    ``max_games`` four-player games per card (``survey.games_cap`` at the others), so
    that a 2-point change at one count is flagged (``detect``: each row's detection
    floor).  Every card flagged at some count, or across counts, whose fair printed
    window excludes its print is re-priced to the window's nearest whole value
    (``combine``).  Each of up to ``rounds`` iteration rounds plays
    fresh deals (seed ``seed + top_ups + i``) at the current
    prices (``fresh_table``: all tasks on ``verify_games`` games, the re-priced cards on
    ``focus_games``, default 4x) and moves every re-priced card by a secant step
    (``secant_step``: the surplus is not exactly linear in the printed value, because
    the players take and light a card differently when it prints more) to the whole
    value closest to a zero pooled surplus -- or, where it beats that by
    ``steps.GAIN``, to the nearby whole value whose worst count is nearest zero
    (``steps.minimax_print``: one print fair at every count; ``Round.minimax``) --
    never below ``MIN_PRICE``, and re-prices any card newly flagged there.  The
    iteration stops at a fixed point (no card moves).  Then one more round on new deals
    (the **check**), whose figures move nothing, gives ``verified``: per card the loop
    steered (re-priced, or moved and back at its print: ``back``) and count, its surplus
    there and whether it lies within ± margin, and the same in printed points
    (``price_window``, at the surplus per printed point the loop's own prices showed:
    ``responses``).  Seeds of the estimating runs are refused.  ``measure``: a task's
    value (``table.MEASURES``: the receipt value by default, or the lit value)."""
    check_measure(measure)
    rs = as_runs(runs)
    if not rs:
        raise DataError("no runs to re-price")
    groups = group_runs(rs)
    used = {r.config.seed for r in rs}
    base = (max(used) + 1) if seed is None else int(seed)
    if not isinstance(top_ups, int) or top_ups < 0:
        raise ConfigError(f"top_ups must be an integer >= 0, got {top_ups!r}")
    last = base + top_ups + rounds + CHECK_SEEDS
    if any(s in used for s in range(base, last + 1)):
        raise DataError(f"the fresh seeds {base}..{last} (top-ups, rounds, check) include a "
                        f"seed of the estimating runs ({sorted(used)}): pick a disjoint --seed")
    focus_games = 4 * verify_games if focus_games is None else int(focus_games)
    printed = printed_points(rs[0].config)
    settings = task_settings(probe_games, measure)
    forks = _forks([(r.label, r.config, r.path) for r in rs], settings, jobs, quiet)
    # The estimate is the survey ``values`` makes of these runs: rows wider than 0.6 x
    # the margin get fresh deals of their own game until their detection floor lets a
    # 2-point change at one count be flagged (or the cap is reached).
    forked = SV.forked_games(groups, settings.games)
    batches: list[SV.Batch] = []
    extra, played = SV.top_up_runs(
        forks, groups, forked, cards=settings.tasks or TASK_IDS,
        target=SV.TARGET_SHARE * margin, alpha=alpha, max_games=max_games, rounds=top_ups,
        seed=base, jobs=jobs, quiet=quiet, note=note, measure=measure, batches=batches)
    forks = pd.concat([forks, extra], ignore_index=True)
    table = card_table(forks, {n: printed for n in groups}, margin, alpha, measure=measure)
    table["games"] = [played[int(n)].get(str(c), forked[int(n)])
                      for n, c in zip(table["players"], table["card"], strict=True)]
    base += top_ups  # the verification rounds and the check play the seeds after them
    est = combine(table, printed, margin, measure)
    proposal = {str(r["card"]): int(r["proposed"]) for _, r in est.iterrows()
                if r["flagged"] and not r["no_price"] and math.isfinite(r["proposed"])
                and r["proposed"] != r["printed"]}
    result = Reprice(printed=printed, proposal=proposal, estimate=est, table=table,
                     verify=verify, batches=batches)
    if not verify or not proposal:
        result.fixed_point = not proposal
        return result
    # Each card's (printed, surplus) history, one pooled surplus per round (the
    # inverse-variance mean over the counts, as the one printed value serves them all),
    # and its first response: the measured surplus per printed point at fixed play times
    # the measure's RESPONSE_RATIO (the first secant step's slope).  The history starts
    # on the loop's own deals, without the estimate's pair: the estimate measured each
    # card against its tier at the runs' prices, before the proposal re-priced the tier
    # (Y13 on the planted loop, seeds 99x0: -0.8 at 4 in the estimate, +1.5 at 4 on
    # round 2's deals, after six other yellow cards went from 6-7 to 1), so a line
    # through it reads the tier's move as the card's own response (round 2: 1.8 a point,
    # where the rounds' own two prices said 0.7 and fresh deals at 1-3 0.3-0.7 per count)
    # and the first step and every minimax prediction after it rest on that
    # (docs/findings/2026-11-29-plants-one-loop.md).
    history: dict[str, list[tuple[float, float]]] = {c: [] for c in proposal}
    slopes = {c: RESPONSE_RATIO[measure] * pooled(table, c, "slope") for c in proposal}
    # ... and each count's own (printed, surplus, half) pairs, from the same rounds: the
    # minimax print's per-count responses where they are pinned down
    counts: dict[str, list[Any]] = {c: [] for c in proposal}
    current = dict(printed) | proposal
    tasks = settings.tasks
    for i in range(rounds):
        # every steered card keeps its focus forks, also one stepped back to its print
        moved = sorted(c for c in current if current[c] != printed[c] or c in history)
        if note:
            note(f"round {i + 1}: {len(moved)} re-priced card(s) on fresh deals (seed "
                 f"{base + i}, {verify_games} games per player count, {focus_games} for "
                 f"the re-priced cards)")
        tab, _ = fresh_table(groups, current, base + i, verify_games, moved, focus_games,
                             margin, alpha, tasks, jobs, quiet, measure)
        chosen: dict[str, tuple[int, int]] = {}
        step, unsteered = next_prices(tab, current, history, slopes, margin, measure,
                                      counts, chosen)
        result.rounds.append(Round(base + i, dict(current), tab, sorted(step), chosen))
        if not step and not unsteered:
            result.fixed_point = True  # every re-priced card measured, none moved
            break
        current |= step
    # the check plays no print that no round played while a played one is not shown off
    for c in history:
        to = check_print(counts.get(c, []), current[c],
                         [(r.prices[c], r.table) for r in result.rounds], c, margin)
        if note and to != current[c]:
            note(f"{c}: {current[c]} (not played) -> {to}, the played print fair at every count")
        current[c] = to
    result.proposal = {c: v for c, v in current.items() if v != printed[c]}
    result.check, result.verified = _check(groups, current, printed, base + rounds,
                                           verify_games, focus_games, margin, alpha, tasks,
                                           jobs, quiet, note, measure, sorted(history))
    # the check's own (printed, surplus) pair joins each card's line: a card first moved
    # in the last round has no other measured price (B6, 2 -> 8 at 3 players, read 0.57 a
    # point from its fixed-play slope where its two prices say 1.5)
    seen = {c: [*h, (float(current[c]), pooled(result.check.table, c))]
            for c, h in history.items()}
    result.verified = price_window(result.verified, responses(seen, slopes, measure), margin)
    return result


def _check(groups: dict[int, list[Run]], prices: dict[str, int], printed: dict[str, int],
           seed: int, games: int, focus_games: int, margin: float, alpha: float,
           tasks: tuple[str, ...] | None, jobs: int, quiet: bool,
           note: Callable[[str], None] | None,
           measure: str = DEFAULT_MEASURE,
           steered: Sequence[str] = ()) -> tuple[Round, pd.DataFrame]:
    """The check: new deals (``seed``) at the final prices, moving nothing, of every card
    re-priced or ``steered`` (moved or flagged in some round, ``back`` where it ended on
    its start value); rows the check cannot resolve get more forks before the verdict
    (``check_topup.top_up_check``: that card at that count, on the games its gap to the
    margin asks, on the seeds after it, at most ``CHECK_TOP_UPS`` looks and a last one for
    rows the reference moved, and its tier's other cards there on the
    games its reference term is worth), which rests on all of them."""
    moved = sorted({c for c in prices if prices[c] != printed[c]} | set(steered))
    if note:
        back = sum(prices[c] == printed[c] for c in moved)
        note(f"check: {len(moved)} card(s) the loop steered ({back} back at their start "
             f"value) on new deals (seed {seed}), figures that move nothing")
    _, forks = fresh_table(groups, prices, seed, games, moved, focus_games, margin,
                           alpha, tasks, jobs, quiet, measure)

    def more(todo: Mapping[int, Sequence[str]], s: int, size: int) -> pd.DataFrame:
        # only the open cards (or their tiers' reference), only at the counts where
        # they are open
        return pd.concat([fresh_table({n: groups[n]}, prices, s, size, (), 0, margin, alpha,
                                      tuple(cs), jobs, quiet, measure)[1]
                          for n, cs in todo.items()], ignore_index=True)

    check, forks, _ = top_up_check(
        forks, lambda f: card_table(f, {n: prices for n in groups}, margin, alpha,
                                    measure=measure),
        more, moved, margin, seed, focus_games, base_games=games, note=note)
    t = check[check["card"].isin(moved) & (check["kind"] == "task")]
    v = t[["card", "players", "printed", "surplus", "s_lo", "s_hi", "n", "status",
           "flag", "slope", "lit_share"]].copy()
    v["original"] = v["card"].map(printed)
    v["back"] = v["printed"] == v["original"]
    v["verdict"] = verdict(v, margin)
    v["within"] = v["verdict"] == "within"
    return Round(seed, dict(prices), check, []), v.reset_index(drop=True)


def pooled(table: pd.DataFrame, card: str, column: str = "surplus") -> float:
    """Inverse-variance mean over the counts of one card's ``column`` (NaN if none)."""
    t = table[(table["card"] == card) & (table["kind"] == "task")]
    t = t[t["surplus"].notna() & (t["half"] > 0)]
    if t.empty:
        return math.nan
    w = 1.0 / t["half"] ** 2
    return float((t[column] * w).sum() / w.sum())


def pooled_half(table: pd.DataFrame, card: str) -> float:
    """The 95% half-width of ``pooled``'s surplus (inverse-variance; NaN if none)."""
    t = table[(table["card"] == card) & (table["kind"] == "task")]
    t = t[t["surplus"].notna() & (t["half"] > 0)]
    return float(np.sqrt(1.0 / (1.0 / t["half"] ** 2).sum())) if len(t) else math.nan


def next_prices(tab: pd.DataFrame, current: dict[str, int],
                history: dict[str, list[tuple[float, float]]],
                slopes: dict[str, float], margin: float = FL.MARGIN,
                measure: str = DEFAULT_MEASURE, counts: dict[str, list[Any]] | None = None,
                chosen: dict[str, tuple[int, int]] | None = None,
                ) -> tuple[dict[str, int], list[str]]:
    """The cards to move after one fresh round: each re-priced card whose surplus pooled
    over the counts is known to the margin's precision by a secant step to a whole value
    (``secant_step``), and every untouched card flagged there (at a count or across
    counts) as the estimate moves one (``combine``): only when its fair printed window
    (the pooled surplus interval over its first response, ``RESPONSE_RATIO`` x its
    fixed-play slope) excludes its price, and only to the window's whole value nearest
    the price (``window.into_window``), so that one round's deals do not throw a card
    near the detection floor several points (B18 at 2 players went 2 -> 9 on a round's
    flag and was checked +4.5 off); a card whose slope says no price fixes it is left
    alone.  The secant steps then find the zero.  Returns the moves and the re-priced
    cards too wide to steer by (a round that leaves some is no fixed point: the next
    round has more forks).

    The pooled surplus, not every count's own row, steers: the card gets ONE printed
    value for all counts, so the line to zero is the pooled one (a rarely lit card at 2
    players kept R3 at an overshot price for a whole loop while its pooled figure,
    -1.6 (-2.0 to -1.1), said which way to go).  The secant's target is then rounded
    to the whole print fair at every count where one beats the rounding
    (``minimax.minimax_print``: each count's surplus moved by its response, per count
    from ``counts``, each card's per-count rows round by round, where they pin it down,
    else the pooled ``response``); ``chosen`` hears (the secant's print, the one played)
    where they differ.  Never below ``MIN_PRICE``."""
    t = tab[tab["kind"] == "task"]
    step: dict[str, int] = {}
    unsteered: list[str] = []
    for card, g in t.groupby("card"):
        card = str(card)
        s, half = pooled(tab, card), pooled_half(tab, card)
        if not math.isfinite(s):
            continue
        if card in history:
            if not half <= margin:
                unsteered.append(card)  # too wide to steer by: keep the price for now
                continue
            history[card].append((float(current[card]), s))
            target, _slope = secant_step(history[card], first=slopes.get(card, 1.0))
            # the whole print: the secant's rounding, or the one fair at every count
            rows = count_rows(g)
            mine = (counts if counts is not None else {}).setdefault(card, [])
            mine.append((float(current[card]), rows))
            pooled_r = responses({card: history[card]}, slopes, measure)[card]
            secant, new_ = minimax_print(target, current[card],
                                         {n: v[0] for n, v in rows.items()},
                                         count_responses(mine, pooled_r),
                                         noise=max((v[1] for v in rows.values()), default=0))
            new: int | None = new_
            if chosen is not None and new_ != secant:
                chosen[card] = (secant, new_)
        elif (g["flag"] != "").any() or (g["flag_counts"] != "").any():
            first = RESPONSE_RATIO[measure] * pooled(tab, card, "slope")
            if not first >= RESPONSE_RATIO[measure] * MIN_SLOPE:
                continue
            slope = float(np.clip(first, SLOPE_LO, SLOPE_HI))
            new = into_window(current[card], current[card] - (s + half) / slope,
                              current[card] - (s - half) / slope)
            if new is None:
                continue  # flagged at a count, but its pooled window holds the price
            history[card] = [(float(current[card]), s)]
            slopes[card] = first
            if counts is not None:
                counts[card] = [(float(current[card]), count_rows(g))]
        else:
            continue
        if new is not None and new != current[card]:
            step[card] = new
    return step, unsteered


def count_rows(g: pd.DataFrame) -> dict[int, tuple[float, float]]:
    """One card's rows of a table: players -> (surplus, 95% half-width), measured ones."""
    if "players" not in g:
        return {}
    return {int(r.players): (float(r.surplus), float(r.half)) for r in g.itertuples()
            if math.isfinite(float(r.surplus)) and float(r.half) > 0}


def verification_line(result: Reprice) -> str:
    """The proposal file's comment on verification: verified, nothing to verify (--verify
    found no card to re-price), or not asked for."""
    if result.rounds:
        return "# verified on fresh deals"
    if result.verify:
        return "# --verify: no card to re-price, so nothing was played to verify"
    return "# not verified (no --verify)"


def overrides_toml(result: Reprice, runs: Sequence[Run], margin: float) -> str:
    """An experiment file that plays the proposal on fresh deals: ``[run]`` like the
    estimating runs (the largest player count; the others as a ``players`` sweep when they
    use the default seat mix) and ``[overrides] task_points``."""
    from bonfire_sim.sim.runconfig import default_mix

    groups = group_runs(list(runs))
    cfg = groups[max(groups)][0].config
    counts = list(groups)
    default = all(g[0].config.strategies == default_mix(n) for n, g in groups.items())
    games = max(g[0].config.games for g in groups.values())
    if cfg.seat_rotation:  # every count's seat rotations must divide the games
        step = math.lcm(*counts) if len(counts) > 1 and default else cfg.players
        games = -(-games // step) * step
    lines = ["# bonfire-sim reprice: proposed printed task points "
             f"(margin {margin:g} point(s)), from {', '.join(r.label for r in runs)}",
             verification_line(result),
             "[run]",
             f"games = {games}"]
    if len(counts) > 1 and default:
        lines.append(f"players = [{', '.join(str(n) for n in counts)}]")
    else:
        lines.append(f"players = {cfg.players}")
        strategies = ", ".join(f'"{s}"' for s in cfg.strategies)
        lines.append(f"strategies = [{strategies}]")
    seeds = [r.seed for r in result.rounds] + ([result.check.seed + CHECK_SEEDS]
                                                if result.check else [])
    lines += [f"seat_rotation = {'true' if cfg.seat_rotation else 'false'}",
              f"seed = {max([r.config.seed for r in runs] + seeds) + 1}", "",
              "[overrides]"]
    prices = dict(cfg.overrides.get("task_points", {})) | result.proposal
    if prices:
        body = ", ".join(f"{k} = {int(v)}" for k, v in sorted(prices.items()))
        lines.append(f"task_points = {{ {body} }}")
    for key, value in sorted(cfg.overrides.items()):
        if key != "task_points":
            lines.append(f"{key} = {toml_value(value)}")
    if cfg.variants:
        lines += ["", "[variants]"] + [f'{k} = "{v}"' for k, v in sorted(cfg.variants.items())]
    return "\n".join(lines) + "\n"


def toml_value(v: Any) -> str:
    """A value written as TOML (the proposal file's overrides)."""
    if isinstance(v, dict):
        return "{ " + ", ".join(f'"{k}" = {toml_value(x)}' for k, x in v.items()) + " }"
    if isinstance(v, list | tuple):
        return "[" + ", ".join(toml_value(x) for x in v) + "]"
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, str):
        return f'"{v}"'
    return repr(v)
