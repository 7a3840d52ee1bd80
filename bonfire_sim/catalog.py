"""Flat, printable views of the component data in ``bonfire_sim.rules.components``.

Each view is a list of dicts with the same keys in every row (tidy rows, ready for a
table, CSV or JSON).  ``provenance`` is the weakest tag among the row's facts
(``text`` > ``inferred`` > ``assumed``, see the components module); task and gnome rows
also give it per field (``prov_*``: which numbers are the rulebook's and which guesses).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from bonfire_sim.errors import ConfigError
from bonfire_sim.rules import components as C

RANK = {"text": 0, "inferred": 1, "assumed": 2}


def weakest(fields: Mapping[str, str]) -> str:
    """The weakest provenance among a row's fields ("" fields do not count)."""
    return max((v for v in fields.values() if v), key=RANK.__getitem__, default="text")


def _prov_columns(fields: Mapping[str, str]) -> dict[str, str]:
    return {f"prov_{k}": (v or "-") for k, v in fields.items()}


# Council bonuses and common tasks follow the rulebook text; the council order is assumed.
COUNCIL_PROVENANCE = "assumed"
COMMON_PROVENANCE = "text"


def task_field_provenance(task: C.Task) -> dict[str, str]:
    """{field: provenance} of one task card: ``tier``, ``condition``, ``depicted`` ("" when
    the card shows no parameter) and ``points``; the facts behind each tag are in
    ``components`` (the comment above ``TASK_CONDITIONS_NOT_IN_TEXT``)."""
    depicted = task.kind in C.DEPICTED_KINDS or (task.kind == C.TaskKind.FATE_GROUPS
                                                 and task.a >= 0)
    return {"tier": "text",
            "condition": "assumed" if task.id in C.TASK_CONDITIONS_NOT_IN_TEXT else "text",
            "depicted": "assumed" if depicted else "",
            "points": task.provenance}


def gnome_field_provenance(kind: str, ability: int) -> dict[str, str]:
    """{field: provenance} of one gnome (issue 39): the ability ``text`` and its
    ``amounts`` (points, gold, tiles, steps) are Appendix III [text]; the ``resource``
    icon is [assumed] (RULINGS 8); ``depicted``: the guardian colour of specialists
    10-13 [assumed], "" for the rest."""
    depicted = kind == "specialist" and ability in C.DEPICTED_GUARDIAN_SPECIALISTS
    return {"text": "text", "amounts": "text", "resource": "assumed",
            "depicted": "assumed" if depicted else ""}


def task_rows() -> list[dict]:
    """One row per task card: id, colour, points, condition, the weakest provenance and
    one per field (``prov_tier``: colour and point range, ``prov_condition``,
    ``prov_depicted``: a resource, guardian, symbols or tiles shown, "-" for none,
    ``prov_points``: the exact points within the tier)."""
    rows = []
    for t in C.TASKS:
        fields = task_field_provenance(t)
        rows.append({"id": t.id, "colour": t.colour, "points": t.points,
                     "condition": t.text, "provenance": weakest(fields),
                     **_prov_columns(fields)})
    return rows


def _gnome_provenance(kind: str, ability: int) -> dict[str, str]:
    fields = gnome_field_provenance(kind, ability)
    return {"provenance": weakest(fields), **_prov_columns(fields)}


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
                **_gnome_provenance("specialist", ability),
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
                **_gnome_provenance("elder", i + 1),
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


def _cells(cells: tuple[C.Cell, ...]) -> str:
    return " ".join(f"({r},{c})" for r, c in cells)


def describe_value(fact: str, value: Any) -> str:
    """A variant's value in one line."""
    if fact == "tom_deck":
        return ", ".join(card + ("(g)" if reveal else "") for card, reveal in value)
    if fact == "fate_area":
        from bonfire_sim.rules.fate_capacity import max_extra_tiles

        return (f"{value.rows} x {value.cols}; start {_cells(value.start_cells)}; gold "
                f"{_cells(value.gold_cells)}; yellow {_cells(value.yellow_cells)}; "
                f"highlighted {_cells(value.highlighted)}; outer columns "
                f"{value.outer_columns[0]},{value.outer_columns[1]}; holds "
                f"{max_extra_tiles(value, C.FATE_SUPPLY)} of the {C.FATE_SUPPLY} column tiles")
    return " ".join(str(v) for v in value)


def variant_rows(variants: Mapping[str, str] | None = None) -> list[dict]:
    """Every named variant of the uncertain facts; ``in_force`` marks the chosen ones."""
    chosen = C.resolve_variants(variants)
    return [{"fact": v.fact, "variant": v.name, "in_force": chosen[v.fact] == v.name,
             "default": v is vs[0], "value": describe_value(v.fact, v.value),
             "provenance": v.provenance, "why": v.why}
            for vs in C.VARIANTS.values() for v in vs]


def tom_rows(variants: Mapping[str, str] | None = None) -> list[dict]:
    """Tom's 8 cards under the chosen ``tom_deck`` variant."""
    chosen = C.resolve_variants(variants)
    v = C.variant("tom_deck", chosen["tom_deck"])
    return [{"card": i + 1, "action": card, "reveals_gnome": reveal, "deck": v.name,
             "provenance": v.provenance} for i, (card, reveal) in enumerate(v.value)]


def variants_line(variants: Mapping[str, str] | None = None) -> str:
    """``"tom_deck=task1, fate_area=5x5-centre, ..."``: the variants in force, one line."""
    return ", ".join(f"{k}={v}" for k, v in C.resolve_variants(variants).items())


CARD_KINDS: dict[str, Callable[[Mapping[str, str] | None], list[dict]]] = {
    "tasks": lambda variants: task_rows(),
    "gnomes": lambda variants: gnome_rows(),
    "council": lambda variants: council_rows(),
    "tom": tom_rows,
    "variants": variant_rows,
}


def cards_table(kind: str, variants: Mapping[str, str] | None = None) -> list[dict]:
    """Rows for one kind of card: ``tasks``, ``gnomes``, ``council``, ``tom`` (Tom's deck
    under the chosen variants) or ``variants`` (every named variant)."""
    try:
        build = CARD_KINDS[kind]
    except KeyError:
        raise ConfigError(
            f"unknown card kind {kind!r}; expected one of {', '.join(CARD_KINDS)}"
        ) from None
    return build(variants)
