"""``bonfire-sim coverage``: which tasks and abilities self-play reached."""

from __future__ import annotations

import click

from bonfire_sim.cli.options import backend_options, progress_callback, quiet_option, warm_engine


@click.command()
@click.argument("run_dir", required=False)
@click.option("--games", type=int, default=2000, show_default=True,
              help="Games to play when no RUN_DIR is given.")
@click.option("--players", type=int, default=4, show_default=True, help="Players (1..4).")
@click.option("--strategies", default="", metavar="A,B,...", help="Seat strategies.")
@click.option("--seed", type=int, default=0, show_default=True, help="Master seed.")
@click.option("--jobs", type=click.IntRange(min=1), default=1, show_default=True,
              help="Worker processes (on dask: tasks in flight).")
@backend_options
@quiet_option
def coverage(run_dir: str | None, games: int, players: int, strategies: str, seed: int,
             jobs: int, quiet: bool) -> None:
    """Count how often each of the 66 tasks was ignited and each specialist acted.

    Reads RUN_DIR, or plays --games games first (into a temporary directory). Lists the
    tasks never ignited and the abilities that never took effect, then the full tables.

    Example:

    \b
        bonfire-sim coverage --games 5000 --players 4 --seed 1 --jobs 2
    """
    import tempfile

    import pandas as pd

    from bonfire_sim.analysis.coverage import ability_coverage, task_coverage
    from bonfire_sim.infra.progress import Progress
    from bonfire_sim.sim.load import load
    from bonfire_sim.sim.runconfig import RunConfig
    from bonfire_sim.sim.runner import resolve_jobs, run

    jobs = resolve_jobs(jobs)
    source = run_dir
    with tempfile.TemporaryDirectory() as tmp:
        if run_dir is None:
            names = tuple(n.strip() for n in strategies.split(",") if n.strip())
            cfg = RunConfig(games=games, players=players, strategies=names, seed=seed,
                            seat_rotation=False,
                            chunk_size=min(20_000, max(50, games // (4 * jobs))))
            warm_engine(quiet)
            with Progress(games, "games", "game", quiet=quiet) as bar:
                run_dir = str(run(cfg, f"{tmp}/run", jobs=jobs,
                                  progress=progress_callback(bar), status=bar.write))
            # the games were played in a temporary directory, gone when this ends: say
            # who played them instead of naming it
            source = (f"played here: {players} players, {', '.join(cfg.strategies)}, "
                      f"seed {seed}; not kept")
        data = load(run_dir, turns=False, lazy=False)
        tasks = task_coverage(data.players)
        abil = ability_coverage(data.players)
        n = len(data.games)
    click.echo(f"{n} games ({source})")
    missing_t = tasks.loc[tasks["ignited"] == 0, "task"].tolist()
    missing_a = abil.loc[abil["effects"] == 0, "gnome"].tolist()
    click.echo(f"tasks ignited at least once: {66 - len(missing_t)}/66"
               + (f"; never: {', '.join(missing_t)}" if missing_t else ""))
    click.echo(f"specialists/elders that took effect: {33 - len(missing_a)}/33"
               + (f"; never: {', '.join(missing_a)}" if missing_a else ""))
    with pd.option_context("display.max_rows", 100, "display.width", 120):
        click.echo(tasks.set_index("task").T.to_string())
        click.echo(abil.drop(columns="text").set_index("gnome").T.to_string())
