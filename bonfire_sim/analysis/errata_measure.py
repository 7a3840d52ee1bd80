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
from bonfire_sim.analysis.errata_cards import (
    CARD_COLUMNS,
    DEFAULT_MEASURE,
    flags_across_counts,
    printed_points,
    task_forks,
    task_rows,
    top_up_check,
)
from bonfire_sim.analysis.errata_loop import Edition, Measure, seats_within
from bonfire_sim.analysis.runs import Run
from bonfire_sim.analysis.targets import Targets
from bonfire_sim.analysis.values import seat_advantage, seat_games
from bonfire_sim.infra.progress import step_of
from bonfire_sim.sim.runconfig import RunConfig


def seat_figures(runs: Sequence[Run], targets: Targets,
                 printed: Mapping[int, Sequence[float]]) -> tuple[pd.DataFrame,
                                                                 dict[int, list[int]]]:
    """(the ``seat_advantage`` frame, per count the whole seat points to print in all)
    of games played with ``printed`` seat points (their scores hold them)."""
    sa = seat_advantage(runs, margin=targets.task_margin)
    nxt: dict[int, list[int]] = {}
    for n in sorted({r.config.players for r in runs if r.config.players >= 2}):
        games = seat_games([r for r in runs if r.config.players == n], n)
        scores, bonf, clusters = games.scores, games.bonfires, games.cluster
        c, _lo, _hi = compensation(scores, bonf, clusters)
        base = np.zeros(n)
        given = list(printed.get(n, ()))[:n]
        base[:len(given)] = given
        nxt[n] = as_seat_points(c, scores, bonf, printed=base)
    return sa, nxt


SEAT_COLUMNS = {"players": ["strategy", "won", "score", "n_bonfires"], "games": ["deal"]}
CHECK_FACTOR = 4  # the check round's games per count, in loop rounds' games
CHECK_TOP_UP = 4  # a count the check cannot resolve is played again on 4x its games


@dataclass(frozen=True)
class FreshPlan:
    """How much to play per player count and round: ``games`` for the seats, task forks
    on the first ``fork_games`` of them, the re-priced cards on ``focus_games``; the
    check round plays ``check_games`` (0: ``CHECK_FACTOR`` x ``games``).

    Why the check plays more: it alone says verified / not verified / not resolved, and a
    seat line is verified only when its whole interval lies inside the tolerance; the
    loop's rounds only steer.  At 20,000 two-player games a seat left 1.1 pp from fair
    reads -1.1 (-1.8 to -0.4) pp, not resolved against 1.5 pp; four times the games
    halve the interval and resolve it."""

    games: int = 4000
    fork_games: int = 300
    focus_games: int = 1200
    jobs: int = 1
    check_games: int = 0

    @property
    def games_for_check(self) -> int:
        return self.check_games or CHECK_FACTOR * self.games


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


