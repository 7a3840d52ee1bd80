"""``bonfire-sim bench``: games/s for fixed, documented scenarios."""

from __future__ import annotations

import click


@click.command()
@click.option("--games", type=int, default=3000, show_default=True,
              help="Games per scenario and measurement.")
@click.option("--jobs", type=int, default=2, show_default=True,
              help="Workers for the end-to-end runner measurement.")
@click.option("--quick", is_flag=True, help="Only the in-process figures (no runner).")
@click.option("--per-strategy", is_flag=True,
              help="Instead: each built-in strategy in 4-player self-play on one core "
                   "(games/s, share of stalled games, mean winning score).")
def bench(games: int, jobs: int, quick: bool, per_strategy: bool) -> None:
    """Measure engine speed on fixed scenarios (after a warm-up, compile time excluded).

    Scenarios: random and the default strategy mix, 2 and 4 players, turn log off and on.
    Columns: games/s of the engine on one core (in-process, tables built, no files) and of
    the full runner with --jobs workers (Parquet written, merged), and the latter per core.

    Example:
        bonfire-sim bench --games 3000 --jobs 2
        bonfire-sim bench --per-strategy --games 2000
    """
    import os
    import platform

    from bonfire_sim.config import check_count
    from bonfire_sim.sim.bench import (
        scenarios,
        strategy_scenarios,
        time_in_process,
        time_runner,
        time_self_play,
    )
    from bonfire_sim.sim.runner import resolve_jobs

    check_count("--games", games, lo=10, hi=1_000_000)
    jobs = resolve_jobs(jobs)
    click.echo(f"machine: {platform.processor() or platform.machine()}, "
               f"{os.cpu_count()} cores, python {platform.python_version()}")
    if per_strategy:
        header = f"{'scenario':30} {'1 core g/s':>11} {'stalled':>8} {'mean winning score':>19}"
        click.echo(header)
        click.echo("-" * len(header))
        for sc in strategy_scenarios(4):
            t = time_self_play(sc, games)
            click.echo(f"{sc.name:30} {t.games_per_s:11.0f} {t.stalled:8.3f} "
                       f"{t.mean_winning_score:19.1f}")
        return
    header = f"{'scenario':38} {'1 core g/s':>11} {'runner g/s':>11} {'per core':>9}"
    click.echo(header)
    click.echo("-" * len(header))
    for sc in scenarios():
        one = time_in_process(sc, games)
        if quick:
            click.echo(f"{sc.name:38} {one:11.0f} {'-':>11} {'-':>9}")
            continue
        par = time_runner(sc, games, jobs)
        click.echo(f"{sc.name:38} {one:11.0f} {par:11.0f} {par / jobs:9.0f}")
