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

import gc
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import NamedTuple

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
    TOTALS_ROWS,
    Z95,
    Block,
    ClusteredTotal,
    cluster_cuts,
    clustered_totals,
    dense_codes,
    mean_ci,
    ordered,
    pool_inverse_variance,
    se_from_interval,
    unique_codes,
    wilson,
)
from bonfire_sim.analysis.runs import Run, RunLike, as_runs
from bonfire_sim.infra.memory import codes as category_codes
from bonfire_sim.infra.memory import give_back, row_slices

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


def list_totals(lists: pd.Series, clusters: np.ndarray, ids: Sequence[str],
                ) -> list[ClusteredTotal]:
    """Per id of ``ids``: the ``ClusteredTotal`` of "this row's list holds the id" (its
    count per row), the rows correlated within ``clusters`` (a row's deal).  Counted in
    Arrow as ``list_counts`` and summed per (id, cluster) pair that occurs: no row x id
    matrix, no row x cluster one.  The squares sum_c (k_c - n_c m)^2 expand to
    sum k_c^2 - 2 m sum k_c n_c + m^2 sum n_c^2, the first two over the pairs that occur."""
    arrow = getattr(lists.array, "__arrow_array__", None)
    arr = arrow() if isinstance(lists.dtype, pd.ArrowDtype) and arrow else pa.array(
        lists, from_pandas=True)
    n = len(arr)
    if n == 0:
        return [ClusteredTotal(0, 0, float("nan"), float("nan")) for _ in ids]
    codes = dense_codes(np.asarray(clusters))
    k = int(codes.max()) + 1
    n_c = np.bincount(codes, minlength=k).astype(float)
    found = pc.index_in(pc.list_flatten(arr), value_set=pa.array(list(ids)))
    item = np.asarray(pc.fill_null(found, -1), dtype=np.int64)
    row = np.asarray(pc.list_parent_indices(arr), dtype=np.int64)
    keep = item >= 0
    pair, k_pair = np.unique(item[keep] * k + codes[row[keep]], return_counts=True)
    item_of, cluster_of = pair // k, pair % k
    k_pair = k_pair.astype(float)
    total = np.bincount(item_of, weights=k_pair, minlength=len(ids))
    kk = np.bincount(item_of, weights=k_pair ** 2, minlength=len(ids))
    kn = np.bincount(item_of, weights=k_pair * n_c[cluster_of], minlength=len(ids))
    nn = float((n_c ** 2).sum())
    out = []
    for j in range(len(ids)):
        m = total[j] / n
        out.append(ClusteredTotal(n, k, float(m), float(kk[j] - 2 * m * kn[j] + m * m * nn)))
    return out


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


ROWS = 1 << 18  # players rows filled into ``SeatGames`` at a time (about 18 bytes a row)


@dataclass(frozen=True)
class SeatGames:
    """The complete games of runs of one player count, one row a game: (games, n)
    ``scores`` and ``bonfires`` by seat in the narrowest type that holds them (int16 and
    int8: 12 bytes a 4-player game), who ``won`` (a byte a seat), the game's deal
    ``cluster`` (run and deal, numbered in order) and its ``game_id`` in its run.

    Filled from the runs' rows a block at a time: no array of every row (a game index
    of each row was 16 bytes a 4-player game), nor a copy of the rows."""

    scores: np.ndarray
    bonfires: np.ndarray
    won: np.ndarray
    cluster: np.ndarray
    game_id: np.ndarray


def seat_games(runs: Sequence[Run], n: int) -> SeatGames:
    """``SeatGames`` of the human rows of ``runs`` (all of ``n`` players), ordered by run
    label and game id.  A game missing a seat's row is left out."""
    parts, clusters = [], 0
    for run in sorted(runs, key=lambda r: r.label):
        part = _run_games(run, n)
        deal = _deals(run.data.games, part.game_id)
        # each deal's index among this run's deals (the deals themselves where they are
        # 0, 1, 2, ... in order: a run not seat-rotated, no copy), after the earlier runs'
        cluster = dense_codes(deal)
        k = int(cluster.max(initial=-1)) + 1
        parts.append(SeatGames(part.scores, part.bonfires, part.won,
                               cluster + clusters if clusters else cluster, part.game_id))
        clusters += k
    if len(parts) == 1:
        return parts[0]
    return SeatGames(*(np.concatenate([getattr(p, f) for p in parts]) if parts else
                       np.zeros((0, n)) for f in ("scores", "bonfires", "won", "cluster",
                                                  "game_id")))


