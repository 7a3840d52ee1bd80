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

``MIN_PRICE`` is the lowest whole value any proposal prints (the price loop's, the
errata sheet's and the report's task section alike): a task printed at 0 points is no
proposal.  A card whose fair value lies below it is proposed at it with the advice to
change its condition and the evidence, its surplus predicted at the floor
(``floor_note``).
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

# The lowest printed value a proposal names: a task printed at 0 points gives nothing for
# meeting its condition, so a card still too strong at 1 needs its condition changed (the
# loop, the sheet and the report once disagreed: the loop proposed 0 where the sheet
# printed 1 for R1, R7, R8 and Y8).
MIN_PRICE = 1


def into_window(price: float, lo: float, hi: float) -> int | None:
    """The whole printed value (>= ``MIN_PRICE``) a card priced ``price`` moves to, given its fair
    window [``lo``, ``hi``]: None where the window holds the price (or is unknown); else
    the whole value inside the window nearest the price (the smallest move the evidence
    asks for, not the window's centre); a window narrower than a point between two whole
    values gives the one nearer its centre."""
    if not (math.isfinite(lo) and math.isfinite(hi)) or lo <= price <= hi:
        return None
    inner = math.ceil(lo) if price < lo else math.floor(hi)
    new = inner if lo <= inner <= hi else math.floor((lo + hi) / 2 + 0.5)
    new = max(int(new), MIN_PRICE)
    return None if new == price else new


def below_floor(fair_hi: float) -> bool:
    """Does the evidence put the card's fair print below ``MIN_PRICE``: its whole fair
    window (upper end ``fair_hi``) lies below the floor, so no print a proposal may name
    is fair and its condition must change?"""
    return math.isfinite(fair_hi) and fair_hi < MIN_PRICE


def floor_note(at_floor: float, lo: float, hi: float, fair: float | None = None) -> str:
    """The advice for a card whose fair print is below ``MIN_PRICE``, with the evidence:
    its surplus predicted (or measured) at the floor, ``at_floor`` (``lo`` to ``hi``)."""
    # the wording states the evidence, not "too strong": a card fair at 0.4 reads +0.6 at
    # 1, inside the margin (B2-B4 on the planted loop), and the designer weighs it
    # one level of brackets: the note sits inside the report's sentences and sheet cells
    where = f" ({fair:.1f})" if fair is not None and math.isfinite(fair) else ""
    return (f"change the condition: its fair print{where} lies below the lowest print "
            f"{MIN_PRICE}; at {MIN_PRICE} its surplus is {at_floor:+.1f} "
            f"({lo:+.1f} to {hi:+.1f})")


def price_window(rows: pd.DataFrame, responses: dict[str, float],
                 margin: float) -> pd.DataFrame:
    """The check rows in printed points: ``response`` (``steps.response``), ``fair_lo`` /
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
