"""Findings checked across populations: does a headline figure hold whoever plays?

Every balance figure describes the players who produced it.  A *population* is the
players in the seats (``tuned`` in every seat, or the mix ``portal,planner,tempo,
gnome_engine``); ``bonfire_sim.strategies.POPULATIONS`` names the default ones.  Runs that
differ only in their players are the populations of one configuration, and each headline
figure is computed in each population separately (never pooled), then marked:

* a **number** (the start player's win share, a seat's compensation, the winning score,
  the win rate against Tom) *holds in every population* when every pair of populations is
  shown to agree within its ``tolerance``: the 95% interval of their difference (normal
  approximation from each figure's own interval) lies inside ``±tolerance``.  It *differs*
  when some pair's difference interval lies wholly outside ``±tolerance``; otherwise it
  is *undecided* (too few games to tell).
* a **flag** (a task or gnome flagged as mispriced, the start seat ahead of its fair
  share) *holds in every population* when every population raises the same flag; *only
  with X* when only populations X raise it and the others measured it without a flag;
  *differs* when populations raise opposite flags; a population without a measurement is
  named (*not measured with Y*).  The detail also says how far apart the populations are:
  the largest difference of the flagged figure between two of them, with its 95%
  interval (a conjunction of labels alone hides whether "only with X" is 0.1 or 10
  points).

Intervals over seat-rotated games are clustered by deal (the start seat's share, the
winning score), so the marks' inputs are not too narrow.

``headline_figures`` computes the figures that need no engine forks (start seat, its
compensation, winning score) from loaded runs per population; the report adds the task,
gnome and Tom rows from its own sections' frames (``report.marks``) and ``marks`` turns
either into one row per figure with the populations side by side.
"""

from __future__ import annotations

import itertools
import math
import re
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from bonfire_sim.analysis import flags as FL
from bonfire_sim.analysis.intervals import Z95, clustered_mean_ci, se_from_interval
from bonfire_sim.errors import ConfigError
from bonfire_sim.infra.numtext import number

HOLDS = "holds in every population"
DIFFERS = "differs"
UNDECIDED = "undecided"
# Practical tolerances: a difference smaller than these is "the same finding".
TOLERANCE = {"share": 0.03, "points": FL.MARGIN, "win score": 3.0}
FIGURE_COLUMNS = ["figure", "kind", "tolerance", "population", "value", "lo", "hi", "flag"]


def resolve_population(text: str) -> tuple[str, tuple[str, ...]]:
    """(label, seat specs) of a population: a name from ``strategies.POPULATIONS`` or a
    comma-separated list of player specs (cycled over the seats, as a run's strategies)."""
    from bonfire_sim.strategies import POPULATIONS
    from bonfire_sim.strategies.specs import parse_player, split_specs

    if not isinstance(text, str) or not text.strip():
        raise ConfigError(f"a population is a name ({', '.join(POPULATIONS)}) or a list of "
                          f"player specs such as 'portal,planner'; got {text!r}")
    text = text.strip()
    if text in POPULATIONS:
        return text, tuple(POPULATIONS[text])
    specs = tuple(split_specs(text))
    for s in specs:
        try:
            parse_player(s)
        except ConfigError as e:
            raise ConfigError(f"population {text!r}: {e} (or a population name: "
                              f"{', '.join(POPULATIONS)})") from None
    return re.sub(r"[^A-Za-z0-9_.+]+", "-", "+".join(specs)).strip("-."), specs


def number_mark(values: Mapping[str, tuple[float, float, float]], tolerance: float,
                ) -> tuple[str, str]:
    """(mark, detail) of one numeric figure from ``{population: (value, lo, hi)}``."""
    pops = [p for p, v in values.items() if np.isfinite(v[0])]
    missing = [p for p in values if p not in pops]
    if len(pops) < 2:
        return UNDECIDED, "measured in fewer than two populations"
    agree, apart = True, []
    for a, b in itertools.combinations(pops, 2):
        va, vb = values[a][0], values[b][0]
        d, lo, hi = difference_ci(values[a], values[b])
        if not (np.isfinite(lo) and -tolerance <= lo and hi <= tolerance):
            agree = False
        if np.isfinite(lo) and (lo > tolerance or hi < -tolerance):
            apart.append(f"{a} {va:.3g} vs {b} {vb:.3g}")
    extra = f"; not measured with {', '.join(missing)}" if missing else ""
    if apart:
        return DIFFERS, f"beyond ±{tolerance:g}: " + "; ".join(apart) + extra
    if agree and not missing:
        return HOLDS, f"every pair within ±{tolerance:g}"
    if agree:
        return UNDECIDED, f"agree within ±{tolerance:g} where measured{extra}"
    return UNDECIDED, f"too few games to tell a difference of ±{tolerance:g}{extra}"