def fresh_measure(bases: Mapping[int, RunConfig], plan: FreshPlan, targets: Targets,
                  work_dir: Path, *, population: str = "", quiet: bool = True,
                  status: Callable[[str], None] | None = None,
                  progress: Callable[[str, int, int], None] | None = None,
                  top_up: int = 1, task_top_ups: int = 0,
                  ) -> Callable[[Edition, int, Sequence[str]], Measure]:
    """A ``MeasureFn`` that plays an edition on fresh deals at every count of ``bases``
    (runs kept in ``work_dir/<population>seed<seed>-<n>p``); ``progress(step, done,
    total)`` after every chunk of games and forks.

    ``top_up`` > 1 (the check round's): a count whose seats the games cannot resolve
    against the tolerance (``seats_within`` None: some interval crosses it) is played
    again on ``top_up`` times the games of the same seed, whose first deals are the same
    ones, and its seat figures are those of the larger run.  A second look at the same
    question, taken only where the first could not answer; the verdict rests on all the
    games (at 20,000 two-player games a round, a seat 1.3 pp from fair is resolved
    against 1.5 pp at 320,000).

    ``task_top_ups`` > 0 (the check round's): a re-priced card whose row at some count
    the check cannot resolve against the task margin (not measured, or its interval
    crosses it) is forked again there on new deals of the seeds after, on the games its
    gap to the margin asks, at most ``task_top_ups`` looks and a last one for rows the
    reference moved (``cards.top_up_check``, the step ``reprice --verify``'s check takes
    too), with the other cards of its tier at that count on the first games of the same
    seed where the reference term of its interval is worth forking (every card at its new
    print: the edition is planted whole); its row rests on all its forks, and ``Measure.top_ups``
    says what was played."""
    from bonfire_sim.sim.load import load
    from bonfire_sim.sim.runner import run

    say = status or (lambda _line: None)
    stem = f"{population + '-' if population else ''}"

    def play(cfg: RunConfig, seed: int, n: int, what: str) -> Run:
        out = fresh_dir(work_dir, cfg, f"{stem}seed{seed}", n)
        say(f"{what}: {cfg.games:,} fresh games")
        run(cfg, out, jobs=plan.jobs, resume=True, replace_stale=True,
            progress=step_of(progress, f"{what}: games"))
        # the seat figures read four player columns and the deal: read those eagerly
        # (a whole 80,000-game check round would be loaded lazily, as LazyFrames)
        return Run(out.name, out, load(out, turns=False, lazy=False, columns=SEAT_COLUMNS))

    def measure(edition: Edition, seed: int, focus: Sequence[str]) -> Measure:
        runs, forks, printed_tasks = [], [], {}
        for n, base in sorted(bases.items()):
            cfg = edition_config(base, edition, seed, plan.games)
            what = f"{population + ' ' if population else ''}{n} players, seed {seed}"
            out = fresh_dir(work_dir, cfg, f"{stem}seed{seed}", n)
            runs.append(play(cfg, seed, n, what))
            if plan.fork_games:
                say(f"{what}: task forks on {min(plan.fork_games, cfg.games):,} games"
                    + (f", {len(focus)} re-priced card(s) on {plan.focus_games:,}"
                       if focus else ""))
                forks.append(task_forks([(f"{seed}|{n}", cfg, out)], plan.fork_games,
                                        focus=focus, focus_games=plan.focus_games,
                                        jobs=plan.jobs, quiet=quiet,
                                        progress=step_of(progress, f"{what}: forks")))
                printed_tasks[n] = printed_points(cfg)
        printed = {n: list(edition.seat_points.get(n, ())) for n in bases}
        seats, nxt = seat_figures(runs, targets, printed)
        open_counts = [n for n, w in seats_within(seats, targets).items() if w is None]
        if top_up > 1 and open_counts:
            for n in open_counts:
                i = sorted(bases).index(n)
                cfg = edition_config(bases[n], edition, seed, top_up * plan.games)
                what = (f"{population + ' ' if population else ''}{n} players, seed {seed}"
                        f" (not resolved on {plan.games:,}: {top_up}x the games)")
                runs[i] = play(cfg, seed, n, what)
            seats, nxt = seat_figures(runs, targets, printed)

        def rows_of(f: pd.DataFrame) -> pd.DataFrame:
            return flags_across_counts(task_rows(f, printed_tasks, targets.task_margin,
                                                 targets.alpha),
                                       targets.task_margin, targets.alpha)

        def more(todo: Mapping[int, Sequence[str]], s: int, games: int) -> pd.DataFrame:
            parts = []
            for n, cs in todo.items():
                # new games of the next seed: forks of the open cards (or of their tiers'
                # reference, on fewer games), no run kept
                cfg = edition_config(bases[n], edition, s, games)
                what = (f"{population + ' ' if population else ''}{n} players, check "
                        f"top-up seed {s}")
                parts.append(task_forks([(f"{s}|{n}", cfg, None)], games, tasks=cs,
                                        jobs=plan.jobs, quiet=quiet,
                                        # one bar per call: the open cards' forks and
                                        # their reference's on fewer games of the same
                                        # seed (one bar read "12800/400 games")
                                        progress=step_of(progress, f"{what}: forks of "
                                                         f"{len(cs)} card(s), {games:,} games"),
                                        cache_as={"errata check top-up": 1}))
            return pd.concat(parts, ignore_index=True)

        top_ups: list[dict[str, Any]] = []
        if not forks:
            cards = pd.DataFrame(columns=list(CARD_COLUMNS))
        elif task_top_ups and focus:
            cards, _, played = top_up_check(
                pd.concat(forks, ignore_index=True), rows_of, more, focus,
                targets.task_margin, seed, plan.focus_games, top_ups=task_top_ups,
                base_games=plan.fork_games, note=say)
            top_ups = [t.to_json() for t in played]
        else:
            cards = rows_of(pd.concat(forks, ignore_index=True))
        # task_rows measure by the card room's default: say so (errata_loop.Measure)
        return Measure(seed, seats, nxt, cards, population, top_ups, DEFAULT_MEASURE)

    return measure
