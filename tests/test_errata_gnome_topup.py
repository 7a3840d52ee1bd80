"""The gnome trials' top-ups (issue 36): a planted gnome change whose interval crosses the
margin gets more forks on the seeds after the trial's before its verdict, sized by the
forks it needs, bounded by a cap, with today's reference term left as it is.  No engine:
the forks a look would give come from a stated model (``Forks``) injected as the trial's
``measure``; the played path is exercised in ``tests/test_errata_games.py``."""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path

import pandas as pd
import pytest

from bonfire_sim.analysis import errata as E
from bonfire_sim.analysis import errata_gnomes as EG
from bonfire_sim.analysis.intervals import games_needed
from bonfire_sim.sim.runconfig import RunConfig

RATE = 0.25  # forks of the gnome per game (it is recruited in about a quarter of games)


class Forks:
    """A variant whose recruit value is ``value`` with an own 95% half-width of ``h100``
    on 100 forks, shrinking as 1/sqrt(forks); a look of ``g`` games gives ``RATE * g``
    forks.  Records every call's looks (the verdict must rest on all of them)."""

    def __init__(self, value: float, h100: float) -> None:
        self.value, self.h100 = value, h100
        self.calls: list[list[tuple[int, int]]] = []

    def __call__(self, cand: EG.Candidate, n: int,
                 looks: Sequence[tuple[int, int]]) -> pd.DataFrame:
        self.calls.append(list(looks))
        forks = int(RATE * sum(g for _s, g in looks))
        half = self.h100 * math.sqrt(100 / forks)
        return pd.DataFrame([{"gnome": cand.gnome, "players": n, "value": self.value,
                              "lo": self.value - half, "hi": self.value + half, "n": forks}])


def _today(gnome: str = "S4", ref_half: float = 0.3) -> pd.DataFrame:
    """Today's row of ``gnome`` at 4 players: value 10, 2 points above the reference (8),
    own half-width 0.4, the reference's ``ref_half``."""
    rel_half = math.hypot(0.4, ref_half)
    return pd.DataFrame([{"gnome": gnome, "players": 4, "flag": "strong", "relative": 2.0,
                          "rel_lo": 2.0 - rel_half, "rel_hi": 2.0 + rel_half, "value": 10.0,
                          "lo": 9.6, "hi": 10.4, "status": "measured",
                          "forks_needed": 100.0}])


def _try(forks: Forks, gv: pd.DataFrame, games: int = 400):
    lines: list[str] = []
    base = RunConfig(games=games, players=4, seed=2)
    trials = EG.try_changes(gv, {4: base}, games, 1.0, 0.05, Path("unused"), 9,
                            status=lines.append, measure=forks)
    return trials, lines


def test_a_trial_crossing_the_margin_is_forked_again_on_the_next_seeds_and_then_verified(
        monkeypatch):
    # S4 +2 -> +1: value 8.3 (relative +0.3); on 400 games (100 forks) its own half-width
    # is 1.5, so +0.3 (-1.23 to +1.83) crosses +-1.  The forks it needs bring it inside.
    forks = Forks(8.3, 1.5)
    trials, lines = _try(forks, _today())
    t = trials["S4"][0]
    assert t.candidate.label == "S4: +2 -> +1 points"
    looks = t.looks[4]
    assert looks[0] == (9, 400) and [s for s, _g in looks[1:]] == list(
        range(10, 10 + len(looks) - 1))  # the seeds after the trial's, in order
    # the first top-up is sized by the forks it needs (games_needed, own term only)
    own_target = math.sqrt(0.7 ** 2 - 0.3 ** 2)
    need = games_needed(100, 1.5, own_target)
    assert looks[1][1] == math.ceil((need - 100) / RATE)
    # the verdict rests on every look's forks, not the last one's
    assert forks.calls[-1] == looks
    row = t.rows[4]
    assert row["n"] == int(RATE * sum(g for _s, g in looks)) and row["games"] == sum(
        g for _s, g in looks)
    assert t.verified is True and -1 <= row["lo"] and row["hi"] <= 1
    assert any("more fresh games on seed 10" in x for x in lines)
    # The same trial without top-ups stays open: the first look alone cannot resolve it.
    monkeypatch.setattr(EG, "GNOME_TOP_UPS", 0)
    again, _ = _try(Forks(8.3, 1.5), _today())
    assert again["S4"][0].verified is None and again["S4"][0].looks[4] == [(9, 400)]


def test_a_candidate_on_the_margin_stays_not_resolved_within_the_cap():
    # relative +0.85 with a narrow reference (0.05): it would need about 11,000 forks;
    # the top-ups stop at the cap
    forks = Forks(8.85, 1.5)
    trials, _ = _try(forks, _today(ref_half=0.05))
    t = trials["S4"][0]
    more = sum(g for _s, g in t.looks[4][1:])
    assert 0 < more <= EG.GNOME_TOP_UP_CAP * 400
    assert more == EG.GNOME_TOP_UP_CAP * 400  # it asked for more than the cap allows
    assert t.verified is None and t.stopped[4] == "cap"
    text = E._trial_text(t)
    assert "not resolved" in text and "top-up(s)" in text and "stopped at the cap" in text
    assert f"of {400 + more:,} games (seeds 9-" in text


def test_a_row_whose_reference_alone_fills_its_room_is_not_forked_again_and_says_so():
    # today's reference half-width 0.8 against a room of 0.7 (relative +0.3): forks of the
    # variant alone cannot bring the interval inside, so none are played
    forks = Forks(8.3, 1.5)
    trials, lines = _try(forks, _today(ref_half=0.8))
    t = trials["S4"][0]
    assert ("not forked again, today's reference alone wider than its distance to the "
            "margin: reference ±0.80 of ±" in E._trial_text(t))
    assert t.looks[4] == [(9, 400)] and all(c == [(9, 400)] for c in forks.calls)
    assert t.verified is None and t.stopped[4] == "reference"
    assert math.isnan(t.rows[4]["forks_needed"])
    assert t.rows[4]["ref_half"] == pytest.approx(0.8)
    assert not any("more fresh games" in x for x in lines)


def test_a_variant_shown_beyond_the_margin_by_its_top_up_is_not_verified():
    # relative -2.0 with half-width 1.24 crosses; the forks that shrink it below 1.0
    # show it wholly beyond (S4 +2 -> +1 is then not proposed; +2 -> +0 is tried next)
    forks = Forks(6.0, 1.2)
    trials, _ = _try(forks, _today())
    first = trials["S4"][0]
    assert len(first.looks[4]) >= 2 and first.verified is False
    assert first.rows[4]["hi"] < -1


def test_the_top_up_sizes_use_the_own_term_and_the_distance_to_the_margin():
    row = {"relative": 0.3, "n": 100, "own_half": 1.5, "ref_half": 0.3}
    need = games_needed(100, 1.5, math.sqrt(0.7 ** 2 - 0.3 ** 2))
    assert EG.top_up_games(row, 400, 1.0) == math.ceil((need - 100) * 4)
    # beyond the margin: the distance to it decides (|1.6| - 1 = 0.6)
    far = {**row, "relative": -1.6}
    need = games_needed(100, 1.5, math.sqrt(0.6 ** 2 - 0.3 ** 2))
    assert EG.top_up_games(far, 400, 1.0) == math.ceil((need - 100) * 4)
    assert math.isnan(EG.top_up_games({**row, "relative": 1.0}, 400, 1.0))  # on it
    assert math.isnan(EG.top_up_games({**row, "ref_half": 0.7}, 400, 1.0))
