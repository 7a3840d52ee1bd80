"""The top two rungs' differences paired by deal, where the two rungs played the same deals.

A strength ladder plays every rung from one seed, so game ``i`` of two rungs' runs of one
setting (player count, or Tom deck) is the same deal: the same cards, the same Tom deck,
only the players differ.  The mark of an answer reads the interval of the top two rungs'
difference; taken per deal (common random numbers) the deal-to-deal variation cancels,
so where both rungs play alike on a deal the paired interval is much narrower than the
two rungs' intervals combined as if their games were unrelated.

Paired only where it is checked, never assumed (``shared_deals``): the two runs agree
in player count, seat rotation, variants and overrides, every game of each has a game of
the same id in the other, and each such pair was dealt from the same deal seed (the
``seed`` column of the games table, which deals the cards and Tom's deck).  A rung that
played more deals than the other (a fast rung's 12,000 games against the search rung's
48) is not paired: pairing would drop the larger rung's other games, and with different
players on a deal their results correlate too little to win that back (measured
2026-11-29, the findings page); the mark then combines the two intervals as before and
says so.

What is paired: the start player's win share and the win rate against Tom (per game,
the top rung's result minus the lower's, clustered by deal: ``paired.seat_differences``)
and the handicap where the Tom challenge settles (a fitted point: its bootstrap
resamples the deals jointly, the settle point of each rung on the same resampled deals).
The compensation per seat (a fitted point over a player count's games) keeps the
unpaired interval: its rungs never share all their deals in the ladder (the fast rung
plays far more), and the joint-deal bootstrap it would need is not built.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from bonfire_sim.analysis.intervals import bootstrap_ci
from bonfire_sim.analysis.paired import seat_differences
from bonfire_sim.analysis.runs import Run, as_runs
from bonfire_sim.analysis.solo import settle_point
from bonfire_sim.analysis.values import solo_games

# The settings of a run that must agree for game i to be the same deal in both (the
# strategies differ between rungs by design; the per-game deal seeds are checked too).
SAME_SETTING = ("players", "seat_rotation", "variants", "overrides")
N_BOOT = 500  # as the handicap's own interval (``values.handicaps``)


def shared_deals(a: Run, b: Run) -> tuple[bool, str]:
    """(whether ``a`` and ``b`` played the same deals, game for game, why not if not)."""
    ca, cb = a.config.to_json(), b.config.to_json()
    differ = [k for k in SAME_SETTING if ca.get(k) != cb.get(k)]
    if differ:
        return False, f"the runs differ in {', '.join(differ)}"
    ga = a.data.games.set_index("game_id")[["deal", "seed"]]
    gb = b.data.games.set_index("game_id")[["deal", "seed"]]
    if len(ga) != len(gb) or not ga.index.equals(gb.index):
        return False, (f"the rungs played different numbers of games ({len(ga):,} and "
                       f"{len(gb):,}): pairing would drop the larger one's other games")
    if not (ga["seed"].equals(gb["seed"]) and ga["deal"].equals(gb["deal"])):
        bad = int((ga["seed"] != gb["seed"]).sum())
        return False, f"{bad:,} of {len(ga):,} games were dealt from different seeds"
    return True, ""


def _paired(how: str, d: float, lo: float, hi: float, deals: int) -> dict[str, Any]:
    return {"d": float(d), "d_lo": float(lo), "d_hi": float(hi),
            "pairing": f"{how}, {deals:,} deals"}


def unpaired(why: str) -> dict[str, Any]:
    return {"d": np.nan, "d_lo": np.nan, "d_hi": np.nan,
            "pairing": f"unpaired (the two rungs' intervals combined): {why}"}


def _start_player(below: Run, top: Run) -> dict[str, Any]:
    """Seat 0's win share (the start player; the human against Tom), top - below, per
    game and clustered by deal."""
    s = seat_differences(below, top, paired=True)
    r = s[s["seat"] == 0].iloc[0]
    return _paired("paired by deal", r["diff"], r["lo"], r["hi"], int(r["deals"]))


def _handicap(below: Run, top: Run) -> dict[str, Any]:
    """The settle point, top - below, its bootstrap resampling the deals jointly (a solo
    game is its own deal)."""
    mb = solo_games(below.data.players).set_index("game_id")["margin"]
    mt = solo_games(top.data.players).set_index("game_id")["margin"].reindex(mb.index)
    b, t = mb.to_numpy(float), mt.to_numpy(float)

    def diff(idx: np.ndarray) -> float:
        return settle_point(t[idx]) - settle_point(b[idx])

    lo, hi = bootstrap_ci(np.arange(len(b)), diff, N_BOOT, 0)
    return _paired("paired by deal (joint bootstrap)", diff(np.arange(len(b))), lo, hi,
                   len(b))


def paired_differences(below: Mapping[str, Any], top: Mapping[str, Any],
                       ) -> dict[tuple[str, str], dict[str, Any]]:
    """``{(setting, kind): {d, d_lo, d_hi, pairing}}`` of the top two rungs' runs by
    setting (``players=N``, ``solo-<deck>``): kind ``share`` the start player's win share
    or the win rate against Tom, ``handicap`` Tom's settle point, ``points`` the seat
    compensation (never paired: ``pairing`` says why).  NaN ``d`` where unpaired."""
    out: dict[tuple[str, str], dict[str, Any]] = {}
    for setting in sorted(set(below) & set(top)):
        b, t = as_runs([below[setting]])[0], as_runs([top[setting]])[0]
        ok, why = shared_deals(b, t)
        out[(setting, "share")] = _start_player(b, t) if ok else unpaired(why)
        if setting.startswith("solo-"):
            out[(setting, "handicap")] = _handicap(b, t) if ok else unpaired(why)
        else:
            out[(setting, "points")] = unpaired(
                why if not ok else "a fitted point whose joint-deal bootstrap is not built")
    return out
