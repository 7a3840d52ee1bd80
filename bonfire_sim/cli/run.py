"""``bonfire-sim run``: a seeded batch of games to Parquet (thin over sim.runner)."""

from __future__ import annotations

import os

import click

from bonfire_sim.cli.options import (
    DIR,
    FILE,
    announce_compile,
    backend_options,
    interrupted,
    progress_callback,
    quiet_option,
    variant_option,
    warm_engine,
)
from bonfire_sim.lineup import default_help


@click.command()
@click.option("--games", type=int, default=1000, show_default=True, help="Games to play.")
@click.option("--players", type=int, default=4, show_default=True,
              help="Human seats 1..4 (1 = solo against Tom).")
@click.option("--strategies", default="", metavar="A,B,...",
              help="Player spec per seat (one = all seats): a built-in name, "
                   "name@weights.toml, search:N or package.module:Class. "
                   + default_help())
@click.option("--seat-rotation", is_flag=True,
              help="Play every deal in each cyclic rotation of the seats.")
@click.option("--seed", type=int, default=0, show_default=True, help="Master seed.")
@click.option("--jobs", type=int, default=1, show_default=True,
              help="Worker processes (-1 = every core; never more than chunks).")
@click.option("--turn-log", default="none", show_default=True, metavar="none|sample:F|all",
              help="Keep a per-turn log for no, a fraction F of, or all games.")
@click.option("--chunk-size", type=int, default=500, show_default=True,
              help="Games per chunk (unit of work, checkpoint and resume).")
@click.option("--out", "out", type=DIR, default="runs/latest", show_default=True,
              help="Run directory.")
@click.option("--resume", is_flag=True, help="Complete an interrupted run in --out.")
@click.option("--replace-stale", is_flag=True,
              help="If --out holds this run made by another engine (the rules, players or "
                   "libraries changed since), delete its games and play them afresh "
                   "instead of refusing (make demo uses it).")
@click.option("--config", "config_file", type=FILE, default=None, metavar="FILE.toml",
              help="Experiment file; its [run] table replaces the options above.")
@click.option("--move-timeout", type=float, default=None, metavar="SECONDS",
              help="Stop with an error when a plug-in seat takes longer than this per move "
                   "(default: no limit).")
@variant_option
@backend_options
@quiet_option
def run(games: int, players: int, strategies: str, seat_rotation: bool, seed: int, jobs: int,
        turn_log: str, chunk_size: int, out: str, resume: bool, replace_stale: bool,
        config_file: str | None, move_timeout: float | None,
        variants: dict[str, str], quiet: bool) -> None:
    """Play GAMES seeded games and write games/players (and turns) Parquet to --out.

    Game i depends only on (configuration, seed, i): any --jobs or backend gives
    identical tables.  Chunks are written atomically; an interrupted run completes with
    --resume without recomputing finished chunks.  --variant selects readings of
    uncertain facts; they are part of the run's configuration (manifest.json).

    Example:

    \b
        bonfire-sim run --games 100000 --players 4 --seat-rotation --jobs 2 --out runs/p4

    \b
        bonfire-sim run --games 2000 --players 1 --variant tom_deck=gnome --out runs/gnome
    """
    announce_compile(quiet)  # first: the imports below take a second on a busy machine
    from dataclasses import replace
    from pathlib import Path

    from bonfire_sim.infra import budget
    from bonfire_sim.infra.progress import Progress
    from bonfire_sim.pipelines.experiment import load_experiment
    from bonfire_sim.sim.runconfig import RunConfig
    from bonfire_sim.sim.runner import check_run_dir
    from bonfire_sim.sim.runner import run as run_games
    from bonfire_sim.strategies.specs import split_specs

    if config_file:
        config, extra = load_experiment(config_file)
        if variants:  # --variant on top of the file's [variants]
            config = replace(config, variants={**config.variants, **variants})
        out = extra.get("out", out)
        jobs = extra.get("jobs", jobs)
        move_timeout = extra.get("move_timeout", move_timeout)
    else:
        names = tuple(split_specs(strategies))
        config = RunConfig(games=games, players=players, strategies=names,
                           seat_rotation=seat_rotation, seed=seed, turn_log=turn_log,
                           chunk_size=chunk_size, variants=variants)
    from bonfire_sim.analysis.headline import headline

    if not quiet:  # a long run says what it costs, once its folder is checked
        if not replace_stale:  # (a stale run is deleted first, then checked)
            check_run_dir(Path(out), config, resume)
        per_game = budget.RUN_BYTES_PER_GAME + (
            budget.TURN_LOG_BYTES_PER_GAME if config.turn_log != "none" else 0)
        budget.announce(config.games, jobs if jobs > 0 else os.cpu_count() or 1,
                        lambda line: click.echo(line, err=True),
                        disk=config.games * per_game)
    try:
        warm_engine(quiet)  # before the games' clock starts: their rate leaves it out
        with Progress(config.games, "games", "game", quiet=quiet) as bar:
            path = run_games(config, out, jobs=jobs, resume=resume,
                             progress=progress_callback(bar), status=bar.write,
                             move_timeout=move_timeout, replace_stale=replace_stale)
    except KeyboardInterrupt:
        raise interrupted(f"finished chunks are kept in {out}: add --resume to "
                          f"complete the run") from None
    click.echo(f"wrote {config.games} games to {path} (games.parquet, players.parquet"
               f"{', turns/' if config.turn_log != 'none' else ''})")
    head = headline(path, config)
    click.echo(head.text())
    if head.replay_note():
        click.echo(head.replay_note(), err=True)
