"""What the report holds through its build (issue 38, fourth pass): a run's own values held
once, not per row; working arrays built a block of rows at a time; the same numbers and
the same page as the per-row computation of before."""

from __future__ import annotations

import math
import re

import numpy as np
import pandas as pd
import pytest

from bonfire_sim.analysis import values as V
from bonfire_sim.analysis.runs import as_runs
from bonfire_sim.infra import memory
from bonfire_sim.report import data as RD
from bonfire_sim.report import rows as RW
from bonfire_sim.sim.runconfig import RunConfig
from bonfire_sim.sim.runner import run


@pytest.fixture(scope="module")
def dirs(tmp_path_factory):
    """A 4-player run that is not seat-rotated (each game its own deal: the case the
    shared deal key serves), a seat-rotated 3-player mix after it and a solo run."""
    base = tmp_path_factory.mktemp("held")
    return [run(RunConfig(games=120, players=4, seed=7, strategies=("random",)),
                base / "a4"),
            run(RunConfig(games=90, players=3, seed=4, seat_rotation=True,
                          strategies=("greedy", "random", "tempo")), base / "b3"),
            run(RunConfig(games=40, players=1, seed=5), base / "s1")]


def _per_row(monkeypatch):
    """The computation of before: every run value and deal held per row."""
    monkeypatch.setattr(RD, "hold_run_columns", lambda games: games)
    monkeypatch.setattr(RW, "constant_value", lambda col: None)
    monkeypatch.setattr(RW, "deal_is_game", lambda games: False)


def _zero_stride(col: pd.Series) -> bool:
    values = col.array._codes if isinstance(col.dtype, pd.CategoricalDtype) else col.to_numpy()
    return values.strides == (0,)


def test_a_runs_own_values_are_held_once_and_equal_the_per_row_columns(dirs, monkeypatch):
    for some in (dirs[:1], dirs):
        games, players = RW.combine(RD.load_runs(some, categories=True), lists=False,
                                    lean=True)
        if len(some) == 1:  # one run: its values held once, its deal key its game id
            for c in ("run", "n_players", "solo", "rotated"):
                assert _zero_stride(players[c]), c
            for c in ("run", "n_players", "solo", "rotated", "rotation"):
                assert _zero_stride(games[c]), c
            assert np.shares_memory(players["deal_key"].to_numpy(),
                                    players["game_id"].to_numpy())
            assert np.shares_memory(games["deal"].to_numpy(), games["game_id"].to_numpy())
        with monkeypatch.context() as m:
            _per_row(m)
            g_old, p_old = RW.combine(RD.load_runs(some, categories=True), lists=False,
                                      lean=True)
        assert not _zero_stride(p_old["n_players"])
        # and as the report's frames without ``lean`` (no value held once there)
        _, full = RW.combine(RD.load_runs(some, categories=True), lists=False)
        for c in ("n_players", "solo", "rotated", "deal_key", "game_id"):
            assert (players[c].to_numpy() == full[c].to_numpy()).all(), c
        assert (players["run"].astype(str).to_numpy() == full["run"].to_numpy()).all()
        assert full["rotated"].any() == (len(some) > 1)  # the 3-player run is rotated
        pd.testing.assert_frame_equal(players, p_old, check_exact=True)
        pd.testing.assert_frame_equal(games, g_old, check_exact=True)


def test_a_rotated_runs_deals_are_not_its_game_ids(dirs):
    """The deal key is shared with the game id only where each game is its own deal."""
    runs = RD.load_runs(dirs[1:2], categories=True)
    games = runs[0][1].games
    assert not np.shares_memory(games["deal"].to_numpy(), games["game_id"].to_numpy())
    assert not RW.deal_is_game(games) and games["deal"].nunique() < len(games)
    _, players = RW.combine(runs, lists=False, lean=True)
    assert not np.shares_memory(players["deal_key"].to_numpy(),
                                players["game_id"].to_numpy())


def test_a_columns_one_value_is_found_only_where_every_row_has_it():
    index = pd.RangeIndex(5)
    assert RD.constant_value(pd.Series(np.full(5, 4, np.int16))) == 4
    for col in (pd.Series(np.array([4, 4, 3, 4, 4], np.int16)), pd.Series(np.zeros(0)),
                pd.Series([0.5] * 5), pd.Series(["a"] * 5)):
        assert RD.constant_value(col) is None
    held = RD.held_once(np.int16(3), index)
    assert held.dtype == np.int16 and list(held) == [3] * 5 and _zero_stride(held)


def test_the_page_is_the_same_as_with_every_value_per_row(dirs, tmp_path, monkeypatch):
    """Every number, table and figure of the whole page (but its build time)."""
    from bonfire_sim.report import build as B

    def page(name: str) -> str:
        out = B.build_report(dirs, tmp_path / f"{name}.html", probes=8,
                             views=False).read_text()
        return re.sub(r"\d{4}-\d\d-\d\d \d\d:\d\d", "", out).replace(f"{name}.html", "")

    new = page("new")
    _per_row(monkeypatch)
    old = page("old")
    assert "Start-player advantage" in new and "tom" in new.lower() and len(new) > 10_000
    assert new == old


