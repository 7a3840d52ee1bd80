"""Comparing two runs game by game when they share their deals.

Two runs share their deals when seed, player count, strategies and seat rotation agree:
game ``i`` of both is then the same deal with the same seats, and only the runs' overrides
(or code) differ.  Differences are taken within each game and then averaged, which
removes the deal-to-deal variation from the comparison (common random numbers).  Every
interval is clustered by deal (Student t over the deals): the seat rotations of one deal
share its cards, so its games are not independent.  Task and gnome value differences pair
the two runs' forks of the same item in the same game.  Runs that do not share deals fall
back to unpaired (Welch) differences, each run's games clustered by their deal; runs with
different player counts are refused.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from bonfire_sim.analysis import flags as FL
from bonfire_sim.analysis.cards.views import fork_estimates
from bonfire_sim.analysis.intervals import (
    clustered_total,
    welch,
)
from bonfire_sim.analysis.runs import Run, shares_deals
from bonfire_sim.analysis.values import player_rows
from bonfire_sim.errors import ConfigError


def check_comparable(a: Run, b: Run) -> None:
    """Refuse runs with different player counts (one-line error)."""
    na, nb = a.config.players, b.config.players
    if na != nb:
        raise ConfigError(f"cannot compare a {na}-player run ({a.label}) with a {nb}-player "
                          f"run ({b.label}): compare runs of one player count")


def _per_game(p: pd.DataFrame) -> pd.DataFrame:
    return p.set_index(["game_id", "seat"])[["score", "win_share", "deal"]]


def score_differences(a: Run, b: Run, paired: bool | None = None) -> pd.DataFrame:
    """Per strategy (and ``all``): mean score and win share in A and B and B - A with 95%
    intervals, paired by game (and seat) when the runs share their deals, else Welch.

    Both intervals are clustered by deal, as ``seat_differences``: the seat rotations of
    one deal share its cards, so its games' differences are not independent; Student t
    over the deals (``n`` games in ``deals`` deals).  Without seat rotation every game is
    its own deal: the per-game interval."""
    check_comparable(a, b)
    paired = shares_deals(a, b) if paired is None else paired
    pa, pb = player_rows([a]), player_rows([b])
    rows = []
    for s in ["all", *sorted(set(pa["strategy"]) | set(pb["strategy"]))]:
        xa = pa if s == "all" else pa[pa["strategy"] == s]
        xb = pb if s == "all" else pb[pb["strategy"] == s]
        row: dict[str, object] = {"item": s, "score_a": xa["score"].mean(),
                                  "score_b": xb["score"].mean(),
                                  "win_a": xa["win_share"].mean(),
                                  "win_b": xb["win_share"].mean(), "paired": paired}
        if paired:
            j = _per_game(xa).add_suffix("_a").join(_per_game(xb).add_suffix("_b"),
                                                    how="inner")
            g = j.groupby(level="game_id")
            ds = (g["score_b"].mean() - g["score_a"].mean()).to_numpy(float)
            dw = (g["win_share_b"].mean() - g["win_share_a"].mean()).to_numpy(float)
            # shared deals: game i is deal d in both runs, so A's deal labels the pair
            deals = g["deal_a"].first().to_numpy()
            sc, wn = _clustered_row(ds, deals), _clustered_row(dw, deals)
        else:
            sc = _welch_row(xa, xb, "score")
            wn = _welch_row(xa, xb, "win_share")
        row.update(sc)
        row.update({"win_diff": wn["diff"], "win_se": wn["se"], "win_lo": wn["lo"],
                    "win_hi": wn["hi"]})
        rows.append(row)
    return pd.DataFrame(rows)


def seat_differences(a: Run, b: Run, paired: bool | None = None) -> pd.DataFrame:
    """Per seat: win share and mean score in A and B, B - A with 95% intervals (paired by
    game when the runs share their deals, else Welch).

    Both intervals are clustered by deal (``intervals.clustered_mean``: the seat rotations
    of one deal share its cards, so a seat's games of one deal are not independent, as in
    ``values.seat_figures``): Student t over the deals, ``n`` games in ``deals`` deals.
    A run without seat rotation has one game a deal: the per-game interval."""
    check_comparable(a, b)
    paired = shares_deals(a, b) if paired is None else paired
    pa, pb = player_rows([a]), player_rows([b])
    rows = []
    for seat in sorted(set(pa["seat"]) | set(pb["seat"])):
        xa, xb = pa[pa["seat"] == seat], pb[pb["seat"] == seat]
        row: dict[str, object] = {"seat": int(seat), "win_a": xa["win_share"].mean(),
                                  "win_b": xb["win_share"].mean(),
                                  "score_a": xa["score"].mean(),
                                  "score_b": xb["score"].mean(), "paired": paired}
        if paired:
            # shared deals: game i is deal d in both runs, so A's deal labels the pair
            j = xa.set_index("game_id")[["score", "win_share", "deal"]].add_suffix("_a").join(
                xb.set_index("game_id")[["score", "win_share"]].add_suffix("_b"), how="inner")
            deals = j["deal_a"].to_numpy()
            wn = _clustered_row((j["win_share_b"] - j["win_share_a"]).to_numpy(float), deals)
            sc = _clustered_row((j["score_b"] - j["score_a"]).to_numpy(float), deals)
        else:
            wn = _welch_row(xa, xb, "win_share")
            sc = _welch_row(xa, xb, "score")
        row.update({"diff": wn["diff"], "se": wn["se"], "lo": wn["lo"], "hi": wn["hi"],
                    "n": wn["n"], "deals": wn["deals"], "score_diff": sc["diff"],
                    "score_lo": sc["lo"], "score_hi": sc["hi"]})
        rows.append(row)
    return pd.DataFrame(rows)


def _clustered_row(diffs: np.ndarray, deals: np.ndarray) -> dict[str, float]:
    """``_row`` of per-game differences correlated within deals (t over the deals)."""
    t = clustered_total(diffs, deals)  # one pass for the mean, its se and interval
    m, lo, hi = t.mean_ci()
    return {"diff": m, "se": t.se, "lo": lo, "hi": hi, "n": t.n, "deals": t.k}


def _welch_row(xa: pd.DataFrame, xb: pd.DataFrame, col: str) -> dict[str, float]:
    """B - A of ``col`` between two runs' player rows that share no deals: Welch, each
    run's games clustered by their deal (t over the deals)."""
    da, db = xa["deal"].to_numpy(), xb["deal"].to_numpy()
    _, _, d, se, lo, hi = welch(xa[col].to_numpy(float), xb[col].to_numpy(float), da, db)
    return {"diff": d, "se": se, "lo": lo, "hi": hi,
            "n": min(xa["game_id"].nunique(), xb["game_id"].nunique()),
            "deals": min(len(set(da)), len(set(db)))}


