"""``bonfire-sim replay``: play one seeded game and print it move by move."""

from __future__ import annotations

import click

from bonfire_sim.cli.options import seed_option


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
    default="random",
    show_default=True,
    metavar="NAME[,NAME...]",
    help="One strategy per human seat, comma-separated; a single name plays every seat.",
)
@click.option(
    "--json",
    "json_out",
    metavar="FILE|-",
    default=None,
    help="Write the events and the result as JSON to FILE ('-' = stdout) instead of the "
    "narrated game.",
)
@click.option("--run", "run_dir", metavar="DIR", default=None,
              help="Replay a game of this finished run (its seed, seats, strategies and "
              "overrides); needs --game. --seed/--players/--strategies are then ignored.")
@click.option("--game", "game_id", type=int, default=None, metavar="ID",
              help="Game id within --run (the ids the reports list).")
def replay(seed: int, players: int, strategies: str, json_out: str | None,
           run_dir: str | None, game_id: int | None) -> None:
    """Play one seeded game and narrate it: every move with what it paid and gained,
    Tom's turns in solo, board snapshots after each ignite, and the final scoring.

    The same seed and strategies always give the same game.

    Example:

    \b
        bonfire-sim replay --seed 1 --players 4

    \b
        bonfire-sim replay --seed 7 --players 1 --json game.json

    \b
        bonfire-sim replay --run runs/p4 --game 12
    """
    from bonfire_sim.errors import ConfigError
    from bonfire_sim.sim.narrate import narrate

    if (run_dir is None) != (game_id is None):
        raise ConfigError("--run and --game go together: give both to replay a run's game")
    if run_dir is not None and game_id is not None:
        from bonfire_sim.sim.rungame import game_spec, replay_game

        spec = game_spec(run_dir, game_id)
        click.echo(f"game {spec.game_id} of {run_dir}: deal {spec.deal}, rotation "
                   f"{spec.rotation}, seed {spec.seed}, strategies "
                   f"{', '.join(spec.strategies)}, overrides {spec.overrides or 'none'}",
                   err=True)
        record = replay_game(run_dir, game_id)
    else:
        from bonfire_sim.sim.play import play

        record = play(seed, players, strategies)
    if json_out is None:
        click.echo("\n".join(narrate(record)))
    elif json_out == "-":
        click.echo(record.to_json(), nl=False)
    else:
        with open(json_out, "w", encoding="utf-8") as fh:
            fh.write(record.to_json())
        click.echo(f"Wrote {len(record.events)} events to {json_out}", err=True)
