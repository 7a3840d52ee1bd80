"""``bonfire-sim errata``: one verified errata sheet from finished runs."""

from __future__ import annotations

from collections.abc import Callable

import click

from bonfire_sim.cli.options import (
    DIR,
    FILE,
    Budget,
    estimate_top_up_options,
    progress_callback,
    quiet_option,
)
from bonfire_sim.config import MAX_GAMES


@click.command()
@click.argument("run_dirs", type=DIR, nargs=-1, required=True, metavar="RUN_DIR...")
@click.option("--out", "out", type=DIR, required=True, metavar="DIR",
              help="Folder for errata.html, errata.md, errata.json, edition.toml and the "
                   "fresh runs (fresh/).")
@click.option("--targets", "targets_file", type=FILE, default=None, metavar="FILE.toml",
              help="A TOML file (e.g. the experiment file) whose [targets] table sets the "
                   "targets [default: seats within 1.5 pp, tasks and gnomes within 1 "
                   "point, Tom within 3 points].")
@click.option("--probe-games", type=Budget(0, MAX_GAMES), default=300, show_default=True,
              help="Games per run forked for today's task and gnome values (0: none); "
                   "every row still too wide is then topped up on fresh deals (--top-ups, "
                   "--max-games).")
@estimate_top_up_options
@click.option("--games", type=Budget(2, MAX_GAMES), default=4000, show_default=True,
              help="Fresh games per player count and round (the seats' figures).")
@click.option("--fork-games", type=Budget(0, MAX_GAMES), default=300, show_default=True,
              help="Fresh games per player count and round whose decisions are forked for "
                   "every task (0: seats only).")
@click.option("--focus-games", type=Budget(0, MAX_GAMES), default=1200, show_default=True,
              help="Fresh games per player count and round on which the re-priced cards "
                   "alone are forked (their own intervals).")
@click.option("--check-games", type=Budget(0, MAX_GAMES), default=0,
              help="Fresh games per player count in the check round, which alone says "
                   "verified or not [default: 4 x --games; a seat line needs its whole "
                   "interval inside the tolerance].")
@click.option("--rounds", type=click.IntRange(min=1, max=20), default=3, show_default=True,
              help="Rounds of the joint loop at most (each on new deals), then one check.")
@click.option("--tom-games", type=Budget(0, MAX_GAMES), default=1000, show_default=True,
              help="Fresh solo games per Tom line for its check (0: none).")
@click.option("--seed", type=int, default=None,
              help="First seed of the fresh deals [default: one above the runs' largest].")
@click.option("--jobs", type=click.IntRange(min=1), default=1, show_default=True,
              help="Worker processes for the games and forks.")
@quiet_option
def errata(run_dirs: tuple[str, ...], out: str, targets_file: str | None, probe_games: int,
           games: int, fork_games: int, focus_games: int, check_games: int, rounds: int,
           tom_games: int, max_games: int, top_ups: int,
           seed: int | None, jobs: int, quiet: bool) -> None:
    """One verified errata sheet: everything to print, planted together on fresh deals.

    Measures today's edition from the runs (seats from their games, tasks and gnomes
    from engine forks on the runs' games, every row too wide to tell topped up on fresh
    deals as 'values' and 'reprice' do: tasks to 0.6 x the margin, gnomes to the margin,
    at most --max-games per card), proposes seat points per player count and ONE printed value per
    task that misses its target with confidence, plants all of them together at every
    player count of the runs on fresh deals, re-measures every target and moves the set
    until nothing moves, then verifies it on new deals.  Solo runs add Tom's starting
    handicap per Tom-deck reading.  Writes errata.html (printable), errata.md,
    errata.json and edition.toml (plays the new edition).  See docs/howto/errata.md.

    Example:

    \b
        bonfire-sim errata runs/p2 runs/p3 runs/p4 runs/solo --out reports/errata
        bonfire-sim errata runs/demo --out reports/errata --games 2000 --jobs 2
        bonfire-sim errata runs/p4 --out e --targets experiments/errata.toml --seed 900
    """
    from bonfire_sim.analysis.errata_measure import FreshPlan
    from bonfire_sim.analysis.targets import read_targets
    from bonfire_sim.config import check_seed, read_toml
    from bonfire_sim.infra.progress import Steps
    from bonfire_sim.pipelines.errata import errata as run_errata

    if seed is not None:
        check_seed(seed, "--seed")
    targets = None
    if targets_file is not None:
        doc = read_toml(targets_file, "targets file")
        targets = read_targets(doc.get("targets"), targets_file)
    plan = FreshPlan(games=games, fork_games=fork_games, focus_games=focus_games, jobs=jobs,
                     check_games=check_games)
    with Steps(quiet=quiet) as steps:
        def step(desc: str, total: int | None, unit: str) -> Callable[[int, int], None]:
            return progress_callback(steps.start(f"errata: {desc}", total, unit))

        sheet, paths = run_errata(list(run_dirs), out, targets=targets, plan=plan,
                                  probe_games=probe_games, rounds=rounds, seed=seed,
                                  tom_games=tom_games, max_games=max_games,
                                  top_ups=top_ups, quiet=quiet, step=step,
                                  status=lambda line: steps.write(f"errata: {line}"))
    said = {True: "verified", False: "NOT verified"}
    click.echo(f"{sheet.n_changes} change(s); "
               + "; ".join(f"{x['component']} {x['item']}: {x['today']} -> {x['proposed']} "
                           f"({said.get(x['verified'], 'not resolved')})"
                           for x in sheet.lines()))
    for kind, path in paths.items():
        click.echo(f"wrote {path}" if kind != "toml" else f"wrote {path} (the new edition)")