def difference_ci(a: tuple[float, float, float], b: tuple[float, float, float],
                  ) -> tuple[float, float, float]:
    """(a - b, lo, hi): the 95% interval of the difference of two figures measured on
    different games (normal approximation from each figure's own interval)."""
    se = math.hypot(se_from_interval(a[1], a[2]), se_from_interval(b[1], b[2]))
    d = a[0] - b[0]
    return d, d - Z95 * se, d + Z95 * se


def largest_gap(values: Mapping[str, tuple[float, float, float]]) -> str:
    """How far apart the populations are on one flagged figure: the pair with the largest
    difference, as "A - B = +0.040 (-0.010 to +0.090)" ('' with fewer than two)."""
    pops = [p for p, v in values.items() if np.isfinite(v[0])]
    if len(pops) < 2:
        return ""
    a, b = max(itertools.permutations(pops, 2),
               key=lambda ab: values[ab[0]][0] - values[ab[1]][0])
    d, lo, hi = difference_ci(values[a], values[b])
    share = all(0 <= values[p][1] <= values[p][2] <= 1 for p in (a, b))
    fmt = "+.3f" if share else "+.1f"
    ci = (f" ({number(lo, fmt)} to {number(hi, fmt)})" if np.isfinite(lo) and np.isfinite(hi)
          else "")
    return f"{a} - {b} = {number(d, fmt)}{ci}"


def flag_mark(flags: Mapping[str, str | None]) -> tuple[str, str]:
    """(mark, detail) of one flagged finding from ``{population: flag}`` ('' = measured,
    not flagged; None = not measured)."""
    measured = {p: f for p, f in flags.items() if f is not None}
    missing = [p for p, f in flags.items() if f is None]
    raised = {f for f in measured.values() if f}
    extra = f"; not measured with {', '.join(missing)}" if missing else ""
    if len(raised) > 1:
        return DIFFERS, ", ".join(f"{p}: {f or 'no flag'}" for p, f in measured.items()) + extra
    if not raised:
        return UNDECIDED, "flagged in no population" + extra
    with_flag = [p for p, f in measured.items() if f]
    if len(with_flag) == len(flags):
        return HOLDS, f"{next(iter(raised))} in every population"
    if len(with_flag) == len(measured):
        return UNDECIDED, f"{next(iter(raised))} where measured{extra}"
    return f"only with {', '.join(with_flag)}", (
        f"{next(iter(raised))} with {', '.join(with_flag)}; no flag with "
        f"{', '.join(p for p, f in measured.items() if not f)}{extra}")


def marks(figures: pd.DataFrame) -> pd.DataFrame:
    """One row per figure (tidy ``FIGURE_COLUMNS`` in): ``figure``, ``mark``, ``detail``
    and one text column per population with its figure and interval, side by side."""
    pops = list(dict.fromkeys(figures["population"]))
    rows = []
    for figure, g in figures.groupby("figure", sort=False):
        kind, tol = g["kind"].iloc[0], float(g["tolerance"].iloc[0])
        by = {r.population: r for r in g.itertuples()}
        if kind == "flag":
            mark, detail = flag_mark({p: (None if p not in by or _nan(by[p].flag)
                                          else str(by[p].flag)) for p in pops})
            gap = largest_gap({p: (by[p].value, by[p].lo, by[p].hi) for p in pops
                               if p in by and not _nan(by[p].flag)})
            detail += f"; {gap}" if gap else ""
        else:
            mark, detail = number_mark({p: ((by[p].value, by[p].lo, by[p].hi) if p in by
                                            else (math.nan,) * 3) for p in pops}, tol)
        row: dict[str, Any] = {"figure": figure, "mark": mark, "detail": detail}
        for p in pops:
            row[p] = _text(by.get(p), kind)
        rows.append(row)
    return pd.DataFrame(rows, columns=["figure", "mark", "detail", *pops])


def _nan(v: Any) -> bool:
    return v is None or (isinstance(v, float) and math.isnan(v))


