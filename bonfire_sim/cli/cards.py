"""``bonfire-sim cards``: print the component data as tables."""

from __future__ import annotations

import click

from bonfire_sim.catalog import CARD_KINDS
from bonfire_sim.cli.options import emit_rows, format_option, variant_option


@click.command()
@click.option(
    "--kind",
    type=click.Choice(list(CARD_KINDS)),
    default="tasks",
    show_default=True,
    help="Which cards: the 66 tasks, the 33 gnomes, the 8 council spaces plus the 5 "
    "common tasks, Tom's 8 solo cards, or every named variant of an uncertain fact.",
)
@format_option
@variant_option
def cards(kind: str, fmt: str, variants: dict[str, str]) -> None:
    """List the game's cards with the provenance of their data.

    Provenance is text (the rulebook says so), inferred or assumed (see
    bonfire_sim/rules/components.py, the one place to correct a value): `provenance` is
    the weakest of a card's facts, and the prov_* columns give it per field (a task's
    tier, condition, depicted parameter and exact points; a gnome's text, amounts,
    resource icon and depicted guardian), so the rulebook's numbers stand apart from
    the guesses.  The assumed
    facts that decide whole answers have named variants (--kind variants marks those in
    force; --variant chooses, e.g. Tom's deck for --kind tom).

    Example:

    \b
        bonfire-sim cards --kind gnomes --format csv

    \b
        bonfire-sim cards --kind tom --variant tom_deck=guardian
    """
    from bonfire_sim.catalog import cards_table, variants_line

    rows = cards_table(kind, variants)
    if fmt == "table" and kind == "tom":
        click.echo(f"# variants in force: {variants_line(variants)}")
    emit_rows(rows, fmt)
