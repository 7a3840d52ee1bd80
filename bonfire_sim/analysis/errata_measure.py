"""The figures an errata sheet rests on, from finished runs and from fresh deals.

The card worth is read through ``errata_cards`` alone (one door for a redefined worth).

``fresh_measure`` plays an ``Edition`` on fresh deals at every player count: the games
themselves for the seats (``values.seat_advantage`` and the whole seat points the
re-ranked games ask for) and engine forks on the first of them for the tasks, the cards
being re-priced on more games (their own interval decides whether they are done).  The
games are kept as ordinary runs under ``work_dir`` (the sheet's evidence).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from bonfire_sim.analysis.compensation import as_seat_points, compensation
from bonfire_sim.analysis.errata_cards import CARD_COLUMNS, printed_points, task_table
from bonfire_sim.analysis.errata_loop import Edition, Measure
from bonfire_sim.analysis.runs import Run
from bonfire_sim.analysis.targets import Targets
from bonfire_sim.analysis.values import _games_by_seat, _seat_arrays, seat_advantage
from bonfire_sim.sim.runconfig import RunConfig


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


def config_key(cfg: RunConfig) -> str:
    """Ten hex digits naming ``cfg`` (see ``fresh_dir``)."""
    text = json.dumps(cfg.to_json(), sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()[:10]


def fresh_dir(work_dir: Path, cfg: RunConfig, stem: str, n: int) -> Path:
    """The folder of the fresh run of ``cfg``: ``<stem>-<n>p``, or, when that folder holds
    a run of another configuration (an errata repeated into the same ``--out`` on other
    runs or budgets), ``<stem>-<config key>-<n>p`` beside it, so the repeat plays its own
    games instead of refusing, and the same configuration again resumes its own folder.
    A manifest that cannot be read keeps the plain name (the run then says what is wrong)."""
    from bonfire_sim.sim.runner import read_manifest
    from bonfire_sim.sim.tablecheck import stored_config

    plain = work_dir / f"{stem}-{n}p"
    try:
        other = stored_config(read_manifest(plain)) != cfg.to_json()
    except Exception:  # noqa: BLE001 - no folder, no manifest or a bad one: the plain name
        return plain
    return work_dir / f"{stem}-{config_key(cfg)}-{n}p" if other else plain


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
            out = fresh_dir(work_dir, cfg, f"{population + '-' if population else ''}"
                                           f"seed{seed}", n)
            what = f"{population + ' ' if population else ''}{n} players, seed {seed}"
            say(f"{what}: {cfg.games:,} fresh games")
            run(cfg, out, jobs=plan.jobs, resume=True, replace_stale=True,
                progress=_tick(progress, f"{what}: games"))
            runs.append(Run(out.name, out, load(out, turns=False)))
            if plan.fork_games:
                say(f"{what}: task forks on {min(plan.fork_games, cfg.games):,} games"
                    + (f", {len(focus)} re-priced card(s) on {plan.focus_games:,}"
                       if focus else ""))
                tables.append(task_table([(f"{seed}|{n}", cfg, out)], plan.fork_games,
                                         targets.task_margin, targets.alpha, focus=focus,
                                         focus_games=plan.focus_games, jobs=plan.jobs,
                                         quiet=quiet,
                                         progress=_tick(progress, f"{what}: forks")))
        seats, nxt = seat_figures(runs, targets, {n: list(edition.seat_points.get(n, ()))
                                                  for n in bases})
        cards = (pd.concat(tables, ignore_index=True) if tables
                 else pd.DataFrame(columns=list(CARD_COLUMNS)))
        return Measure(seed, seats, nxt, cards, population)

    return measure