def _run_games(run: Run, n: int) -> SeatGames:
    """One run's ``SeatGames`` (its own deals as ``cluster``), filled a block of rows at a
    time where its rows are in game order (a run as written), else through its games'
    ranks (``unique_codes``)."""
    p = run.data.players
    human = _human(p)
    cols = {c: p[c].to_numpy() for c in ("game_id", "seat", "score", "n_bonfires", "won")}
    if human is not None:  # Tom's rows (a solo run) left out: a copy of the human rows
        cols = {c: v[human] for c, v in cols.items()}
    gid = cols["game_id"]
    ordered_ids = len(gid) > 0 and gid.dtype.kind in "iu" and ordered(gid)
    rank = None if ordered_ids else unique_codes(gid)[1]
    g = (1 + sum(int(np.count_nonzero(gid[b.start + 1:b.stop + 1] != gid[b.start:b.stop]))
                 for b in row_slices(len(gid) - 1)) if ordered_ids
         else int(rank.max(initial=-1)) + 1 if rank is not None else 0)
    # an empty cell holds the type's least value (no score is): no mask of filled cells
    score_t = np.int16 if _fits(cols["score"], np.int16, spare=True) else np.int64
    empty = np.iinfo(score_t).min
    bonf_t = np.int8 if _fits(cols["n_bonfires"], np.int8) else np.int64
    scores = np.full((g, n), empty, score_t)
    bonf = np.zeros((g, n), bonf_t)
    won = np.zeros((g, n), bool)
    # each game's id: the games' own column (shared, no copy) where the rows' games are
    # its games in its order, checked block by block, else gathered in a second pass
    own = run.data.games["game_id"].to_numpy()
    same = len(own) == g
    last = -1  # the game of the previous block's last row
    for b in row_slices(len(gid), ROWS):
        game = _games_of(gid, b, last) if rank is None else rank[b].astype(np.int64)
        same = same and bool(np.array_equal(own[game], gid[b]))
        # one flat index of each row's cell (a pair of index arrays is widened to two
        # intp arrays per assignment)
        cell = game * n
        cell += cols["seat"][b]
        scores.ravel()[cell] = cols["score"][b]
        bonf.ravel()[cell] = cols["n_bonfires"][b]
        won.ravel()[cell] = cols["won"][b]
        last = int(game[-1])
        del game, cell
    ids = own if same else _ids(gid, rank, g)
    # a game missing a seat's row is left out, found a block of games at a time
    if all(bool((scores[b] != empty).all()) for b in row_slices(g)):
        return SeatGames(scores, bonf, won, ids, ids)  # no copies of the matrices
    complete = (scores != empty).all(axis=1)
    return SeatGames(scores[complete], bonf[complete], won[complete], ids[complete],
                     ids[complete])


def _games_of(gid: np.ndarray, b: slice, last: int) -> np.ndarray:
    """Each row's game (0, 1, ...) of the rows ``b`` of game ids in order: numbered where
    the id changes, after ``last``, the game of the row before the block."""
    first = np.empty(b.stop - b.start, bool)
    first[0] = b.start == 0 or gid[b.start] != gid[b.start - 1]
    np.not_equal(gid[b.start + 1:b.stop], gid[b.start:b.stop - 1], out=first[1:])
    game = np.cumsum(first, dtype=np.int64)
    game += last
    return game


def _ids(gid: np.ndarray, rank: np.ndarray | None, g: int) -> np.ndarray:
    """Each game's id from the rows (``_games_of`` or ``rank`` numbers them)."""
    ids = np.zeros(g, gid.dtype)
    last = -1
    for b in row_slices(len(gid), ROWS):
        game = _games_of(gid, b, last) if rank is None else rank[b].astype(np.int64)
        ids[game] = gid[b]
        last = int(game[-1])
    return ids


def _human(players: pd.DataFrame) -> np.ndarray | None:
    """The rows that are not Tom's as a mask, or None where every row is (a multiplayer
    run: checked a block at a time, no mask of every row)."""
    strategy = players["strategy"]
    if isinstance(strategy.dtype, pd.CategoricalDtype):
        codes = category_codes(strategy)
        tom = strategy.dtype.categories.get_indexer([TOM])[0]
        if tom < 0 or not any(bool((codes[b] == tom).any()) for b in row_slices(len(codes))):
            return None
    human = (strategy != TOM).to_numpy()
    return None if human.all() else human


def _deals(games: pd.DataFrame, ids: np.ndarray) -> np.ndarray:
    """The deal of each game id in ``ids``: the games' own column as stored (int32 in a
    report; no widened copy) where it lists exactly these games in this order (a run as
    written), else looked up by id (int64)."""
    gid = games["game_id"].to_numpy()
    if len(gid) == len(ids) and np.array_equal(gid, ids):
        return games["deal"].to_numpy()
    return games.set_index("game_id")["deal"].reindex(ids).to_numpy(np.int64)


