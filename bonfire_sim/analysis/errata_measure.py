"""The figures an errata sheet rests on, from finished runs and from fresh deals.

``card_proposals`` is the small interface the sheet reads the card worth through: a tidy
table, one row per task and player count, with the one printed value proposed for the
card (the same at every count) and each count's residual.  It is implemented on today's
card table (``card_values.card_table``: the lit value's surplus over the typical card of
its colour, ``reprice.combine``); a redefined worth only has to return the same columns.

``fresh_measure`` plays an ``Edition`` on fresh deals at every player count: the games
themselves for the seats (``values.seat_advantage`` and the whole seat points the
re-ranked games ask for) and engine forks on the first of them for the tasks, the cards
being re-priced on more games (their own interval decides whether they are done).  The
games are kept as ordinary runs under ``work_dir`` (the sheet's evidence).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from bonfire_sim.analysis.card_values import TASK_KINDS, card_table, printed_points
from bonfire_sim.analysis.compensation import as_seat_points, compensation
from bonfire_sim.analysis.errata_loop import Edition, Measure
from bonfire_sim.analysis.probes import ProbeSettings, probe_values
from bonfire_sim.analysis.reprice import combine
from bonfire_sim.analysis.runs import Run
from bonfire_sim.analysis.targets import Targets
from bonfire_sim.analysis.values import _games_by_seat, _seat_arrays, seat_advantage
from bonfire_sim.sim.runconfig import RunConfig

PROPOSAL_COLUMNS = ("card", "players", "printed", "proposed", "surplus", "s_lo", "s_hi",
                    "half", "n", "deals", "status", "flag", "forks_needed", "changed")


def card_proposals(cards: pd.DataFrame, printed: Mapping[str, int],
                   margin: float) -> pd.DataFrame:
    """One row per task and player count (``PROPOSAL_COLUMNS``) from the task rows of a
    card table: the card's ``surplus`` at that count with its interval, ``status`` /
    ``flag``, the ``proposed`` printed value of the card (one for every count: the
    inverse-variance mean of printed - surplus over the counts, whole; today's value
    where no count flags the card) and ``changed`` (proposed differs from printed)."""
    t = cards[cards["kind"] == "task"] if "kind" in cards else cards
    fair = t["printed"] - t["surplus"]  # as card_table defines them
    t = t.assign(kind="task", fair=fair, proposed=np.maximum(np.floor(fair + 0.5), 0))
    est = combine(t, dict(printed), margin)
    one = {str(r["card"]): (int(r["proposed"]) if r["flagged"] and math.isfinite(r["proposed"])
                            else int(r["printed"])) for _, r in est.iterrows()}
    out = t.assign(proposed=t["card"].map(one))
    out["changed"] = out["proposed"] != out["card"].map(dict(printed))
    return out.loc[:, list(PROPOSAL_COLUMNS)].reset_index(drop=True)


def seat_figures(runs: Sequence[Run], targets: Targets,
                 printed: Mapping[int, Sequence[float]]) -> tuple[pd.DataFrame,
                                                                 dict[int, list[int]]]:
    """(the ``seat_advantage`` frame, per count the whole seat points to print in all)
    of games played with ``printed`` seat points (their scores hold them)."""
    sa = seat_advantage(runs, margin=targets.task_margin)
    nxt: dict[int, list[int]] = {}
    for n in sorted({r.config.players for r in runs if r.config.players >= 2}):
        a = _seat_arrays([r for r in runs if r.config.players == n])
        scores, bonf, clusters = _games_by_seat(a, n)
        c, _lo, _hi = compensation(scores, bonf, clusters)
        base = np.zeros(n)
        given = list(printed.get(n, ()))[:n]
        base[:len(given)] = given
        nxt[n] = as_seat_points(c, scores, bonf, printed=base)
    return sa, nxt


@dataclass(frozen=True)
class FreshPlan:
    """How much to play per player count and round: ``games`` for the seats, task forks
    on the first ``fork_games`` of them, the re-priced cards on ``focus_games``."""

    games: int = 4000
    fork_games: int = 300
    focus_games: int = 1200
    jobs: int = 1


def edition_config(base: RunConfig, edition: Edition, seed: int, games: int) -> RunConfig:
    """``base`` (one player count) playing ``edition`` on the deals of ``seed``."""
    n = base.players
    overrides: dict[str, Any] = dict(base.overrides)
    overrides.pop("seat_points", None)
    pts = list(edition.seat_points.get(n, ()))
    if any(pts):
        overrides["seat_points"] = [int(v) for v in pts]
    # the edition holds every task's printed value: override those off the components'
    default = printed_points(replace(base, overrides={}))
    prices = {c: int(v) for c, v in edition.task_points.items() if v != default.get(c)}
    if prices:
        overrides["task_points"] = prices
    else:
        overrides.pop("task_points", None)
    g = max(games - games % n, n) if base.seat_rotation else games
    return replace(base, seed=seed, games=g, overrides=overrides)


def _tick(progress: Callable[[str, int, int], None] | None,
          what: str) -> Callable[[int, int], None] | None:
    """A ``progress(done, total)`` for one step of ``progress(step, done, total)``."""
    if progress is None:
        return None
    return lambda done, total: progress(what, done, total)


def fresh_measure(bases: Mapping[int, RunConfig], plan: FreshPlan, targets: Targets,
                  work_dir: Path, *, population: str = "", quiet: bool = True,
                  status: Callable[[str], None] | None = None,
                  progress: Callable[[str, int, int], None] | None = None,
                  ) -> Callable[[Edition, int, Sequence[str]], Measure]:
    """A ``MeasureFn`` that plays an edition on fresh deals at every count of ``bases``
    (runs kept in ``work_dir/<population>seed<seed>-<n>p``); ``progress(step, done,
    total)`` after every chunk of games and forks."""
    from bonfire_sim.sim.load import load
    from bonfire_sim.sim.runner import run

    say = status or (lambda _line: None)

    def measure(edition: Edition, seed: int, focus: Sequence[str]) -> Measure:
        runs, tables = [], []
        for n, base in sorted(bases.items()):
            cfg = edition_config(base, edition, seed, plan.games)
            out = work_dir / f"{population + '-' if population else ''}seed{seed}-{n}p"
            what = f"{population + ' ' if population else ''}{n} players, seed {seed}"
            say(f"{what}: {cfg.games:,} fresh games")
            run(cfg, out, jobs=plan.jobs, resume=True, replace_stale=True,
                progress=_tick(progress, f"{what}: games"))
            runs.append(Run(out.name, out, load(out, turns=False)))
            prices = {n: printed_points(cfg)}
            if plan.fork_games:
                say(f"{what}: task forks on {min(plan.fork_games, cfg.games):,} games"
                    + (f", {len(focus)} re-priced card(s) on {plan.focus_games:,}"
                       if focus else ""))
                forks = probe_values(cfg, ProbeSettings(games=plan.fork_games,
                                                        kinds=TASK_KINDS),
                                     jobs=plan.jobs, quiet=quiet, run_dir=out,
                                     progress=_tick(progress, f"{what}: forks"))
                if focus and plan.focus_games > plan.fork_games:
                    extra = probe_values(cfg, ProbeSettings(games=plan.focus_games,
                                                            kinds=TASK_KINDS,
                                                            tasks=tuple(focus)),
                                         jobs=plan.jobs, quiet=quiet, run_dir=out)
                    forks = pd.concat([forks[~forks["item"].isin(focus)], extra],
                                      ignore_index=True)
                forks = forks.assign(cluster=f"{seed}|{n}|" + forks["deal"].astype(str))
                tab = card_table(forks, prices, targets.task_margin, targets.alpha)
                tables.append(tab[tab["kind"] == "task"])
        seats, nxt = seat_figures(runs, targets, {n: list(edition.seat_points.get(n, ()))
                                                  for n in bases})
        cards = (pd.concat(tables, ignore_index=True) if tables
                 else pd.DataFrame(columns=["card", "players", "kind", "flag", "surplus",
                                            "half", "status", "s_lo", "s_hi", "printed"]))
        return Measure(seed, seats, nxt, cards, population)

    return measure
