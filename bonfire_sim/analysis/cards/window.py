"""A task's fair printed window: its surplus interval read in printed points.

Re-printing a task by k moves its surplus by about r x k (``table.price_divisor`` at the
estimate, the loop's own slope later), so the printed values its 95% surplus interval
[s_lo, s_hi] admits as fair (surplus zero) are printed - s_hi / r .. printed - s_lo / r.
The price loop moves a flagged card only when that window excludes its price, and only
as far as the window's nearest whole value (``into_window``): on the heavy test-retest
(4 players, ``tuned`` in every seat, seeds 41 and 42) a card near the detection floor
is flagged on one seed only, and a flag that moved it the whole surplus / slope threw a
flat card 2-4 points there (docs/findings/2026-11-29-plants-one-loop.md).  The check's
rows are read the same way (``price_window``).
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd


def into_window(price: float, lo: float, hi: float) -> int | None:
    """The whole printed value (>= 0) a card priced ``price`` moves to, given its fair
    window [``lo``, ``hi``]: None where the window holds the price (or is unknown); else
    the whole value inside the window nearest the price (the smallest move the evidence
    asks for, not the window's centre); a window narrower than a point between two whole
    values gives the one nearer its centre."""
    if not (math.isfinite(lo) and math.isfinite(hi)) or lo <= price <= hi:
        return None
    inner = math.ceil(lo) if price < lo else math.floor(hi)
    new = inner if lo <= inner <= hi else math.floor((lo + hi) / 2 + 0.5)
    new = max(int(new), 0)
    return None if new == price else new


def price_window(rows: pd.DataFrame, responses: dict[str, float],
                 margin: float) -> pd.DataFrame:
    """The check rows in printed points: ``response`` (``price.response``), ``fair_lo`` /
    ``fair_hi`` (the printed values the row's 95% surplus interval admits as fair:
    printed - s_hi / response .. printed - s_lo / response) and ``price_verdict``:
    ``within`` when the row is measured and the whole window lies within +-margin of the
    printed value, ``off`` when it lies wholly beyond, ``unresolved`` otherwise.  Under the
    lit value (response 1) it is ``verdict``; under the receipt value a surplus within
    +-1 point can leave a window several points wide (why R15 read "within" at 8-9)."""
    out = rows.copy()
    out["response"] = out["card"].map(responses).astype(float).fillna(1.0)
    out["fair_lo"] = out["printed"] - out["s_hi"] / out["response"]
    out["fair_hi"] = out["printed"] - out["s_lo"] / out["response"]
    scaled = out.assign(s_lo=out["s_lo"] / out["response"], s_hi=out["s_hi"] / out["response"])
    out["price_verdict"] = verdict(scaled, margin)
    return out


def verdict(rows: pd.DataFrame, margin: float) -> pd.Series:
    """Per verified row: ``within`` only when it is measured and its whole 95% interval
    lies inside ± margin; ``off`` when the interval lies wholly beyond it; otherwise
    ``unresolved`` (the check cannot tell, whatever the point estimate says)."""
    inside = (rows["status"] == "measured") & (rows["s_lo"] >= -margin) & (rows["s_hi"] <= margin)
    off = (rows["s_lo"] > margin) | (rows["s_hi"] < -margin)
    return pd.Series(np.where(inside, "within", np.where(off, "off", "unresolved")),
                     index=rows.index)
