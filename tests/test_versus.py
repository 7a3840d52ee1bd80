"""The Catanatron comparison's interleaved rounds time exactly the games of one block."""

from __future__ import annotations

import pyarrow as pa
import pytest

from bonfire_sim.sim.bench import Scenario, time_slice
from bonfire_sim.sim.versus import fit_rounds, len_slice


@pytest.mark.parametrize("n,parts", [(10, 3), (200, 5), (7, 7), (5, 2), (1, 1)])
def test_slices_partition_the_games(n, parts):
    sizes = [len_slice(n, parts, k) for k in range(parts)]
    assert sum(sizes) == n and min(sizes) >= 0 and max(sizes) - min(sizes) <= max(1, n)


@pytest.mark.parametrize("rounds,games,cat,expected", [
    (5, 2000, 200, 5), (5, 12, 2, 2), (5, 3, 100, 3), (4, 10, 6, 3), (1, 1, 1, 1)])
def test_fit_rounds_leaves_no_round_without_a_game_of_each(rounds, games, cat, expected):
    r = fit_rounds(rounds, games, cat)
    assert r == expected
    for n in (games, cat):
        assert all(len_slice(n, r, k) > 0 for k in range(r))


def test_round_slices_play_the_same_games_as_one_block():
    sc = Scenario("random 4p", 4, ("random",), "none")
    _, decisions, whole = time_slice(sc, 10, 1, 0)
    parts = [time_slice(sc, 10, 4, k) for k in range(4)]
    assert sum(d for _, d, _ in parts) == decisions
    joined = pa.concat_tables([data.games for _, _, data in parts])
    assert joined.column("n_decisions").to_pylist() == whole.games.column(
        "n_decisions").to_pylist()
    assert joined.column("seed").to_pylist() == whole.games.column("seed").to_pylist()
