"""The seat step summed a block of rows at a time (issue 38, fifth pass): clustered means
from running totals per (group, deal), blocks cut between deals, no array of every row
or game but the compensation's (games, seats) matrices; the same figures as the per-row
computation of before (to the last bits of the clusters' sums) and a seat step whose
memory does not grow with the games."""

from __future__ import annotations

import tracemalloc

import numpy as np
import pytest

from bonfire_sim.analysis import compensation as CO
from bonfire_sim.analysis import intervals as I
from bonfire_sim.analysis import values as V
from bonfire_sim.analysis.runs import Run
from bonfire_sim.infra import memory
from bonfire_sim.report import build as B
from bonfire_sim.report import data as RD
from bonfire_sim.report import rows as RW
from bonfire_sim.report import stats as S
from bonfire_sim.sim.runconfig import RunConfig
from bonfire_sim.sim.runner import run


def test_clustered_totals_are_each_groups_clustered_mean():
    """Every group's count, clusters, mean, standard error and intervals as
    ``clustered_mean`` of its rows gives them, in blocks of any size; integer means bit
    for bit."""
    rng = np.random.default_rng(3)
    for _ in range(30):
        n = int(rng.integers(1, 3000))
        cluster = np.sort(rng.integers(0, n // 3 + 1, n)).astype(np.int32)
        group = rng.integers(-1, 4, n)
        share, score = rng.random(n), rng.integers(0, 60, n).astype(np.int16)
        cuts = I.cluster_cuts(cluster, int(rng.integers(1, 300)))
        totals = I.clustered_totals(
            lambda cuts=cuts, group=group, cluster=cluster, share=share, score=score: (
                (group[b], cluster[b], (share[b], score[b])) for b in cuts), 4, 2)
        for g in range(4):
            at = group == g
            for j, x in enumerate((share, score.astype(float))):
                t = totals[g][j]
                m, se, count, k = I.clustered_mean(x[at], cluster[at])
                assert (t.n, t.k) == (count, k)
                if not count:
                    continue
                assert t.mean == pytest.approx(m, rel=1e-15)
                assert j == 0 or t.mean == m  # integer sums are exact
                assert t.se == pytest.approx(se, rel=1e-12, nan_ok=True)
                want = I.clustered_wilson(x[at], cluster[at]) if j == 0 else \
                    I.clustered_mean_ci(x[at], cluster[at])
                got = t.wilson() if j == 0 else t.mean_ci()
                assert got == pytest.approx(want, rel=1e-12, nan_ok=True)


def test_cluster_cuts_cover_every_row_and_cut_only_between_clusters():
    rng = np.random.default_rng(4)
    for n in (0, 1, 5, 1000):
        cluster = np.sort(rng.integers(0, max(n // 4, 1), n))
        for size in (1, 3, 64, 10**6):
            cuts = I.cluster_cuts(cluster, size)
            rows = np.concatenate([np.arange(n)[b] for b in cuts]) if cuts else np.zeros(0)
            assert (rows == np.arange(n)).all()
            assert all(cluster[a.stop - 1] != cluster[b.start]
                       for a, b in zip(cuts, cuts[1:], strict=False))
    shuffled = np.array([3, 1, 2, 1])  # out of order: one block of every row
    assert I.cluster_cuts(shuffled, 1) == [slice(0, 4)]


@pytest.fixture(scope="module")
def mixed(tmp_path_factory):
    """The report's rows of a seat-rotated 3-player mix (deals of three games) beside a
    2-player run that is not rotated (left out of the seat rows)."""
    base = tmp_path_factory.mktemp("seatblocks")
    dirs = [run(RunConfig(games=90, players=3, seed=4, seat_rotation=True,
                          strategies=("greedy", "random", "tempo")), base / "a3"),
            run(RunConfig(games=60, players=2, seed=3, strategies=("greedy", "random")),
                base / "b2")]
    return S.combine(RD.load_runs(dirs, categories=True), lists=False, lean=True)[1]


def _per_group(players, by=()):
    """The seat table as the per-row computation gave it: each group's rows copied, its
    win shares and scores as float64, ``clustered_wilson`` and ``clustered_mean_ci``."""
    keys = ["n_players", *by, "seat"]
    out = []
    for key, g in RW.groups(players, keys, ["win_share", "score", "deal_key"]):
        deals = g["deal_key"].to_numpy()
        _, lo, hi = I.clustered_wilson(g["win_share"].to_numpy(float), deals)
        m, slo, shi = I.clustered_mean_ci(g["score"].to_numpy(float), deals)
        out.append((key, len(g), g["win_share"].sum(), lo, hi, m, slo, shi))
    return out


@pytest.mark.parametrize("by", [(), ("strategy",)])
def test_the_seat_tables_in_blocks_are_the_per_group_figures(mixed, monkeypatch, by):
    data, notes = B.seat_data(mixed)
    assert data is mixed and notes[0].startswith("2 players: no run was seat-rotated (b2)")
    want = _per_group(data, by)
    for rows in (10**6, 7):  # one block; blocks of 7 rows cut between deals
        monkeypatch.setattr(I, "TOTALS_ROWS", rows)
        got = S.seat_advantage(data, by)
        assert len(got) == len(want) > 3
        for (key, n, wins, lo, hi, m, slo, shi), r in zip(want, got.itertuples(),
                                                            strict=True):
            assert tuple(getattr(r, k) for k in ["n_players", *by, "seat"]) == (
                key if isinstance(key, tuple) else (key,))
            assert r.games == n and r.wins == pytest.approx(wins, rel=1e-13)
            assert (r.lo, r.hi) == pytest.approx((lo, hi), rel=1e-12)
            assert (r.score, r.score_lo, r.score_hi) == pytest.approx((m, slo, shi),
                                                                      rel=1e-12)
            assert r.score == m  # integer scores: the mean bit for bit
    test = S.seat_test(data)
    wins = data.assign(win_share=np.asarray(data["win_share"], float)).groupby(
        "n_players")["win_share"].sum()
    assert list(test["n_players"]) == [2, 3] and list(test["games"]) == [60, 90]
    assert test["wins_counted"].to_numpy() == pytest.approx(wins.to_numpy(), rel=1e-14)
    assert list(test["rotated"]) == [False, True]


# ---- the step's memory -----------------------------------------------------------------
@pytest.fixture(scope="module")
def sizes(tmp_path_factory):
    base = tmp_path_factory.mktemp("seatmem")
    return {g: run(RunConfig(games=g, players=4, seed=1, strategies=("random",)),
                   base / f"r{g}") for g in (2000, 8000)}


def _peak(f) -> int:
    tracemalloc.start()
    try:
        f()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def _growth(sizes) -> tuple[float, float]:
    """Bytes per extra game of the peak (numpy's allocations, traced) of the seat step's
    tables (rows, win rates, scores, the test, distinct games) and of its compensation,
    from 2,000 to 8,000 4-player games (the rows, held by the report anyway, not counted)."""
    peaks = {}
    for g, d in sizes.items():
        runs = RD.load_runs([d], categories=True)
        _, players = S.combine(runs, lists=False, lean=True)
        one = [Run(runs[0][0], d, runs[0][1])]

        def tables(players=players):
            data, _ = B.seat_data(players)
            S.seat_advantage(data)
            S.seat_advantage(data, by=("strategy",))
            S.seat_test(data)
            S.n_games(data)

        tables()  # warm: a first call's caches (imports, pandas' own) are not the games'
        peaks[g] = (_peak(tables), _peak(lambda one=one: V.seat_advantage(one)))
    (a, b), (c, d) = peaks[2000], peaks[8000]
    return (c - a) / 6000, (d - b) / 6000


def test_the_seat_step_holds_no_array_of_every_row(sizes, monkeypatch):
    """In blocks of 1,024 rows the seat tables' peak does not grow with the games (a mask
    of every row is 4 bytes a 4-player game, a seat's float64 copy 8), and the
    compensation's grows by its (games, seats) matrices alone: scores, bonfires and
    winners, 16 bytes a 4-player game (measured 15.9; the per-row arrays of before, a game
    index of every row and a seat's shares, deals and deviations, added about 95).
    With blocks of every row (a block as big as the run) both grow by hundreds of bytes
    a game: what the test would see if a per-row array came back."""
    for mod, name in ((memory, "ROWS"), (I, "TOTALS_ROWS"), (V, "ROWS"), (V, "TOTALS_ROWS"),
                      (CO, "TOTALS_ROWS")):
        monkeypatch.setattr(mod, name, 1024)
    monkeypatch.setattr(CO, "BLOCK", 256)
    tables, comp = _growth(sizes)
    assert tables < 2, tables  # a mask of every row would be 4
    assert comp < 19, comp  # a game id or a mask a game more would be 20
    for mod, name in ((memory, "ROWS"), (I, "TOTALS_ROWS"), (V, "ROWS"), (V, "TOTALS_ROWS"),
                      (CO, "TOTALS_ROWS"), (CO, "BLOCK")):
        monkeypatch.setattr(mod, name, 10**7)  # one block: arrays of every row
    tables, comp = _growth(sizes)
    assert tables > 50 and comp > 100, (tables, comp)
