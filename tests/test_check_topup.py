"""The check's second look (``cards.check_topup.top_up_check``), the one step that both
``reprice --verify``'s check and the errata sheet's check round take: a row whose interval
crosses the margin gets more forks on new deals and its verdict rests on all of them.

A stated model stands in for the engine: a card's forks at a count are draws of its true
surplus plus noise of sd 4 points, and its row is their mean with a 95% normal interval
(measured where the half-width is within the margin).  The reference tests read the real
card table (``cards.card_table``: the surplus against the tier's leave-one-out mean) from
injected take forks of the blue tier at 2 players."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from bonfire_sim.analysis.cards import CHECK_TOP_UPS, card_table, top_up_check, verdict
from bonfire_sim.analysis.cards.check_topup import reference_games
from bonfire_sim.rules import components as C

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
    # 100 of the check + 200 on seed 51 (+ 400 on seed 52 ... if still open): all of them
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
    looks = [200 * 2 ** k for k in range(CHECK_TOP_UPS)]  # doubling: 200, 400, 800
    assert [t.games for t in played] == looks
    assert [t.seed for t in played] == [51 + k for k in range(CHECK_TOP_UPS)]
    assert int(b["n"].iloc[0]) == 100 + sum(looks)
    assert played[0].to_json() == {"seed": 51, "games": 200,
                                   "rows": [[r[0], r[1]] for r in played[0].rows],
                                   "reference": []}  # a model without tiers: none


def test_without_the_top_up_the_same_row_stays_unresolved():
    table, forks, played, lines = _check(top_ups=0)
    assert not played and not lines and set(forks["seed"]) == {50}
    assert verdict(table.loc[[("A", 2)]], 1.0).iloc[0] == "unresolved"


# -- the reference: the tier's other cards are topped up where their term is worth it --

BLUE = [t for t in C.tasks_dealt(2) if t.startswith("B")]  # 22 blue tasks at 2 players
OPEN = "B9"
PRINTED = {2: {t.id: int(t.points) for t in C.TASKS}}


def _takes(sd: Mapping[str, float]):
    """A ``MoreFn`` of take forks: one per card per game, score difference = the card's
    true value (B9 0.6 above the rest, all others 0) + normal noise of sd ``sd[card]``."""

    def more(todo: Mapping[int, Sequence[str]], seed: int, games: int) -> pd.DataFrame:
        parts = []
        for n, cs in todo.items():
            for c in cs:
                # per (seed, card) noise: the same deals whatever else is forked beside it
                rng = np.random.default_rng([seed, BLUE.index(c)])
                d = (0.6 if c == OPEN else 0.0) + rng.normal(0, sd[c], games)
                parts.append(pd.DataFrame({
                    "kind": "take", "players": n, "item": c, "score_a": d, "score_b": 0.0,
                    "win_a": 0.0, "win_b": 0.0, "has_a": 1, "has_b": 0,
                    "lit_turns_a": 2.0, "deal": np.arange(games), "seed": seed,
                    "cluster": [f"{seed}|{n}|{g}" for g in range(games)]}))
        return pd.concat(parts, ignore_index=True)

    return more


def _tier_check(sd: Mapping[str, float], base: int, top_ups: int = 1):
    """A check of B9 on 400 games of seed 50, its tier on the first ``base`` of them."""
    more = _takes(sd)
    first = pd.concat([more({2: [OPEN]}, 50, 400),
                       more({2: [c for c in BLUE if c != OPEN]}, 50, base)],
                      ignore_index=True)

    def table_of(f: pd.DataFrame) -> pd.DataFrame:
        return card_table(f, PRINTED, 1.0)

    lines: list[str] = []
    before = table_of(first)
    table, forks, played = top_up_check(first, table_of, more, [OPEN], 1.0, 50, 400,
                                        top_ups=top_ups, base_games=base, note=lines.append)

    def row(t: pd.DataFrame) -> pd.Series:
        return t[(t["card"] == OPEN) & (t["players"] == 2)].iloc[0]

    return row(before), row(table), forks, played, lines


def _s_se(r: pd.Series) -> float:
    from bonfire_sim.analysis.intervals import t95

    return float(r["half"] / t95(max(r["deals"] - 1, 1)))


def test_a_top_up_shrinks_the_whole_interval_when_the_reference_dominates_it():
    """The tier's 21 other cards on 30 games each with sd 12 (their term ~0.23 of the
    row's variance ~0.27); B9 on 400 with sd 4 (0.04).  Twice B9's games alone would
    leave the variance at 0.04/3 + 0.23 (s_se x 0.95): the top-up must fork the
    reference too, on the games the marginal rule asks (about 140 for these variances),
    and the row's s_se then shrinks by the factor those games predict (x ~0.45)."""
    sd = {c: (4.0 if c == OPEN else 12.0) for c in BLUE}
    before, after, forks, played, lines = _tier_check(sd, base=30)
    assert before["status"] == "not measured" or before["s_hi"] > 1.0  # open at the check
    (top,) = played
    assert top.games == 800 and top.rows == ((OPEN, 2),)
    ratio = _s_se(after) / _s_se(before)
    assert ratio < 0.6, ratio  # B9's own forks alone: ~0.95
    (ref,) = top.reference
    assert (ref.players, ref.group, ref.rows) == (2, "blue", (OPEN,))
    assert set(ref.cards) == set(BLUE) - {OPEN}
    assert 70 <= ref.games <= 300, ref.games  # the marginal rule's ~140, not 0, not 800
    # every reference card got its forks on the top-up's seed, on its first games only
    new = forks[(forks["seed"] == 51) & (forks["item"] != OPEN)]
    assert set(new["item"]) == set(ref.cards)
    assert (new.groupby("item").size() == ref.games).all()
    assert new["deal"].max() < ref.games
    # the whole interval shrank by the factor the model predicts for those games
    m1 = len(BLUE) - 1
    expected = np.sqrt((4.0 ** 2 / 1200 + 12.0 ** 2 / (30 + ref.games) / m1)
                       / (4.0 ** 2 / 400 + 12.0 ** 2 / 30 / m1))
    own_only = np.sqrt((4.0 ** 2 / 1200 + 12.0 ** 2 / 30 / m1)
                       / (4.0 ** 2 / 400 + 12.0 ** 2 / 30 / m1))
    assert expected < 0.55 and own_only > 0.9  # what the test tells apart
    assert abs(ratio - expected) < 0.2 * expected, (ratio, expected, own_only)
    assert lines and "their reference, the 21 other blue card(s) at 2p" in lines[0]


