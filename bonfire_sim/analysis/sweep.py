"""The response of a sweep: each headline measure at each point, never pooled across points.

A sweep runs one configuration per point (a swept override value, a player count, or both);
``point_measures`` turns one point's run into tidy rows, one per measure, each with its own
95% interval from that run's games alone:

* ``start_advantage`` (2+ players): seat 0's win share minus the fair 1/n (shared wins
  split), Wilson interval clustered by deal;
* ``winning_score`` (2+ players): the mean final score of the game's winner, t interval
  clustered by deal;
* ``surplus:<task>`` (2+ players, where a task's points are swept): the task's card
  surplus (``card_values``): its lit value minus the mean lit value of the other tasks of
  its colour (engine forks, interval clustered by deal).  It grows with the task's printed
  points; where it crosses zero the card is worth its tier's typical card: that printed
  value is the task's price under this play;
* ``tom_win_rate`` (solo): the player's win rate against Tom, Wilson interval.

Rows carry ``players``, the point's swept values (one column per axis) and ``ref`` (the
value at which the design is balanced: 0 for advantage and surplus).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from bonfire_sim.analysis.cards.probes import TASK_IDS, ProbeSettings
from bonfire_sim.analysis.cards.views import task_values
from bonfire_sim.analysis.intervals import clustered_mean_ci, wilson
from bonfire_sim.analysis.runs import Run
from bonfire_sim.analysis.values import player_rows, seat_figures
from bonfire_sim.rules import components as C

TASK_AXIS = "task_points."  # a swept task's axis name: "task_points.Y14"
MEASURES: dict[str, tuple[str, str, str]] = {  # measure -> (title, axis label, what it is)
    "start_advantage": ("Start-player advantage", "seat 0 win share - 1/n",
                        "Start-player advantage: seat 0's share of the wins minus the fair "
                        "1/n (Wilson interval clustered by deal)"),
    "winning_score": ("Mean winning score", "winner's final score",
                      "Mean winning score: the winner's final score (t interval clustered "
                      "by deal)"),
    "surplus": ("Surplus", "points over the typical card of its colour",
                "Surplus of the task: its lit value minus the mean lit value of the other "
                "tasks of its colour, engine forks (interval clustered by deal); where it "
                "crosses 0 the printed value is the task's price"),
    "tom_win_rate": ("Win rate against Tom", "win rate against Tom",
                     "Solo: the player's win rate against Tom (Wilson interval)"),
}
COLUMNS = ["measure", "players", "value", "lo", "hi", "n", "ref"]


def swept_tasks(axes: Sequence[str]) -> tuple[str, ...]:
    """The task ids whose printed points a sweep varies (``task_points.Y14`` -> ``Y14``)."""
    return tuple(a[len(TASK_AXIS):] for a in axes if a.startswith(TASK_AXIS)
                 and a[len(TASK_AXIS):] in TASK_IDS)


def measure_name(measure: str) -> str:
    """The family of a measure (``surplus:Y14`` -> ``surplus``)."""
    return measure.split(":", 1)[0]


def _row(measure: str, n_players: int, value: float, lo: float, hi: float, n: int,
         ref: float = np.nan) -> dict[str, Any]:
    return {"measure": measure, "players": n_players, "value": value, "lo": lo, "hi": hi,
            "n": n, "ref": ref}


def game_measures(run: Run) -> list[dict[str, Any]]:
    """The measures that need only the run's recorded games (no forks)."""
    n_players = run.config.players
    p = player_rows([run])
    if p.empty:
        return []
    if n_players == 1:
        k = float(p["won"].sum())
        lo, hi = wilson(k, len(p))
        return [_row("tom_win_rate", 1, k / len(p), float(lo), float(hi), len(p))]
    rows = []
    # Seat 0's share is values.seat_figures' (the one computation of a seat's win share,
    # as the seat tables': Wilson clustered by deal, the seat rotations of a deal sharing
    # its cards), over this run's rows: seat 0 the one group, the other seats in none.
    group = np.where(p["seat"].to_numpy() == 0, 0, -1)
    deal = p["deal"].to_numpy()
    values = (p["win_share"].to_numpy(float), p["score"].to_numpy(float))
    seat0 = seat_figures(lambda: [(group, deal, values)], 1)[0]
    fair = 1.0 / n_players
    if seat0 is not None:
        rows.append(_row("start_advantage", n_players, seat0.win_rate - fair,
                         seat0.lo - fair, seat0.hi - fair, seat0.games, 0.0))
    # A tie shares the win; its winners hold the same score, so the max is the winner's.
    won = p[p["won"].astype(bool)].groupby("game_id")
    winners, deals = won["score"].max(), won["deal"].first()
    m, mlo, mhi = clustered_mean_ci(winners.to_numpy(float), deals.to_numpy())
    rows.append(_row("winning_score", n_players, m, mlo, mhi, len(winners)))
    return rows


def surplus_measures(run: Run, tasks: Sequence[str], probes: ProbeSettings,
                     jobs: int = 1) -> list[dict[str, Any]]:
    """``surplus:<task>`` rows of one run: the task's card surplus (``task_values``: its
    lit value minus the mean of the other tasks of its colour) from the run's (cached)
    light and forced forks; none for solo."""
    if run.config.players < 2 or not tasks:
        return []
    # the sweep page's surplus is the lit value's (its light and forced forks, its
    # documented meaning), whatever the card table's default measure is
    tv = task_values([run], probes=probes, jobs=jobs, measure="lit")
    rows = []
    for task in tasks:
        r = tv[(tv["task"] == task) & (tv["players"] == run.config.players)].iloc[0]
        rows.append(_row(f"surplus:{task}", run.config.players, float(r["surplus"]),
                         float(r["s_lo"]), float(r["s_hi"]), int(r["n"]), 0.0))
    return rows


def probe_settings(tasks: Sequence[str], games: int) -> ProbeSettings:
    """The light and forced forks of every task sharing a colour with a swept task: the
    surplus needs its colour's other tasks as the reference."""
    colour = {t.id: t.colour for t in C.TASKS}
    wanted = {colour[t] for t in tasks}
    return ProbeSettings(games=games, kinds=("light", "forced"),
                         tasks=tuple(t for t, c in colour.items() if c in wanted))


def response_table(points: Sequence[tuple[Mapping[str, Any], Sequence[dict[str, Any]]]]
                   ) -> pd.DataFrame:
    """Tidy response: one row per (point, measure); ``points`` pairs each point's swept
    values with its measure rows.  Columns: ``point`` (index in the sweep), the axes,
    then ``COLUMNS``."""
    axes: list[str] = []
    for point, _ in points:
        axes += [a for a in point if a not in axes and a != "players"]
    rows = []
    for i, (point, measures) in enumerate(points):
        for m in measures:
            rows.append({"point": i, **{a: _cell(point.get(a)) for a in axes}, **m})
    return pd.DataFrame(rows, columns=["point", *axes, *COLUMNS])


def _cell(v: Any) -> Any:
    # A swept list (seat_points = [[0, 1], [0, 2]]) becomes one readable cell.
    return "-".join(map(str, v)) if isinstance(v, list | tuple) else v
