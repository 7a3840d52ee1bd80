"""The sweep page: one response figure per headline measure against the swept value.

Draw (``response_figure``) and assemble (``sweep_sections``, ``write_sweep_page``) only: the
numbers come from ``analysis.sweep`` (one point's games each, never pooled).  Each figure
has one line per player count (and per value of any further swept setting), each point with
its 95% interval, and the balanced value (``ref``) as a dashed line.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import pandas as pd
from matplotlib.axes import Axes

from bonfire_sim.analysis.sweep import COLUMNS, MEASURES, measure_name
from bonfire_sim.report import figures as F
from bonfire_sim.report import html as H

DODGE = 0.04  # share of the x range between the lines' points, so intervals stay apart


def x_axis(axes: Sequence[str]) -> str:
    """The axis a response is drawn against: the first swept override, else players."""
    return next((a for a in axes if a != "players"), "players")


def _numeric(values: pd.Series) -> bool:
    return bool(pd.to_numeric(values, errors="coerce").notna().all())


def response_figure(resp: pd.DataFrame, measure: str, x: str,
                    ax: Axes | None = None) -> Axes:
    """One measure's rows (``resp``: ``analysis.sweep.response_table``) against ``x``."""
    ax = F._ax(ax, (6.4, 3.8))
    data = resp[resp["measure"] == measure]
    others = [c for c in data.columns if c not in (*COLUMNS, "point", x)]
    group_by = ["players", *others] if x != "players" else others
    numeric = _numeric(data[x])
    levels = sorted(data[x].unique(), key=lambda v: (float(v) if numeric else str(v)))
    pos = {v: (float(v) if numeric else i) for i, v in enumerate(levels)}
    span = (max(pos.values()) - min(pos.values())) or 1.0
    groups = list(data.groupby(group_by, sort=True)) if group_by else [((), data)]
    for k, (key, g) in enumerate(groups):
        key = key if isinstance(key, tuple) else (key,)
        g = g.sort_values(x, key=lambda s: s.map(pos))
        shift = (k - (len(groups) - 1) / 2) * DODGE * span
        xs = g[x].map(pos).to_numpy(float) + shift
        label = ", ".join(f"{'players' if c == 'players' else c}={v}"
                          for c, v in zip(group_by, key, strict=True)) or measure
        ax.errorbar(xs, g["value"], yerr=F._err(g["value"], g["lo"], g["hi"]),
                    marker="o", capsize=3, label=label)
    for ref in data["ref"].dropna().unique():
        ax.axhline(float(ref), ls="--", lw=0.8, color="#777777")
    if not numeric:
        ax.set_xticks(list(pos.values()), [str(v) for v in levels])
    elif len(levels) <= 12:
        ax.set_xticks([pos[v] for v in levels], [str(v) for v in levels])
    family = measure_name(measure)
    title, ylabel, _ = MEASURES[family]
    item = measure.partition(":")[2]
    ax.set_ylabel(f"{item} {ylabel}".strip())
    ax.set_xlabel(_axis_text(x))
    ax.set_title(f"{title}{' of ' + item if item else ''} against {x}")
    if len(groups) > 1 or group_by:
        ax.legend(fontsize=8)
    return ax


def _axis_text(axis: str) -> str:
    """``task_points.Y14`` -> ``task_points.Y14 (printed points of Y14)``."""
    key, _, item = axis.partition(".")
    return f"{axis} (printed points of {item})" if key == "task_points" and item else axis


def _caption(measure: str, x: str, balanced: bool) -> str:
    _, _, what = MEASURES[measure_name(measure)]
    return (f"{what}, against {x}: one point per sweep point and player count, each from "
            f"that point's own games" + ("; dashed: the balanced value." if balanced else "."))


def sweep_sections(resp: pd.DataFrame, axes: Sequence[str], index: pd.DataFrame,
                   notes: Sequence[str] = (),
                   progress: Callable[[int, int], None] | None = None
                   ) -> list[dict[str, Any]]:
    """The page's sections: the response figures (one per measure), the response table,
    and the points with their run directories.  ``progress(done, total)`` per figure."""
    x = x_axis(axes)
    measures = list(dict.fromkeys(resp["measure"]))
    blocks: list[dict[str, Any]] = [H.text_block(
        "Each point of the sweep is its own configuration with its own games; every value "
        "below comes from one point's games only (nothing is pooled across points or "
        "player counts). Read a figure along its x axis: how the measure responds to the "
        "swept setting, one line per player count, with 95% intervals.")]
    blocks += [H.text_block(n) for n in notes]
    for i, m in enumerate(measures):
        balanced = bool(resp.loc[resp["measure"] == m, "ref"].notna().any())
        blocks.append(H.figure_block(F.to_png_base64(response_figure(resp, m, x)),
                                     _caption(m, x, balanced)))
        if progress:
            progress(i + 1, len(measures))
    if not measures:
        blocks.append(H.text_block("No measure could be computed from these runs."))
    extra = [c for c in resp.columns if c not in (*COLUMNS, "point")]
    table = H.table_block(resp, {
        "measure": ("measure", ""), "players": ("players", "d"),
        **{c: (c, "") for c in extra}, "value": ("value", ".3f"), "lo": ("95% lo", ".3f"),
        "hi": ("95% hi", ".3f"), "n": ("n", ","), "ref": ("balanced at", "g")},
        caption="The response, one row per point, player count and measure (n: games, "
                "seats or forks behind the value)")
    points = H.table_block(index, {c: (c, "") for c in index.columns},
                           caption="Points of the sweep and their run directories")
    return [{"id": "response", "title": "Response to the swept settings", "blocks": blocks,
             "absent": None},
            {"id": "points", "title": "Response table and points",
             "blocks": [table, points], "absent": None}]


def write_sweep_page(out: str | Path, title: str, subtitle: str,
                     sections: Sequence[Mapping[str, Any]]) -> Path:
    """Render and write the page atomically (the report's template and writer)."""
    return H.write(out, H.render(title, subtitle, sections))