def test_a_reference_already_sharp_is_not_forked_again():
    """The same check with the tier on 400 games of sd 4 (its term 0.002 against B9's
    0.16, sd 8): a reference fork buys less than B9's own, so the top-up forks B9 alone,
    as before the reference was topped up."""
    sd = dict.fromkeys(BLUE, 4.0) | {OPEN: 8.0}
    _before, _after, forks, played, _ = _tier_check(sd, base=400)
    assert played and all(not t.reference for t in played)
    assert set(forks.loc[forks["seed"] > 50, "item"]) == {OPEN}


def test_the_marginal_rule_balances_the_two_terms():
    """``reference_games`` alone: with equal sd on every card, the games it picks leave
    the predicted reference term about the card's own after the top-up (the optimum of a
    fork budget when a reference game costs one fork of each of its cards), none when the
    reference is already the smaller, and never more than the top-up's own games."""
    var = {"A": 16 / 400} | {f"R{i}": 16 / 30 for i in range(20)}
    seen = {"A": 400} | {f"R{i}": 30 for i in range(20)}
    y = reference_games(var, "A", ["A"], seen, 3200)
    own = 16 / 3600
    ref = sum(16 / (30 + y) for _ in range(20)) / 20 ** 2
    assert 0 < y <= 3200 and abs(ref - own) < 0.15 * own, (y, ref, own)
    assert reference_games(var, "A", ["A"], seen | dict.fromkeys(var, 10 ** 6) | {"A": 400},
                           800) == 0
    assert reference_games(var, "A", ["A"], seen, 0) == 0
    assert reference_games(var | {"A": float("nan")}, "A", ["A"], seen, 800) == 0
