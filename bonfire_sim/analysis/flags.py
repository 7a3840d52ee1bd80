"""Flags a designer can trust: a practical margin, false-discovery-rate control, and a
precision warning for every row that cannot resolve the margin.

A row is flagged only when its estimate is shown to lie more than ``margin`` away from its
reference: the one-sided test of H0 ``|estimate - reference| <= margin`` (normal
approximation) gives a p value per row, and Benjamini-Hochberg (``scipy.stats.
false_discovery_control``) turns the p values of one family (e.g. all tasks of one player
count) into q values; rows with q < alpha are flagged.  So among the flagged rows the
expected share of false flags is at most alpha, and a difference smaller than the margin is
never flagged however many games are played.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from scipy import stats as sps

MARGIN = 1.0  # points
ALPHA = 0.05  # false discovery rate


def margin_pvalues(est: Any, se: Any, ref: Any = 0.0, margin: float = MARGIN,
                   df: Any = None) -> np.ndarray:
    """One-sided p values of H0: |est - ref| <= margin (NaN where se is missing); with
    ``df`` (e.g. deals - 1 of a clustered estimate) from Student's t, so that a row on
    few deals is not judged as if its standard error were known."""
    est, se, ref = (np.asarray(v, dtype=float) for v in (est, se, ref))
    with np.errstate(invalid="ignore", divide="ignore"):
        z = (np.abs(est - ref) - margin) / se
    p = sps.norm.sf(z) if df is None else sps.t.sf(z, np.asarray(df, dtype=float))
    return np.where(np.isfinite(z), p, np.nan)


def bh_qvalues(p: Any) -> np.ndarray:
    """Benjamini-Hochberg adjusted p values (NaN entries stay NaN and are not counted)."""
    p = np.asarray(p, dtype=float)
    q = np.full(p.shape, np.nan)
    ok = np.isfinite(p)
    if ok.any():
        q[ok] = sps.false_discovery_control(p[ok], method="bh")
    return q


def flag(est: Any, se: Any, ref: Any = 0.0, margin: float = MARGIN, alpha: float = ALPHA,
         labels: tuple[str, str] = ("high", "low"), df: Any = None,
         ) -> tuple[np.ndarray, np.ndarray]:
    """(q values, flags): flag = labels[0] / labels[1] where q < alpha and the estimate is
    above / below its reference, else "" (``df``: see ``margin_pvalues``)."""
    est = np.asarray(est, dtype=float)
    q = bh_qvalues(margin_pvalues(est, se, ref, margin, df))
    hit = np.nan_to_num(q, nan=1.0) < alpha
    up = est > np.asarray(ref, dtype=float)
    return q, np.where(hit, np.where(up, labels[0], labels[1]), "")


def imprecise(lo: Any, hi: Any, margin: float = MARGIN) -> np.ndarray:
    """True where the 95% interval's half-width exceeds the margin (or is missing): such a
    row cannot tell a difference of ``margin`` from none."""
    lo, hi = np.asarray(lo, dtype=float), np.asarray(hi, dtype=float)
    half = (hi - lo) / 2
    return ~(half <= margin)


def detection_floor(se: Any, family: int, margin: float = MARGIN,
                    alpha: float = ALPHA) -> np.ndarray:
    """The smallest |deviation| a lone row of standard error ``se`` needs to be flagged in
    a family of ``family`` rows (BH's strictest threshold, alpha / family): the figure a
    designer needs to read "not flagged" as "not off by more than this"."""
    z = sps.norm.isf(alpha / max(int(family), 1))
    return margin + z * np.asarray(se, dtype=float)


def consistent_flags(frame: Any, key: str, margin: float = MARGIN, alpha: float = ALPHA,
                     het_alpha: float = 0.05,
                     labels: tuple[str, str] = ("strong", "weak")) -> Any:
    """Across player counts: per ``key`` (a card) with at least two measured counts whose
    estimates agree (Cochran's Q does not reject at ``het_alpha``), the inverse-variance
    pooled estimate (``pooled``, 95% ``pooled_half``) tested against the margin, BH over
    the cards; ``flag_counts`` = labels[0] / labels[1] where shown beyond it.  A card
    off by 1.5 points at every count is found here long before any one count shows it.
    ``frame`` needs ``players``, ``surplus``, ``s_se`` and ``status`` (or a boolean
    ``testable``: the rows to pool); returns one row per card (pandas)."""
    import pandas as pd

    from bonfire_sim.analysis.intervals import Z95, pool_inverse_variance

    rows = []
    testable = (frame["status"] == "measured") if "testable" not in frame else frame["testable"]
    m = frame[testable & frame["s_se"].gt(0)]
    for card, g in m.groupby(key, sort=True):
        if len(g) < 2:
            continue
        est, se, het_p = pool_inverse_variance(g["surplus"], g["s_se"])
        if het_p < het_alpha:
            continue  # the counts disagree: only their own flags speak
        rows.append({key: card, "pooled": est, "pooled_se": se})
    out = pd.DataFrame(rows, columns=[key, "pooled", "pooled_se"])
    qv, fl = flag(out["pooled"], out["pooled_se"], 0.0, margin, alpha, labels)
    out["pooled_half"] = Z95 * out["pooled_se"]
    out["flag_counts"] = fl if len(out) else []
    out["q_counts"] = qv if len(out) else []
    return out


def flag_table(out: Any, testable: Any, margin: float = MARGIN, alpha: float = ALPHA) -> Any:
    """The card table's flags: per count and kind (``q_value`` / ``flag`` on the
    ``testable`` rows: enough deals for a clustered interval, whether or not it is yet as
    narrow as the margin), the detection floor ``detect`` of every row, and the
    across-count test (``pooled``, ``pooled_half``, ``flag_counts``,
    ``consistent_flags``) per kind.

    Why testable rather than measured rows: a row whose whole interval lies beyond the
    margin is off with confidence however wide that interval is (a task planted +3
    points off reads +4.4 (+3.0 to +5.8) on 482 forks, short of the ~1,000 its half-width
    of 1 would need); "measured" is the precision a *no change* verdict needs.  The t
    distribution on the deals keeps a row on few deals from being judged as if its
    standard error were known."""
    import pandas as pd

    out["q_value"] = np.nan
    out["flag"] = ""
    out["detect"] = np.nan
    out["testable"] = np.asarray(testable, dtype=bool)
    for _key, idx in out.groupby(["players", "kind"]).groups.items():
        g = out.loc[idx]
        sub = g[g["testable"]]
        # the family the flags are controlled over: the testable rows of the count
        out.loc[idx, "detect"] = detection_floor(g["s_se"], max(len(sub), 1), margin, alpha)
        if len(sub):
            qv, fl = flag(sub["surplus"], sub["s_se"], 0.0, margin, alpha,
                          labels=("strong", "weak"), df=np.maximum(sub["deals"] - 1, 1))
            out.loc[sub.index, "q_value"] = qv
            out.loc[sub.index, "flag"] = fl
    parts = [consistent_flags(out[out["kind"] == k], "card", margin, alpha)
             for k in ("task", "gnome")]
    across = pd.concat([x for x in parts if len(x)] or parts[:1], ignore_index=True)
    out = out.drop(columns=[c for c in ("pooled", "pooled_half", "flag_counts")
                            if c in out]).merge(
        across[["card", "pooled", "pooled_half", "flag_counts"]], on="card", how="left")
    out["flag_counts"] = out["flag_counts"].astype(object).where(out["flag_counts"].notna(), "")
    return out.drop(columns=["testable"])


def flagged(rows: Any, across_counts: bool = True) -> Any:
    """The rows a table flags (a boolean Series): flagged at their count, or, with
    ``across_counts`` (a task's answer: one printed value serves every count), by the test
    across the counts (``flag_counts``, where the table has it).  One rule for the report's
    answer, its card and the note that compares them with a sheet."""
    hit = rows["flag"].fillna("") != ""
    if across_counts and "flag_counts" in rows:
        hit = hit | (rows["flag_counts"].fillna("") != "")
    return hit
