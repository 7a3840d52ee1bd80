"""The rows a report's sections share: the runs combined into one games and one players
frame, held narrow (categoricals, int32 ids, the win share as a byte), and the groups,
distinct games and selections the sections take of them without copying every row.

At a million 4-player games each column of the players rows is 4 million values, so
every helper here reads the columns it needs and copies rows only where it drops some.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import numpy as np
import pandas as pd
from pyarrow import types as arrow_types

from bonfire_sim.analysis.intervals import ordered, unique_codes
from bonfire_sim.infra.memory import codes as category_codes
from bonfire_sim.infra.memory import row_slices, wide_slices
from bonfire_sim.report.data import constant_value, deal_is_game, held_once

TOM = "tom"

# ---- combining runs -------------------------------------------------------------------
def _list_columns() -> set[str]:
    from bonfire_sim.sim.frames import SCHEMAS

    return {f.name for f in SCHEMAS["players"] if arrow_types.is_list(f.type)}


def combine(runs: Sequence[tuple[str, Any]], lists: bool = True, lean: bool = False,
            ) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(games, players) of several ``(label, RunData)``, tagged ``run`` and ``rotated``.

    ``players`` gains the game's ``n_players``, ``solo``, ``n_turns``, ``end_reason``,
    ``deal`` (when the games have one), ``deal_key`` (its deal, an id unique across the
    runs) and ``win_share`` (1/k for each of k tied winners, else 0).  ``lists=False``
    leaves the list columns (task and gnome ids) out of ``players``: the report counts
    those per run in Arrow, and at a million games they are most of the table.
    ``lean=True`` (the report) leaves out the game columns no report section reads from
    the players rows (``n_turns``, ``end_reason``, ``deal``: the games frame has them) and
    holds ``run`` as a categorical of the sorted labels (a byte a row, not a string: the
    same groups, order and comparisons) and ``win_share`` as a categorical of its values
    (``shares_categorical``: a byte a row; ``groups`` gives it as floats).

    A single run's frames share the run's own columns (copy-on-write), so combining costs
    only the columns it adds: at a million games each copy of the players table is
    hundreds of MB.
    """
    gs, ps = [], []
    shares: list[np.ndarray] | None = []
    deal_offset = 0
    labels = sorted({label for label, _ in runs})
    for label, data in runs:
        cfg = data.manifest.get("config", {})
        g = data.games.copy(deep=False)  # the run's columns, shared until written
        rotated = bool(cfg.get("seat_rotation", False))
        # the run's label and rotation on every row, held once (``held_once``) in a report
        g["run"] = _label_column(label, labels, len(g), g.index) if lean else label
        g["rotated"] = held_once(np.bool_(rotated), g.index) if lean else rotated
        left = data.players
        if not lists:
            left = left[[c for c in left.columns if c not in _list_columns()]]
        p, deal, row, own = _with_game_columns(
            left, g, _label_column(label, labels, len(left), left.index) if lean else label,
            lean)
        if row is not None and shares is not None:  # tied winners counted per game
            won = p["won"].to_numpy(bool)
            # counted on the winners' rows (integer counts, the same values): weights
            # would be a float64 copy of every row (32 MB at a million 4-player games)
            winners = np.bincount(row[won], minlength=len(g))
            if lean:  # k for each of k tied winners, else 0: a byte a row (share_codes)
                shares.append(share_codes(winners, row, won))
            else:
                # 1/k per game, then spread to its rows: the same values as working it
                # out per row, with one row-long temporary instead of four
                share = (1.0 / np.maximum(winners, 1))[row]
                share[~won] = 0.0
                shares.append(share)
                del share
            del winners
        else:
            shares = None
        # One id per (run, deal), unique across the runs: the cluster of the intervals
        # over seat-rotated games (the rotations of a deal share its cards).
        top = int(deal.max()) + deal_offset if len(deal) else deal_offset
        # int32 where every key fits (the same values, half the bytes of a big run),
        # added in int32 then (no int64 copy of every row)
        if own and deal_offset == 0 and deal.dtype == np.int32:
            # each game its own deal (not rotated), the first run: the key is the rows'
            # game id, shared (16 bytes a 4-player game less, held through the report)
            p["deal_key"] = p["game_id"]
        elif lean and top < 2**31:
            p["deal_key"] = deal.astype(np.int32, copy=False) + np.int32(deal_offset)
        else:
            p["deal_key"] = deal.astype(np.int64) + deal_offset
        deal_offset = top + 1 if len(deal) else deal_offset
        del left
        gs.append(g)
        ps.append(p)
        del p
    games = gs[0] if len(gs) == 1 else pd.concat(gs, ignore_index=True)
    players = ps.pop() if len(ps) == 1 else pd.concat(ps, ignore_index=True)
    del ps
    players["won"] = players["won"].astype(bool)
    if shares is not None:  # no group-by over every row of every run
        share = shares[0] if len(shares) == 1 else np.concatenate(shares)
        players["win_share"] = shares_categorical(share) if lean else share
    else:
        winners = players.groupby(["run", "game_id"])["won"].transform("sum")
        players["win_share"] = np.where(players["won"], 1.0 / winners.clip(lower=1), 0.0)
    return games, players


