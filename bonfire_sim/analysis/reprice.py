"""Whole-point printed task values that survive a closed loop (``bonfire-sim reprice``).

``propose(runs)`` measures the card values (``card_values``) of finished runs and proposes,
for every task flagged at some player count (its surplus shown to lie beyond ± margin),
one whole printed value for all counts: the inverse-variance mean over the counts of
printed - surplus, rounded; each count's own value stays in the table.  ``reprice(...,
verify=True)`` then plays FRESH deals (seeds disjoint from the estimating runs') under the
proposal, measures the surpluses again and, while cards are still off (flagged, or
re-priced and measured with a whole value of their own other than the one played) and
rounds are left, re-prices those (all at once, from the last round's deals) and plays the
next fresh deals: a fixed-point iteration like the seat lottery's.  The proposal it keeps is always
one that was verified on deals it was not estimated from.

Runs are grouped per player count; runs that differ in anything but their seed and size
(variants, overrides, players) are never pooled.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
import pandas as pd

from bonfire_sim.analysis import flags as FL
from bonfire_sim.analysis.card_values import card_settings, card_table, printed_points
from bonfire_sim.analysis.probes import ProbeSettings, probe_values
from bonfire_sim.analysis.runs import Run, RunLike, as_runs
from bonfire_sim.errors import DataError
from bonfire_sim.sim.runner import RunConfig

ROUNDS = 3  # verification rounds (fresh deals each) by default
VERIFY_GAMES = 1000  # fresh games per player count and round by default


@dataclass
class Round:
    """One verification round: the prices played, the fresh seed, the card table."""

    seed: int
    prices: dict[str, int]
    table: pd.DataFrame
    flagged: list[str]


@dataclass
class Reprice:
    """The result: ``proposal`` (task id -> whole printed value, changed cards only),
    ``estimate`` (per task: printed, each count's own fair value and proposal, the
    combined one), the ``rounds`` of verification and ``verified`` (per re-priced card and
    count, the surplus measured on the last round's fresh deals)."""

    printed: dict[str, int]
    proposal: dict[str, int]
    estimate: pd.DataFrame
    rounds: list[Round] = field(default_factory=list)
    verified: pd.DataFrame | None = None
    fixed_point: bool = False


def group_runs(runs: Sequence[Run]) -> dict[int, list[Run]]:
    """Runs per player count; refuse runs of one count that play different games, and
    counts that print different cards (one printed value must serve them all)."""
    groups: dict[int, list[Run]] = {}
    for r in runs:
        groups.setdefault(r.config.players, []).append(r)
    first = runs[0].config
    for n, rs in groups.items():
        base = rs[0].config
        for r in rs[1:]:
            c = r.config
            for what, a, b in (("players", c.strategies, base.strategies),
                               ("variants", dict(c.variants), dict(base.variants)),
                               ("overrides", dict(c.overrides), dict(base.overrides)),
                               ("seat rotation", c.seat_rotation, base.seat_rotation)):
                if a != b:
                    raise DataError(f"runs {rs[0].label} and {r.label} ({n} players) differ "
                                    f"in their {what}; re-price them in separate calls")
        for what, a, b in (("variants", dict(base.variants), dict(first.variants)),
                           ("overrides", dict(base.overrides), dict(first.overrides))):
            if a != b:
                raise DataError(f"the {n}-player runs differ from {runs[0].label} in their "
                                f"{what}: one printed value cannot serve both; re-price "
                                f"them in separate calls")
    return dict(sorted(groups.items()))


def _forks(configs: Sequence[tuple[str, RunConfig, Any]], settings: ProbeSettings, jobs: int,
           quiet: bool) -> pd.DataFrame:
    """Fork tables of (label, config, run_dir) with a deal ``cluster`` column."""
    parts = []
    for label, cfg, path in configs:
        t = probe_values(cfg, settings, run_dir=path, jobs=jobs, quiet=quiet)
        parts.append(t.assign(cluster=label + "|" + t["deal"].astype(str)))
    return pd.concat(parts, ignore_index=True)


def combine(table: pd.DataFrame, printed: dict[str, int], margin: float) -> pd.DataFrame:
    """Per task: each count's fair value and proposal, the inverse-variance combined fair
    value over the counts and its whole number, and whether any count flags it."""
    t = table[table["kind"] == "task"].copy()
    t["w"] = 1.0 / (t["half"] ** 2)
    rows = []
    for card, g in t.groupby("card", sort=False):
        ok = g["fair"].notna() & np.isfinite(g["w"])
        fair = (float((g.loc[ok, "fair"] * g.loc[ok, "w"]).sum() / g.loc[ok, "w"].sum())
                if ok.any() else math.nan)
        row: dict[str, Any] = {"card": card, "printed": printed[card], "fair": fair,
                               "proposed": (max(int(math.floor(fair + 0.5)), 0)
                                            if math.isfinite(fair) else math.nan),
                               "flagged": bool((g["flag"] != "").any())}
        for _, r in g.iterrows():
            n = int(r["players"])
            row[f"surplus_{n}"] = r["surplus"]
            row[f"half_{n}"] = r["half"]
            row[f"own_{n}"] = r["proposed"]
            row[f"status_{n}"] = r["status"]
        rows.append(row)
    out = pd.DataFrame(rows)
    out.attrs["margin"] = margin
    return out


def _fresh(cfg: RunConfig, seed: int, games: int, prices: dict[str, int]) -> RunConfig:
    overrides = dict(cfg.overrides)
    overrides["task_points"] = dict(prices)
    g = games - games % cfg.players if cfg.seat_rotation else games
    return replace(cfg, seed=seed, games=max(g, cfg.players), overrides=overrides)


def reprice(runs: RunLike | Sequence[RunLike], *, margin: float = FL.MARGIN,
            alpha: float = FL.ALPHA, probe_games: ProbeSettings | int | None = None,
            verify: bool = False,
            verify_games: int = VERIFY_GAMES, rounds: int = ROUNDS, seed: int | None = None,
            jobs: int = 1, quiet: bool = True,
            note: Callable[[str], None] | None = None) -> Reprice:
    """Propose whole printed task values from ``runs`` and, with ``verify``, check them on
    fresh deals (seeds ``seed``, ``seed + 1``, ...; default: one above the runs' largest
    seed; never a seed of the runs), iterating up to ``rounds`` times."""
    rs = as_runs(runs)
    if not rs:
        raise DataError("no runs to re-price")
    groups = group_runs(rs)
    used = {r.config.seed for r in rs}
    base = (max(used) + 1) if seed is None else int(seed)
    if verify and any(base + i in used for i in range(rounds)):
        raise DataError(f"verification seeds {base}..{base + rounds - 1} include a seed of "
                        f"the estimating runs ({sorted(used)}): pick a disjoint --seed")
    printed = printed_points(rs[0].config)
    settings = card_settings(probe_games)
    forks = _forks([(r.label, r.config, r.path) for r in rs], settings, jobs, quiet)
    table = card_table(forks, {n: printed for n in groups}, margin, alpha)
    est = combine(table, printed, margin)
    proposal = {str(r["card"]): int(r["proposed"]) for _, r in est.iterrows()
                if r["flagged"] and r["proposed"] != r["printed"]}
    result = Reprice(printed=printed, proposal=proposal, estimate=est)
    if not verify or not proposal:
        result.fixed_point = not proposal
        return result
    current = dict(printed) | proposal
    for i in range(rounds):
        cfgs = [(f"fresh{n}", _fresh(g[0].config, base + i, verify_games, current), None)
                for n, g in groups.items()]
        if note:
            moved_n = sum(current[c] != printed[c] for c in current)
            note(f"round {i + 1}: {moved_n} re-priced card(s) on fresh deals "
                 f"(seed {base + i}, {verify_games} games per player count)")
        ft = _forks(cfgs, replace(settings, games=None), jobs, quiet)
        tab = card_table(ft, {n: current for n in groups}, margin, alpha)
        # Still off: any card flagged on these deals, and any re-priced card measured to
        # within the margin whose own whole value is not the one played (the fixed point).
        t = tab[tab["kind"] == "task"]
        moved = t["card"].isin([c for c in current if current[c] != printed[c]])
        off = (t["flag"] != "") | (moved & (t["status"] == "measured")
                                   & (t["proposed"] != t["printed"]))
        flagged = sorted(set(t.loc[off, "card"]))
        result.rounds.append(Round(base + i, dict(current), tab, flagged))
        result.proposal = {c: v for c, v in current.items() if v != printed[c]}
        if not flagged:
            # A fixed point only where every re-priced row was measured to the margin.
            result.fixed_point = bool((t.loc[moved, "status"] == "measured").all())
            break
        if i + 1 < rounds:
            again = combine(tab, current, margin)
            for _, r in again.iterrows():
                if r["card"] in flagged and math.isfinite(r["proposed"]):
                    current[str(r["card"])] = int(r["proposed"])
    last = result.rounds[-1]
    t = last.table
    keep = t["card"].isin(list(result.proposal)) & (t["kind"] == "task")
    v = t.loc[keep, ["card", "players", "printed", "surplus", "s_lo", "s_hi", "n", "status",
                     "flag"]].copy()
    v["original"] = v["card"].map(printed)
    v["within"] = v["surplus"].abs() <= margin
    result.verified = v.reset_index(drop=True)
    return result


def overrides_toml(result: Reprice, runs: Sequence[Run], margin: float) -> str:
    """An experiment file that plays the proposal on fresh deals: ``[run]`` like the
    estimating runs (the largest player count; the others as a ``players`` sweep when they
    use the default seat mix) and ``[overrides] task_points``."""
    from bonfire_sim.sim.runner import default_mix

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
             "# verified on fresh deals" if result.rounds else "# not verified (no --verify)",
             "[run]",
             f"games = {games}"]
    if len(counts) > 1 and default:
        lines.append(f"players = [{', '.join(str(n) for n in counts)}]")
    else:
        lines.append(f"players = {cfg.players}")
        strategies = ", ".join(f'"{s}"' for s in cfg.strategies)
        lines.append(f"strategies = [{strategies}]")
    seeds = [r.seed for r in result.rounds]
    lines += [f"seat_rotation = {'true' if cfg.seat_rotation else 'false'}",
              f"seed = {max([r.config.seed for r in runs] + seeds) + 1}", "",
              "[overrides]"]
    prices = dict(cfg.overrides.get("task_points", {})) | result.proposal
    if prices:
        body = ", ".join(f"{k} = {int(v)}" for k, v in sorted(prices.items()))
        lines.append(f"task_points = {{ {body} }}")
    for key, value in sorted(cfg.overrides.items()):
        if key != "task_points":
            lines.append(f"{key} = {_toml_value(value)}")
    if cfg.variants:
        lines += ["", "[variants]"] + [f'{k} = "{v}"' for k, v in sorted(cfg.variants.items())]
    return "\n".join(lines) + "\n"


def _toml_value(v: Any) -> str:
    if isinstance(v, dict):
        return "{ " + ", ".join(f'"{k}" = {_toml_value(x)}' for k, x in v.items()) + " }"
    if isinstance(v, list | tuple):
        return "[" + ", ".join(_toml_value(x) for x in v) + "]"
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, str):
        return f'"{v}"'
    return repr(v)