def value_differences(tab_a: pd.DataFrame, tab_b: pd.DataFrame, kind: str,
                      paired: bool = True, margin: float = FL.MARGIN,
                      alpha: float = FL.ALPHA, min_pairs: int = 10) -> pd.DataFrame:
    """Per item: the fork value (mean score A - B of ``kind`` forks) in run A and in run B
    and their difference B - A with a 95% interval.

    Paired: the items' forks in the same game of both runs are differenced (``n`` pairs in
    ``deals`` deals); items with fewer than ``min_pairs`` pairs, or unpaired runs, use
    Welch.  Both intervals are clustered by deal, as ``score_differences``: the forks of
    one deal's seat rotations are not independent (t over the deals).  ``q_value`` /
    ``flag`` (``up`` / ``down``): the difference exceeds ± margin (BH at alpha over the
    items); ``imprecise``: interval wider than ± margin.
    """
    ea = fork_estimates(tab_a, kind).set_index("item")
    eb = fork_estimates(tab_b, kind).set_index("item")
    ta, tb = tab_a[tab_a["kind"] == kind], tab_b[tab_b["kind"] == kind]
    rows = []
    for item in sorted(set(ea.index) | set(eb.index)):
        xa, xb = ta[ta["item"] == item], tb[tb["item"] == item]
        da = (xa["score_a"] - xa["score_b"]).to_numpy(float)
        db = (xb["score_a"] - xb["score_b"]).to_numpy(float)
        row: dict[str, object] = {"item": item,
                                  "value_a": float(da.mean()) if len(da) else np.nan,
                                  "value_b": float(db.mean()) if len(db) else np.nan}
        used = False
        if paired:
            j = (xa.assign(d_a=da).set_index("game_id")[["d_a", "deal"]]
                 .join(xb.assign(d_b=db).set_index("game_id")[["d_b"]], how="inner"))
            if len(j) >= min_pairs:
                # shared deals: game i is deal d in both runs, so A's deal labels the pair
                row.update(_clustered_row((j["d_b"] - j["d_a"]).to_numpy(float),
                                          j["deal"].to_numpy()))
                row["paired"] = True
                used = True
        if not used:
            _, _, d, se, lo, hi = welch(da, db, xa["deal"].to_numpy(), xb["deal"].to_numpy())
            row.update({"diff": d, "se": se, "lo": lo, "hi": hi,
                        "n": min(len(da), len(db)),
                        "deals": min(xa["deal"].nunique(), xb["deal"].nunique()),
                        "paired": False})
        rows.append(row)
    out = pd.DataFrame(rows, columns=["item", "value_a", "value_b", "diff", "se", "lo", "hi",
                                      "n", "deals", "paired"])
    q, f = FL.flag(out["diff"], out["se"], 0.0, margin, alpha, labels=("up", "down"))
    out["q_value"], out["flag"] = q, f
    out["imprecise"] = FL.imprecise(out["lo"], out["hi"], margin)
    return out