def share_codes(winners: np.ndarray, row: np.ndarray, won: np.ndarray) -> np.ndarray:
    """Each row's number of tied winners if it won, else 0 (int8): its win share is 1/k,
    or 0 (``shares_categorical``)."""
    k = winners.astype(np.int8)[row]
    k[~won] = 0
    return k


def shares_categorical(codes: np.ndarray) -> pd.Categorical:
    """The win shares of ``share_codes`` as a categorical of their float values (0, 1,
    1/2, 1/3, ...: code k is 1.0 / k, code 0 is 0.0), a byte a row instead of a float64:
    32 MB at a million 4-player games, held through the whole report.  ``groups`` gives
    the sections the float64 column (``decoded``): the same values as before, bit for bit."""
    top = int(codes.max()) if len(codes) else 0
    values = [0.0, *(1.0 / np.maximum(np.float64(k), 1) for k in range(1, top + 1))]
    return pd.Categorical.from_codes(codes, pd.Index(values, dtype=np.float64))


def decoded(frame: pd.DataFrame) -> pd.DataFrame:
    """``frame`` with each categorical of numbers (the win share) as its float values: a
    group's column, materialised while it is used."""
    cats = [c for c in frame.columns if isinstance(frame[c].dtype, pd.CategoricalDtype)
            and frame[c].dtype.categories.dtype.kind == "f"]
    if not cats:
        return frame
    return frame.assign(**{c: _floats(frame[c]) for c in cats})


def float_mean(col: pd.Series) -> float:
    """``col.mean()`` of a float64 column, or of a categorical of numbers as its float
    values (``decoded``), bit for bit: pandas sums the column with numpy (a pairwise sum,
    ``float_sum``) and divides by the count.  Missing values, or another type: pandas'
    own mean."""
    total = float_sum(col)
    if total is not None:
        return float(total / len(col))
    if isinstance(col.dtype, pd.CategoricalDtype):  # pandas' own mean of the floats
        return float(pd.Series(_floats(col)).mean())
    return float(col.mean())


def float_sum(col: pd.Series) -> np.float64 | None:
    """``col.sum()`` as pandas works it out (numpy's pairwise sum) for a float64 column
    or a categorical of numbers, without pandas' copy of the column; a categorical is
    decoded and summed a block of rows at a time along numpy's own pairwise split
    (``_pairwise_sum``), so its float64 column (32 MB for a million 4-player games' win
    shares) is not made either.  None where a value is missing, the column is empty or
    of another type."""
    if isinstance(col.dtype, pd.CategoricalDtype) and col.dtype.categories.dtype.kind == "f":
        codes = category_codes(col)
        if not len(codes) or codes.min() < 0:
            return None
        cats = col.dtype.categories.to_numpy(np.float64)
        return _pairwise_sum(len(codes), lambda a, b: cats[codes[a:b]])
    values = col.to_numpy()
    if values.dtype != np.float64 or not len(values):
        return None
    total = values.sum()
    return None if np.isnan(total) else total


