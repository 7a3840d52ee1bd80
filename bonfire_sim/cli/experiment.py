"""``bonfire-sim experiment``: run an experiment file's games, then its report."""

from __future__ import annotations

import click


@click.command()
@click.argument("file", metavar="FILE.toml")
@click.option("--jobs", type=int, default=None, help="Worker processes (default: the file's "
              "[run] jobs, else 1).")
@click.option("--no-report", is_flag=True, help="Only run (or resume) the games.")
def experiment(file: str, jobs: int | None, no_report: bool) -> None:
    """Run a declarative experiment (TOML) end to end: games, then the HTML report.

    The [run] table configures the games (its out directory is reused: a finished run is
    not replayed, an interrupted one resumes); [overrides] changes component data or rule
    parameters; [report] sets the page (out, title, and extra run directories to include,
    runs = [...]).

    Example:
        bonfire-sim experiment experiments/start_player.toml --jobs 2
    """
    from tqdm import tqdm

    from bonfire_sim.experiment import run_experiment

    bar = tqdm(unit="game", desc="games", disable=None, smoothing=0.1)

    def progress(done: int, total: int) -> None:
        bar.total = total
        bar.update(done - bar.n)

    try:
        run_dir, page = run_experiment(file, jobs=jobs, report=not no_report,
                                       progress=progress)
    finally:
        bar.close()
    click.echo(f"games in {run_dir}" + (f"; report {page}" if page else ""))
