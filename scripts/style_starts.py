"""Write the start rows of the per-style tuning (issue 27): ``tuned``'s row with each
style's plan laid over it.

A style module's ``DEFAULTS`` say how far its plan leans away from ``BASE`` (portal: the
portal weight x2.2, bonus x1.4, ...).  The start row keeps those leans but on ``tuned``'s
row, which knows everything else far better than ``BASE`` does: weight ``k`` of the style =
tuned[k] x style[k] / BASE[k] (the style's own value where BASE is 0).  Plan-specific
extras (``EXTRA``) are set outright: ``tempo`` ignites at once (``ignite_hold`` 0), and
every new row keeps its yellow jokers (``yellow_floor`` 1).

    python scripts/style_starts.py            # writes experiments/tuning/styles/*-start.toml
"""

from __future__ import annotations

import sys
from pathlib import Path

from bonfire_sim.infra import fileio
from bonfire_sim.strategies import STYLE_DEFAULTS, weight_table
from bonfire_sim.strategies.weights import BASE, WEIGHT_NAMES

STYLES = ("portal", "guardian", "planner", "gnome_engine", "tempo")
EXTRA = {"tempo": {"ignite_hold": 0.0}}
COMMON = {"yellow_floor": 1.0}


def start_row(style: str) -> dict[str, float]:
    """``tuned``'s row with ``style``'s leans and extras laid over it."""
    row = weight_table("tuned")
    for k, v in STYLE_DEFAULTS[style].items():
        row[k] = row[k] * v / BASE[k] if BASE[k] else v
    row.update(COMMON)
    row.update(EXTRA.get(style, {}))
    return {k: round(row[k], 4) for k in WEIGHT_NAMES}


def main(out: str = "experiments/tuning/styles") -> None:
    for style in STYLES:
        row = start_row(style)
        text = (f"# start of the {style} tuning: tuned's row with {style}'s plan "
                "(scripts/style_starts.py)\n[weights]\n"
                + "".join(f"{k} = {v}\n" for k, v in row.items()))
        fileio.write_text(Path(out) / f"{style}-start.toml", text)


if __name__ == "__main__":
    main(*sys.argv[1:])
