"""Card values a designer can print: per card and player count, what the card is worth
against the typical card of its tier, clustered by deal, measured or marked.

Two measures of a task (``MEASURES``; ``DEFAULT_MEASURE`` is the receipt value: it holds
the difficulty of meeting the condition, which the lit value cannot see, and its closed
loop brought held-out plants B20 +3, R6 -2, Y13 +4 back exactly at 2-4 players:
docs/findings/2026-11-29-plants-one-loop.md; docs/explanation/values.md):

**Tasks: the lit value** (``measure="lit"``).  The mean difference of the task's light
forks: the mover's final score when it ignites the task at a decision where it could,
minus the same game with the task dead from that decision on (``light`` forks from the
players' own decisions, ``forced`` ones after a forced take, so rarely taken tasks are
measured too).  Both branches play independently of the printed points, so a re-print by
k moves it by exactly k: ``slope`` is 1 and ``fair`` = printed - surplus.  The effort of
meeting the condition is in neither branch: the tier prices it.

**Tasks: the receipt value** (``measure="receipt"``).  The mean difference of the
task's *take* forks (``kernel``): at a decision drawn uniformly from those where the
mover could receive the task, the mover's final score when it receives it (the strategy's best
such move) minus the same game after the best other move.  It holds everything the
designer asks about: the task's points *times the chance they are ever scored*, the
moves spent meeting its condition and what they could have done instead.  ``win`` is
the same difference in win share, and ``win_points`` converts it to points with the
count's exchange rate (``win_rate``: win share per point over all take forks of that
count), so both currencies are on one scale.

The **surplus** is the value minus the mean value of the other tasks of its colour at
that count (the leave-one-out mean; the colours are the game's tiers: blue 2-3, red 4-5,
yellow 6-8 points): what receiving this card gives beyond receiving a typical card of its
tier at the same kind of moment.  Beside it: ``lit_share`` (share of receipts lit by the
end), ``rounds_to_light`` (rounds from receipt to ignition, where lit), ``lit_value``
(igniting it against never, from ``light``/``forced`` forks: why a card is worth what it
is) and ``slope``, the surplus per printed point at fixed play (``has_a - has_b``: a
printed point is scored only where the task is lit).

**The price.**  Re-printing the task by k moves its surplus by about ``slope`` * k, so the
printed value at which the surplus is zero is ``fair`` = printed - surplus / slope and
``proposed`` its whole number.  Where ``slope`` < ``MIN_SLOPE`` (almost nobody who
receives it lights it) no printed value can fix it: ``price_note`` says "no price fixes
this card: change its condition" with the evidence.  ``reprice`` then checks the price
in a closed loop on fresh deals, since the players re-optimise around a new price.

**Gnomes.**  The recruit value (gnome forks: recruit it against the best other move)
minus the mean of all other gnomes at that count; nothing printed to propose.

**Measured or marked, flagged.**  Intervals are clustered by deal.  A row is
``measured`` when its 95% half-width is at most the margin (and it rests on at least
``MIN_DEALS`` deals): precise enough for a "within the margin" verdict.  Every row on
at least ``MIN_DEALS`` deals is tested against the margin, so a row whose interval lies
wholly beyond it is flagged even before it is that precise: per count (``flag``:
Benjamini-Hochberg within a count and kind, t on the deals) and across counts
(``flag_counts``: where the counts agree, the inverse-variance pooled surplus tested
against the margin, BH over the cards of a kind;
``flags.consistent_flags``).  ``detect`` is the row's detection floor: the smallest
|surplus| a lone deviation needs to be flagged at this precision.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

import numpy as np
import pandas as pd

from bonfire_sim.analysis import flags as FL
from bonfire_sim.analysis.cards.probes import GNOME_IDS, TASK_IDS, ProbeSettings
from bonfire_sim.analysis.cards.window import MIN_PRICE, floor_note
from bonfire_sim.analysis.intervals import clustered_mean, games_needed, t95
from bonfire_sim.analysis.runs import Run, printed_points_under
from bonfire_sim.errors import ConfigError, DataError
from bonfire_sim.rules import components as C
from bonfire_sim.sim.runconfig import RunConfig

MEASURES = ("receipt", "lit")  # what a task's value is (module docstring), default first
DEFAULT_MEASURE = "receipt"
_TASK_KINDS = {"lit": ("light", "forced"), "receipt": ("take",)}
DETAIL_KINDS = ("light", "forced")  # the lit value shown beside it
CARD_KINDS = ("take", "light", "gnome", "forced")  # every fork a card table can use
MIN_DEALS = 10  # fewer deals than this: the clustered interval is not trusted
MIN_SLOPE = 0.1  # surplus per printed point below which no printed value fixes a card
# The slope a proposal divides by is held in [PRICE_SLOPE_LO, 2]: the slope at fixed play
# understates the response, because the players take a card printed higher more often
# (at 3 players R9 answered 4 -> 24 printed points with +16.7 of surplus, 0.84 a point,
# where its fixed-play slope said 0.14), so a smaller divisor would throw cards far.
PRICE_SLOPE_LO, PRICE_SLOPE_HI = 0.5, 2.0
# A first price step divides by RESPONSE_RATIO x the fixed-play slope (then held in
# [PRICE_SLOPE_LO, 2]): under the receipt value a printed point moves the surplus more
# once the players re-optimise.  21 price curves (docs/findings/2026-11-29-receipt-price.md:
# B20, R15, Y20, R20, R4, Y10, Y13, Y18 at 2-4 players, three prints each, seed 9700):
# re-optimised response / fixed-play slope median 2.24, quartiles 1.80-2.68, range
# 0.84-3.22.  2, under the median, steps most cards a little short rather than past: at
# x1 R20 (4 players, fixed 0.59, response 1.22, fair 3.7) went 2 -> 7 and B6 2 -> 8.
# The lit value's slope is exactly 1 (both branches ignore the print): no ratio.
RESPONSE_RATIO = {"lit": 1.0, "receipt": 2.0}
TIER_FLOOR = {"blue": 2, "red": 4, "yellow": 6}  # the lowest printing of each colour
COLUMNS = ("card", "kind", "group", "players", "printed", "value", "lo", "hi", "n",
           "deals", "win", "win_lo", "win_hi", "win_points", "win_rate", "lit_share",
           "rounds_to_light", "slope", "lit_value", "lit_lo", "lit_hi", "lit_n", "n_forced",
           "reference", "surplus", "s_lo", "s_hi", "half", "win_surplus", "w_lo", "w_hi",
           "forks_needed", "status", "q_value", "flag", "detect", "pooled", "pooled_half",
           "flag_counts", "fair", "proposed", "price_note")
_COLOUR = {t.id: t.colour for t in C.TASKS}
GNOME_GROUP = {g: "gnome" for g in GNOME_IDS}  # every gnome against all the others
TOP_UP_RUN = "top-up"  # the ``run`` of forks played on fresh deals (``survey``)


def printed_points(config: RunConfig) -> dict[str, int]:
    """The task points a configuration prints (its ``task_points`` overrides applied)."""
    return printed_points_under(config.overrides)


def check_measure(measure: str) -> str:
    """``measure`` if it is one of ``MEASURES``; a ``ConfigError`` saying the choices if not."""
    if measure not in MEASURES:
        raise ConfigError(f"unknown card measure {measure!r}; expected one of "
                          f"{', '.join(MEASURES)}")
    return measure


def task_kinds(measure: str = DEFAULT_MEASURE) -> tuple[str, ...]:
    """The forks a task's value (and price) rests on under ``measure``."""
    return _TASK_KINDS[check_measure(measure)]