def _pairwise_sum(n: int, segment: Any, leaf: int = 1 << 16) -> np.float64:
    """``np.sum`` of ``n`` float64 values bit for bit, a segment at a time:
    ``segment(a, b)`` gives values a..b-1.  numpy sums a contiguous float64 array
    pairwise, splitting ``m`` values into ``m // 2`` rounded down to a multiple of 8 and
    the rest; the same split above ``leaf`` values and numpy's own sum of each leaf
    give the same additions in the same order, for a ``leaf`` of 128 values or more (numpy
    sums up to 128 in one loop; ``tests/test_report_held.py`` holds it to ``np.sum``)."""
    if n <= leaf:
        return np.float64(segment(0, n).sum()) if n else np.float64(0.0)

    def part(lo: int, m: int) -> np.float64:
        if m <= leaf:
            return np.float64(segment(lo, lo + m).sum())
        half = m // 2
        half -= half % 8
        return part(lo, half) + part(lo + half, m - half)

    return part(0, n)


def _floats(col: pd.Series) -> np.ndarray:
    """A categorical of numbers as its float64 values: its categories taken at its codes
    (``np.asarray`` of the categorical widened every code to intp first: 61 MB for a
    32 MB column of 4 million rows; this costs the column), NaN where a code is missing
    as before."""
    codes = category_codes(col)
    if not len(codes) or codes.min() < 0:
        return np.asarray(col.array, dtype=np.float64)
    return col.cat.categories.to_numpy(np.float64)[codes]


def _label_column(label: str, labels: list[str], n: int, index: pd.Index) -> pd.Series:
    """``label`` on ``n`` rows as a categorical of the sorted ``labels``, held once
    (``held_once``: the codes a zero-stride column, not a byte a row)."""
    codes = np.broadcast_to(np.int8(labels.index(label)) if len(labels) < 128
                            else np.int32(labels.index(label)), n)
    return pd.Series(pd.Categorical.from_codes(codes, labels), index=index, copy=False)


def _with_game_columns(left: pd.DataFrame, g: pd.DataFrame, label: Any, lean: bool,
                       ) -> tuple[pd.DataFrame, np.ndarray, np.ndarray | None, bool]:
    """``left`` (one run's players rows) with ``run`` and its game's columns beside it,
    each row's deal (its game id where the games have no deal), each row's game (its row
    in ``g``; None where a game is missing) and whether the deal is the rows' own
    ``game_id`` column (``lean``, every game its own deal).

    ``lean``: a game column with one value in the run is held once (``held_once``).

    Each row's game is found by its ``game_id`` and ``left``'s own columns are shared, not
    copied; a row whose game is missing falls back to a left merge (the game columns then
    NaN), as before."""
    has_deal = "deal" in g
    # each game its own deal (a run not seat-rotated): the rows' game id is their deal,
    # so the deal is not taken per row (4 bytes a row)
    own = lean and has_deal and deal_is_game(g)
    cols = ["n_players", "solo", *([] if lean else ["n_turns", "end_reason"]), "rotated",
            *(["deal"] if has_deal and not own else [])]
    unique = g["game_id"].is_unique
    row = _rows_of(left["game_id"].to_numpy(), g["game_id"].to_numpy()) if unique else None
    if row is None or (row < 0).any():
        p = left.merge(g[["game_id", *cols]], on="game_id", how="left")
        p.insert(len(left.columns), "run", label)
    else:
        p = left.copy(deep=False)
        p["run"] = label
        for c in cols:
            same = constant_value(g[c]) if lean else None  # the run's: held once, not per row
            p[c] = g[c].array.take(row) if same is None else held_once(same, p.index)
    deal = p["deal" if has_deal and not own else "game_id"].to_numpy()  # int32 in a report
    if lean and has_deal and not own:
        p = p.drop(columns="deal")
    return p, deal, (None if row is None or (row < 0).any() else row), own


