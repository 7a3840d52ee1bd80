"""What the report holds through its build (issue 38, fourth pass): a run's own values held
once, not per row; working arrays built a block of rows at a time; the same numbers and
the same page as the per-row computation of before."""

from __future__ import annotations

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
    monkeypatch.setattr(RW, "_deal_is_game", lambda games: False)


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
    assert not RW._deal_is_game(games) and games["deal"].nunique() < len(games)
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


def test_winners_counted_on_the_winners_rows_are_the_weighted_counts(four):
    a = V._seat_arrays(four)
    weighted = np.bincount(a["game"], weights=a["won"], minlength=len(a["cluster"]))
    assert (a["winners"] == weighted).all() and a["winners"].max() >= 1
    held = np.where(a["won"], 1.0 / np.maximum(weighted[a["game"]], 1), 0.0)
    for seat in range(4):  # the win shares, bit for bit as the per-row formula
        at = a["seat"] == seat
        assert (V._win_share(a, at) == held[at]).all()


def test_games_by_seat_filled_in_blocks_are_the_whole_fill(four, monkeypatch):
    a = V._seat_arrays(four)
    whole = V._games_by_seat(a, 4)
    monkeypatch.setattr(V, "row_slices", lambda n: memory.row_slices(n, 7))
    blocked = V._games_by_seat(a, 4)
    assert len(a["game"]) > 7 * 10  # many blocks, a short last one
    for x, y in zip(whole, blocked, strict=True):
        assert x.dtype == y.dtype and (x == y).all()


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