def _fits(values: np.ndarray, typ: type[np.integer], spare: bool = False) -> bool:
    """Whether every value fits ``typ`` (``spare``: above its least value, which then
    marks an empty cell)."""
    info = np.iinfo(typ)
    return not len(values) or (int(values.min()) >= info.min + spare
                               and int(values.max()) <= info.max)


class SeatFigures(NamedTuple):
    """A group of player rows' seat figures (``seat_figures``)."""

    games: int
    wins: float  # the win shares summed: 1/k for each of k tied winners, else 0
    win_rate: float  # wins / games
    lo: float  # Wilson 95%, clustered by deal
    hi: float
    score: float  # mean score
    score_lo: float  # t 95%, clustered by deal
    score_hi: float


def seat_figures(blocks: Callable[[], Iterable[Block]], groups: int,
                 ) -> list[SeatFigures | None]:
    """Per group of player rows (a seat at a player count, of a strategy, ...) its
    ``SeatFigures``, None for a group without rows.  ``blocks()`` gives the rows a block
    at a time as (group, deal, (win share, score)), blocks cut between deals
    (``clustered_totals``: no array of every row).

    The one computation of the win share and mean score per seat: ``seat_advantage``
    feeds it a player count's games (``SeatGames``), the report's seat tables
    (``report.stats.seat_advantage``) their player rows grouped by count, seat and
    optionally strategy; on the same games the two agree
    (``tests/test_seat_figures.py``)."""
    out: list[SeatFigures | None] = []
    for share, score in clustered_totals(blocks, groups, 2):
        if share.n == 0:
            out.append(None)
            continue
        _, lo, hi = share.wilson()
        m, slo, shi = score.mean_ci()
        out.append(SeatFigures(share.n, share.total, share.total / share.n, float(lo),
                               float(hi), m, slo, shi))
    return out