def card_kinds(measure: str = DEFAULT_MEASURE) -> tuple[str, ...]:
    """Every fork kind the card table of ``measure`` reads: the tasks' value forks, the
    lit value's (``DETAIL_KINDS``) and the gnomes'."""
    kinds = set(task_kinds(measure)) | set(DETAIL_KINDS) | {"gnome"}
    return tuple(k for k in CARD_KINDS if k in kinds)


def card_settings(probes: ProbeSettings | int | None = None,
                  measure: str = DEFAULT_MEASURE) -> ProbeSettings:
    """Probe settings for the card values: a number of games (None = all) probes every
    kind of ``card_kinds(measure)``; given settings keep their kinds (``light`` and
    ``forced`` always together, so every task's lit value has the same design; ``take``
    only under the receipt measure)."""
    if isinstance(probes, ProbeSettings):
        kinds = set(probes.kinds) & set(card_kinds(measure))
        if kinds & {"light", "forced"}:
            kinds |= {"light", "forced"}
        return replace(probes, kinds=tuple(sorted(kinds or card_kinds(measure))))
    return ProbeSettings(games=probes, kinds=card_kinds(measure))


def _clustered(g: pd.DataFrame, column: pd.Series, key: str) -> tuple[float, float, int, int]:
    return clustered_mean(column.to_numpy(float), g[key].astype(str).to_numpy())


