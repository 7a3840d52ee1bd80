"""``bonfire-sim strength``: every headline answer at every rung of play (thin over
``pipelines.strength``)."""

from __future__ import annotations

import click

from bonfire_sim.cli.options import FILE, progress_callback, quiet_option


@click.command()
@click.argument("ladder_file", type=FILE, metavar="FILE.toml")
@quiet_option
def strength(ladder_file: str, quiet: bool) -> None:
    """Measure each headline answer on a strength ladder and mark whether it converged.

    Plays the same deals at each rung of play (the old hand-weighted mix, the tuned mix,
    the default population with the recommended solo player, and search:N; from
    bonfire_sim/lineup.py), measures the start player's win share and each seat's
    compensation (2-4 players), Tom's win rate and handicap per deck, and with
    probe_games the flagged cards' values, then writes a page with each answer as a curve
    over the rungs, marked converged (the top two rungs agree within the answer's
    tolerance), still moves with strength, or undecided.  Against Tom the top rung plays a
    larger search budget than the recommended solo player; two rungs of the same player
    are never compared.  With search_games = "auto" the search runs are sized from a pilot
    for the marks (at most search_max_games a run) and each mark says what it needed.
    The file's format: docs/howto/strength-ladder.md.  A finished ladder is resumed, not
    replayed.

    Example:

    \b
        bonfire-sim strength experiments/strength-ladder.toml
    """
    from bonfire_sim.infra.progress import Progress
    from bonfire_sim.pipelines.strength import read_strength_file, run_strength

    file = read_strength_file(ladder_file)
    # counted in fast-game equivalents: a search game is worth many (studies.strength)
    with Progress(None, "strength ladder", "fast-game eq.", quiet=quiet) as bar:
        answers, page = run_strength(file, progress=progress_callback(bar), status=bar.write,
                                     quiet=quiet)
    click.echo(f"{len(answers)} figures over {len(file.config.rungs)} rungs; "
               f"tables in {file.out}; report {page}")
