"""The report's memory not growing with the games (issue 38), and its figures unchanged:
the seat compensation re-ranks the games a block at a time (``compensation.BLOCK``) and
must give, bit for bit, what re-ranking every game at once gave."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest

from bonfire_sim.analysis import compensation as CO
from bonfire_sim.analysis import values as V
from bonfire_sim.analysis.runs import as_runs
from bonfire_sim.sim.runconfig import RunConfig
from bonfire_sim.sim.runner import run


@pytest.fixture(scope="module")
def four(tmp_path_factory):
    """A small 4-player run (seat-rotated, the default mix): ties and deal clusters."""
    return as_runs(run(RunConfig(games=400, players=4, seed=11, seat_rotation=True,
                                 chunk_size=100), tmp_path_factory.mktemp("flat") / "p4"))


def _whole_shares(scores, bonf, c, per_game=False):
    """The re-ranking as it was before the blocks (every game at once): the oracle."""
    c = np.asarray(c, float)
    base, frac = np.floor(c), c - np.floor(c)
    free = [s for s in range(len(c)) if frac[s] > 1e-12]
    acc = np.zeros(scores.shape if per_game else scores.shape[1])
    for corner in itertools.product((0, 1), repeat=len(free)):
        offs, weight = base.copy(), 1.0
        for s, bit in zip(free, corner, strict=True):
            offs[s] += bit
            weight *= frac[s] if bit else 1.0 - frac[s]
        adj = scores.astype(np.int32) + offs.astype(np.int32)[None, :]
        lead = adj == adj.max(axis=1, keepdims=True)
        bf = np.where(lead, bonf.astype(np.int32), -1)
        win = lead & (bf == bf.max(axis=1, keepdims=True))
        w = win / win.sum(axis=1, keepdims=True)
        acc += weight * (w if per_game else w.mean(axis=0))
    return acc


def _matrices(runs):
    g = V.seat_games(runs, 4)
    return g.scores, g.bonfires, g.cluster


@pytest.mark.parametrize("block", [1, 37, 150])
def test_blocked_re_ranking_gives_the_whole_re_rankings_numbers_bit_for_bit(
        four, monkeypatch, block):
    scores, bonf, clusters = _matrices(four)
    assert scores.dtype == np.int16 and bonf.dtype == np.int8  # held narrow
    assert len(scores) > 2 * block  # many blocks (a short last one at 37 and 150)
    monkeypatch.setattr(CO, "BLOCK", block)
    for c in ([0.0, 1.0, 2.0, 3.0], [0.0, 0.37, 1.61, 2.5], [0.0, -1.25, 0.5, 4.75]):
        assert (CO.win_shares(scores, bonf, np.array(c)) == _whole_shares(scores, bonf, c)).all()
    c = np.array([0.0, 0.37, 1.61, 2.5])
    whole = _whole_shares(scores, bonf, c, per_game=True)[:, 1:]
    _, inv = np.unique(clusters, return_inverse=True)
    k = int(inv.max()) + 1
    oracle = np.zeros((k, 3))
    np.add.at(oracle, inv, whole - whole.mean(axis=0))
    # the clusters' sums a block at a time (cut between deals): their cross products
    # added block by block, so to the last bits of the whole S'S
    cross, got_k = CO._cluster_cross(scores, bonf, c, clusters)
    assert got_k == k and np.allclose(cross, oracle.T @ oracle, rtol=1e-12, atol=0)


def test_the_seat_analysis_is_the_same_in_small_blocks_and_in_one(four, monkeypatch):
    """Every number of the seat table and its whole points: one block (the whole re-ranking
    of before) against blocks of 37 games."""
    monkeypatch.setattr(CO, "BLOCK", 10**9)
    one = V.seat_advantage(four)
    monkeypatch.setattr(CO, "BLOCK", 37)
    blocked = V.seat_advantage(four)
    # the intervals' cluster sums are added a block at a time: the last bits may differ
    pd.testing.assert_frame_equal(one, blocked, check_exact=False, rtol=1e-12)
    assert one.attrs == blocked.attrs and one.attrs["seat_points"][4]
    assert np.isfinite(one["c_lo"]).all() and (one["c_hi"] > one["c_lo"])[1:].all()


def _as_before(frame):
    """The rows as the report held them before the win share became a byte a row: its
    float64 values (what the categorical of ``rows.shares_categorical`` stands for)."""
    if isinstance(frame["win_share"].dtype, pd.CategoricalDtype):
        return frame.assign(win_share=np.asarray(frame["win_share"], dtype=np.float64))
    return frame


def _grouper(frame, keys, cols, decode=True):
    """The groups as pandas' grouper gave them before (the oracle of ``stats.groups``)."""
    frame = _as_before(frame)
    for key, idx in frame.groupby(list(keys)).indices.items():
        yield key, frame[list(cols)].take(idx)