def _estimates(forks: pd.DataFrame, kinds: Sequence[str], key: str) -> pd.DataFrame:
    """Per (players, item): clustered means over forks of ``kinds`` of the score and win
    differences A - B, the lit share and slope, and the rounds from receipt to ignition."""
    cols = ["players", "card", "value", "se", "n", "deals", "win", "win_se", "lit_share",
            "slope", "rounds_to_light", "n_forced", "_cov", "_var"]
    t = forks[forks["kind"].isin(kinds)] if len(forks) else forks
    rows = []
    for (players, item), g in (t.groupby(["players", "item"], sort=True) if len(t) else ()):
        d = g["score_a"] - g["score_b"]
        w = g["win_a"] - g["win_b"]
        m, se, n, k = _clustered(g, d, key)
        wm, wse, _, _ = _clustered(g, w, key)
        turns = g["lit_turns_a"] if "lit_turns_a" in g else pd.Series(dtype=float)
        rows.append({"players": int(players), "card": item, "value": m, "se": se, "n": n,
                     "deals": k, "win": wm, "win_se": wse,
                     "lit_share": float(g["has_a"].mean()),
                     "slope": float((g["has_a"] - g["has_b"]).mean()),
                     "rounds_to_light": float(turns.mean()) / int(players)
                     if turns.notna().any() else np.nan,
                     "n_forced": int((g["kind"] == "forced").sum()),
                     "_cov": float((d * w).sum()), "_var": float((d * d).sum())})
    return pd.DataFrame(rows, columns=cols)


def _relative(frame: pd.DataFrame, group: str, value: str = "value", se: str = "se",
              out: str = "surplus", out_se: str = "s_se") -> pd.DataFrame:
    """``out`` = ``value`` - mean of the other rows of its group (per player count; the
    leave-one-out mean, so a card's own re-price moves only its own term), with the
    standard error of that difference: var_i + sum_{j != i} var_j / (m-1)^2."""
    frame = frame.copy()
    ref = "reference" if out == "surplus" else f"{out}_ref"
    frame[ref] = np.nan
    frame[out_se] = np.nan
    for _key, idx in frame.groupby(["players", group]).groups.items():
        g = frame.loc[idx]
        # The reference: rows resting on enough deals (a card with two forks would move
        # every other card's reference by its noise).
        ok = g[value].notna() & g[se].notna() & (g["deals"] >= MIN_DEALS)
        m = int(ok.sum())
        if m < 2:
            continue
        total = float(g.loc[ok, value].sum())
        var = g[se] ** 2
        sum_var = float(var[ok].sum())
        own = ok.astype(float)  # a row outside the reference is compared with all m rows
        frame.loc[idx, ref] = (total - g[value].where(ok, 0.0)) / (m - own)
        frame.loc[idx, out_se] = np.sqrt(var + (sum_var - var.where(ok, 0.0)) / (m - own) ** 2)
    frame[out] = frame[value] - frame[ref]
    return frame


