"""``bonfire-sim experiment``: run an experiment file's games, then its report."""

from __future__ import annotations

import click

from bonfire_sim.cli.options import progress_callback, quiet_option


@click.command()
@click.argument("file", metavar="FILE.toml")
@click.option("--jobs", type=int, default=None, help="Worker processes (default: the file's "
              "[run] jobs, else 1).")
@click.option("--no-report", is_flag=True, help="Only run (or resume) the games.")
@quiet_option
def experiment(file: str, jobs: int | None, no_report: bool, quiet: bool) -> None:
    """Run a declarative experiment (TOML) end to end: games, then the HTML report.

    The [run] table configures the games (its out directory is reused: a finished run is
    not replayed, an interrupted one resumes); [overrides] changes component data or rule
    parameters; [report] sets the page (out, title, and extra run directories to include,
    runs = [...]).

    Example:

    \b
        bonfire-sim experiment experiments/start_player.toml --jobs 2
    """
    from bonfire_sim.experiment import run_experiment
    from bonfire_sim.progress import Progress

    bar = Progress(None, "games", "game", quiet=quiet)
    report_bar: list[Progress] = []

    def report_step(done: int, total: int) -> None:
        if not report_bar:  # the games are done: one display at a time
            bar.close()
            report_bar.append(Progress(total, "report", "step", quiet=quiet))
        progress_callback(report_bar[0])(done, total)

    try:
        run_dir, page = run_experiment(
            file, jobs=jobs, report=not no_report, progress=progress_callback(bar),
            status=bar.write, report_progress=report_step)
    finally:
        bar.close()
        for b in report_bar:
            b.close()
    click.echo(f"games in {run_dir}" + (f"; report {page}" if page else ""))
