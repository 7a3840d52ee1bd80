"""``bonfire-sim strategies``: list the built-in strategies."""

from __future__ import annotations

import click

from bonfire_sim.cli.options import emit_rows, format_option


@click.command()
@format_option
def strategies(fmt: str) -> None:
    """List the built-in strategies with a one-line description.

    Plug-ins (pure Python, ``package.module:Class``) are described in the README.

    Example:

    \b
        bonfire-sim strategies --format csv
    """
    from bonfire_sim.strategies import describe

    emit_rows([{"name": n, "description": d} for n, d in describe()], fmt)