def decomposed_value_differences(tab_a: pd.DataFrame, tab_ab: pd.DataFrame,
                                 tab_b: pd.DataFrame, kind: str, margin: float = FL.MARGIN,
                                 alpha: float = FL.ALPHA) -> pd.DataFrame:
    """B - A of a fork value split in two, per item, each paired by game:

    * ``direct`` (AB - A): the same decisions of A's games, forked under B's rules
      instead of A's (``probe_values(config_a, fork_rules=config_b)``): what the change
      does where nothing else moved;
    * ``situations`` (B - AB): what it does by changing the decisions the players meet
      (when and in which state they can take, light or recruit the item);

    and ``total`` (B - A, as ``value_differences``).  Columns: item, then ``diff``/``lo``/
    ``hi``/``flag`` of each part prefixed ``direct_``, ``situations_``, ``total_``.
    """
    parts = {"direct": value_differences(tab_a, tab_ab, kind, margin=margin, alpha=alpha),
             "situations": value_differences(tab_ab, tab_b, kind, margin=margin, alpha=alpha),
             "total": value_differences(tab_a, tab_b, kind, margin=margin, alpha=alpha)}
    out = None
    for name, d in parts.items():
        d = d.set_index("item")[["diff", "lo", "hi", "n", "flag"]].add_prefix(f"{name}_")
        out = d if out is None else out.join(d, how="outer")
    assert out is not None
    return out.reset_index()


def flag_differences(diff: pd.DataFrame, margin: float, alpha: float = FL.ALPHA,
                     se: str = "se") -> pd.DataFrame:
    """Add ``q_value`` / ``flag`` (beyond ± margin, BH) / ``imprecise`` to a difference
    table with ``diff``, ``se``, ``lo``, ``hi``."""
    q, f = FL.flag(diff["diff"], diff[se], 0.0, margin, alpha, labels=("up", "down"))
    return diff.assign(q_value=q, flag=f, imprecise=FL.imprecise(diff["lo"], diff["hi"],
                                                                 margin))


def compare_runs(runs: Sequence[Run]) -> tuple[Run, Run, bool]:
    """(A, B, paired) after checking the two runs can be compared."""
    if len(runs) != 2:
        raise ConfigError(f"compare needs exactly 2 runs, got {len(runs)}")
    a, b = runs
    check_comparable(a, b)
    return a, b, shares_deals(a, b)