def groups(frame: pd.DataFrame, keys: Sequence[str], cols: Sequence[str],
           decode: bool = True) -> Iterator[tuple[Any, pd.DataFrame]]:
    """``frame.groupby(keys)[cols]`` iterated: the same keys (sorted, a categorical by its
    categories, missing keys left out), order and rows, one group's columns taken at a
    time.  Each group is found by one boolean mask, not by pandas' grouper, whose codes,
    sort and row indices cost about 40 bytes a row at once (a million 4-player games:
    160 MB); a group that is every row is the frame's own columns (no copy).
    ``decode=False`` leaves a categorical of numbers (the win share) as it is held, for a
    caller that sums it a block at a time (``float_mean``)."""
    cols = list(cols)
    as_used = decoded if decode else (lambda f: f)

    def walk(mask: np.ndarray | None, depth: int, key: tuple[Any, ...],
             ) -> Iterator[tuple[Any, pd.DataFrame]]:
        if depth == len(keys):
            # pandas' keys: Python scalars in a tuple of several, the column's own alone
            out = tuple(k.item() if isinstance(k, np.generic) else k for k in key) if len(
                keys) > 1 else key[0]
            if mask is None or mask.all():
                yield out, as_used(frame[cols])
            elif mask.any():
                yield out, as_used(frame.loc[mask, cols])
            return
        col = frame[keys[depth]] if mask is None or mask.all() else frame[keys[depth]][mask]
        for v in present(col):
            # None where every row has the key (a run's value held once, one strategy):
            # no mask of every row then
            at = where_equal(frame[keys[depth]], v)
            yield from walk(mask if at is None else at if mask is None else mask & at,
                            depth + 1, (*key, v))

    yield from walk(None, 0, ())


def present(col: pd.Series) -> list[Any]:
    """The distinct values of ``col`` (missing left out), sorted (a categorical in its
    categories' order), as ``groups`` takes its keys: counted where it can
    (``_present``), else ``col.dropna().unique()`` sorted."""
    found = _present(col)
    if found is not None:
        return found
    values = col.dropna().unique()
    if isinstance(col.dtype, pd.CategoricalDtype):
        order = {c: i for i, c in enumerate(col.dtype.categories)}
        return sorted(values, key=order.__getitem__)
    return sorted(values)


def _present(col: pd.Series) -> list[Any] | None:
    """The distinct values of a categorical (in category order) or of small integers
    (sorted), as ``col.dropna().unique()`` sorted gives them, counted a block of rows at
    a time: ``unique`` hashed every row as int64 (32 MB for 4 million rows, per key of
    every group).  None for other columns."""
    if isinstance(col.dtype, pd.CategoricalDtype):
        codes = category_codes(col)
        seen = _seen(codes, -1, len(col.dtype.categories) + 1)  # -1: missing
        return list(col.dtype.categories[np.flatnonzero(seen[1:])])
    values = col.to_numpy()
    if values.dtype.kind not in "iu" or not len(values):
        return None
    lo, hi = int(values.min()), int(values.max())
    if hi - lo > 1 << 16:
        return None
    return list((np.flatnonzero(_seen(values, lo, hi - lo + 1)) + lo).astype(values.dtype))


def _seen(values: np.ndarray, lo: int, size: int) -> np.ndarray:
    """Whether each of ``lo .. lo + size - 1`` occurs in ``values`` (block by block)."""
    seen = np.zeros(size, bool)
    if len(values) and values.strides == (0,):  # a value held once (``held_once``)
        seen[int(values[0]) - lo] = True
        return seen
    for b in wide_slices(len(values)):
        seen |= np.bincount(values[b].astype(np.intp) - lo, minlength=len(seen)) > 0
    return seen