@pytest.fixture(scope="module")
def mixed(tmp_path_factory):
    """The report's combined rows of two runs (2 and 3 players, one of them seat-rotated,
    a mix of strategies): categorical run, string strategy, narrow integers."""
    from bonfire_sim.report import data as RD
    from bonfire_sim.report import stats as S

    base = tmp_path_factory.mktemp("mixed")
    dirs = [run(RunConfig(games=60, players=2, seed=3, strategies=("greedy", "random")),
                base / "b2"),
            run(RunConfig(games=90, players=3, seed=4, seat_rotation=True), base / "a3")]
    return S.combine(RD.load_runs(dirs), lists=False, lean=True)[1]


@pytest.mark.parametrize("keys", [["n_players", "strategy"], ["n_players", "seat"],
                                  ["n_players", "strategy", "seat"], ["run", "seat"],
                                  ["strategy"]])
def test_groups_by_masks_are_pandas_groups_key_for_key_and_row_for_row(mixed, keys):
    from bonfire_sim.report import stats as S

    cols = ["score", "win_share", "deal_key"]
    old, new = list(_grouper(mixed, keys, cols)), list(S.groups(mixed, keys, cols))
    assert [k for k, _ in new] == [k for k, _ in old] and len(old) > 2
    for (ka, a), (kb, b) in zip(old, new, strict=True):
        assert [type(x) for x in (ka if isinstance(ka, tuple) else (ka,))] == [
            type(x) for x in (kb if isinstance(kb, tuple) else (kb,))]
        pd.testing.assert_frame_equal(a, b, check_exact=True)


def test_the_overview_and_seat_tables_are_the_same_as_with_pandas_groups(mixed, monkeypatch):
    from bonfire_sim.report import stats as S

    new = [S.score_summary(mixed), S.seat_advantage(mixed),
           S.seat_advantage(mixed, by=("strategy",))]
    monkeypatch.setattr(S, "groups", _grouper)
    old = [S.score_summary(mixed), S.seat_advantage(mixed),
           S.seat_advantage(mixed, by=("strategy",))]
    for a, b in zip(old, new, strict=True):
        assert len(a) > 3
        pd.testing.assert_frame_equal(a, b, check_exact=True)


def test_dense_clusters_are_np_uniques_inverse(four):
    _, _, clusters = _matrices(four)
    rng = np.random.default_rng(0)
    for c in (clusters, clusters[::-1], clusters + 5, rng.permutation(clusters),
              np.array([0, 0, 2, 2, 3])):
        assert (CO._dense(c) == np.unique(c, return_inverse=True)[1]).all()
    assert CO._dense(clusters) is clusters  # no sort where they are in order


def test_distinct_games_are_counted_as_nunique_did(mixed):
    from bonfire_sim.report import stats as S

    def old(players):
        runs = players["run"]
        return sum(int(players["game_id"][runs == r].nunique()) for r in runs.unique())

    shuffled = mixed.sample(frac=1.0, random_state=1)  # ids out of order: the hash path
    half = mixed[mixed["seat"] > 0]
    for frame in (mixed, shuffled, half, mixed.iloc[:0]):
        assert S.n_games(frame) == old(frame)
    assert S.n_games(mixed) == 150 and S.n_games(mixed.drop(columns="run")) == 90