@pytest.fixture(scope="module")
def four(dirs):
    return as_runs([dirs[0]])


def test_seat_games_hold_the_winners_of_the_rows(four):
    """Who won each game by seat, as the rows say (the win shares are worked out from it:
    1/k for each of k tied winners)."""
    g = V.seat_games(four, 4)
    p = four[0].data.players
    won = p.pivot(index="game_id", columns="seat", values="won").to_numpy().astype(bool)
    assert (g.won == won).all() and g.won.sum(axis=1).max() >= 1


def test_row_slices_cover_every_row_once():
    for n, size in ((0, 3), (1, 3), (9, 3), (10, 3), (5, 1 << 20)):
        covered = np.concatenate([np.arange(n)[s] for s in memory.row_slices(n, size)]
                                 or [np.zeros(0, int)])
        assert (covered == np.arange(n)).all()
        assert all(s.stop - s.start <= size for s in memory.row_slices(n, size))


def test_combined_rows_found_in_blocks_are_found_whole(monkeypatch):
    ids = np.repeat(np.arange(40, dtype=np.int32), 4)
    games = np.arange(40, dtype=np.int32)
    whole = RW._rows_of(ids, games)
    monkeypatch.setattr(RW, "row_slices", lambda n: memory.row_slices(n, 6))
    assert (RW._rows_of(ids, games) == whole).all()
    for at in (0, -1):  # a game id the rows do not have, in the first or the last block
        bad = games.copy()
        bad[at] = -5 if at == 0 else 99
        assert (RW._rows_of(ids, bad) == pd.Index(bad).get_indexer(ids)).all()


# ---- the steps' working memory: sums and counts instead of float64 copies of every row ----
SIZES = (0, 1, 2, 5, 8, 129, 1000, 65_536, 65_537, 300_001, (1 << 20) + 77)


def test_blocked_pairwise_sums_are_numpys_sum_bit_for_bit():
    rng = np.random.default_rng(5)
    for n in SIZES:
        x = rng.random(n) * rng.choice([1.0, 1e-3, 1e5], n)
        assert RW._pairwise_sum(n, lambda a, b, x=x: x[a:b]) == x.sum(), n
        assert RW._pairwise_sum(n, lambda a, b, x=x: x[a:b], leaf=200) == x.sum(), n


def test_the_mean_of_held_win_shares_is_pandas_mean_of_the_floats_bit_for_bit():
    rng = np.random.default_rng(6)
    cats = pd.Index([0.0, 1.0, 0.5, 1 / 3, 0.25])
    for n in SIZES[1:]:
        col = pd.Series(pd.Categorical.from_codes(rng.integers(0, 5, n).astype(np.int8),
                                                  cats))
        floats = np.asarray(col.array, dtype=np.float64)
        assert RW.float_mean(col) == pd.Series(floats).mean(), n
        assert RW.float_mean(pd.Series(floats)) == pd.Series(floats).mean(), n
        assert (RW._floats(col) == floats).all()
    missing = pd.Series(pd.Categorical.from_codes(np.array([0, -1, 1], np.int8), cats))
    assert RW.float_mean(missing) == 0.5 and np.isnan(RW._floats(missing)[1])


def test_an_integer_summary_is_the_float_statistics_of_its_values():
    """Mean and quartiles exactly; the sd (summed per value, not per row) to 1e-12."""
    from bonfire_sim.analysis.intervals import IntegerSummary, mean_ci

    rng = np.random.default_rng(7)
    for n in (1, 2, 3, 4, 5, 7, 100, 1001, 12_345):
        for dtype in (np.int8, np.int16, np.int64):
            x = rng.integers(-20, 120, n).astype(dtype)
            h, s = IntegerSummary(x, block=7), pd.Series(x)
            assert [h.quantile(q) for q in (0.25, 0.5, 0.75)] == list(
                s.quantile([0.25, 0.5, 0.75]))
            (m, lo, hi), (m2, lo2, hi2) = mean_ci(x), h.mean_ci()
            assert m == m2 == s.mean()
            if n > 1:
                assert h.sd == pytest.approx(s.std(ddof=1), rel=1e-12, abs=0)
                assert (lo2, hi2) == pytest.approx((lo, hi), rel=1e-12, abs=1e-12)
            else:
                assert np.isnan(h.sd) and np.isnan(lo2) and np.isnan(lo)
    assert np.isnan(IntegerSummary(np.zeros(0, np.int16)).mean_ci()[0])