def _win_rate(est: pd.DataFrame) -> pd.Series:
    """Win share per point per count: the slope through the origin of the win difference
    on the score difference over every fork of the count (all cards of the kind)."""
    g = est.groupby("players")[["_cov", "_var"]].sum()
    return (g["_cov"] / g["_var"].where(g["_var"] > 0)).rename("win_rate")


def _lit_values(forks: pd.DataFrame, key: str) -> pd.DataFrame:
    """Per (players, card): the lit value (light and forced forks) with its interval."""
    e = _estimates(forks, DETAIL_KINDS, key)
    q = t95(np.maximum(e["deals"] - 1, 1))
    return pd.DataFrame({"players": e["players"], "card": e["card"], "lit_value": e["value"],
                         "lit_lo": e["value"] - q * e["se"], "lit_hi": e["value"] + q * e["se"],
                         "lit_n": e["n"], "n_forced": e["n_forced"]})


def _kind_frame(forks: pd.DataFrame, printed: Mapping[int, Mapping[str, int]], kind: str,
                cluster: str, measure: str) -> pd.DataFrame:
    """The rows of one kind (task / gnome) before flags: estimates on the grid of cards
    the rules deal at each count, relative to the group, in both currencies."""
    kinds, ids, group = ((task_kinds(measure), TASK_IDS, _COLOUR) if kind == "task"
                         else (("gnome",), GNOME_IDS, GNOME_GROUP))
    est = _estimates(forks, kinds, cluster).drop(columns="n_forced")
    if kind == "task" and measure == "lit":
        # A printed point moves the lit value by exactly one (both branches play
        # independently of it); the receipt figures beside it come from take forks,
        # where the table has them.
        est["slope"] = 1.0
        take = _estimates(forks, ("take",), cluster)
        est = est.drop(columns=["lit_share", "rounds_to_light"]).merge(
            take[["players", "card", "lit_share", "rounds_to_light"]],
            on=["players", "card"], how="left")
    grid = pd.DataFrame([(n, c) for n in sorted(printed)
                         for c in (ids if kind == "gnome" else C.tasks_dealt(n))],
                        columns=["players", "card"])
    f = grid.merge(est, on=["players", "card"], how="left")
    f = f.merge(_win_rate(est), left_on="players", right_index=True, how="left")
    if kind == "task":
        f = f.merge(_lit_values(forks, cluster), on=["players", "card"], how="left")
    f["kind"] = kind
    f["group"] = f["card"].map(group)
    f["printed"] = ([printed[n][c] for n, c in zip(f["players"], f["card"], strict=True)]
                    if kind == "task" else np.nan)
    f["win_points"] = f["win"] / f["win_rate"]
    f["win_pse"] = f["win_se"] / f["win_rate"]
    f = _relative(f, "group")
    return _relative(f, "group", "win_points", "win_pse", "win_surplus", "w_se")


