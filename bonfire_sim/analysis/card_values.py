"""Card values a designer can print: per card and player count, the points a card is worth
against the typical card of its kind, clustered by deal, measured or marked.

**Tasks.**  A task's *lit value* is the mean difference of its light forks (``forks``):
the mover's final score when it ignites the task at a decision where it could (and had
another main option), minus the same game with the task dead from that decision on.  The
forks come from the players' own decisions (``light``) and from decisions reached after a
forced take (``forced``), so tasks the players rarely take are measured too.  In both
branches the play is independent of the task's printed points, so re-pricing it by k moves
its lit value by k at every decision.

The **surplus** is the lit value minus the mean lit value of the other tasks of its colour
at that player count (the colours are the game's difficulty tiers: blue 2-3, red 4-5,
yellow 6-8 points): what lighting this card gives beyond the typical card of its tier.  A
re-price by k moves it by k (the card is not part of its own reference).  The **fair
printed value** is printed - surplus, and the proposal its nearest whole number.  So
a card is fairly priced when lighting it is worth what lighting the typical card of its
colour is worth; the effort of meeting a condition is priced by the tier, not by this
figure.

**Gnomes.**  The value of recruiting a gnome (gnome forks) minus the mean of all gnomes at
that player count: points relative to the average gnome.  Gnomes print no number that could
absorb the difference, so nothing is proposed for them.

**Measured or marked.**  Intervals are clustered by deal (the games of one deal under seat
rotation share its cards).  A row is ``measured`` when its 95% half-width is at most the
margin (and it has forks from at least ``MIN_DEALS`` deals); otherwise it is ``not
measured`` with the forks it has and ``forks_needed`` for the margin.  Only measured rows
are flagged: surplus beyond ± margin under Benjamini-Hochberg (``flags.flag``) within one
player count and kind.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace

import numpy as np
import pandas as pd

from bonfire_sim.analysis import flags as FL
from bonfire_sim.analysis.intervals import clustered_mean, t95
from bonfire_sim.analysis.probes import GNOME_IDS, TASK_IDS, ProbeSettings
from bonfire_sim.analysis.runs import Run
from bonfire_sim.errors import DataError
from bonfire_sim.rules import components as C
from bonfire_sim.sim.runconfig import RunConfig

CARD_KINDS = ("light", "gnome", "forced")  # the forks the card values use
MIN_DEALS = 10  # fewer deals than this: the clustered interval is not trusted
COLUMNS = ("card", "kind", "group", "players", "printed", "value", "lo", "hi", "n",
           "deals", "n_forced", "reference", "surplus", "s_lo", "s_hi", "half",
           "forks_needed", "status", "q_value", "flag", "fair", "proposed")
_COLOUR = {t.id: t.colour for t in C.TASKS}
GNOME_GROUP = {g: "gnome" for g in GNOME_IDS}  # every gnome against all the others


def printed_points(config: RunConfig) -> dict[str, int]:
    """The task points a configuration prints (its ``task_points`` overrides applied)."""
    pts = {t.id: int(t.points) for t in C.TASKS}
    pts.update({str(k): int(v) for k, v in
                dict(config.overrides.get("task_points", {})).items()})
    return pts


def card_settings(probes: ProbeSettings | int | None = None) -> ProbeSettings:
    """Probe settings for the card values: a number of games (None = all) probes every
    kind in ``CARD_KINDS``; given settings keep their kinds (tasks always get ``light``
    and ``forced`` forks together, so every task's value has the same design)."""
    if isinstance(probes, ProbeSettings):
        kinds = set(probes.kinds) - {"take"}
        if kinds & {"light", "forced"}:
            kinds |= {"light", "forced"}
        return replace(probes, kinds=tuple(sorted(kinds)))
    return ProbeSettings(games=probes, kinds=CARD_KINDS)


def _estimates(forks: pd.DataFrame, kinds: Sequence[str], key: str) -> pd.DataFrame:
    """Per (players, item): clustered mean of score_a - score_b over forks of ``kinds``."""
    t = forks[forks["kind"].isin(kinds)]
    rows = []
    for (players, item), g in t.groupby(["players", "item"], sort=True):
        d = (g["score_a"] - g["score_b"]).to_numpy(float)
        m, se, n, k = clustered_mean(d, g[key].astype(str).to_numpy())
        rows.append({"players": int(players), "card": item, "value": m, "se": se, "n": n,
                     "deals": k, "n_forced": int((g["kind"] == "forced").sum())})
    return pd.DataFrame(rows, columns=["players", "card", "value", "se", "n", "deals",
                                       "n_forced"])


def _relative(frame: pd.DataFrame, group: str) -> pd.DataFrame:
    """Surplus = value - mean value of the other rows of its group (per player count; the
    leave-one-out mean, so a card's own re-price moves its surplus by exactly the
    change), with the variance of that difference: var_i + sum_{j != i} var_j / (m-1)^2."""
    frame = frame.copy()
    frame["reference"] = np.nan
    frame["s_se"] = np.nan
    for _key, idx in frame.groupby(["players", group]).groups.items():
        g = frame.loc[idx]
        # The reference: rows resting on enough deals (a card with two forks would move
        # every other card's reference by its noise).
        ok = g["value"].notna() & g["se"].notna() & (g["deals"] >= MIN_DEALS)
        m = int(ok.sum())
        if m < 2:
            continue
        total = float(g.loc[ok, "value"].sum())
        var = g["se"] ** 2
        sum_var = float(var[ok].sum())
        # A row outside the reference (too few deals) is compared with all m rows.
        own = ok.astype(float)
        frame.loc[idx, "reference"] = (total - g["value"].where(ok, 0.0)) / (m - own)
        s_var = var + (sum_var - var.where(ok, 0.0)) / (m - own) ** 2
        frame.loc[idx, "s_se"] = np.sqrt(s_var)
    frame["surplus"] = frame["value"] - frame["reference"]
    return frame


def relative_values(forks: pd.DataFrame, kinds: Sequence[str], group: Mapping[str, str],
                    cluster: str = "cluster") -> pd.DataFrame:
    """Per (players, card) of the fork ``kinds``: ``value`` and ``surplus`` (against the
    other cards of its ``group``) with clustered 95% intervals (``lo``/``hi``,
    ``s_lo``/``s_hi``), ``n`` and ``deals``."""
    f = _estimates(forks, kinds, cluster)
    f["group"] = f["card"].map(group)
    f = _relative(f, "group")
    q = t95(np.maximum(f["deals"] - 1, 1))
    f["lo"], f["hi"] = f["value"] - q * f["se"], f["value"] + q * f["se"]
    f["s_lo"], f["s_hi"] = f["surplus"] - q * f["s_se"], f["surplus"] + q * f["s_se"]
    return f


def card_table(forks: pd.DataFrame, printed: Mapping[int, Mapping[str, int]],
               margin: float = FL.MARGIN, alpha: float = FL.ALPHA,
               cluster: str = "cluster") -> pd.DataFrame:
    """Card values from a fork table (``probe_values`` rows, a ``cluster`` column naming the
    deal of each fork) and the printed task points per player count.

    One row per card (66 tasks, 33 gnomes) and player count, less the tasks the rules
    leave out at that count (``components.tasks_dealt``: Y2 at 2 players); columns
    ``COLUMNS``:
    ``kind`` (task / gnome), ``group`` (colour / ``gnome``), ``value`` with its
    clustered 95% ``lo``/``hi``, ``n`` forks from ``deals`` deals (``n_forced`` after a
    forced take), ``reference`` (mean of the other cards of the group), ``surplus``
    (``s_lo``/``s_hi``),
    ``half`` (its half-width), ``forks_needed`` for a half-width of ``margin``,
    ``status`` (``measured`` / ``not measured``), ``q_value``/``flag`` (``strong`` /
    ``weak``, measured rows only), ``fair`` (printed - surplus) and ``proposed`` (its
    whole number, at least 0; tasks only).
    """
    parts = []
    for kind, kinds, ids, group in (("task", ("light", "forced"), TASK_IDS, _COLOUR),
                                    ("gnome", ("gnome",), GNOME_IDS, GNOME_GROUP)):
        est = _estimates(forks, kinds, cluster) if len(forks) else _estimates(
            pd.DataFrame(columns=["kind", "players", "item", "score_a", "score_b",
                                  cluster]), kinds, cluster)
        # a card the rules leave out at a count has no row there (Y2 at 2 players)
        grid = pd.DataFrame([(n, c) for n in sorted(printed)
                             for c in (ids if kind == "gnome" else C.tasks_dealt(n))],
                            columns=["players", "card"])
        f = grid.merge(est, on=["players", "card"], how="left")
        f["kind"] = kind
        f["group"] = f["card"].map(group)
        f["printed"] = ([printed[n][c] for n, c in zip(f["players"], f["card"], strict=True)]
                        if kind == "task" else np.nan)
        parts.append(_relative(f, "group"))
    out = pd.concat(parts, ignore_index=True)
    for col in ("printed", "value", "se", "reference", "s_se", "surplus"):
        out[col] = pd.to_numeric(out[col], errors="coerce").astype(float)
    out["n"] = out["n"].fillna(0).astype(int)
    out["deals"] = out["deals"].fillna(0).astype(int)
    out["n_forced"] = out["n_forced"].fillna(0).astype(int)
    q = t95(np.maximum(out["deals"] - 1, 1))
    out["lo"] = out["value"] - q * out["se"]
    out["hi"] = out["value"] + q * out["se"]
    out["half"] = q * out["s_se"]
    out["s_lo"] = out["surplus"] - out["half"]
    out["s_hi"] = out["surplus"] + out["half"]
    with np.errstate(invalid="ignore", divide="ignore"):
        need = np.ceil(out["n"] * (out["half"] / margin) ** 2)
    # Too few deals for the clustered interval: at least the forks that reach MIN_DEALS.
    few = np.ceil(out["n"] * MIN_DEALS / out["deals"].clip(lower=1))
    need = need.where(out["deals"] >= MIN_DEALS, np.fmax(need, few))
    out["forks_needed"] = need.where(np.isfinite(need) & (out["n"] > 0))
    measured = (out["half"] <= margin) & (out["deals"] >= MIN_DEALS)
    out["status"] = np.where(measured, "measured", "not measured")
    out["q_value"] = np.nan
    out["flag"] = ""
    for _key, idx in out[measured].groupby(["players", "kind"]).groups.items():
        g = out.loc[idx]
        qv, fl = FL.flag(g["surplus"], g["s_se"], 0.0, margin, alpha,
                         labels=("strong", "weak"))
        out.loc[idx, "q_value"] = qv
        out.loc[idx, "flag"] = fl
    task = out["kind"] == "task"
    out["fair"] = np.where(task, out["printed"] - out["surplus"], np.nan)
    out["proposed"] = np.where(task & out["fair"].notna(),
                               np.maximum(np.floor(out["fair"] + 0.5), 0), np.nan)
    return out.loc[:, list(COLUMNS)]


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


TASK_KINDS = ("light", "forced")  # the forks a task's value rests on
TOP_UP_RUN = "top-up"  # the ``run`` of forks played on fresh deals (``card_survey``)
