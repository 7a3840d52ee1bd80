"""Do the cards keep their order as play gets stronger?  The top two rungs' whole card
tables compared across the cards, per player count and card kind.

A card's own mark (``strength.convergence``) asks whether its value moved by more than a
point between the top two rungs; at the search rung a card rests on a few hundred forks,
so nearly every such mark stays undecided.  The designer's question about the table as a
whole (would strong players find the same cards above and below their tier, in the same
order?) is answered across the cards, where the forks' noise averages out:

``r``
    the correlation of the cards' surpluses at the two rungs (95% bootstrap over cards);
``corrected``
    ``r`` over the square root of both rungs' reliabilities, capped at 1: the correlation
    the cards' true values would show.  A rung's reliability is the share of the spread
    across its cards that is not fork noise, ``1 - mean(se^2) / var`` (``se`` from each
    row's 95% half-width).  About 1 when strong play keeps the order, 0 when it reshuffles
    the cards (both planted in ``tests/test_strength.py``);
``spread_below``, ``spread_top``, ``ratio``
    the standard deviation of the true surpluses across the cards at each rung
    (``sqrt(var - mean(se^2))``) and top over below: above 1 when stronger players make
    the good cards better and the bad ones worse, so more cards sit off their tier.

The bootstrap resamples cards (the rows are measured on different forks, so they are
independent given the players), seeded, so the same tables give the same intervals.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
import pandas as pd

from bonfire_sim.analysis.intervals import Z95, bootstrap_ci

COLUMNS = ["players", "kind", "cards", "r", "r_lo", "r_hi", "corrected", "c_lo", "c_hi",
           "spread_below", "spread_top", "ratio", "ratio_lo", "ratio_hi", "flagged_below",
           "flagged_top", "flagged_both"]
DRAWS = 2000


def _stats(x: np.ndarray, y: np.ndarray, sx: np.ndarray, sy: np.ndarray
           ) -> tuple[float, float, float, float]:
    """(r, corrected r, true spread below, true spread top) of one sample of cards."""
    r = float(np.corrcoef(x, y)[0, 1])
    var_x, var_y = float(np.var(x, ddof=1)), float(np.var(y, ddof=1))
    true_x = max(var_x - float(np.mean(sx ** 2)), 0.0)
    true_y = max(var_y - float(np.mean(sy ** 2)), 0.0)
    rel = (true_x / var_x) * (true_y / var_y) if var_x > 0 and var_y > 0 else 0.0
    corrected = min(r / np.sqrt(rel), 1.0) if rel > 0 else math.nan
    return r, float(corrected), float(np.sqrt(true_x)), float(np.sqrt(true_y))


def _print_order(card: str) -> tuple[str, int]:
    """B2 before B10: the letter, then the number."""
    return card[:1], int(card[1:]) if card[1:].isdigit() else 0


def _flagged(table: pd.DataFrame) -> list[str]:
    flag = table["flag"].astype(object)
    return sorted(table.loc[flag.notna() & (flag != ""), "card"].astype(str),
                  key=_print_order)


def _over_cards(sample: tuple[np.ndarray, ...], pick: Callable[[tuple[float, ...]], float],
                draws: int, seed: int) -> tuple[float, float]:
    """The bootstrap interval over cards of one of ``_stats``' statistics; the same seed
    for every statistic, so each sees the same resampled cards."""
    x, y, sx, sy = sample
    return bootstrap_ci(np.arange(len(x)), lambda i: pick(_stats(x[i], y[i], sx[i], sy[i])),
                        n_boot=draws, seed=seed)


def agreement(below: pd.DataFrame, top: pd.DataFrame, *, draws: int = DRAWS,
              seed: int = 0) -> pd.DataFrame:
    """One row per player count and card kind (``COLUMNS``) from two card tables
    (``analysis.cards.measure``'s: ``card``, ``kind``, ``players``, ``surplus``,
    ``half``, ``flag``), over the cards with a surplus at both rungs."""
    keys = ["card", "kind", "players"]
    cols = [*keys, "surplus", "half", "flag"]
    both = below[cols].merge(top[cols], on=keys, suffixes=("_b", "_t"))
    both = both.dropna(subset=["surplus_b", "surplus_t", "half_b", "half_t"])
    rows = []
    for (players, kind), g in both.groupby(["players", "kind"], sort=True):
        if len(g) < 3:
            continue
        x, y = g["surplus_b"].to_numpy(float), g["surplus_t"].to_numpy(float)
        sx, sy = g["half_b"].to_numpy(float) / Z95, g["half_t"].to_numpy(float) / Z95
        r, corrected, spread_b, spread_t = _stats(x, y, sx, sy)
        sample = (x, y, sx, sy)
        r_lo, r_hi = _over_cards(sample, lambda s: s[0], draws, seed)
        c_lo, c_hi = _over_cards(sample, lambda s: s[1], draws, seed)
        q_lo, q_hi = _over_cards(sample, lambda s: s[3] / s[2] if s[2] > 0 else math.nan,
                                 draws, seed)
        flag_b = set(_flagged(g.rename(columns={"flag_b": "flag"})))
        flag_t = set(_flagged(g.rename(columns={"flag_t": "flag"})))
        rows.append({"players": int(players), "kind": str(kind), "cards": len(g),
                     "r": r, "r_lo": r_lo, "r_hi": r_hi, "corrected": corrected,
                     "c_lo": c_lo, "c_hi": c_hi, "spread_below": spread_b,
                     "spread_top": spread_t,
                     "ratio": spread_t / spread_b if spread_b > 0 else math.nan,
                     "ratio_lo": q_lo, "ratio_hi": q_hi,
                     "flagged_below": " ".join(sorted(flag_b, key=_print_order)),
                     "flagged_top": " ".join(sorted(flag_t, key=_print_order)),
                     "flagged_both": " ".join(sorted(flag_b & flag_t, key=_print_order))})
    return pd.DataFrame(rows, columns=COLUMNS)