def card_table(forks: pd.DataFrame, printed: Mapping[int, Mapping[str, int]],
               margin: float = FL.MARGIN, alpha: float = FL.ALPHA,
               cluster: str = "cluster", measure: str = DEFAULT_MEASURE) -> pd.DataFrame:
    """Card values from a fork table (``probe_values`` rows, a ``cluster`` column naming the
    deal of each fork) and the printed task points per player count; a task's value is
    the ``measure`` (``lit`` or ``receipt``, see the module docstring).

    One row per card (66 tasks, 33 gnomes) and player count, less the tasks the rules
    leave out at that count (``components.tasks_dealt``: Y2 at 2 players); columns
    ``COLUMNS`` (see the module docstring and ``cards.measure``).
    """
    check_measure(measure)
    parts = [_kind_frame(forks, printed, kind, cluster, measure) for kind in ("task", "gnome")]
    out = pd.concat(parts, ignore_index=True)
    for col in ("printed", "value", "se", "reference", "s_se", "surplus", "win", "win_se",
                "win_points", "win_surplus", "w_se", "lit_value", "lit_lo", "lit_hi",
                "slope", "lit_share", "rounds_to_light", "win_rate"):
        out[col] = pd.to_numeric(out[col], errors="coerce").astype(float)
    for col in ("n", "deals", "n_forced", "lit_n"):
        out[col] = out[col].fillna(0).astype(int)
    q = t95(np.maximum(out["deals"] - 1, 1))
    out["lo"], out["hi"] = out["value"] - q * out["se"], out["value"] + q * out["se"]
    out["win_lo"], out["win_hi"] = out["win"] - q * out["win_se"], out["win"] + q * out["win_se"]
    out["half"] = q * out["s_se"]
    out["s_lo"], out["s_hi"] = out["surplus"] - out["half"], out["surplus"] + out["half"]
    out["w_lo"], out["w_hi"] = (out["win_surplus"] - q * out["w_se"],
                                out["win_surplus"] + q * out["w_se"])
    need = pd.Series(games_needed(out["n"], out["half"], margin), index=out.index)
    # Too few deals for the clustered interval: at least the forks that reach MIN_DEALS.
    few = np.ceil(out["n"] * MIN_DEALS / out["deals"].clip(lower=1))
    need = need.where(out["deals"] >= MIN_DEALS, np.fmax(need, few))
    out["forks_needed"] = need.where(np.isfinite(need) & (out["n"] > 0))
    measured = (out["half"] <= margin) & (out["deals"] >= MIN_DEALS)
    out["status"] = np.where(measured, "measured", "not measured")
    # flagged: a row on enough deals whose interval lies beyond the margin (flags.flag_table)
    testable = (out["deals"] >= MIN_DEALS) & out["s_se"].gt(0)
    out = FL.flag_table(out, testable, margin, alpha)
    out["pooled"] = out["pooled"].astype(float)
    out["pooled_half"] = out["pooled_half"].astype(float)
    return _prices(out, measure).loc[:, list(COLUMNS)]


def flags_across_counts(table: pd.DataFrame, margin: float = FL.MARGIN,
                        alpha: float = FL.ALPHA) -> pd.DataFrame:
    """The flags of a table put together from one ``card_table`` per player count: each
    count's own flags stay as they were (their family is the count's rows), and the test
    across counts (``pooled``, ``pooled_half``, ``flag_counts``), which a one-count table
    cannot run, is run over all of them.  Without it a card about 2.4 points off at every
    count on a hundred forks each (a planted -2) is flagged nowhere."""
    if table.empty:
        return table
    t = table.copy()
    t["s_se"] = t["half"] / t95(np.maximum(t["deals"] - 1, 1))
    testable = (t["deals"] >= MIN_DEALS) & t["s_se"].gt(0)
    t = FL.flag_table(t, testable, margin, alpha)
    return t.loc[:, [c for c in table.columns if c in t] +
                 [c for c in ("pooled", "pooled_half", "flag_counts") if c not in table]]


