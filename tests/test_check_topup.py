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
    # 100 of the check + the doubled look(s) on seed 51 ...: all of them
    assert a["n"] == len(forks[(forks["card"] == "A") & (forks["players"] == 2)])
    assert a["n"] > 100 and set(forks["seed"]) >= {50, 51}
    assert verdict(table.loc[[("A", 2)]], 1.0).iloc[0] == "within"
    assert played[0].seed == 51 and ("A", 2) in played[0].rows
    assert ("C", 2) not in [r for t in played for r in t.rows]  # resolved: not played again
    assert played[0].games == 200  # twice the check's games
    assert lines and "A at 2p 200 more games" in lines[0]


def test_without_the_top_up_the_same_row_stays_unresolved():
    table, forks, played, lines = _check(top_ups=0)
    assert not played and not lines and set(forks["seed"]) == {50}
    assert verdict(table.loc[[("A", 2)]], 1.0).iloc[0] == "unresolved"


# -- a model whose estimate stays put: how many looks a rule takes is the rule's ------

def _exact(truth: Mapping[tuple[str, int], float], sd: Mapping[str, float],
           bias: Mapping[tuple[str, int, int], float] | None = None):
    """A ``MoreFn`` whose every call's forks of a card have exactly the card's true
    surplus as mean (plus ``bias[(card, players, seed)]``) and exactly its ``sd``: the
    row's estimate stays put and its half-width falls as 1 / sqrt(forks), so how many
    looks a rule takes is a property of the rule, not of the draw."""
    bias = bias or {}

    def more(todo: Mapping[int, Sequence[str]], seed: int, games: int) -> pd.DataFrame:
        parts = []
        for n, cs in todo.items():
            for c in cs:
                z = np.random.default_rng([seed, n, ord(c[0])]).normal(0, 1, games)
                z = (z - z.mean()) / z.std(ddof=1)
                parts.append(pd.DataFrame({"card": c, "players": n, "seed": seed,
                                           "x": truth[(c, n)] + bias.get((c, n, seed), 0.0)
                                           + sd[c] * z}))
        return pd.concat(parts, ignore_index=True)

    return more


def test_a_row_the_reference_moves_across_after_its_last_look_gets_a_look():
    """E is measured against A (its surplus: E's mean less A's error): A's check forks
    read 1.0 low, so E reads -0.3 +/- 0.3 (within) until A's top-up (200 forks), after
    which A's error shrinks to about 0.33 and E reads about -0.97: across the margin after
    the last top-up.  The last
    look forks E on the next doubling (seed 52), and its verdict rests on them."""
    truth = {("A", 2): 0.5, ("E", 2): -1.3}
    sd = {"A": 0.95 * 10 / 1.96, "E": 0.3 * 10 / 1.96}
    more = _exact(truth, sd, bias={("A", 2, 50): -1.0})

    def table_of(f: pd.DataFrame) -> pd.DataFrame:
        t = _table(f).set_index(["card", "players"])
        err = t.loc[("A", 2), "surplus"] - truth[("A", 2)]
        for k in ("surplus", "s_lo", "s_hi"):
            t.loc[("E", 2), k] -= err
        return t.reset_index()

    first = more({2: ["A", "E"]}, 50, 100)
    t0 = table_of(first).set_index(["card", "players"])
    assert list(verdict(t0.loc[[("A", 2), ("E", 2)]], 1.0)) == ["unresolved", "within"]
    lines: list[str] = []
    # the last look forks E on the next doubling: 4 x 100 games of seed 52
    table, forks, played = top_up_check(first, table_of, more, ["A", "E"], 1.0, 50, 100,
                                        top_ups=1, note=lines.append)
    assert [(t.seed, t.rows, t.last) for t in played] == [(51, (("A", 2),), False),
                                                         (52, (("E", 2),), True)]
    assert len(forks[(forks["card"] == "E") & (forks["seed"] == 52)]) == 400
    assert "moved across by the sharper reference" in lines[1]
    t = table.set_index(["card", "players"])
    assert t.loc[("E", 2), "n"] == 500  # its verdict rests on the check's and the look's
    assert verdict(t.loc[[("E", 2)]], 1.0).iloc[0] != "within", t.loc[("E", 2)]
    assert set(forks.loc[(forks["card"] == "E"), "seed"]) == {50, 52}


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
    assert top.rows == ((OPEN, 2),)
    x = top.games
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
    expected = np.sqrt((4.0 ** 2 / (400 + x) + 12.0 ** 2 / (30 + ref.games) / m1)
                       / (4.0 ** 2 / 400 + 12.0 ** 2 / 30 / m1))
    own_only = np.sqrt((4.0 ** 2 / (400 + x) + 12.0 ** 2 / 30 / m1)
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