def test_the_score_table_is_the_float_computation_of_before(dirs, monkeypatch):
    """Every column of the score table exactly as pandas computed it on float copies,
    but the sd and the t interval, to 1e-12 (summed per value)."""
    from bonfire_sim.report import stats as S

    _, players = RW.combine(RD.load_runs(dirs, categories=True), lists=False, lean=True)
    new = S.score_summary(players)

    def old_rows():
        rows = []
        for (n, s), g in RW.groups(players, ["n_players", "strategy"],
                                   ["score", "win_share"]):
            m, lo, hi = S.mean_ci(g["score"])
            q = g["score"].quantile([0.25, 0.5, 0.75]).to_numpy()
            rows.append({"n_players": n, "strategy": s, "n": len(g), "mean": m, "lo": lo,
                         "hi": hi, "sd": float(g["score"].std(ddof=1)), "q25": q[0],
                         "median": q[1], "q75": q[2], "win_rate": g["win_share"].mean()})
        return pd.DataFrame(rows)

    old = old_rows()
    assert len(new) >= 4
    exact = ["n_players", "strategy", "n", "mean", "q25", "median", "q75", "win_rate"]
    pd.testing.assert_frame_equal(new[exact], old[exact], check_exact=True)
    pd.testing.assert_frame_equal(new[["lo", "hi", "sd"]], old[["lo", "hi", "sd"]],
                                  check_exact=False, rtol=1e-12)


@pytest.mark.parametrize("keys", [["n_players", "strategy"], ["run", "seat"], ["strategy"],
                                  ["n_players", "strategy", "seat"]])
def test_group_keys_found_by_counting_are_the_sorted_uniques(dirs, keys):
    _, players = RW.combine(RD.load_runs(dirs, categories=True), lists=False, lean=True)
    for k in keys:
        col = players[k]
        want = col.dropna().unique()
        if isinstance(col.dtype, pd.CategoricalDtype):
            order = {c: i for i, c in enumerate(col.dtype.categories)}
            want = sorted(want, key=order.__getitem__)
        else:
            want = sorted(want)
        got = RW._present(col)
        assert got == want and [type(x) for x in got] == [type(x) for x in want], k
    assert RW._present(pd.Series([0.5, 1.0])) is None


def test_clustered_means_of_one_observation_a_cluster_are_the_bincount_sums(monkeypatch):
    """The in-order, one-a-cluster shortcut gives the figures of the cluster sums, bit
    for bit; clusters out of order or shared go through the sums."""
    from bonfire_sim.analysis import intervals as I

    rng = np.random.default_rng(8)
    x = rng.random(5000) * rng.choice([1.0, 1e-3, 1e5], 5000)  # sums that round by order
    order = np.arange(5000, dtype=np.int32)
    shared = np.repeat(np.arange(2500, dtype=np.int32), 2)
    shuffled = [rng.permutation(5000).astype(np.int32) for _ in range(6)]

    def via_sums(x, m, clusters):
        inv = I.unique_codes(np.asarray(clusters))[1]
        k = int(inv.max()) + 1
        sums = np.bincount(inv, weights=x - m, minlength=k)
        return float(np.sum(sums ** 2)), k

    m = float(x.mean())
    for clusters in (order, shared, order[::-1].copy(), order + 3, *shuffled):
        assert I.cluster_squares(x, m, clusters) == via_sums(x, m, clusters)
        squares, k = via_sums(x, m, clusters)
        assert I.clustered_mean(x, clusters) == (
            m, math.sqrt(k / (k - 1) * squares / len(x) ** 2), len(x), k)


def test_who_played_gives_the_winners_scores_of_the_group_by_of_before(dirs):
    """The mean winning score per player count (and its interval) as pandas' group-by of
    the winners' rows gave it, and the strategies as ``unique`` found them."""
    from bonfire_sim.report import answers as AN
    from bonfire_sim.report import groups as G
    from bonfire_sim.report import stats as S

    _, players = RW.combine(RD.load_runs(dirs, categories=True), lists=False, lean=True)
    groups = G.group_dirs(dirs, RD.run_labels(dirs))
    text = AN.population_block(players, groups)["text"]
    multi = S.multiplayer(players)
    found = 0
    for _setting, members in G.settings(groups, solo=False):
        p = multi[multi["run"].isin([r for g in members for r in g.runs])]
        for n, g in p.loc[p["won"].astype(bool), ["n_players", "score"]].groupby("n_players"):
            m, lo, hi = S.mean_ci(g["score"])
            assert f"{n} players {m:.1f} ({AN._ci(lo, hi, '.1f')})" in text
            found += 1
    assert found == 2  # the 4-player and the 3-player setting
    assert set(RW.present(multi["strategy"])) == set(multi["strategy"].unique())
    assert RW.present(pd.Series([3.0, np.nan, 1.0])) == [1.0, 3.0]
    for n in (0, 3):  # a value held once, on no rows or some (a categorical's codes too)
        index = pd.RangeIndex(n)
        held = RD.held_once(np.int16(4), index)
        assert RW.present(held) == sorted(pd.Series(np.full(n, 4, np.int16)).unique())
        label = RW._label_column("b", ["a", "b"], n, index)
        assert RW.present(label) == (["b"] if n else [])
