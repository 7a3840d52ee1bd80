"""``bonfire-sim report``: one self-contained HTML balance report from run directories."""

from __future__ import annotations

import sys

import click

from bonfire_sim.cli.options import (
    DIR,
    FILE,
    Budget,
    FiniteFloat,
    backend_options,
    progress_callback,
    quiet_option,
)
from bonfire_sim.config import MAX_GAMES, MAX_POINTS


@click.command()
@click.argument("run_dirs", type=DIR, nargs=-1, required=True, metavar="RUN_DIR [RUN_DIR ...]")
@click.option("--out", "out", type=FILE, default="reports/report.html", show_default=True,
              help="HTML file to write (figures and CSS inline; no network needed).")
@click.option("--title", default="Bonfire balance report", show_default=True,
              help="Page title.")
@click.option("--sensitivity", "sensitivity", type=FILE, default=None, metavar="FILE.json",
              help="Show this `bonfire-sim sensitivity --json` table in the method section.")
@click.option("--skill-depth", "skill_depth", type=FILE, default=None, metavar="FILE.json",
              help="Show this skill-depth matrix (`bonfire-sim ladder --skill-depth --out`) "
                   "as its own section.")
@click.option("--errata", "errata", type=FILE, default=None, metavar="FILE.json",
              help="Open the report with this errata sheet's four answer cards "
                   "(`bonfire-sim errata --out DIR` writes DIR/errata.json): verified on "
                   "fresh deals, where the report's own cards are not.")
@click.option("--probe-games", type=Budget(1, MAX_GAMES), default=2000, show_default=True,
              help="Games per run whose decisions are forked for the task and gnome values "
              "(cached in the user cache directory, never in the run).")
@click.option("--measure-cards", is_flag=True,
              help="Top up every task and gnome row still wider than the margin on fresh "
                   "deals of the same game, each on the games its interval needs (as "
                   "`bonfire-sim values`): minutes per player count, every card measured or "
                   "marked.")
@click.option("--margin", type=FiniteFloat(0, MAX_POINTS), default=1.0,
              show_default=True,
              help="Practical margin in points: smaller differences are never flagged.")
@click.option("--jobs", type=int, default=1, show_default=True,
              help="Worker processes for the forks (-1 = every core).")
@backend_options
@quiet_option
def report(run_dirs: tuple[str, ...], out: str, title: str, sensitivity: str | None,
           skill_depth: str | None, errata: str | None, probe_games: int,
           measure_cards: bool, margin: float,
           jobs: int, quiet: bool) -> None:
    """Build an HTML balance report from finished runs' Parquet tables.

    Sections: answers first (the four questions in plain sentences with the changes to
    make), then overview (which configuration groups the report holds), start-player
    advantage and compensation, task values and gnome strength (engine forks, per player
    count), Tom difficulty (from solo runs) and method/caveats (the assumptions in force
    and, with --sensitivity, how much the figures move under other readings) and, with
    --skill-depth, the graded-skill win matrix; a section without data says so.  Runs
    that differ only in their players are the populations of one configuration: the
    answers mark each headline figure as holding in every population or not.  Runs that
    play different games (player count, players, overrides, variants) are groups shown
    side by side, never pooled; two runs of the same deals are refused before any work.

    Example:

    \b
        bonfire-sim report runs/p4 runs/solo --out reports/p4.html

    \b
        bonfire-sim report runs/p4-tuned runs/p4-old --skill-depth skill.json

    \b
        bonfire-sim report runs/p4 --probe-games 400 --measure-cards --jobs 2
    """
    from bonfire_sim.infra.progress import Heartbeat, Progress
    from bonfire_sim.report.build import STEPS, build_report
    from bonfire_sim.sim.runner import resolve_jobs

    jobs = resolve_jobs(jobs)
    probes: object = probe_games
    if measure_cards:
        from bonfire_sim.analysis.cards.probes import ProbeSettings

        probes = ProbeSettings(games=probe_games, survey=True)
    command = " ".join(["bonfire-sim", *sys.argv[1:]]) if sys.argv else None
    # The step bar counts sections; the heartbeat names the current one (which run, which
    # section, how many forks) and repeats it every 5 s in a log.
    with Progress(STEPS, "report", "step", quiet=quiet) as bar, \
            Heartbeat("report", quiet=quiet, write=bar.write, note=bar.note) as beat:
        path = build_report(run_dirs, out, title=title, sensitivity=sensitivity,
                            skill_depth=skill_depth, errata=errata, probes=probes,
                            margin=margin,
                            command=command, jobs=jobs,
                            progress=progress_callback(bar), quiet=quiet, status=beat.step)
    click.echo(f"wrote {path}")