def _rows_of(ids: np.ndarray, game_ids: np.ndarray) -> np.ndarray:
    """``pd.Index(game_ids).get_indexer(ids)`` (-1 where an id is missing) of unique
    ``game_ids``: where both are in order and every game has rows (a run as written), the
    games are numbered where the ids change (int32, no hash table of every row)."""
    if (len(ids) and ids.dtype.kind in "iu" and game_ids.dtype.kind in "iu"
            and bool(np.all(ids[1:] >= ids[:-1]))):
        rows = unique_codes(ids)[1]  # a new array: the caller may write into it
        if int(rows[-1]) + 1 == len(game_ids) and all(
                np.array_equal(game_ids[rows[b]], ids[b]) for b in row_slices(len(ids))):
            return rows
    return pd.Index(game_ids).get_indexer(ids)


# ---- a block of rows at a time ----------------------------------------------------------
def any_row(n: int, hit: Callable[[slice], np.ndarray]) -> bool:
    """Whether ``hit(block)`` (a bool per row of the block) is true for any of ``n`` rows,
    a block at a time: one block's mask, not one of every row."""
    return any(bool(hit(b).any()) for b in row_slices(n))


def where_equal(col: pd.Series, value: Any) -> np.ndarray | None:
    """``(col == value).to_numpy(bool)``, or None where every row equals ``value`` (a
    value held once, or checked a block at a time): no mask of every row then."""
    if isinstance(col.dtype, pd.CategoricalDtype):  # on its codes (no value per row)
        values = category_codes(col)
        at = col.dtype.categories.get_indexer([value])[0]
        value = at if at >= 0 else -2  # a value not among the categories: no row has it
    else:
        values = col.to_numpy()
    if len(values) and values.strides == (0,):
        return None if values[0] == value else values == value
    if not any_row(len(values), lambda b: values[b] != value):
        return None
    return np.asarray(values == value, dtype=bool)


def value_counts(values: np.ndarray, lo: int, size: int) -> np.ndarray:
    """How often each of ``lo .. lo + size - 1`` occurs in the integers ``values`` (others
    left out), a block at a time: one block's intp copy, not one of every value."""
    counts = np.zeros(size, np.int64)
    if len(values) and values.strides == (0,):  # a value held once
        if 0 <= int(values[0]) - lo < size:
            counts[int(values[0]) - lo] = len(values)
        return counts
    for b in wide_slices(len(values)):
        v = values[b].astype(np.intp) - lo
        counts += np.bincount(v[(v >= 0) & (v < size)], minlength=size)
    return counts


def first_rows(values: np.ndarray, lo: int, size: int) -> np.ndarray:
    """The first row of each of ``lo .. lo + size - 1`` in ``values`` (``len(values)``
    where absent), a block at a time."""
    first = np.full(size, len(values), np.int64)
    if len(values) and values.strides == (0,):
        if 0 <= int(values[0]) - lo < size:
            first[int(values[0]) - lo] = 0
        return first
    for b in wide_slices(len(values)):
        v = values[b].astype(np.intp) - lo
        seen = np.bincount(v[(v >= 0) & (v < size)], minlength=size) > 0
        for i in np.flatnonzero(seen & (first == len(values))):
            first[i] = b.start + int(np.argmax(v == i))
    return first


def float_values(col: pd.Series) -> Callable[[slice], np.ndarray]:
    """A block of ``col``'s rows as float64: a categorical of numbers (the win share)
    decoded as ``decoded`` does (NaN where missing), anything else converted."""
    if isinstance(col.dtype, pd.CategoricalDtype) and col.dtype.categories.dtype.kind == "f":
        codes = category_codes(col)
        cats = np.append(col.dtype.categories.to_numpy(np.float64), np.nan)  # -1: missing
        return lambda b: cats[codes[b]]
    values = col.to_numpy()
    return lambda b: np.asarray(values[b], dtype=np.float64)


