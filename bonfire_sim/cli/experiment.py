"""``bonfire-sim experiment``: run an experiment file's games, then its report."""

from __future__ import annotations

from collections.abc import Callable

import click

from bonfire_sim.cli.options import FILE, backend_options, progress_callback, quiet_option


@click.command()
@click.argument("file", type=FILE, metavar="FILE.toml")
@click.option("--jobs", type=int, default=None, help="Worker processes for games and forks "
              "(default: the file's [run] jobs for games, [report] jobs for forks, else 1).")
@click.option("--probe-games", type=click.IntRange(min=1), default=None,
              help="Games per run whose decisions are forked for the report (default: the "
              "file's [report] probe_games, else 2000).")
@click.option("--no-report", is_flag=True, help="Only run (or resume) the games.")
@backend_options
@quiet_option
def experiment(file: str, jobs: int | None, probe_games: int | None, no_report: bool,
               quiet: bool) -> None:
    """Run a declarative experiment (TOML) end to end: games, then the HTML report.

    The [run] table configures the games (its out directory is reused: a finished run is
    not replayed, an interrupted one resumes); [overrides] changes component data or rule
    parameters; [report] sets the page (out, title, probe_games, jobs, and extra run
    directories to include, runs = [...]).  List values sweep: players = [2, 4] or
    task_points = { Y14 = [5, 7] } run every combination as its own point, and the report
    is the sweep page (each headline measure against the swept value, per player count).
    Everything is checked before the first game; progress names the point and the step.

    Example:

    \b
        bonfire-sim experiment experiments/start_player.toml --jobs 2
        bonfire-sim experiment experiments/y14_sweep.toml --probe-games 500
    """
    from bonfire_sim.infra.progress import Steps
    from bonfire_sim.pipelines.experiment import run_experiment

    with Steps(quiet=quiet) as steps:
        def step(desc: str, total: int | None, unit: str) -> Callable[[int, int], None]:
            return progress_callback(steps.start(desc, total, unit))

        run_dir, page = run_experiment(file, jobs=jobs, report=not no_report,
                                       probe_games=probe_games, step=step,
                                       status=steps.write)
    click.echo(f"games in {run_dir}" + (f"; report {page}" if page else ""))
