"""The check's second look (``cards.check_topup.top_up_check``), the one step that both
``reprice --verify``'s check and the errata sheet's check round take: a row whose interval
crosses the margin gets more forks on new deals and its verdict rests on all of them.

A stated model stands in for the engine: a card's forks at a count are draws of its true
surplus plus noise of sd 4 points, and its row is their mean with a 95% normal interval
(measured where the half-width is within the margin)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from bonfire_sim.analysis.cards import CHECK_TOP_UPS, top_up_check, verdict

TRUE = {("A", 2): 0.5, ("B", 2): 1.0, ("C", 2): -0.2, ("A", 3): 0.1}  # surplus per row
SD = 4.0


def _forks(todo: Mapping[int, Sequence[str]], seed: int, games: int) -> pd.DataFrame:
    """One fork per game for every open card (the model's ``MoreFn``)."""
    rng = np.random.default_rng(seed)
    parts = [pd.DataFrame({"card": c, "players": n, "seed": seed,
                           "x": TRUE[(c, n)] + rng.normal(0, SD, games)})
             for n, cs in todo.items() for c in cs]
    return pd.concat(parts, ignore_index=True)


def _table(forks: pd.DataFrame) -> pd.DataFrame:
    g = forks.groupby(["card", "players"], sort=True)["x"]
    t = pd.DataFrame({"surplus": g.mean(), "n": g.size(),
                      "half": 1.96 * g.std() / np.sqrt(g.size())}).reset_index()
    t["s_lo"], t["s_hi"] = t["surplus"] - t["half"], t["surplus"] + t["half"]
    t["status"] = np.where(t["half"] <= 1.0, "measured", "not measured")
    return t.assign(kind="task")


def _check(top_ups: int = CHECK_TOP_UPS):
    first = pd.concat([_forks({2: ["A", "B"], 3: ["A"]}, 50, 100),
                       _forks({2: ["C"]}, 50, 3000)], ignore_index=True)
    lines: list[str] = []
    table, forks, played = top_up_check(first, _table, _forks, ["A", "B", "C"], 1.0, 50, 100,
                                        top_ups=top_ups, note=lines.append)
    return table.set_index(["card", "players"]), forks, played, lines


def test_an_unresolved_row_gets_more_forks_and_its_verdict_rests_on_all_of_them():
    before = _table(pd.concat([_forks({2: ["A", "B"], 3: ["A"]}, 50, 100)]))
    assert set(verdict(before, 1.0)) == {"unresolved"}  # 100 forks: half ~0.8, crosses 1
    table, forks, played, lines = _check()
    a = table.loc[("A", 2)]
    # 100 of the check + 200 on seed 51 (+ 400 on seed 52 if still open): all of them
    assert a["n"] == len(forks[(forks["card"] == "A") & (forks["players"] == 2)])
    assert a["n"] > 100 and set(forks["seed"]) >= {50, 51}
    assert verdict(table.loc[[("A", 2)]], 1.0).iloc[0] == "within"
    assert played[0].seed == 51 and played[0].games == 200
    assert ("C", 2) not in [r for t in played for r in t.rows]  # resolved: not played again
    assert lines and "200 more games" in lines[0] and "A at 2p" in lines[0]


def test_a_row_that_stays_unresolved_says_so_with_all_its_forks():
    table, _forks_, played, _ = _check()
    b = table.loc[[("B", 2)]]  # exactly at the margin: no number of forks resolves it
    assert verdict(b, 1.0).iloc[0] == "unresolved"
    assert len(played) == CHECK_TOP_UPS  # bounded
    assert [t.games for t in played] == [200, 400]  # doubling, on seeds 51 and 52
    assert [t.seed for t in played] == [51, 52]
    assert int(b["n"].iloc[0]) == 100 + 200 + 400
    assert played[0].to_json() == {"seed": 51, "games": 200,
                                   "rows": [[r[0], r[1]] for r in played[0].rows]}


def test_without_the_top_up_the_same_row_stays_unresolved():
    table, forks, played, lines = _check(top_ups=0)
    assert not played and not lines and set(forks["seed"]) == {50}
    assert verdict(table.loc[[("A", 2)]], 1.0).iloc[0] == "unresolved"
