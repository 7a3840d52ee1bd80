"""The strength marks pair the top two rungs by deal where they played the same deals:
a planted constant difference on shared deals gets a far narrower interval than the two
rungs' intervals combined, and rungs whose deals differ are never paired."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from bonfire_sim.analysis.intervals import games_needed
from bonfire_sim.analysis.runs import Run
from bonfire_sim.sim.load import RunData
from bonfire_sim.sim.runconfig import RunConfig
from bonfire_sim.studies import strength as ST
from bonfire_sim.studies import strength_paired as SP
from bonfire_sim.studies import strength_sizing as SZ


def _solo(player: str, margins: np.ndarray, seeds: np.ndarray, label: str) -> Run:
    """A solo run of ``player`` against Tom: game i dealt from ``seeds[i]``, the player's
    score Tom's plus ``margins[i]`` (Tom scores 60)."""
    n = len(margins)
    cfg = RunConfig(games=n, players=1, strategies=(player,), seed=36, resolve=False)
    gid = np.arange(n)
    games = pd.DataFrame({"game_id": gid, "deal": gid, "rotation": 0,
                          "seed": seeds.astype(np.uint64)})
    human = pd.DataFrame({"game_id": gid, "strategy": player, "seat": 0,
                          "score": 60 + margins, "won": margins > 0})
    tom = pd.DataFrame({"game_id": gid, "strategy": "tom", "seat": 1, "score": 60,
                        "won": margins < 0})
    players = pd.concat([human, tom]).sort_values(["game_id", "seat"], kind="stable")
    return Run(label, None, RunData(games, players.reset_index(drop=True), None,
                                    {"config": cfg.to_json()}))


def _ladder(below: Run, top: Run) -> pd.DataFrame:
    return ST.strength_answers({"below": {"solo-task1": below}, "top": {"solo-task1": top}})


def _deals(n: int = 400, seed: int = 1) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    # the deal decides most of the margin (a wide spread), as Tom's deck does
    return rng.integers(-30, 31, n), rng.integers(1, 2**62, n)


def test_a_planted_constant_on_shared_deals_gets_a_far_narrower_paired_interval():
    margins, seeds = _deals()
    below = _solo("search:16", margins, seeds, "below")
    top = _solo("search:32", margins + 1, seeds, "top")  # one point better on every deal
    assert SP.shared_deals(below, top) == (True, "")
    a = _ladder(below, top).set_index(["figure", "rung"])
    h = a.loc[("Tom, task1 deck: handicap", "top")]
    # the settle point moves by exactly the planted point on every resample of the deals
    assert all(math.isclose(h[c], 1.0) for c in ("d", "d_lo", "d_hi"))
    assert "paired by deal (joint bootstrap), 400 deals" in h["pairing"]
    hb = a.loc[("Tom, task1 deck: handicap", "below")]
    unpaired = math.hypot(h["hi"] - h["lo"], hb["hi"] - hb["lo"]) / 2
    assert unpaired > 1.0  # each rung's own interval: the deals' spread
    marks = ST.marks(a.reset_index()).set_index("figure")
    assert marks.loc["Tom, task1 deck: handicap", "mark"] == ST.CONVERGED
    assert "paired by deal" in marks.loc["Tom, task1 deck: handicap", "detail"]
    # the win rate: only the deals at a margin of 0 flip to a win, paired per deal
    w = a.loc[("Tom, task1 deck: win rate", "top")]
    flips = np.mean((margins + 1 > 0) != (margins > 0))
    assert math.isclose(w["d"], flips)
    wb = a.loc[("Tom, task1 deck: win rate", "below")]
    assert (w["d_hi"] - w["d_lo"]) < 0.5 * math.hypot(w["hi"] - w["lo"], wb["hi"] - wb["lo"])


def test_unrelated_deals_are_not_paired():
    margins, seeds = _deals()
    other = _deals(seed=2)[1]
    below = _solo("search:16", margins, seeds, "below")
    top = _solo("search:32", margins + 1, other, "top")  # same ids, other deals
    ok, why = SP.shared_deals(below, top)
    assert not ok and "400 of 400 games were dealt from different seeds" in why
    a = _ladder(below, top)
    h = a[(a["figure"] == "Tom, task1 deck: handicap") & (a["rung"] == "top")].iloc[0]
    assert math.isnan(h["d"]) and h["pairing"].startswith("unpaired")
    mark, detail = ST.convergence(a[a["figure"] == "Tom, task1 deck: handicap"])
    assert mark == ST.UNDECIDED and "unpaired" in detail and "different seeds" in detail
    # more games at one rung: not paired either (it would drop the larger rung's games)
    short = _solo("search:32", margins[:100] + 1, seeds[:100], "short")
    ok, why = SP.shared_deals(below, short)
    assert not ok and "different numbers of games (400 and 100)" in why


def test_sizing_uses_the_paired_width_where_the_pilots_share_their_deals():
    margins, seeds = _deals(48)
    below = _solo("search:16", margins, seeds, "below")
    top = _solo("search:32", margins + np.arange(48) % 3 - 1, seeds, "top")
    pilot = _ladder(below, top)
    needs = SZ.figure_needs(pilot, {"below": {"solo-task1"}, "top": {"solo-task1"}}, 48,
                            cap=2000).set_index("figure")
    row = pilot[(pilot["figure"] == "Tom, task1 deck: handicap")
                & (pilot["rung"] == "top")].iloc[0]
    half = (row["d_hi"] - row["d_lo"]) / 2
    need = needs.loc["Tom, task1 deck: handicap"]
    assert need["paired_half"] == half < math.hypot(need["top_half"], need["below_half"])
    assert need["games_needed"] == games_needed(48, half, 1.0)
