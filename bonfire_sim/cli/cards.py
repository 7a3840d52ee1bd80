"""``bonfire-sim cards``: print the component data as tables."""

from __future__ import annotations

import click

from bonfire_sim.cli.options import emit_rows, format_option


@click.command()
@click.option(
    "--kind",
    default="tasks",
    show_default=True,
    metavar="[tasks|gnomes|council]",
    help="Which cards: the 66 tasks, the 33 gnomes, or the 8 council spaces plus the 5 "
    "common tasks.",
)
@format_option
def cards(kind: str, fmt: str) -> None:
    """List the game's cards with the provenance of their data.

    Provenance is text (the rulebook says so), inferred or assumed (see
    bonfire_sim/rules/components.py, the one place to correct a value).

    Example:

    \b
        bonfire-sim cards --kind gnomes --format csv
    """
    from bonfire_sim.catalog import cards_table

    emit_rows(cards_table(kind), fmt)
