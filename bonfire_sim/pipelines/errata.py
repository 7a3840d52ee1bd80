"""``bonfire-sim errata``: finished runs -> one verified errata sheet.

Steps (each shown with its own progress): load the runs and check they can share one
sheet; measure today's edition from them (seats from the games, task and gnome values
from engine forks on ``probe_games`` games per run); the joint closed loop
(``analysis.errata_loop``) on fresh deals at every player count, the check round in every
population the runs hold; Tom's starting handicap per Tom-deck reading with a check on
fresh solo games; then the sheet (``analysis.errata``) written as HTML, Markdown, JSON and
the experiment file of the new edition (``report.errata``).

Every check that can refuse (the runs, the output folder, the seeds) runs before any game
is played.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import pandas as pd

from bonfire_sim.analysis.errata import Sheet, build_sheet, who_played
from bonfire_sim.analysis.errata_cards import (
    CARD_COLUMNS,
    CHECK_SEEDS,
    CHECK_TOP_UPS,
    SURVEY_MAX_GAMES,
    SURVEY_ROUNDS,
    estimate_top_ups,
    flags_across_counts,
    printed_points,
    task_forks,
    task_rows,
)
from bonfire_sim.analysis.errata_gnomes import flagged_gnomes
from bonfire_sim.analysis.errata_loop import Edition, Measure, joint_loop
from bonfire_sim.analysis.errata_measure import (
    CHECK_TOP_UP,
    FreshPlan,
    fresh_measure,
    seat_figures,
)
from bonfire_sim.analysis.runs import Run, as_runs
from bonfire_sim.analysis.targets import Targets
from bonfire_sim.errors import DataError
from bonfire_sim.sim.runconfig import RunConfig

# step(description, total, unit) -> progress(done, total) callback (pipelines.experiment).
StepFn = Callable[[str, int | None, str], Callable[[int, int], None]]
TOM_GAMES = 1000  # fresh solo games per Tom line for its check
POP_LABEL = "population"


def _no_step(_desc: str, _total: int | None, _unit: str) -> Callable[[int, int], None]:
    return lambda _done, _total: None


def split_runs(runs: Sequence[Run]) -> tuple[dict[int, dict[tuple[str, ...], list[Run]]],
                                            list[Run]]:
    """(multiplayer runs per count and population (their seats' players), solo runs).

    Refused: runs of one count and population that play different games; counts or
    populations that differ in anything but their players and seat points (one sheet
    prints one edition: the same task points and variants everywhere)."""
    multi: dict[int, dict[tuple[str, ...], list[Run]]] = {}
    solo = [r for r in runs if r.config.players == 1]
    for r in runs:
        if r.config.players >= 2:
            multi.setdefault(r.config.players, {}).setdefault(
                tuple(r.config.strategies), []).append(r)
    first: RunConfig | None = None
    for n, pops in sorted(multi.items()):
        for _who, rs in pops.items():
            for r in rs:
                c = r.config
                if first is None:
                    first = c
                    continue
                a = {k: v for k, v in c.overrides.items() if k != "seat_points"}
                b = {k: v for k, v in first.overrides.items() if k != "seat_points"}
                if a != b or dict(c.variants) != dict(first.variants):
                    raise DataError(
                        f"run {r.label} ({n} players) differs from the others in its "
                        f"overrides or variants: one sheet prints one edition; give the "
                        f"runs of one edition (seat points may differ per count)")
                if c.seat_rotation != first.seat_rotation:
                    raise DataError(f"run {r.label} is{' not' if not c.seat_rotation else ''}"
                                    f" seat-rotated unlike the others: play every run with "
                                    f"--seat-rotation")
    return multi, solo


def _primary(pops: dict[tuple[str, ...], list[Run]]) -> tuple[tuple[str, ...], list[Run]]:
    """The population with the most games (the loop steers by it)."""
    return max(pops.items(), key=lambda kv: (sum(r.config.games for r in kv[1]), kv[0]))


def _today(multi: dict[int, dict[tuple[str, ...], list[Run]]]) -> Edition:
    seats: dict[int, tuple[int, ...]] = {}
    prices: dict[str, int] = {}
    for n, pops in multi.items():
        cfg = _primary(pops)[1][0].config
        pts = [float(v) for v in cfg.overrides.get("seat_points", [])]
        if any(not float(v).is_integer() for v in pts):
            raise DataError(f"the {n}-player runs print fractional seat points {pts}: the "
                            f"sheet prints whole points; give runs with whole seat points")
        seats[n] = tuple(int(v) for v in pts)
        prices = printed_points(cfg)
    return Edition(seats, prices)


@dataclass(frozen=True)
class EstimatePlan:
    """How today's card values are measured: every task and gnome forked on the first
    ``probe_games`` games of each run, then the survey's top-ups (``values``' and
    ``reprice``'s) on fresh deals of the runs' games, ``top_ups`` rounds at most (seeds
    ``seed`` ..; 0: the runs' forks alone), at most ``max_games`` four-player games per
    card (``games_cap`` at the other counts)."""

    probe_games: int = 300
    max_games: int = SURVEY_MAX_GAMES
    top_ups: int = SURVEY_ROUNDS
    seed: int = 0


def _bars(step: StepFn) -> Callable[[str, int, int], None]:
    """``progress(what, done, total)`` drawing one step per ``what``."""
    bars: dict[str, Callable[[int, int], None]] = {}

    def progress(what: str, done: int, total: int) -> None:
        if what not in bars:
            bars[what] = step(what, total, "games")
        bars[what](done, total)
    return progress


def estimate(multi: dict[int, dict[tuple[str, ...], list[Run]]], today: Edition,
             targets: Targets, how: EstimatePlan, jobs: int, quiet: bool,
             step: StepFn, note: Callable[[str], None] | None = None,
             ) -> tuple[Measure, pd.DataFrame | None, dict[str, Any]]:
    """Today's figures from the runs' primary population: seats from their games, task
    and gnome values from forks on ``how.probe_games`` games per run topped up as the
    survey tops them up (``EstimatePlan``: tasks to ``TARGET_SHARE`` x the task margin,
    as ``reprice``; gnomes to the gnome margin, as the report's card survey), gnome values
    None without forks; and what the top-ups played (per count and kind: games, rounds,
    rows still not measured)."""
    from bonfire_sim.analysis.errata_cards import ProbeSettings, gnome_values

    probe_games = how.probe_games
    runs = [r for pops in multi.values() for r in _primary(pops)[1]]
    seats, nxt = seat_figures(runs, targets, {n: list(p) for n, p in
                                              today.seat_points.items()})
    groups = {n: [r for r in runs if r.config.players == n] for n in sorted(multi)}
    parts = []
    for n in sorted(multi) if probe_games else []:
        rs = groups[n]
        tick = step(f"task forks of {n}-player run(s) {', '.join(r.label for r in rs)} "
                    f"(first {probe_games:,} games each)",
                    sum(min(probe_games, r.config.games) for r in rs), "games")
        parts.append(task_forks([(r.label, r.config, r.path) for r in rs], probe_games,
                                jobs=jobs, quiet=quiet, progress=tick, detail=True))
    info: dict[str, Any] = {"probe_games": probe_games, "max_games": how.max_games,
                            "top_ups": how.top_ups, "seeds": [], "tasks": {}, "gnomes": {}}
    batches: list[Any] = []  # the top-ups' probes (survey.Batch), tasks' and gnomes'
    gbatches: list[Any] = []
    if parts:
        forks = pd.concat(parts, ignore_index=True)
        extra, played = estimate_top_ups(
            forks, groups, probe_games, targets.task_margin, targets.alpha,
            max_games=how.max_games, top_ups=how.top_ups, seed=how.seed, jobs=jobs,
            quiet=quiet, note=note, batches=batches,
            progress=_bars(lambda d, t, u: step(f"task top-ups, {d}", t, u)))
        table = task_rows(pd.concat([forks, extra], ignore_index=True),
                          {n: printed_points(g[0].config) for n, g in groups.items()},
                          targets.task_margin, targets.alpha)
        table["games"] = [played[int(n)].get(str(c), 0)
                          for n, c in zip(table["players"], table["card"], strict=True)]
        cards = flags_across_counts(table, targets.task_margin, targets.alpha)
        info["tasks"] = _played(batches, table)
    else:
        cards = pd.DataFrame(columns=list(CARD_COLUMNS))
    gv = None
    if probe_games:
        tick = step(f"gnome forks of {len(runs)} run(s) (first {probe_games:,} games each)",
                    sum(min(probe_games, r.config.games) for r in runs), "games")
        gv = gnome_values(runs, probes=ProbeSettings(games=probe_games,
                                                     survey=bool(how.top_ups)),
                          margin=targets.gnome_margin, alpha=targets.alpha, jobs=jobs,
                          quiet=quiet, progress=tick, note=note, max_games=how.max_games,
                          rounds=how.top_ups, seed=how.seed, batches=gbatches,
                          top_up_progress=_bars(lambda d, t, u: step(f"gnome top-ups, {d}",
                                                                     t, u)))
        info["gnomes"] = _played(gbatches, gv.rename(columns={"gnome": "card"}))
    info["seeds"] = sorted({b.seed for b in batches + gbatches})
    return Measure(seed=-1, seats=seats, seat_next=nxt, cards=cards), gv, info


def _played(batches: Sequence[Any], table: pd.DataFrame) -> dict[str, dict[str, int]]:
    """Per player count: the top-ups' rounds and games, the rows still not measured."""
    out: dict[str, dict[str, int]] = {}
    for n in sorted({int(v) for v in table["players"] if int(v) > 0}):
        done = [b for b in batches if b.players == n and b.stage > 0]
        rows = table[table["players"] == n]
        out[str(n)] = {"rounds": len(done), "games": int(sum(b.games for b in done)),
                       "forks": int(sum(b.forks for b in done)),
                       "not_measured": int((rows["status"] != "measured").sum()),
                       "rows": len(rows)}
    return out


def tom_rows(solo: Sequence[Run]) -> pd.DataFrame:
    """One row per solo run: ``key`` (Tom-deck reading and solo player), the
    equilibrium handicap with its bootstrap interval, ``n`` games."""
    from bonfire_sim.analysis.values import tom_difficulty
    from bonfire_sim.rules import components as C

    rows = []
    for r in solo:
        t = tom_difficulty([r])
        reading = dict(r.config.variants).get("tom_deck", C.VARIANTS["tom_deck"][0].name)
        for rec in t.to_dict("records"):
            rows.append({**rec, "reading": reading, "variants": dict(r.config.variants),
                         "key": f"tom_deck = {reading}, {rec['strategy']}"})
    return pd.DataFrame(rows)


def tom_check(tom: pd.DataFrame, targets: Targets, seed: int, games: int, jobs: int,
              step: StepFn) -> dict[str, dict[str, float]]:
    """Fresh solo games per Tom line (seed ``seed``): where the challenge settles there."""
    from bonfire_sim.analysis.solo import SoloGames, handicap_series, play_solo

    out: dict[str, dict[str, float]] = {}
    for r in tom.to_dict("records"):
        tick = step(f"Tom check: {r['key']} on {games:,} fresh solo games (seed {seed})",
                    games, "games")
        g: SoloGames = play_solo(r["strategy"], games, seed=seed, jobs=jobs, progress=tick,
                                 variants=r["variants"])
        s = handicap_series(g, seed=seed)
        out[str(r["key"])] = {"value": s.equilibrium, "equilibrium": s.equilibrium,
                              "lo": s.equilibrium_ci[0], "hi": s.equilibrium_ci[1],
                              "n": games}
    return out


def estimate_seed(base: int, rounds: int) -> int:
    """The first seed of the estimate's top-ups: after every seed the loop may play.

    The layout from the first fresh seed ``base`` (2030 on the example): the loop's
    rounds ``base`` .. ``base + rounds - 1``; the check ``base + rounds``; the check's
    looks (``CHECK_SEEDS``), Tom's check and the gnome trials with their top-ups from
    ``base + rounds + 1``; the estimate's top-ups from here (``base + rounds + 1 +
    CHECK_SEEDS``, 2038), one seed per round, tasks and gnomes on the same deals (never
    pooled: other rows); the edition file's seed after them (``edition_seed``).  Placed
    last so that a sheet made again with more or fewer top-ups plays the loop on the same
    deals (its caches hold), and so no top-up replays a deal the check judges on."""
    return base + rounds + 1 + max(CHECK_SEEDS, 1)


def edition_seed(base: int, rounds: int, top_ups: int) -> int:
    """The seed the new edition's experiment file plays: after every seed of the sheet."""
    return estimate_seed(base, rounds) + top_ups


def fresh_seed(runs: Sequence[Run], rounds: int, seed: int | None, top_ups: int = 0) -> int:
    """The first fresh seed: one above the runs' largest, or ``seed`` when it and the
    seeds after it (the rounds, the check, its task top-ups, Tom's check, the estimate's
    ``top_ups``: ``estimate_seed``) are disjoint from the runs'."""
    used = {r.config.seed for r in runs}
    base = (max(used) + 1) if seed is None else int(seed)
    last = edition_seed(base, rounds, top_ups) - 1
    clash = sorted(used & set(range(base, last + 1)))
    if clash:
        raise DataError(f"the fresh seeds {base}..{last} include the seed(s) "
                        f"{clash} of the runs: pick a disjoint --seed")
    return base


def errata(run_dirs: Sequence[str | Path], out_dir: str | Path, *,
           targets: Targets | None = None, plan: FreshPlan | None = None,
           probe_games: int = 300, rounds: int = 3, seed: int | None = None,
           tom_games: int = TOM_GAMES, max_games: int = SURVEY_MAX_GAMES,
           top_ups: int = SURVEY_ROUNDS, quiet: bool = True,
           step: StepFn | None = None, status: Callable[[str], None] | None = None,
           ) -> tuple[Sheet, dict[str, Path]]:
    """Build, verify and write the errata sheet of finished runs into ``out_dir``
    (``errata.html``, ``errata.md``, ``errata.json``, ``edition.toml`` and the fresh
    runs under ``fresh/``); returns (the sheet, the paths written).  Today's card values
    rest on ``probe_games`` games per run topped up by the survey (``EstimatePlan``:
    ``top_ups`` rounds, at most ``max_games`` four-player games per card)."""
    from bonfire_sim.infra import fileio
    from bonfire_sim.report.errata import edition_toml, write_sheet

    targets = targets or Targets()
    plan = plan or FreshPlan()
    go = step or _no_step
    say = status or (lambda _line: None)
    out = Path(out_dir)
    for name in ("errata.html", "errata.md", "errata.json", "edition.toml"):
        fileio.check_output_file(out / name)  # before any game is played
    runs = as_runs(list(run_dirs))
    multi, solo = split_runs(runs)
    if not multi and not solo:
        raise DataError("no games in these runs")
    if not isinstance(top_ups, int) or top_ups < 0:
        raise DataError(f"top_ups must be an integer >= 0, got {top_ups!r}")
    if not isinstance(max_games, int) or max_games < 1:
        raise DataError(f"max_games must be an integer >= 1, got {max_games!r}")
    base = fresh_seed(runs, rounds, seed, top_ups)
    today = _today(multi) if multi else Edition({}, {})
    who = who_played([r for pops in multi.values() for r in _primary(pops)[1]])
    fresh = out / "fresh"
    gv = None
    how = EstimatePlan(probe_games, max_games, top_ups, estimate_seed(base, rounds))
    measured: dict[str, Any] = {}
    if multi:
        est, gv, measured = estimate(multi, today, targets, how, plan.jobs, quiet, go, say)
        progress = _bars(go)

        def measure_of(pop_index: int, games: int | None = None, task_top_ups: int = 0) -> Any:
            bases = {}
            name = ""
            for n, pops in multi.items():
                ordered = sorted(pops.items(), key=lambda kv: -sum(
                    r.config.games for r in kv[1]))
                if pop_index < len(ordered):
                    bases[n] = ordered[pop_index][1][0].config
                    name = "" if pop_index == 0 else ",".join(sorted(set(ordered[pop_index][0])))
            how = plan if games is None else replace(plan, games=games)
            return (fresh_measure(bases, how, targets, fresh, population=name, quiet=quiet,
                                  status=say, progress=progress,
                                  top_up=1 if games is None else CHECK_TOP_UP,
                                  task_top_ups=task_top_ups)
                    if bases else None)

        n_pops = max(len(p) for p in multi.values())
        # the check rounds (every population's) play plan.games_for_check per count
        others = [m for m in (measure_of(i, plan.games_for_check) for i in range(1, n_pops))
                  if m is not None]
        loop = joint_loop(today, est, measure_of(0), targets, seed=base, rounds=rounds,
                          check=others, note=say,
                          check_measure=measure_of(0, plan.games_for_check, CHECK_TOP_UPS))
    else:
        from bonfire_sim.analysis.errata_loop import Loop

        empty = Measure(-1, pd.DataFrame(columns=["players", "seat", "value", "lo", "hi",
                                                  "fair", "n"]), {},
                        pd.DataFrame(columns=["card", "players", "kind", "flag", "surplus",
                                              "half", "status", "s_lo", "s_hi", "printed",
                                              "n", "deals", "forks_needed"]))
        loop = Loop(start=today, estimate=empty, edition=today, fixed_point=True)
    tom = tom_rows(solo) if solo else None
    tom_fresh = (tom_check(tom, targets, base + rounds + 1, tom_games, plan.jobs, go)
                 if tom is not None and len(tom) and tom_games else {})
    trials = {}
    if multi and plan.fork_games and len(flagged_gnomes(gv)):
        from bonfire_sim.analysis.errata_gnomes import try_changes

        bases = {n: _primary(pops)[1][0].config for n, pops in multi.items()}
        games = plan.fork_games  # per change and count: the budget of a round's task forks
        tick = go(f"gnome changes for {len(flagged_gnomes(gv))} flagged gnome(s) on fresh "
                  f"deals (seed {base + rounds + 1}, {games:,} games each)", None,
                  "trials")
        trials = try_changes(gv, bases, games, targets.gnome_margin, targets.alpha,
                             fresh, base + rounds + 1, jobs=plan.jobs, status=say,
                             progress=tick)
    sheet = build_sheet(loop, targets, who, gnomes=gv, tom=tom, tom_fresh=tom_fresh,
                        gnome_trials=trials)
    sheet.loop["estimate"] = measured
    say("writing the sheet")
    first = (_primary(multi[max(multi)])[1][0].config if multi else solo[0].config)
    after = edition_seed(base, rounds, top_ups)  # after every deal the sheet played
    toml = edition_toml(sheet.to_json(), sorted(multi) or [1],
                        list(first.strategies) if multi else [],
                        max(plan.games, 1000), after, dict(first.variants),
                        {k: v for k, v in first.overrides.items()},
                        ", ".join(r.label for r in runs))
    n_games = sum(r.config.games for r in runs)
    subtitle = (f"{n_games:,} games from {len(runs)} run(s) ({', '.join(r.label for r in runs)})"
                f"; {sheet.n_changes} change(s), every one planted together on fresh deals")
    paths = write_sheet(out, sheet, "Errata sheet", subtitle, toml)
    return sheet, paths


def agree(a: Sheet, b: Sheet) -> float:
    """Share of lines two sheets agree on within 1 point (the second-seed check)."""
    from bonfire_sim.analysis.errata import lines_agree

    k, n = lines_agree(a, b)
    return k / n if n else 1.0

