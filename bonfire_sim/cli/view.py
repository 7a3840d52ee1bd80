"""``bonfire-sim view``: write a game as one HTML page to step through in a browser."""

from __future__ import annotations

import click

from bonfire_sim.cli.options import (
    DIR,
    FILE,
    plays_search,
    quiet_option,
    seed_option,
    variant_option,
    warm_engine,
)
from bonfire_sim.lineup import default_help


@click.command()
@click.option("--run", "run_dir", type=DIR, metavar="DIR", default=None,
              help="View a game of this finished run (its seed, seats, strategies and "
              "overrides); needs --game. --seed/--players/--strategies are then ignored.")
@click.option("--game", "game_id", type=int, default=None, metavar="ID",
              help="Game id within --run (the ids the reports list).")
@seed_option
@click.option("--players", type=int, default=4, show_default=True,
              help="Number of players 1..4 (1 = solo against Tom).")
@click.option("--strategies", default=None, metavar="NAME[,NAME...]",
              help="One strategy per human seat, comma-separated; a single name plays "
              "every seat. " + default_help())
@variant_option
@click.option("--out", type=FILE, default="game.html", show_default=True, metavar="FILE.html",
              help="The page to write.")
@quiet_option
def view(run_dir: str | None, game_id: int | None, seed: int, players: int,
         strategies: str | None, variants: dict[str, str], out: str, quiet: bool) -> None:
    """Write one game as a self-contained HTML page (no network): the islands, the
    Great Bonfire, the council and every city after each decision, with the narration
    beside the board. Step with the buttons or the arrow keys, jump to a round or to a
    seat's turns.

    The page replays the game's own decisions with the rules engine, so what it draws
    is the engine's state; it ends with the game's final scoring table.

    Example:

    \b
        bonfire-sim view --seed 1 --players 4 --out game.html
        bonfire-sim view --run runs/p4 --game 12 --out game12.html

    \b
        bonfire-sim view --seed 7 --players 1 --variant tom_deck=gnome --out solo.html
    """
    from bonfire_sim.sim import warm

    # One game as plain Python takes seconds where compiling on a cold cache takes minutes.
    if plays_search(players, strategies, run_dir):  # compiles first, said at once
        warm_engine(quiet)
    elif not warm.is_warm():
        warm.disable_jit()
    from bonfire_sim.infra import fileio
    from bonfire_sim.infra.progress import status
    from bonfire_sim.report.view import view_game, write_view

    fileio.check_output_file(out)
    game = view_game(run_dir=run_dir, game_id=game_id, seed=seed, players=players,
                     strategies=strategies, variants=variants)
    path = write_view(game, out)
    status(f"Wrote {game.title} ({len(game.record.events)} events) to {path}", quiet=quiet)