def group_index(frame: pd.DataFrame, keys: Sequence[str],
                ) -> tuple[list[tuple[Any, ...]], Callable[[slice], np.ndarray]]:
    """The groups ``groups(frame, keys, ...)`` gives, as every combination of each key's
    present values in its order (``present``; keys as ``groups`` gives them, a group
    without rows included), and for a block of rows each row's group: its index in that
    list (-1 where a key is missing).  What a statistic summed a block at a time
    (``intervals.clustered_totals``) groups by, without a mask or copy of each group."""
    found = [present(frame[k]) for k in keys]
    lookups = []
    for k, values in zip(keys, found, strict=True):
        col = frame[k]
        if isinstance(col.dtype, pd.CategoricalDtype):
            table = np.full(len(col.dtype.categories) + 1, -1, np.int64)  # code -1: missing
            table[col.dtype.categories.get_indexer(values)] = np.arange(len(values))
            codes = category_codes(col)
            lookups.append(lambda b, t=table, c=codes: t[c[b]])
        else:
            index, raw = pd.Index(values), col.to_numpy()
            lookups.append(lambda b, i=index, r=raw: i.get_indexer(r[b]).astype(np.int64))

    def of(b: slice) -> np.ndarray:
        out: np.ndarray | None = None
        for look, values in zip(lookups, found, strict=True):
            at = look(b)
            out = at if out is None else np.where((out < 0) | (at < 0), -1,
                                                  out * len(values) + at)
        assert out is not None
        return out

    combos = [tuple(v.item() if isinstance(v, np.generic) else v for v in key)
              for key in itertools.product(*found)]
    return combos, of


def n_games(players: pd.DataFrame) -> int:
    """Distinct games (run and game id) among the rows: counted per run on the integer
    ids, without a frame of (run, game id) pairs (a million games: 4 million rows)."""
    if "run" not in players:
        return _distinct(players["game_id"].to_numpy())
    runs = players["run"]
    ids = players["game_id"].to_numpy()
    total = 0
    # the runs found by counting, a run that is every row without a mask (``unique`` and
    # a comparison of every row cost 19 MB at 256,000 4-player games)
    for r in present(runs):
        at = where_equal(runs, r)
        total += _distinct(ids if at is None else ids[at])
    codes = category_codes(runs) if isinstance(runs.dtype, pd.CategoricalDtype) else None
    if codes is None or any_row(len(codes), lambda b: codes[b] < 0):  # rows of no run:
        missing = runs.isna().to_numpy(bool)  # counted as ``unique`` counted them
        if missing.any():
            total += _distinct(ids[missing])
    return total


def _distinct(ids: np.ndarray) -> int:
    """``nunique`` of integer ids: counted where they change if they are in order (a run's
    rows are written game by game), a block at a time, without a hash table or a mask of
    every row."""
    if len(ids) and ids.dtype.kind in "iu" and ordered(ids):
        return 1 + sum(int(np.count_nonzero(ids[b.start + 1:b.stop + 1] != ids[b.start:b.stop]))
                       for b in row_slices(len(ids) - 1))
    return int(pd.Series(ids).nunique())


def multiplayer(players: pd.DataFrame) -> pd.DataFrame:
    """Rows of human players in games with 2+ human players (solo games left out): the
    frame itself where that is every row (checked a block at a time: no mask of every row
    then, nor a copy)."""
    solo, is_tom = players["solo"].to_numpy(), _tom_rows(players["strategy"])
    if (solo.dtype == bool or solo.dtype.kind in "iu") and not any_row(
            len(players), lambda b: solo[b].astype(bool) | is_tom(b)):
        return players
    keep = (~players["solo"].astype(bool)) & (players["strategy"] != TOM)
    return players if keep.all() else players[keep]


def any_tom(players: pd.DataFrame) -> bool:
    """Whether any row is Tom's (a solo run's automaton), checked a block at a time."""
    return any_row(len(players), _tom_rows(players["strategy"]))


