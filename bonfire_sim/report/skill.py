"""The report's skill-depth section: the graded-skill win matrix (``bonfire_sim.studies.skill``).

Read from the JSON document ``bonfire-sim ladder --skill-depth --out`` wrote (``report
--skill-depth FILE``; an experiment's ``[report] skill_depth``): a heat map per player
count and lineup (the stronger side's win share, coloured by its distance from the fair
share), the tidy table with Wilson intervals, and the skill depth per player count.  The
matrix is its own measurement, played under the rules its document records; it is shown
beside the runs, never pooled with them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from bonfire_sim.report import figures as F
from bonfire_sim.report import html as H

TITLE = "Skill depth"


def _section(blocks: list[dict[str, Any]], absent: str | None = None,
             data: dict[str, Any] | None = None) -> dict[str, Any]:
    return {"id": "skill", "title": TITLE, "blocks": blocks, "absent": absent,
            "data": data or {}}


def matrix_heatmaps(matrix: pd.DataFrame) -> Any:
    """One heat map per (player count, lineup): stronger rung (rows) x weaker rung
    (columns), annotated with the stronger side's win share, coloured by its edge."""
    import numpy as np
    import seaborn as sns
    from matplotlib.figure import Figure

    panels = list(matrix.groupby(["players", "lineup"], sort=False))
    rungs = list(dict.fromkeys([*matrix.sort_values("rung_gap")["weaker"],
                                *matrix["stronger"]]))
    order = sorted(rungs, key=lambda r: _rank(matrix, r))
    fig = Figure(figsize=(3.3 * len(panels) + 0.6, 0.45 * len(order) + 1.6), dpi=90)
    axes = np.atleast_1d(fig.subplots(1, len(panels)))
    for ax, ((n, lineup), g) in zip(axes, panels, strict=True):
        def wide(col: str, g: pd.DataFrame = g) -> pd.DataFrame:
            return g.pivot_table(index="stronger", columns="weaker", values=col,
                                 aggfunc="first").reindex(index=order[1:], columns=order[:-1])

        labels = wide("share").map(lambda v: "" if pd.isna(v) else f"{100 * v:.0f}%")
        # Coloured by the edge, so a clean sweep is the same red in every lineup
        sns.heatmap(wide("edge"), annot=labels, fmt="", cmap="vlag", center=0, vmin=-1,
                    vmax=1, ax=ax, cbar=False, annot_kws={"fontsize": 8})
        ax.set_title(f"{n} players, {lineup}\n(fair {float(g['fair'].iloc[0]):.0%})",
                     fontsize=9)
        ax.set_xlabel("weaker rung", fontsize=8)
        ax.set_ylabel("stronger rung", fontsize=8)
        ax.tick_params(labelsize=7)
    fig.tight_layout()
    return axes[0]


def _rank(matrix: pd.DataFrame, rung: str) -> int:
    """A rung's place on the ladder, from the gaps the matrix records."""
    as_strong = matrix[matrix["stronger"] == rung]
    if len(as_strong):
        return int(as_strong["rung_gap"].max())
    return 0


def section_skill(path: str | Path | None, runs_setting: Sequence[str] = (),
                  say: Callable[[str], None] | None = None) -> dict[str, Any]:
    """The section from a stored matrix (``None``: the section says how to make one);
    ``runs_setting``: the report's groups, named beside it; ``say``: the step heartbeat."""
    from bonfire_sim.studies.skill import describe, read_matrix

    if say is not None:
        say("section skill depth")
    if path is None:
        return _section([], "No skill-depth matrix in this report: make one with `bonfire-sim "
                            "ladder --skill-depth --players 2,4 --out skill.json` and pass "
                            "`--skill-depth skill.json` to the report.")
    meta, matrix, summary = read_matrix(path)
    depth = summary[summary["lineup"] == "all lineups"]
    lines = "; ".join(f"{int(r.players)} players {r.edge:.2f}" for r in depth.itertuples())
    per_lineup = summary[summary["lineup"] != "all lineups"]
    shares = "; ".join(f"{int(r.players)} players, {r.lineup}: {100 * r.mean_share:.1f}% "
                       f"(fair {100 * r.fair:.0f}%)" for r in per_lineup.itertuples())
    blocks = [
        H.text_block(f"How much skill decides this game: skill depth {lines}. Skill depth is "
                     f"the mean edge of the stronger player over adjacent rungs, where edge = "
                     f"(win share - fair share) / (1 - fair share): 0 = the stronger rung wins "
                     f"only its fair share, 1 = it wins every game. The mean win share of the "
                     f"stronger side over adjacent rungs: {shares}. A rules change that lowers "
                     f"the skill depth makes the game more a game of luck for these players.",
                     "answer"),
        H.text_block(f"Played: {describe(meta)} (a win shared by k seats counts 1/k). The "
                     f"matrix is its own set of games under the rules named here, shown "
                     f"beside the runs above, never pooled with them."
                     + (f" The runs of this report are: {'; '.join(runs_setting)}."
                        if runs_setting else "")),
        H.figure_block(F.to_png_base64(matrix_heatmaps(matrix)),
                       "Win share of the stronger rung (row) against the weaker (column), per "
                       "player count and lineup; colour: the edge (white: the stronger wins "
                       "only its seats' fair share; deep red: every game; blue: less than "
                       "fair)."),
        H.table_block(summary, {
            "players": ("players", "d"), "lineup": ("lineup", ""),
            "cells": ("adjacent-rung cells", "d"),
            "mean_share": ("mean win share of the stronger", ".3f"), "fair": ("fair", ".3f"),
            "edge": ("mean edge", ".3f"), "ordered": ("cells clearly above fair", "d")},
            caption="Skill depth per player count (the 'all lineups' row is the one number)"),
        H.table_block(matrix, {
            "players": ("players", "d"), "lineup": ("lineup", ""),
            "stronger": ("stronger", ""), "weaker": ("weaker", ""),
            "rung_gap": ("rungs apart", "d"), "deals": ("deals", ","), "games": ("games", ","),
            "share": ("win share of the stronger", ".3f"), "lo": ("95% lo", ".3f"),
            "hi": ("95% hi", ".3f"), "fair": ("fair", ".3f"), "edge": ("edge", "+.3f")},
            caption="Every cell (Wilson 95% intervals over games)"),
    ]
    return _section(blocks, data={"skill": matrix, "skill_summary": summary})
