"""``bonfire-sim coverage``: which tasks and abilities the players reached, and how they
played (thin over ``pipelines.coverage``)."""

from __future__ import annotations

import click

from bonfire_sim.cli.options import (
    DIR,
    backend_options,
    progress_callback,
    quiet_option,
    warm_engine,
)
from bonfire_sim.lineup import default_help


@click.command()
@click.argument("run_dir", type=DIR, required=False)
@click.option("--games", type=int, default=2000, show_default=True,
              help="Games to play when no RUN_DIR is given.")
@click.option("--players", type=int, default=4, show_default=True, help="Players (1..4).")
@click.option("--strategies", default="", metavar="A,B,...",
              help="Seat player specs (one = all seats). " + default_help())
@click.option("--seed", type=int, default=0, show_default=True, help="Master seed.")
@click.option("--jobs", type=click.IntRange(min=1), default=1, show_default=True,
              help="Worker processes (on dask: tasks in flight).")
@click.option("--search-games", type=click.IntRange(min=0, max=10_000), default=8,
              show_default=True,
              help="Games of search in every seat, on the first deals of the same seed, "
                   "whose mechanism mix is shown next to the players' (0: none).")
@click.option("--search-budget", type=click.IntRange(min=1, max=4096), default=16,
              show_default=True, help="Rollouts per decision of that search player.")
@backend_options
@quiet_option
def coverage(run_dir: str | None, games: int, players: int, strategies: str, seed: int,
             jobs: int, search_games: int, search_budget: int, quiet: bool) -> None:
    """Count how often the players ignited each task and each specialist acted, and show
    how they played.

    Reads RUN_DIR, or plays --games games first (into a temporary directory, turn log
    kept).  Counts the human seats only (in solo, not Tom's tasks); a task the rules take
    out at the player count is listed as not dealt.  Then the mechanism mix per player
    (specialists and elders recruited, guardians walked, actions by type, share of turns
    at the Great Bonfire, points by category, mean per seat-game) next to search's on the
    same seed's first deals.  Every block says who played.

    Example:

    \b
        bonfire-sim coverage --games 5000 --players 4 --seed 1 --jobs 2
        bonfire-sim coverage --games 500 --players 1 --search-games 4
    """
    from bonfire_sim.config import check_count, check_seed
    from bonfire_sim.infra.progress import Progress
    from bonfire_sim.pipelines.coverage import coverage as cover
    from bonfire_sim.sim.runner import resolve_jobs

    check_count("--games", games)
    check_seed(seed, "--seed")
    jobs = resolve_jobs(jobs)
    names = tuple(n.strip() for n in strategies.split(",") if n.strip())
    played = games if run_dir is None else 0
    if played or search_games:
        warm_engine(quiet)  # before the games' clock starts
    with Progress(played + search_games, "games", "game", quiet=quiet) as bar:
        step = progress_callback(bar)
        result = cover(run_dir, games=games, players=players, strategies=names, seed=seed,
                       jobs=jobs, search_games=search_games, search_budget=search_budget,
                       progress=lambda done, _total: step(done, played + search_games),
                       search_progress=lambda done, _total: step(played + done,
                                                                  played + search_games),
                       status=bar.write)
    click.echo("\n".join(result.lines))
