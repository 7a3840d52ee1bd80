"""``bonfire-sim replay``: play one seeded game and print it move by move."""

from __future__ import annotations

import click

from bonfire_sim.cli.options import (
    DIR,
    FILE_OR_DASH,
    plays_search,
    seed_option,
    variant_option,
    warm_engine,
)
from bonfire_sim.lineup import default_help


@click.command()
@seed_option
@click.option(
    "--players",
    type=int,
    default=4,
    show_default=True,
    help="Number of players 1..4 (1 = solo against Tom).",
)
@click.option(
    "--strategies",
    default=None,
    metavar="NAME[,NAME...]",
    help="One strategy per human seat, comma-separated; a single name plays every seat. "
    + default_help(),
)
@click.option(
    "--json",
    "json_out",
    type=FILE_OR_DASH,
    metavar="FILE|-",
    default=None,
    help="Write the events and the result as JSON to FILE ('-' = stdout) instead of the "
    "narrated game.",
)
@variant_option
@click.option("--no-warm", is_flag=True,
              help="Do not compile the engine in the background after a cold start.")
@click.option("--run", "run_dir", type=DIR, metavar="DIR", default=None,
              help="Replay a game of this finished run (its seed, seats, strategies and "
              "overrides); needs --game. --seed/--players/--strategies are then ignored.")
@click.option("--game", "game_id", type=int, default=None, metavar="ID",
              help="Game id within --run (the ids the reports list).")
def replay(seed: int, players: int, strategies: str | None, json_out: str | None,
           variants: dict[str, str], no_warm: bool, run_dir: str | None,
           game_id: int | None) -> None:
    """Play one seeded game and narrate it: every move with what it paid and gained,
    Tom's turns in solo, board snapshots after each ignite, and the final scoring.

    The same seed and strategies always give the same game.

    Example:

    \b
        bonfire-sim replay --seed 1 --players 4
        bonfire-sim replay --seed 7 --players 1 --json game.json

    \b
        bonfire-sim replay --seed 7 --players 1 --variant tom_deck=gnome

    \b
        bonfire-sim replay --run runs/p4 --game 12
    """
    from bonfire_sim.sim import warm

    # On a cold cache one game as plain Python takes about a second where compiling
    # would take minutes; the game is the same either way (tests/test_golden.py).
    search = plays_search(players, strategies, run_dir)
    cold = not warm.is_warm() and not search and warm.disable_jit()
    if search:  # a search player compiles first (said at once, with progress)
        warm_engine(quiet=False)
    from bonfire_sim.catalog import variants_line
    from bonfire_sim.errors import ConfigError
    from bonfire_sim.infra import fileio
    from bonfire_sim.sim.narrate import narrate
    from bonfire_sim.sim.play import play

    if json_out not in (None, "-"):
        fileio.check_output_file(json_out)

    if (run_dir is None) != (game_id is None):
        raise ConfigError("--run and --game go together: give both to replay a run's game")
    if run_dir is not None and game_id is not None:
        from bonfire_sim.sim.rungame import game_spec, replay_game

        spec = game_spec(run_dir, game_id)
        variants = spec.variants
        click.echo(f"game {spec.game_id} of {run_dir}: deal {spec.deal}, rotation "
                   f"{spec.rotation}, seed {spec.seed}, strategies "
                   f"{', '.join(spec.strategies)}, overrides {spec.overrides or 'none'}",
                   err=True)
        record = replay_game(run_dir, game_id)
    else:
        record = play(seed, players, strategies, variants=variants)
    if json_out is None:
        click.echo(f"Variants in force: {variants_line(variants)}")
        click.echo("\n".join(narrate(record)))
    elif json_out == "-":
        click.echo(record.to_json(), nl=False)
    else:
        fileio.write_text(json_out, record.to_json())
        click.echo(f"Wrote {len(record.events)} events to {json_out}", err=True)
    if cold and not no_warm:
        warm.warm_in_background()  # so that the next batch command finds compiled kernels