def _prices(out: pd.DataFrame, measure: str = DEFAULT_MEASURE) -> pd.DataFrame:
    """``fair`` = printed - surplus / (``RESPONSE_RATIO`` x slope, held in
    [``PRICE_SLOPE_LO``, ``PRICE_SLOPE_HI``]), ``proposed`` (its whole number, never
    below ``window.MIN_PRICE``) and ``price_note``: no printed value fixes a card whose
    slope is below ``MIN_SLOPE`` (almost nobody who receives it lights it); one whose fair
    value rounds below ``MIN_PRICE`` is proposed at it with the advice to change its
    condition and its surplus predicted there (``window.floor_note``); rows on fewer than
    ``MIN_DEALS`` deals get neither; a proposal below the colour's lowest printing says so
    with its evidence.  ``reprice --verify`` then checks the price on fresh deals."""
    # A price rests on forks from enough deals: a row below MIN_DEALS gets no price and
    # no note (two forks say nothing about a card's slope).
    task = (out["kind"] == "task") & (out["deals"] >= MIN_DEALS)
    flat = task & (out["slope"] < MIN_SLOPE)
    div = price_divisor(out["slope"], measure)
    fair = fair_print(out["printed"], out["surplus"], out["slope"], measure)
    out["fair"] = np.where(task & ~flat, fair, np.nan)
    whole = np.floor(out["fair"] + 0.5)
    out["proposed"] = np.where(np.isfinite(out["fair"]), np.maximum(whole, MIN_PRICE), np.nan)
    # the surplus the row predicts at the lowest print (the evidence of a floor note)
    at_floor = (div * (MIN_PRICE - out["printed"])).astype(float)
    notes = []
    for r, priced, low, d in zip(out.itertuples(), task, whole < MIN_PRICE, at_floor,
                                 strict=True):
        note = ""
        if not priced:
            pass
        elif r.slope < MIN_SLOPE:
            note = (f"no price fixes this card: change its condition ({_lit_in(r)}"
                    f"a printed point moves its value by {r.slope:.2f})")
        elif low:
            note = floor_note(r.surplus + d, r.s_lo + d, r.s_hi + d, r.fair)
        elif np.isfinite(r.proposed) and r.proposed < TIER_FLOOR.get(str(r.group), 0):
            note = (f"below its colour's lowest printing ({TIER_FLOOR[str(r.group)]}): "
                    f"surplus {r.surplus:+.1f} ({r.s_lo:+.1f} to {r.s_hi:+.1f})"
                    f"{_lit_in(r, lead=', ', tail='')}")
        notes.append(note)
    out["price_note"] = notes
    return out


def price_divisor(slope: Any, measure: str = DEFAULT_MEASURE) -> Any:
    """What a printed point is taken to move a task's surplus by when it is priced:
    ``RESPONSE_RATIO`` x the fixed-play ``slope``, held in [``PRICE_SLOPE_LO``,
    ``PRICE_SLOPE_HI``] (a number or a Series).  ``fair`` = printed - surplus / it, and
    the fair printed window is the surplus interval divided by it."""
    return np.clip(RESPONSE_RATIO[check_measure(measure)] * slope, PRICE_SLOPE_LO,
                   PRICE_SLOPE_HI)


def fair_print(printed: Any, surplus: Any, slope: Any, measure: str = DEFAULT_MEASURE) -> Any:
    """The printed value at which the surplus would be zero: printed - surplus /
    ``price_divisor(slope)`` (numbers or Series; the one formula of the card table's
    ``fair``, the sheet's proposals and the errata loop's first price)."""
    with np.errstate(invalid="ignore", divide="ignore"):
        return printed - surplus / price_divisor(slope, measure)


def tier_floor(card: str) -> int:
    """The lowest printing of the task's colour (``TIER_FLOOR``; 0 for a gnome)."""
    return TIER_FLOOR.get(_COLOUR.get(card, ""), 0)


def _lit_in(r: Any, lead: str = "", tail: str = "; ") -> str:
    """"lit in 41% of receipts" where the row has a lit share (the receipt value measures
    it; the lit value does not, and its rows read "lit in nan%" before this)."""
    share = float(r.lit_share)
    return f"{lead}lit in {share:.0%} of receipts{tail}" if np.isfinite(share) else ""


def population(strategies: Sequence[str]) -> str:
    """Who played, in words: ``tuned in every seat`` or the seats' players in order."""
    names = list(strategies)
    if names and len(set(names)) == 1:
        return f"{names[0]} in every seat"
    return ", ".join(names)


def populations(runs: Sequence[Run]) -> dict[int, str]:
    """Who played per player count; runs of one count that seat different players are
    refused (their card values describe different games and are never pooled)."""
    out: dict[int, tuple[str, ...]] = {}
    for run in runs:
        n, who = run.config.players, tuple(sorted(run.config.strategies))
        if out.setdefault(n, who) != who:
            raise DataError(f"runs with {n} players seat different players "
                            f"({', '.join(out[n])} against {', '.join(who)}); their card "
                            f"values are never pooled: analyse them separately")
    return {n: population(next(r.config.strategies for r in runs if r.config.players == n))
            for n in out}
