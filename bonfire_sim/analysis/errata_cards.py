"""The errata sheet's one door to the card worth: every use of the card-value API in one
small module, so a redefined worth (a receipt value, a slope-aware price) drops in here.

``card_proposals`` returns the tidy table the sheet reads: one row per task and player
count with the ONE printed value proposed for the card (the same at every count) and each
count's residual.  ``task_table`` measures the task rows of a configuration from its
forks; ``pooled`` and ``next_prices`` are the closed loop's per-card steps (the secant
step of ``reprice``).  Today they rest on ``card_values.card_table`` (the lit value's
surplus over the typical card of its colour) and ``reprice``.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from bonfire_sim.analysis.card_values import TASK_KINDS, card_table, printed_points
from bonfire_sim.analysis.probes import ProbeSettings, probe_values
from bonfire_sim.analysis.reprice import _next_prices, _pooled, _toml_value, combine
from bonfire_sim.sim.runconfig import RunConfig

PROPOSAL_COLUMNS = ("card", "players", "printed", "proposed", "surplus", "s_lo", "s_hi",
                    "half", "n", "deals", "status", "flag", "forks_needed", "changed")
CARD_COLUMNS = ("card", "players", "kind", "printed", "surplus", "s_lo", "s_hi", "half",
                "n", "deals", "status", "flag", "forks_needed")

__all__ = ["CARD_COLUMNS", "PROPOSAL_COLUMNS", "card_proposals", "next_prices", "pooled",
           "printed_points", "task_table", "toml_value"]


def card_proposals(cards: pd.DataFrame, printed: Mapping[str, int],
                   margin: float) -> pd.DataFrame:
    """One row per task and player count (``PROPOSAL_COLUMNS``) from task rows of a card
    table: the card's ``surplus`` at that count with its interval, ``status`` / ``flag``,
    the ``proposed`` printed value of the card (one for every count: the inverse-variance
    mean of printed - surplus over the counts, whole; today's value where no count flags
    the card) and ``changed`` (proposed differs from printed)."""
    t = cards[cards["kind"] == "task"] if "kind" in cards else cards
    fair = (pd.to_numeric(t["printed"], errors="coerce").astype(float)
            - pd.to_numeric(t["surplus"], errors="coerce").astype(float))  # as card_table
    t = t.assign(kind="task", fair=fair, proposed=np.maximum(np.floor(fair + 0.5), 0))
    est = combine(t, dict(printed), margin)
    one = {str(r["card"]): (int(r["proposed"]) if r["flagged"] and math.isfinite(r["proposed"])
                            else int(r["printed"])) for _, r in est.iterrows()}
    out = t.assign(proposed=t["card"].map(one))
    out["changed"] = out["proposed"] != out["card"].map(dict(printed))
    return out.loc[:, list(PROPOSAL_COLUMNS)].reset_index(drop=True)


def task_table(configs: Sequence[tuple[str, RunConfig, Any]], games: int, margin: float,
               alpha: float, *, focus: Sequence[str] = (), focus_games: int = 0,
               jobs: int = 1, quiet: bool = True,
               progress: Callable[[int, int], None] | None = None) -> pd.DataFrame:
    """The task rows (``CARD_COLUMNS``) of ``(label, config, run_dir)`` configurations:
    every task forked on the first ``games`` games, the ``focus`` cards alone on
    ``focus_games`` (their own intervals); forks clustered by label and deal."""
    parts = []
    printed = {}
    for label, cfg, path in configs:
        printed[cfg.players] = printed_points(cfg)
        t = probe_values(cfg, ProbeSettings(games=games, kinds=TASK_KINDS), run_dir=path,
                         jobs=jobs, quiet=quiet, progress=progress)
        if focus and focus_games > games:
            extra = probe_values(cfg, ProbeSettings(games=focus_games, kinds=TASK_KINDS,
                                                    tasks=tuple(focus)),
                                 run_dir=path, jobs=jobs, quiet=quiet)
            t = pd.concat([t[~t["item"].isin(focus)], extra], ignore_index=True)
        parts.append(t.assign(cluster=label + "|" + t["deal"].astype(str)))
    if not parts:
        return pd.DataFrame(columns=list(CARD_COLUMNS))
    tab = card_table(pd.concat(parts, ignore_index=True), printed, margin, alpha)
    return tab[tab["kind"] == "task"].reset_index(drop=True)


def pooled(cards: pd.DataFrame, card: str) -> float:
    """A card's surplus pooled over the counts (inverse-variance; NaN if none)."""
    return _pooled(cards, card)


def next_prices(cards: pd.DataFrame, current: dict[str, int], printed: dict[str, int],
                history: dict[str, list[tuple[float, float]]],
                margin: float) -> dict[str, int]:
    """The cards to move after a fresh round (``reprice``'s secant steps)."""
    return _next_prices(cards, current, printed, history, margin)


def toml_value(v: Any) -> str:
    """A value written as TOML."""
    return _toml_value(v)
