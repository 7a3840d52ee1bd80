"""The public balance numbers beside the card values (``analysis.cards``): seat advantage
with its compensation and Tom's difficulty, one row per item and player count, and the
shared helpers (players tables, list counts, pooling over player counts).

Every function takes run directories or loaded runs (``runs.as_runs``) and returns a
pandas DataFrame with the id column (``task``, ``gnome``, ``seat`` or ``strategy``),
``players``, ``value``, ``lo``, ``hi`` (95%), ``n`` and further columns documented per
function.  Flags use ``flags.flag`` (practical margin + Benjamini-Hochberg) within one
player count; ``imprecise`` marks rows whose interval is wider than ± the margin.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from bonfire_sim.analysis import flags as FL
from bonfire_sim.analysis.compensation import (
    as_seat_points,
    compensation,
    whole_points_check,
)
from bonfire_sim.analysis.intervals import (
    Z95,
    clustered_mean_ci,
    clustered_wilson,
    pool_inverse_variance,
    se_from_interval,
    unique_codes,
    wilson,
)
from bonfire_sim.analysis.runs import Run, RunLike, as_runs
from bonfire_sim.infra.memory import row_slices

TOM = "tom"
EXAMPLES = 3  # game ids listed per row
HETEROGENEITY_ALPHA = 0.05


def example_ids(ids: pd.Series) -> str:
    """Up to ``EXAMPLES`` game ids, smallest first, as text."""
    return ", ".join(str(int(x)) for x in sorted(set(ids))[:EXAMPLES])


# ---- players tables -------------------------------------------------------------------
def player_rows(runs: list[Run], columns: Sequence[str] | None = None) -> pd.DataFrame:
    """Human player rows of all runs with ``players`` (count), ``run`` and ``win_share``.

    ``columns``: the players columns to keep (``game_id`` and ``won`` always); None keeps
    every column.  A big run's rows are copied here, so a caller names what it reads.
    """
    parts = []
    for run in runs:
        p = run.data.players
        keep = list(p.columns) if columns is None else [
            c for c in p.columns if c in {*columns, "game_id", "won"}]
        human = p["strategy"] != TOM
        p = p.loc[human, keep] if not human.all() else p[keep].copy()
        deal = run.data.games.set_index("game_id")["deal"]
        p["players"] = run.config.players
        p["run"] = run.label
        p["deal"] = deal.reindex(p["game_id"]).to_numpy()
        parts.append(p)
    if not parts:
        return pd.DataFrame()
    p = pd.concat(parts, ignore_index=True) if len(parts) > 1 else parts[0]
    winners = p.groupby(["run", "game_id"])["won"].transform("sum")
    p["win_share"] = np.where(p["won"], 1.0 / winners.clip(lower=1), 0.0)
    return p


def list_counts(lists: pd.Series, ids: Sequence[str]) -> np.ndarray:
    """How often each id occurs in a list column (float, in the order of ``ids``).

    Counted in Arrow (flatten + value counts): a million games' task lists never become
    Python objects.  Works on Arrow list columns and on object columns of lists.
    """
    arrow = getattr(lists.array, "__arrow_array__", None)
    arr = arrow() if isinstance(lists.dtype, pd.ArrowDtype) and arrow else pa.array(
        lists, from_pandas=True)
    vc = pc.value_counts(pc.list_flatten(arr)) if len(arr) else None
    counts = dict(zip(vc.field("values").to_pylist(), vc.field("counts").to_pylist(),
                      strict=True)) if vc is not None else {}
    return np.array([counts.get(i, 0) for i in ids], dtype=float)


# ---- pooling across player counts ---------------------------------------------------------
def pool(frame: pd.DataFrame, key: str, alpha: float = HETEROGENEITY_ALPHA) -> pd.DataFrame:
    """Inverse-variance pooled rows (``players`` = 0) for items whose player counts agree.

    Per item, Cochran's Q tests that the per-count values are equal; a pooled row is added
    only where that test does not reject at ``alpha`` (``het_p`` holds its p value).
    """
    rows = []
    for item, g in frame[frame["players"] > 0].groupby(key, sort=False):
        g = g.dropna(subset=["value", "lo", "hi"])
        g = g[g["hi"] > g["lo"]]
        if len(g) < 2:
            continue
        est, pse, het_p = pool_inverse_variance(g["value"], se_from_interval(g["lo"], g["hi"]))
        if het_p < alpha:
            continue
        rows.append({key: item, "players": 0, "value": est, "lo": est - Z95 * pse,
                     "hi": est + Z95 * pse, "n": int(g["n"].sum()),
                     "het_p": het_p})
    return pd.DataFrame(rows)


def _seat_arrays(runs: Sequence[Run]) -> dict[str, np.ndarray]:
    """The human rows of the runs as flat arrays (``game``: a game index unique across the
    runs, ordered by run label and game id; ``seat``, ``score``, ``bonfires``, ``game_id``,
    ``won``) and per game its deal cluster (``cluster``: run and deal) and its number of
    winners (``winners``; a row's win share is ``_win_share``).

    Plain arrays, not a copy of the players frame: at a million games the seat analysis
    needs a few of them, not a pivot table.  The stored columns are shared, not copied or
    widened (a million 4-player games: 32 MB an int64 column)."""
    parts: dict[str, list[np.ndarray]] = {k: [] for k in (
        "game", "seat", "score", "bonfires", "game_id", "won", "winners", "cluster")}
    offset = clusters = 0
    for run in sorted(runs, key=lambda r: r.label):
        p = run.data.players
        human = (p["strategy"] != TOM).to_numpy()
        every = bool(human.all())  # a multiplayer run: its columns as they are, no copies
        gid = p["game_id"].to_numpy()  # as stored (int32 in the report), not widened
        gid = gid if every else gid[human]
        games, row = unique_codes(gid)
        won = p["won"].to_numpy(bool)
        won = won if every else won[human]
        # counted on the winners' rows (integer counts, the same values): weights would
        # be a float64 copy of every row (32 MB at a million 4-player games)
        winners = np.bincount(row[won], minlength=len(games))
        if len(winners) and winners.max() <= np.iinfo(np.int8).max:
            winners = winners.astype(np.int8)  # at most the seats: a byte a game, not 8
        deal = _deals(run.data.games, games)
        # the deal's index among this run's deals, after the earlier runs' deals: the
        # clusters ordered by (run, deal), one per pair, without a (games, 2) sort
        deals, cluster = unique_codes(deal)  # np.unique's, without its sort where in order
        parts["game"].append(row + offset if offset else row)
        # the integers as stored (int8/int16), widened where used
        for key, col in (("seat", "seat"), ("score", "score"), ("bonfires", "n_bonfires")):
            values = p[col].to_numpy()
            parts[key].append(values if every else values[human])
        parts["game_id"].append(gid)
        parts["won"].append(won)
        parts["winners"].append(winners)
        parts["cluster"].append(cluster + clusters)
        offset += len(games)
        clusters += len(deals)
    # one run's arrays as they are (np.concatenate would copy them)
    return {k: (v[0] if len(v) == 1 else np.concatenate(v)) if v else np.zeros(0, np.int64)
            for k, v in parts.items()}


def _win_share(a: dict[str, np.ndarray], at: np.ndarray,
               game: np.ndarray | None = None) -> np.ndarray:
    """The win share (1/k for each of k tied winners, else 0) of the rows ``at``: worked
    out a seat at a time, not held for every row (8 bytes a row).  ``game``: the rows'
    ``a["game"][at]`` where the caller has it."""
    game = a["game"][at] if game is None else game
    # 1/k per game, taken for the rows and zeroed where the row lost, in place (the same
    # values as per row, with one row-long float64 array instead of four: 24 MB less a
    # seat at a million games)
    share = (1.0 / np.maximum(a["winners"], 1))[game]
    share[~a["won"][at]] = 0.0
    return share


def _deals(games: pd.DataFrame, ids: np.ndarray) -> np.ndarray:
    """The deal of each game id in ``ids`` (int64): the games' own column where it lists
    exactly these games in this order (a run as written), else looked up by id."""
    gid = games["game_id"].to_numpy()
    if len(gid) == len(ids) and np.array_equal(gid, ids):
        return games["deal"].to_numpy(np.int64)
    return games.set_index("game_id")["deal"].reindex(ids).to_numpy(np.int64)


def _games_by_seat(a: dict[str, np.ndarray], n: int,
                   ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(games, n) scores and bonfires by seat of the complete games, and their clusters.

    Held in the narrowest type that holds them (int16 scores, int8 bonfires: 12 bytes a
    4-player game); the re-ranking widens a block of games at a time
    (``compensation.BLOCK``), so its temporaries do not grow with the games."""
    g = len(a["cluster"])
    score_t = np.int16 if _fits(a["score"], np.int16) else np.int64
    bonf_t = np.int8 if _fits(a["bonfires"], np.int8) else np.int64
    scores = np.full((g, n), -1, score_t)
    bonf = np.zeros((g, n), bonf_t)
    filled = np.zeros((g, n), bool)
    # one flat index of each row's cell for the three (a pair of index arrays is widened
    # to two intp arrays per assignment: 16 bytes a row, three times), a block of rows at
    # a time (the intp index of every row was 32 MB at a million 4-player games)
    for b in row_slices(len(a["game"])):
        cell = a["game"][b].astype(np.intp) * n
        cell += a["seat"][b]
        scores.ravel()[cell] = a["score"][b]
        bonf.ravel()[cell] = a["bonfires"][b]
        filled.ravel()[cell] = True
        del cell
    complete = filled.all(axis=1)  # a game missing a seat's row is left out
    if complete.all():  # no copies of the (games, n) matrices
        return scores, bonf, a["cluster"]
    return scores[complete], bonf[complete], a["cluster"][complete]


def _fits(values: np.ndarray, typ: type[np.integer]) -> bool:
    """Whether every value fits ``typ`` (a signed type: the -1 of a missing seat fits)."""
    info = np.iinfo(typ)
    return not len(values) or (int(values.min()) >= info.min
                               and int(values.max()) <= info.max)


# ---- seats ------------------------------------------------------------------------------
def seat_advantage(runs: RunLike | Sequence[RunLike], *, margin: float = FL.MARGIN,
                   alpha: float = FL.ALPHA) -> pd.DataFrame:
    """Per player count (2+) and seat: ``value`` = win share (shared wins split), Wilson
    ``lo``/``hi``, ``n`` games, ``fair`` = 1/n, ``score`` (mean, t ``score_lo``/
    ``score_hi``), both intervals clustered by deal, and the **compensation**: the starting
    points per seat (seat 0 = 0) that would give every seat 1/n of the wins when the
    recorded games are re-ranked, with a 95% interval ``c_lo``/``c_hi``
    (``compensation.compensation``). ``seat_points`` (in ``attrs``, per player count) is the
    whole-point override to test it with (the rounding whose re-ranked win shares come
    closest to 1/n); ``seat_points_exact`` the compensation itself to 0.01 point (a
    fractional ``seat_points`` is a per-deal lottery, the same interpolation the estimate
    uses); ``seat_points_whole`` whether the whole points are fair at that count, measured
    by re-ranking the games under them (``compensation.whole_points_check``). ``q_value`` /
    ``flag``: compensation beyond ± margin points (BH per player count); ``imprecise``:
    compensation interval wider than ± margin; ``games``: example games the seat won. Runs
    should be seat-rotated; otherwise seats are confounded with the strategies sitting
    there."""
    rs = as_runs(runs)
    rows, suggest, exact, whole = [], {}, {}, {}
    for n in sorted({r.config.players for r in rs if r.config.players >= 2}):
        a = _seat_arrays([r for r in rs if r.config.players == n])
        scores, bonf, clusters = _games_by_seat(a, n)
        c, clo, chi = compensation(scores, bonf, clusters)
        suggest[n] = as_seat_points(c, scores, bonf)
        if suggest[n]:  # are whole points fair at this count? (re-ranked, measured)
            whole[n] = whole_points_check(scores, bonf, suggest[n], clusters)
        exact[n] = ([round(float(v), 2) for v in c - np.min(c)]
                    if np.all(np.isfinite(c)) else [])
        del scores, bonf  # the re-ranking's matrices, not read by the seat rows below
        for seat in np.unique(a["seat"]):
            seat = int(seat)
            at = a["seat"] == seat
            game = a["game"][at]
            share = _win_share(a, at, game)
            wins = float(share.sum())
            # The seat rotations of a deal share its cards: intervals clustered by deal.
            deal = a["cluster"][game]
            del game
            _, lo, hi = clustered_wilson(share, deal)
            won = a["game_id"][at][share > 0]
            del share  # before the scores' interval: one float64 array of the seat at a time
            m, slo, shi = clustered_mean_ci(a["score"][at], deal)
            rows.append({"seat": seat, "players": n, "value": wins / len(deal),
                         "lo": float(lo), "hi": float(hi), "n": len(deal), "fair": 1.0 / n,
                         "score": m, "score_lo": slo, "score_hi": shi,
                         "compensation": c[seat] if seat < len(c) else np.nan,
                         "c_lo": clo[seat] if seat < len(clo) else np.nan,
                         "c_hi": chi[seat] if seat < len(chi) else np.nan,
                         "games": example_ids(won)})
    out = pd.DataFrame(rows, columns=["seat", "players", "value", "lo", "hi", "n", "fair",
                                      "score", "score_lo", "score_hi", "compensation", "c_lo",
                                      "c_hi", "games"])
    out["q_value"] = np.nan
    out["flag"] = ""
    for _n, idx in out.groupby("players").groups.items():
        g = out.loc[idx]
        se = se_from_interval(g["c_lo"], g["c_hi"])
        sub = g["seat"] > 0  # seat 0 is the reference (0 by definition)
        q, f = FL.flag(g.loc[sub, "compensation"], se[sub], 0.0, margin, alpha,
                       labels=("behind", "ahead"))
        out.loc[g.index[sub], "q_value"] = q
        out.loc[g.index[sub], "flag"] = f
    out["imprecise"] = FL.imprecise(out["c_lo"], out["c_hi"], margin) & (out["seat"] > 0)
    out.attrs["seat_points"] = suggest
    out.attrs["seat_points_exact"] = exact
    out.attrs["seat_points_whole"] = whole
    return out


# ---- Tom --------------------------------------------------------------------------------
def tom_difficulty(runs: RunLike | Sequence[RunLike], n_boot: int = 500,
                   seed: int = 0) -> pd.DataFrame:
    """Per strategy in solo runs (``players`` = 1): ``value`` = win rate against Tom
    (Wilson ``lo``/``hi``), ``n`` games, ``score`` and ``tom`` means, ``margin`` (mean
    score - Tom's), ``handicap`` (Tom's head start at which the win rate is 2/7, with
    bootstrap ``h_lo``/``h_hi``) and example ``games`` the strategy won."""
    from bonfire_sim.analysis.solo import SoloGames, handicap_series

    rs = [r for r in as_runs(runs) if r.config.players == 1]
    rows = []
    for run in rs:
        p = run.data.players
        human = p[p["strategy"] != TOM].set_index("game_id")
        tom = p[p["strategy"] == TOM].set_index("game_id")
        g = pd.DataFrame({"strategy": human["strategy"], "score": human["score"],
                          "tom": tom["score"].reindex(human.index), "won": human["won"]})
        for s, h in g.groupby("strategy"):
            k = float(h["won"].sum())
            lo, hi = wilson(k, len(h))
            series = handicap_series(SoloGames(h["score"].to_numpy(), h["tom"].to_numpy()),
                                     n_boot=n_boot, seed=seed)
            rows.append({"strategy": s, "players": 1, "run": run.label,
                         "value": k / len(h), "lo": float(lo), "hi": float(hi), "n": len(h),
                         "score": float(h["score"].mean()), "tom": float(h["tom"].mean()),
                         "margin": float((h["score"] - h["tom"]).mean()),
                         "handicap": series.equilibrium, "h_lo": series.equilibrium_ci[0],
                         "h_hi": series.equilibrium_ci[1],
                         "games": example_ids(h.index[h["won"].astype(bool)])})
    return pd.DataFrame(rows, columns=["strategy", "players", "run", "value", "lo", "hi", "n",
                                       "score", "tom", "margin", "handicap", "h_lo", "h_hi",
                                       "games"])