def _text(r: Any, kind: str) -> str:
    if r is None or not np.isfinite(r.value):
        return "not measured"
    # Shares (a win rate, the start seat's share) to 3 places, points to 1.
    share = kind == "share" or (kind == "flag" and 0 <= r.lo <= r.hi <= 1)
    fmt = ".3f" if share else ".1f"
    ci = (f" ({number(r.lo, fmt)} to {number(r.hi, fmt)})"
          if np.isfinite(r.lo) and np.isfinite(r.hi) else "")
    flag = f", {r.flag}" if isinstance(r.flag, str) and r.flag else ""
    return f"{number(r.value, fmt)}{ci}{flag}"


def figure_row(figure: str, kind: str, tolerance: float, population: str, value: float,
               lo: float = math.nan, hi: float = math.nan, flag: str | None = "",
               ) -> dict[str, Any]:
    """One tidy row of ``FIGURE_COLUMNS`` (``flag`` None = not measured)."""
    return {"figure": figure, "kind": kind, "tolerance": tolerance, "population": population,
            "value": float(value), "lo": float(lo), "hi": float(hi), "flag": flag}


def seat_rows(sa: pd.DataFrame, population: str, margin: float = FL.MARGIN) -> list[dict]:
    """Start-seat figures from a ``seat_advantage`` frame: the start player's win share (a
    number), its advantage (a flag: its interval above or below the fair 1/n) and each
    seat's compensation (a number, tolerance ``margin`` points)."""
    rows = []
    for r in sa.itertuples():
        n = int(r.players)
        if r.seat == 0:
            rows.append(figure_row(f"{n} players: start player's win share", "share",
                                   TOLERANCE["share"], population, r.value, r.lo, r.hi))
            side = ("ahead of its fair share" if r.lo > r.fair else
                    "behind its fair share" if r.hi < r.fair else "")
            rows.append(figure_row(f"{n} players: start-player advantage", "flag", 0,
                                   population, r.value, r.lo, r.hi, side))
        elif np.isfinite(r.compensation):
            rows.append(figure_row(f"{n} players: compensation of seat {int(r.seat)}",
                                   "points", margin, population, r.compensation, r.c_lo,
                                   r.c_hi))
    return rows


def win_score_rows(players: pd.DataFrame, population: str) -> list[dict]:
    """The mean winning score per player count from a players frame with ``n_players``,
    ``won``, ``score`` and ``game_id`` columns (multiplayer rows): a t interval clustered
    by deal (the seat rotations of one deal share its cards).  The deal is ``deal_key``
    (the report's ``combine``: unique across runs) or ``deal`` (unique within what is
    passed); without either, each game is its own cluster."""
    rows = []
    won = players[players["won"].astype(bool) & (players["n_players"] >= 2)]
    # the report's frame holds both: its ``deal`` restarts at 0 in every run, so rows of
    # two runs of one group would share clusters; ``deal_key`` does not
    by = next((c for c in ("deal_key", "deal") if c in won), "game_id")
    for n, g in won.groupby("n_players"):
        m, lo, hi = clustered_mean_ci(g["score"].to_numpy(float), g[by].to_numpy())
        rows.append(figure_row(f"{int(n)} players: winning score", "win score",
                               TOLERANCE["win score"], population, m, lo, hi))
    return rows


def headline_figures(runs_by_population: Mapping[str, Sequence[Any]],
                     margin: float = FL.MARGIN) -> pd.DataFrame:
    """The fork-free headline figures (start seat, compensation, winning score) of each
    population from its runs (directories or loaded runs, seat-rotated for the seats);
    pass the result to ``marks``.  Populations are never pooled."""
    from bonfire_sim.analysis.runs import as_runs
    from bonfire_sim.analysis.values import seat_advantage

    if len(runs_by_population) < 2:
        raise ConfigError("checking a finding across populations needs at least two "
                          "populations")
    rows: list[dict] = []
    for pop, runs in runs_by_population.items():
        rs = as_runs(runs)
        rows += seat_rows(seat_advantage(rs, margin=margin), pop, margin)
        frames = [r.data.players.assign(
            n_players=r.config.players,
            deal=lambda p, r=r: r.label + "|" + r.data.games.set_index("game_id")["deal"]
            .reindex(p["game_id"]).astype(str).to_numpy()) for r in rs]
        rows += win_score_rows(pd.concat(frames, ignore_index=True), pop)
    return pd.DataFrame(rows, columns=FIGURE_COLUMNS)


def check_populations(runs_by_population: Mapping[str, Sequence[Any]],
                      margin: float = FL.MARGIN) -> pd.DataFrame:
    """``marks(headline_figures(...))``: each fork-free headline figure marked."""
    return marks(headline_figures(runs_by_population, margin))