def _seat_rows(games: SeatGames, n: int) -> list[SeatFigures | None]:
    """``seat_figures`` of each seat: its win shares (1/k for each of k tied winners,
    else 0) and scores, a block of games at a time (blocks cut between deals)."""
    cluster = games.cluster

    def blocks() -> Iterator[Block]:
        for b in cluster_cuts(cluster, TOTALS_ROWS // n):
            won = games.won[b]
            share = won / np.maximum(won.sum(axis=1, keepdims=True), 1)
            yield (np.tile(np.arange(n), len(won)), np.repeat(cluster[b], n),
                   (share.ravel(), games.scores[b].ravel()))

    return seat_figures(blocks, n)


def _examples(games: SeatGames, seat: int) -> str:
    """``example_ids`` of the games ``seat`` won, a block at a time."""
    best: set[int] = set()
    for b in row_slices(len(games.game_id)):
        ids = np.unique(games.game_id[b][games.won[b, seat]])[:EXAMPLES]
        best = set(sorted(best | set(ids.tolist()))[:EXAMPLES])
    return example_ids(pd.Series(sorted(best), dtype=np.int64))


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
        games = seat_games([r for r in rs if r.config.players == n], n)
        give_back()  # the fill's freed blocks leave before the re-ranking's
        scores, bonf, clusters = games.scores, games.bonfires, games.cluster
        c, clo, chi = compensation(scores, bonf, clusters)
        suggest[n] = as_seat_points(c, scores, bonf)
        if suggest[n]:  # are whole points fair at this count? (re-ranked, measured)
            whole[n] = whole_points_check(scores, bonf, suggest[n], clusters)
        exact[n] = ([round(float(v), 2) for v in c - np.min(c)]
                    if np.all(np.isfinite(c)) else [])
        # The seat rotations of a deal share its cards: intervals clustered by deal.
        for seat, fig in enumerate(_seat_rows(games, n)):
            if fig is None:
                continue
            rows.append({"seat": seat, "players": n, "value": fig.win_rate, "lo": fig.lo,
                         "hi": fig.hi, "n": fig.games, "fair": 1.0 / n, "score": fig.score,
                         "score_lo": fig.score_lo, "score_hi": fig.score_hi,
                         "compensation": c[seat] if seat < len(c) else np.nan,
                         "c_lo": clo[seat] if seat < len(clo) else np.nan,
                         "c_hi": chi[seat] if seat < len(chi) else np.nan,
                         "games": _examples(games, seat)})
        del games, scores, bonf, clusters
        # the root solver leaves reference cycles that hold the (games, n) matrices until
        # a collection (measured: 12 MB at a million games, into the steps after this one)
        gc.collect()
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
def solo_games(players: pd.DataFrame) -> pd.DataFrame:
    """One row per solo game: (``run``,) ``game_id``, ``strategy``, the human's ``score``,
    Tom's (``tom``), ``margin`` (score - Tom's) and whether the human ``won``, in order of
    (run and) game.  ``players``: rows of solo games, or of any games with a ``solo``
    column (its solo rows are read); ``run`` where they hold several runs (the report's
    combined rows)."""
    p = players[players["solo"].astype(bool)] if "solo" in players else players
    keys = ["run", "game_id"] if "run" in p else ["game_id"]
    human = p[p["strategy"] != TOM].set_index(keys)
    tom = p[p["strategy"] == TOM].set_index(keys)
    g = pd.DataFrame({"strategy": human["strategy"], "score": human["score"],
                      "tom": tom["score"].reindex(human.index), "won": human["won"]})
    g["margin"] = g["score"] - g["tom"]
    return g.reset_index().sort_values(keys, kind="stable")


def solo_figures(solo: pd.DataFrame, key: str = "strategy") -> pd.DataFrame:
    """Per ``key`` of ``solo_games`` rows (a strategy, or the report's group: never pool
    two Tom decks): ``games``, the human's ``win_rate`` against Tom (Wilson ``lo``/``hi``),
    both mean scores (t intervals: ``score``, ``tom``) and the mean ``margin``; the key's
    value is in the ``strategy`` column.  The one computation of Tom's difficulty: the
    report's Tom section and ``tom_difficulty`` read it."""
    rows = []
    for s, g in solo.groupby(key):
        k = float(g["won"].sum())
        lo, hi = wilson(k, len(g))
        m, mlo, mhi = mean_ci(g["score"])
        t, tlo, thi = mean_ci(g["tom"])
        rows.append({"strategy": s, "games": len(g), "win_rate": k / len(g), "lo": float(lo),
                     "hi": float(hi), "score": m, "score_lo": mlo, "score_hi": mhi,
                     "tom": t, "tom_lo": tlo, "tom_hi": thi,
                     "margin": float(g["margin"].mean())})
    return pd.DataFrame(rows)


def handicaps(solo: pd.DataFrame, n_boot: int = 500, seed: int = 0, key: str = "strategy",
              ) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(per ``key`` as ``solo_figures``: the handicap where the challenge settles
    (``solo.settle_point``) with its bootstrap interval, and where the simulated challenge
    settles; tidy challenge path: strategy, game, handicap) of ``solo_games`` rows, the
    games in their order."""
    from bonfire_sim.analysis.solo import SoloGames, handicap_series

    rows, paths = [], []
    for s, g in solo.groupby(key):
        series = handicap_series(SoloGames(g["score"].to_numpy(), g["tom"].to_numpy()),
                                 n_boot=n_boot, seed=seed)
        rows.append({"strategy": s, "games": len(g), "equilibrium": series.equilibrium,
                     "lo": series.equilibrium_ci[0], "hi": series.equilibrium_ci[1],
                     "settled": series.settled, "final": int(series.path[-1])})
        paths.append(pd.DataFrame({"strategy": s, "game": np.arange(len(series.path)),
                                   "handicap": series.path}))
    cols = ["strategy", "game", "handicap"]
    return (pd.DataFrame(rows),
            pd.concat(paths, ignore_index=True) if paths else pd.DataFrame(columns=cols))


def tom_difficulty(runs: RunLike | Sequence[RunLike], n_boot: int = 500,
                   seed: int = 0) -> pd.DataFrame:
    """Per solo run (``players`` = 1) and strategy: ``value`` = win rate against Tom
    (Wilson ``lo``/``hi``), ``n`` games, ``score`` and ``tom`` means, ``margin`` (mean
    score - Tom's), ``handicap`` (where the challenge settles, with bootstrap
    ``h_lo``/``h_hi``) and example ``games`` the strategy won: ``solo_figures`` and
    ``handicaps`` of each run's ``solo_games`` (runs never pooled)."""
    rows = []
    for run in (r for r in as_runs(runs) if r.config.players == 1):
        solo = solo_games(run.data.players)
        eq, _ = handicaps(solo, n_boot=n_boot, seed=seed)
        won = {s: g["game_id"][g["won"].astype(bool)] for s, g in solo.groupby("strategy")}
        for f, h in zip(solo_figures(solo).itertuples(), eq.itertuples(), strict=True):
            rows.append({"strategy": f.strategy, "players": 1, "run": run.label,
                         "value": f.win_rate, "lo": f.lo, "hi": f.hi, "n": f.games,
                         "score": f.score, "tom": f.tom, "margin": f.margin,
                         "handicap": h.equilibrium, "h_lo": h.lo, "h_hi": h.hi,
                         "games": example_ids(won[f.strategy])})
    return pd.DataFrame(rows, columns=["strategy", "players", "run", "value", "lo", "hi", "n",
                                       "score", "tom", "margin", "handicap", "h_lo", "h_hi",
                                       "games"])
