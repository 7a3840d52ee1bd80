"""Flat, printable views of the component data in ``bonfire_sim.rules.components``.

Each view is a list of dicts with the same keys in every row (tidy rows, ready for a
table, CSV or JSON).  ``provenance`` is the weakest tag among the row's facts
(``text`` > ``inferred`` > ``assumed``, see the components module).
"""

from __future__ import annotations

from collections.abc import Callable

from bonfire_sim.errors import ConfigError
from bonfire_sim.rules import components as C

# Gnome ability texts follow Appendix III; their resources are assumed [RULINGS 8].
GNOME_PROVENANCE = "assumed"
# Council bonuses and common tasks follow the rulebook text; the council order is assumed.
COUNCIL_PROVENANCE = "assumed"
COMMON_PROVENANCE = "text"


def task_rows() -> list[dict]:
    """One row per task card: id, colour, points, condition, provenance."""
    return [
        {
            "id": t.id,
            "colour": t.colour,
            "points": t.points,
            "condition": t.text,
            "provenance": t.provenance,
        }
        for t in C.TASKS
    ]


def gnome_rows() -> list[dict]:
    """One row per gnome: 27 specialists then 6 elders, ids as in the tables (S1..S27,
    E1..E6)."""
    rows = []
    for ability in range(1, C.N_SPECIALISTS + 1):
        rows.append(
            {
                "id": f"S{ability}",
                "kind": "specialist",
                "ability": ability,
                "resource": C.RESOURCES[C.SPECIALIST_RESOURCE[ability - 1]],
                "text": C.SPECIALIST_TEXT[ability],
                "provenance": GNOME_PROVENANCE,
            }
        )
    for i, text in enumerate(C.ELDER_TEXT):
        rows.append(
            {
                "id": f"E{i + 1}",
                "kind": "elder",
                "ability": i + 1,
                "resource": C.RESOURCES[C.ELDER_RESOURCE[i]],
                "text": text,
                "provenance": GNOME_PROVENANCE,
            }
        )
    return rows


def council_rows() -> list[dict]:
    """The 8 council spaces (kind=council, space 1..8) then the 5 common tasks (kind=common)."""
    council = [
        {
            "kind": "council",
            "space": i + 1,
            "id": name,
            "bonus": text,
            "provenance": COUNCIL_PROVENANCE,
        }
        for i, (name, text) in enumerate(C.COUNCIL)
    ]
    common = [
        {
            "kind": "common",
            "space": None,
            "id": name,
            "bonus": text,
            "provenance": COMMON_PROVENANCE,
        }
        for name, text in C.COMMON
    ]
    return council + common


CARD_KINDS: dict[str, Callable[[], list[dict]]] = {
    "tasks": task_rows,
    "gnomes": gnome_rows,
    "council": council_rows,
}


def cards_table(kind: str) -> list[dict]:
    """Rows for one kind of card: ``tasks``, ``gnomes`` or ``council``."""
    try:
        build = CARD_KINDS[kind]
    except KeyError:
        raise ConfigError(
            f"unknown card kind {kind!r}; expected one of {', '.join(CARD_KINDS)}"
        ) from None
    return build()
