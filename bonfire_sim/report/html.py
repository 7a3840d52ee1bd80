"""Assembly: turn section descriptions into one self-contained HTML page (no statistics).

A section is a dict ``{"id", "title", "absent": str | None, "blocks": [...]}``; a block is
one of ``{"kind": "text", "text"}``, ``{"kind": "heading", "text", "id"}`` (a sub-heading,
e.g. one configuration group), ``{"kind": "links", "links": [(href, text)]}``,
``{"kind": "figure", "png", "caption", "warning"}`` or ``{"kind": "table", "headers",
"rows", "caption", "collapse"}``.  ``table_block`` formats a frame; a table longer than
``COLLAPSE_ROWS`` is folded into a ``<details>`` element (every row is in the page, and
the print stylesheet opens them all).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import jinja2
import pandas as pd

from bonfire_sim.infra import fileio
from bonfire_sim.infra.numtext import number

TEMPLATES = Path(__file__).resolve().parent / "templates"
COLLAPSE_ROWS = 25  # longer tables are folded (open on click, always open in print)


def _fmt(value: Any, spec: str) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "–"
    if spec and isinstance(value, int | float) and not isinstance(value, bool):
        if spec.endswith("d") and isinstance(value, float) and value.is_integer():
            value = int(value)  # an integer column that picked up a NaN row became float
        return format(value, spec) if isinstance(value, int) else number(value, spec)
    return str(value)


def table_block(frame: pd.DataFrame, columns: Mapping[str, tuple[str, str]],
                caption: str = "", row_class: str | None = None) -> dict[str, Any]:
    """A table block from ``frame``; ``columns`` maps column -> (header, format spec).

    ``row_class`` names a column whose value becomes each row's CSS class (e.g. a flag).
    """
    rows = []
    for rec in frame.to_dict("records"):
        cls = str(rec.get(row_class, "")) if row_class else ""
        rows.append({"cls": cls.replace(" ", "-"),
                     "cells": [_fmt(rec.get(c), spec) for c, (_, spec) in columns.items()]})
    return {"kind": "table", "headers": [h for h, _ in columns.values()], "rows": rows,
            "caption": caption, "collapse": len(rows) > COLLAPSE_ROWS}


def text_block(text: str, cls: str = "") -> dict[str, Any]:
    return {"kind": "text", "text": text, "cls": cls}


def heading_block(text: str, anchor: str = "") -> dict[str, Any]:
    """A sub-heading inside a section (``anchor``: its id, for links)."""
    return {"kind": "heading", "text": text, "id": anchor}


def links_block(links: Sequence[tuple[str, str]], lead: str = "") -> dict[str, Any]:
    """A line of in-page links, ``[(href, text)]``."""
    return {"kind": "links", "lead": lead, "links": [{"href": h, "text": t} for h, t in links]}


def figure_block(png: str, caption: str, warning: Mapping[str, Any] | None = None,
                 alt: str = "") -> dict[str, Any]:
    return {"kind": "figure", "png": png, "caption": caption, "alt": alt or caption,
            "warning": warning["text"] if warning else None}


def render(title: str, subtitle: str, sections: Sequence[Mapping[str, Any]]) -> str:
    """The report page as one HTML string (figures inline as base64 PNG, CSS inline)."""
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(TEMPLATES),
                             autoescape=jinja2.select_autoescape(["html", "j2"]),
                             trim_blocks=True, lstrip_blocks=True)
    return env.get_template("report.html.j2").render(title=title, subtitle=subtitle,
                                                     sections=sections)


def write(path: str | Path, html: str) -> Path:
    """Write the page atomically: a failed write leaves the previous page intact."""
    return fileio.write_text(path, html)