def _tom_rows(strategy: pd.Series) -> Callable[[slice], np.ndarray]:
    """Whether each row of a block is Tom's: on a categorical's codes (no string per
    row; a missing strategy, code -1, counts as not Tom's unless Tom is no category,
    where no row is his)."""
    if isinstance(strategy.dtype, pd.CategoricalDtype):
        codes = category_codes(strategy)
        tom = strategy.dtype.categories.get_indexer([TOM])[0]
        if tom < 0:
            return lambda b: np.zeros(b.stop - b.start, bool)
        return lambda b: codes[b] == tom
    return lambda b: (strategy.iloc[b] == TOM).to_numpy(bool)


def rows_of_runs(players: pd.DataFrame, labels: Sequence[str]) -> pd.DataFrame:
    """The rows of the runs ``labels``: the frame itself where that is every row (a
    boolean selection copies every column even when it keeps them all: 55 MB at a
    million 4-player games, held through the seat step); checked a block at a time where
    the runs are a categorical (no mask of every row then)."""
    runs = players["run"]
    if isinstance(runs.dtype, pd.CategoricalDtype):
        codes = category_codes(runs)
        wanted = np.zeros(len(runs.dtype.categories) + 1, bool)  # code -1 (no run): last
        wanted[runs.dtype.categories.get_indexer(list(labels))] = True
        wanted[-1] = False
        if not any_row(len(codes), lambda b: ~wanted[codes[b]]):
            return players
    at = run_mask(players, labels)
    return players if at.all() else players[at]


def run_mask(frame: pd.DataFrame, labels: Sequence[str]) -> np.ndarray:
    """``frame["run"].isin(labels)`` as a numpy mask, one comparison per label: on the
    categorical ``run`` each is a comparison of its codes, where ``isin`` built a hash
    table of every row (48 MB at a million 4-player games, held until the next step)."""
    runs = frame["run"]
    at = np.zeros(len(frame), bool)
    for label in dict.fromkeys(labels):
        at |= (runs == label).to_numpy(bool)
    return at


def seat_data(players: pd.DataFrame) -> tuple[pd.DataFrame, list[str]]:
    """Multiplayer rows for the seat analysis: rotated runs where a player count has them.

    At most one copy (none when every row is kept: at a million games each copy of the
    players rows is hundreds of MB), and the rows are read a block at a time (a run's
    player count and rotation are held once: no mask of every row unless rows drop)."""
    m = multiplayer(players)
    counts = m["n_players"].to_numpy()
    rotated = m["rotated"].to_numpy(bool)
    runs = m["run"]

    def labels(hit: Callable[[slice], np.ndarray]) -> list[str]:
        # the distinct runs only, a block at a time: a run label per row as Python
        # strings is ~60 B a row
        found: set[str] = set()
        for b in row_slices(len(m)):
            at = hit(b)
            if at.any():
                found.update(map(str, present(runs.iloc[b][at])))
        return sorted(found)

    keep: np.ndarray | None = None
    notes = []
    for n in present(m["n_players"]):  # not a Python int per row (32 MB at 1M games)
        def at(b: slice, n: Any = n) -> np.ndarray:
            return counts[b] == n

        def left_out(b: slice, n: Any = n) -> np.ndarray:
            return (counts[b] == n) & ~rotated[b]

        def kept(b: slice, n: Any = n) -> np.ndarray:
            return (counts[b] == n) & rotated[b]

        if any_row(len(m), kept):
            dropped = labels(left_out)
            if dropped:
                keep = np.ones(len(m), bool) if keep is None else keep
                keep[(counts == n) & ~rotated] = False
                notes.append(f"{n} players: using the seat-rotated run(s) only; not rotated "
                             f"and left out: {', '.join(dropped)}.")
        else:
            names = ", ".join(labels(at))
            notes.append(f"{n} players: no run was seat-rotated ({names}); seat effects are "
                         f"confounded with the strategy sitting there.")
    return (m if keep is None or keep.all() else m[keep]), notes