def _peak_bytes_per_game(games: int) -> float:
    """tracemalloc's peak (numpy reports its arrays to it) of one compensation, above its
    inputs, per game: 4-player scores and bonfires as the seat analysis holds them."""
    import tracemalloc

    rng = np.random.default_rng(5)
    scores = rng.integers(40, 90, size=(games, 4)).astype(np.int16)
    bonf = rng.integers(2, 7, size=(games, 4)).astype(np.int8)
    clusters = np.repeat(np.arange(games // 4), 4)
    tracemalloc.start()
    try:
        c, lo, hi = CO.compensation(scores, bonf, clusters)
        assert np.isfinite(lo).all()
        return tracemalloc.get_traced_memory()[1] / games
    finally:
        tracemalloc.stop()


def test_the_compensations_memory_does_not_grow_with_the_games(monkeypatch):
    """Blocks of 2,048 games: 65,536 games hold about what 16,384 do beyond the few
    bytes a game of the clusters; re-ranking every game at once held ~150 bytes a game."""
    monkeypatch.setattr(CO, "BLOCK", 2048)
    small, big = _peak_bytes_per_game(16_384), _peak_bytes_per_game(65_536)
    assert big < 20, big  # the (games, n) temporaries are gone, per game
    assert big < small, (small, big)  # the blocks' fixed cost is spread over more games
    monkeypatch.setattr(CO, "BLOCK", 10**9)  # one block: the whole re-ranking of before
    assert _peak_bytes_per_game(65_536) > 5 * big


# ---- the rows every section shares, held narrow -------------------------------------------
@pytest.fixture(scope="module")
def three_dirs(tmp_path_factory):
    """Runs of 2 and 3 players (one seat-rotated, a mix of strategies, ``random`` not
    first) and a solo run (Tom's rows): different strategy sets to unify."""
    base = tmp_path_factory.mktemp("narrow")
    return [run(RunConfig(games=60, players=2, seed=3, strategies=("random", "greedy")),
                base / "b2"),
            run(RunConfig(games=90, players=3, seed=4, seat_rotation=True), base / "a3"),
            run(RunConfig(games=40, players=1, seed=5), base / "s1")]


def test_the_reports_rows_hold_categories_and_int32_ids(three_dirs):
    from bonfire_sim.report import data as RD
    from bonfire_sim.report import stats as S

    games, players = S.combine(RD.load_runs(three_dirs, categories=True), lists=False,
                               lean=True)
    for frame, col in ((players, "strategy"), (games, "end_reason"), (games, "run"),
                       (players, "run")):
        dtype = frame[col].dtype
        assert isinstance(dtype, pd.CategoricalDtype), col
        assert list(dtype.categories) == sorted(frame[col].astype(str).unique()), col
        assert frame[col].cat.codes.dtype == np.int8, col  # a byte a row
    assert players["game_id"].dtype == np.int32 and games["deal"].dtype == np.int32
    strings = S.combine(RD.load_runs(three_dirs), lists=False, lean=True)
    for new, old in zip((games, players), strings, strict=True):
        for c in ("strategy", "end_reason", "run"):  # the same values, row for row
            if c in old:
                assert (new[c].astype(str).to_numpy() == old[c].astype(str).to_numpy()).all()
        assert (new["game_id"].to_numpy() == old["game_id"].to_numpy()).all()


def test_counts_are_the_strings_value_counts_ties_and_all():
    from bonfire_sim.report import stats as S

    text = pd.Series(["tempo", "greedy", "random", "greedy", "random", "tempo", "tom"])[:-1]
    cat = text.astype(pd.CategoricalDtype(["greedy", "random", "tempo", "tom"]))
    want = text.value_counts()  # a three-way tie, in order of appearance
    for col in (text, cat):
        got = S.counts(col)
        assert list(got.index) == ["tempo", "greedy", "random"] == list(want.index)
        assert list(got) == list(want)
    # the categorical's own: ties in category order, the absent "tom" counted as 0
    assert list(cat.value_counts().index) != list(want.index)


def test_the_report_is_the_same_from_categories_as_from_strings(three_dirs, tmp_path,
                                                                  monkeypatch):
    """Every number, table and figure of the whole page (but its build time)."""
    import re

    from bonfire_sim.report import build as B

    def page(categories: bool) -> str:
        load = B.load_runs.__wrapped__ if hasattr(B.load_runs, "__wrapped__") else B.load_runs

        def forced(*a, **k):
            return load(*a, **{**k, "categories": categories})

        monkeypatch.setattr(B, "load_runs", forced)
        out = B.build_report(three_dirs, tmp_path / f"r{categories}.html", probes=8,
                             views=False).read_text()
        monkeypatch.undo()
        return re.sub(r"\d{4}-\d\d-\d\d \d\d:\d\d", "", out).replace(f"r{categories}.html", "")

    new, old = page(True), page(False)
    assert "greedy" in new and "tom" in new.lower() and len(new) > 10_000
    assert new == old


def test_dense_codes_are_np_uniques_inverse_and_skip_its_sort_in_order(monkeypatch):
    from bonfire_sim.analysis import intervals as I

    rng = np.random.default_rng(3)
    ordered = np.sort(rng.integers(-5, 50, 400)).astype(np.int32)  # gaps, repeats
    cases = [ordered, ordered[::-1], rng.permutation(ordered), np.array([7]),
             np.arange(10, dtype=np.int64) * 3, rng.random(30)]
    for c in cases:
        assert (I.dense_codes(c) == np.unique(c, return_inverse=True)[1]).all()
    x = rng.random(len(ordered))
    want, codes = I.clustered_mean(x, ordered), np.unique(ordered, return_inverse=True)[1]

    def no_sort(*_a, **_k):
        raise AssertionError("sorted")

    monkeypatch.setattr(np, "unique", no_sort)  # the in-order path never sorts
    assert (I.dense_codes(ordered) == codes).all()
    assert I.clustered_mean(x, ordered) == want  # bit for bit
    with pytest.raises(AssertionError):
        I.dense_codes(ordered[::-1])


def test_the_seat_rows_summed_in_blocks_are_the_per_row_figures(four, monkeypatch):
    """Each seat's win share, score and intervals (summed a block of games at a time) as
    the per-row computation of before gave them: the win share of every row (1/k for
    each of k tied winners) and ``clustered_wilson``/``clustered_mean_ci`` of a seat's."""
    from bonfire_sim.analysis import intervals as I

    p = four[0].data.players
    deal = four[0].data.games.set_index("game_id")["deal"].reindex(p["game_id"]).to_numpy()
    k = p.groupby("game_id")["won"].transform("sum").to_numpy()
    share = np.where(p["won"].to_numpy(bool), 1.0 / np.maximum(k, 1), 0.0)
    for rows in (10**6, 40):  # one block; blocks of 10 games
        monkeypatch.setattr(V, "TOTALS_ROWS", rows)
        got = V.seat_advantage(four)
        for seat in range(4):
            at = (p["seat"] == seat).to_numpy()
            row = got[got["seat"] == seat].iloc[0]
            m, lo, hi = I.clustered_wilson(share[at], deal[at])
            sm, slo, shi = I.clustered_mean_ci(p["score"].to_numpy(float)[at], deal[at])
            assert row["n"] == at.sum() and row["value"] == pytest.approx(m, rel=1e-12)
            assert (row["lo"], row["hi"]) == pytest.approx((lo, hi), rel=1e-12)
            assert (row["score"], row["score_lo"], row["score_hi"]) == pytest.approx(
                (sm, slo, shi), rel=1e-12)
            won = np.sort(np.unique(p["game_id"].to_numpy()[at & (share > 0)]))[:3]
            assert row["games"] == ", ".join(map(str, won))


def test_rows_of_games_are_get_indexers():
    from bonfire_sim.report import stats as S

    ids = np.repeat(np.arange(5, 50, 3, dtype=np.int32), 4)
    games = np.unique(ids)
    for left, right in ((ids, games), (ids, games[:-1]), (ids[4:], games),
                        (ids[::-1].copy(), games), (ids, games + 1), (ids[:0], games)):
        want = pd.Index(right).get_indexer(left)
        assert (S._rows_of(left, right) == want).all()
    assert S._rows_of(ids, games).dtype == np.int32  # in order: numbered, no hash table


def test_combined_win_shares_and_deal_keys_are_as_before(three_dirs):
    """The tied winners' shares and the deal keys as the whole-row formulas gave them."""
    from bonfire_sim.report import data as RD
    from bonfire_sim.report import stats as S

    runs = RD.load_runs(three_dirs, categories=True)
    games, players = S.combine(runs, lists=False, lean=True)
    won = players["won"].to_numpy(bool)
    k = players.groupby(["run", "game_id"], observed=True)["won"].transform("sum")
    assert (players["win_share"].to_numpy() == np.where(won, 1.0 / k.clip(lower=1),
                                                          0.0)).all()
    assert (np.asarray(players["win_share"], float) > 0).sum() >= len(games) - 5
    assert players["win_share"].cat.codes.dtype == np.int8  # held as a byte a row
    offset, keys = 0, []
    for _label, data in runs:  # each run's deals after the earlier runs' (in run order)
        g = data.games.set_index("game_id")["deal"]
        keys.append(g.reindex(data.players["game_id"]).to_numpy(np.int64) + offset)
        offset += int(g.max()) + 1
    assert players["deal_key"].dtype == np.int32
    assert (players["deal_key"].to_numpy() == np.concatenate(keys)).all()


def test_seat_games_fill_the_cells_a_pivot_of_the_rows_gives(four, monkeypatch):
    """Scores, bonfires and winners by (game, seat), each game's deal cluster and id, filled
    a block of rows at a time (blocks of 7 rows: games cut across blocks) as a pivot of
    the rows gives them; a game missing a seat's row is left out as before."""
    import dataclasses

    from bonfire_sim.analysis.runs import Run

    run = four[0]
    short = Run(run.label, run.path, dataclasses.replace(
        run.data, players=run.data.players.drop(index=5).reset_index(drop=True)))
    for r in (run, short):
        p = r.data.players
        piv = p.pivot(index="game_id", columns="seat",
                      values=["score", "n_bonfires", "won"]).dropna()
        deal = r.data.games.set_index("game_id")["deal"].reindex(piv.index).to_numpy()
        for rows in (7, 1 << 18):
            monkeypatch.setattr(V, "ROWS", rows)
            g = V.seat_games([r], 4)
            assert g.scores.dtype == np.int16 and g.bonfires.dtype == np.int8
            assert (g.scores == piv["score"].to_numpy()).all()
            assert (g.bonfires == piv["n_bonfires"].to_numpy()).all()
            assert (g.won == piv["won"].to_numpy().astype(bool)).all()
            assert (g.game_id == piv.index.to_numpy()).all()
            assert (g.cluster == np.unique(deal, return_inverse=True)[1]).all()
    assert len(V.seat_games([short], 4).scores) == len(V.seat_games([run], 4).scores) - 1


# ---- third pass: the win share a byte a row, wins by seat a seat at a time, row groups ----
def test_the_win_share_categorical_is_the_float_share_bit_for_bit(three_dirs):
    """The report's rows (``lean``) against the float64 column the other callers still
    get, value for value; and the sections' groups see those floats."""
    from bonfire_sim.report import data as RD
    from bonfire_sim.report import rows as RW

    runs = RD.load_runs(three_dirs, categories=True)
    lean = RW.combine(runs, lists=False, lean=True)[1]
    wide = RW.combine(runs, lists=False)[1]
    cat = lean["win_share"]
    assert isinstance(cat.dtype, pd.CategoricalDtype) and cat.cat.codes.dtype == np.int8
    assert wide["win_share"].dtype == np.float64
    floats = np.asarray(cat, dtype=np.float64)
    assert (floats.view(np.int64) == wide["win_share"].to_numpy().view(np.int64)).all()
    assert len(set(floats[floats > 0])) >= 2  # tied winners: 1/2 beside 1
    for _key, g in RW.groups(lean, ["n_players", "seat"], ["win_share", "score"]):
        assert g["win_share"].dtype == np.float64
    # every tie up to 6 winners: 1/k as combine worked it out per game (float winners)
    winners = np.arange(0, 7, dtype=np.float64)
    won = winners > 0
    k = RW.share_codes(winners, np.arange(7), won)
    want = (1.0 / np.maximum(winners, 1))
    want[~won] = 0.0
    got = np.asarray(RW.shares_categorical(k), dtype=np.float64)
    assert (got.view(np.int64) == want.view(np.int64)).all() and k.dtype == np.int8


def test_the_report_is_the_same_with_the_float_win_share(three_dirs, tmp_path, monkeypatch):
    """The whole page (but its build time) with the win share held as a byte a row and
    with the float64 column of before, and with the rows of the seat step copied by a
    boolean selection as before."""
    import re

    from bonfire_sim.report import build as B
    from bonfire_sim.report import rows as RW

    def page(name: str) -> str:
        out = B.build_report(three_dirs, tmp_path / f"{name}.html", probes=8,
                             views=False).read_text()
        return re.sub(r"\d{4}-\d\d-\d\d \d\d:\d\d", "", out).replace(f"{name}.html", "")

    new = page("new")

    def floats(codes):
        return np.where(codes > 0, 1.0 / np.maximum(codes, 1).astype(np.float64), 0.0)

    monkeypatch.setattr(RW, "shares_categorical", floats)
    monkeypatch.setattr(RW, "rows_of_runs",
                        lambda players, labels: players[players["run"].isin(labels)])
    old = page("old")
    assert "Start-player advantage" in new and len(new) > 10_000
    assert new == old


def test_rows_of_runs_copies_only_when_it_drops_rows(three_dirs):
    from bonfire_sim.report import data as RD
    from bonfire_sim.report import rows as RW

    players = RW.combine(RD.load_runs(three_dirs, categories=True), lists=False,
                         lean=True)[1]
    labels = sorted(map(str, players["run"].unique()))
    assert RW.rows_of_runs(players, labels) is players  # every row: no copy
    some = RW.rows_of_runs(players, labels[:1])
    pd.testing.assert_frame_equal(some, players[players["run"].isin(labels[:1])])
    assert 0 < len(some) < len(players)


def test_merged_tables_gather_chunks_into_row_groups(tmp_path, monkeypatch):
    """The merge writes a row group per ``ROW_GROUP_ROWS`` rows, not per chunk: the same
    rows, values and schema as one row group per chunk, a footer that does not grow with
    the chunks, and the run loads as before."""
    import pyarrow.parquet as pq

    from bonfire_sim.sim import runner as R
    from bonfire_sim.sim.load import load

    cfg = RunConfig(games=300, players=3, seed=9, chunk_size=20)
    monkeypatch.setattr(R, "ROW_GROUP_ROWS", 1)  # no gathering: a group per chunk (before)
    per_chunk = run(cfg, tmp_path / "old")
    monkeypatch.setattr(R, "ROW_GROUP_ROWS", 200)
    gathered = run(cfg, tmp_path / "new")
    for table, rows in (("games", 300), ("players", 900)):
        a = pq.ParquetFile(per_chunk / f"{table}.parquet")
        b = pq.ParquetFile(gathered / f"{table}.parquet")
        assert a.read().to_pandas().equals(b.read().to_pandas())  # values, row for row
        assert a.schema_arrow == b.schema_arrow
        sizes = [b.metadata.row_group(i).num_rows for i in range(b.metadata.num_row_groups)]
        assert sum(sizes) == rows and all(s >= 200 for s in sizes[:-1])
        assert b.metadata.num_row_groups < a.metadata.num_row_groups
    assert a.metadata.num_row_groups == 15  # one row group per 20-game chunk
    old, new = load(per_chunk, turns=False), load(gathered, turns=False)
    pd.testing.assert_frame_equal(old.players, new.players)
    pd.testing.assert_frame_equal(old.games, new.games)


def _old_counts(col):
    """``stats.counts`` before the categorical path (the oracle)."""
    vc = col.value_counts()
    return vc.reindex(pd.Index(col.unique()).dropna()).sort_values(ascending=False,
                                                                    kind="stable")


def test_counts_of_a_categorical_are_its_value_counts_exactly():
    from bonfire_sim.report import stats as S

    rng = np.random.default_rng(4)
    cats = pd.CategoricalDtype(["greedy", "random", "tempo", "tom", "tuned"])
    names = np.array(["tempo", "greedy", "random", "tuned"])
    cases = [pd.Series(names[rng.integers(0, 4, 5_000)]),
             pd.Series(["tempo", "greedy", "random", "greedy", "random", "tempo"]),
             pd.Series(["tuned"] * 3 + [None, "greedy"]), pd.Series([], dtype=object)]
    for text in cases:
        cat = text.astype(cats)
        for col in (cat, cat[::-1], cat.iloc[7:]):
            pd.testing.assert_series_equal(S.counts(col), _old_counts(col), check_exact=True)
        pd.testing.assert_series_equal(S.counts(text), _old_counts(text), check_exact=True)


def test_the_run_overview_is_the_group_bys(mixed):
    """``run_overview`` by masks against the games' group-by it replaced."""
    from bonfire_sim.report import stats as S

    def old(games, players):
        rows = []
        for label, g in games.groupby("run", sort=False):
            at = ((players["run"] == label) & (players["strategy"] != S.TOM)).to_numpy(bool)
            p = players.loc[at, "strategy"]
            mix = _old_counts(p)
            rows.append({"run": label, "n_players": int(g["n_players"].iloc[0]),
                         "solo": bool(g["solo"].iloc[0]), "games": len(g),
                         "seat_rotation": bool(g["rotated"].iloc[0]),
                         "strategies": ", ".join(f"{k} ({v / len(p):.0%})"
                                                 for k, v in mix.items())})
        return pd.DataFrame(rows)

    games = (mixed.drop_duplicates(["run", "game_id"])[
        ["run", "game_id", "n_players", "solo", "rotated"]].iloc[::-1])  # b2 first
    for g in (games, games.iloc[::-1]):
        want = old(g, mixed)
        assert len(want) == 2
        pd.testing.assert_frame_equal(S.run_overview(g, mixed), want, check_exact=True)
