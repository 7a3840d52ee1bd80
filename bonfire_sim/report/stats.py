"""Report statistics: pure functions from tidy run frames to tidy result frames.

Inputs are the ``games`` / ``players`` tables of ``bonfire_sim.sim.load`` (pandas), joined
by ``combine`` and tagged with the run they came from.  Every function here is pure (no
I/O, no plotting) and returns a pandas frame with one row per estimate and its 95%
interval in ``lo`` / ``hi``.

Interval methods (stated in the report's method section):

* rates: Wilson score interval;
* means: Student t interval;
* adjusted effects: OLS with heteroskedasticity-robust (HC3) standard errors, normal 95%
  interval; winning is modelled as a linear probability model (same estimator on 0/1).
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats as sps

from bonfire_sim.analysis.intervals import (  # noqa: F401 (re-exported for the report)
    Z95,
    Block,
    IntegerSummary,
    cluster_cuts,
    clustered_mean_ci,
    clustered_totals,
    clustered_wilson,
    games_needed,
    mean_ci,
    n_for_mean,
    n_for_rate,
    rate_difference,
    unique_codes,
    welch,
    wilson,
)
from bonfire_sim.analysis.runs import printed_points_under
from bonfire_sim.analysis.values import (  # noqa: F401 (re-exported for the report)
    handicaps,
    seat_figures,
    solo_figures,
    solo_games,
)
from bonfire_sim.infra.memory import codes as category_codes
from bonfire_sim.infra.memory import wide_slices
from bonfire_sim.report import rows as RW
from bonfire_sim.report.rows import (  # noqa: F401 (re-exported: the sections' shared rows)
    TOM,
    _rows_of,
    combine,
    groups,
    multiplayer,
    n_games,
)
from bonfire_sim.rules import components as C

TASK_IDS = tuple(t.id for t in C.TASKS)
GNOME_IDS = tuple(f"S{i}" for i in range(1, C.N_SPECIALISTS + 1)) + tuple(
    f"E{i}" for i in range(1, C.N_ELDERS + 1))


# ---- interval helpers -----------------------------------------------------------------
# Intervals, differences and sample sizes live in bonfire_sim.analysis.intervals (the one
# statistics module, shared with the analysis and studies layers) and are re-exported here.


# ---- combining runs: ``report.rows`` (combine, groups, n_games), re-exported -----------



# ---- 1. overview ----------------------------------------------------------------------
def run_overview(games: pd.DataFrame, players: pd.DataFrame) -> pd.DataFrame:
    """One row per run: player count, games, rotation, strategy mix."""
    rows = []
    # the runs in order of appearance (groupby's sort=False), each found by a mask where
    # it is not every row (a group-by copied every games column of the run: 30 MB at a
    # million games; masks of every row, 4 MB a 4-player column each, where one run is all)
    for run in _in_order(games["run"]):
        of = RW.where_equal(games["run"], run)
        first = 0 if of is None else int(np.argmax(of))
        if RW.where_equal(players["run"], run) is None and not RW.any_tom(players):
            p = players["strategy"]  # every row is the run's and human: no mask, no copy
        else:  # Tom's rows (a solo run) or other runs' rows: a mask
            keep = ((players["run"] == run) & (players["strategy"] != TOM)).to_numpy(bool)
            p = players["strategy"] if keep.all() else players.loc[keep, "strategy"]
        mix = counts(p)
        rows.append({"run": run, "n_players": int(games["n_players"].iloc[first]),
                     "solo": bool(games["solo"].iloc[first]),
                     "games": len(games) if of is None else int(np.count_nonzero(of)),
                     "seat_rotation": bool(games["rotated"].iloc[first]),
                     "strategies": ", ".join(f"{k} ({v / len(p):.0%})" for k, v in mix.items())})
    return pd.DataFrame(rows)


def _in_order(col: pd.Series) -> list[Any]:
    """``col.dropna().unique()``: the values in order of first appearance, found a block
    at a time where the column is a categorical (no hash table of every row)."""
    if not isinstance(col.dtype, pd.CategoricalDtype):
        return list(col.dropna().unique())
    size = len(col.dtype.categories)
    first = RW.first_rows(category_codes(col), 0, size)
    order = [i for i in np.argsort(first, kind="stable") if first[i] < len(col)]
    return [col.dtype.categories[i] for i in order]


def counts(col: pd.Series) -> pd.Series:
    """``col.value_counts()`` as of strings (ties in order of first appearance) whether
    ``col`` holds strings or a categorical (whose own ties follow its categories and which
    counts its absent categories as 0).  A categorical is counted a block at a time on
    its codes (its ``value_counts`` widened every code to int64: 36 MB at a million
    4-player games)."""
    if isinstance(col.dtype, pd.CategoricalDtype):
        vc, found = _category_counts(col)
    else:
        vc, found = col.value_counts(), col.unique()
    return vc.reindex(pd.Index(found).dropna()).sort_values(ascending=False, kind="stable")


def _category_counts(col: pd.Series) -> tuple[pd.Series, pd.Categorical]:
    """(count of each category present, the categories present in order of first
    appearance: ``col.unique()``) of a categorical column."""
    codes = category_codes(col)
    size = len(col.dtype.categories) if len(codes) else 0
    n, first = RW.value_counts(codes, 0, size), RW.first_rows(codes, 0, size)
    seen = sorted((int(first[i]), i, int(n[i])) for i in range(size) if n[i])
    found = pd.Categorical.from_codes([i for _, i, _ in seen], dtype=col.dtype)
    vc = pd.Series([k for _, _, k in seen], index=pd.CategoricalIndex(found), name="count",
                   dtype=np.int64)
    return vc, found


def end_reasons(games: pd.DataFrame) -> pd.DataFrame:
    """Share of each end reason by player count, with Wilson intervals: counted a block
    of games at a time (``rows.group_index``), the observed pairs in pandas' group-by
    order and types (its grouper cost about 30 bytes a game at once)."""
    keys = ["n_players", "end_reason"]
    combos, group_of = RW.group_index(games, keys)
    n = np.zeros(len(combos), np.int64)
    for b in wide_slices(len(games)):  # group codes: int64 a row
        g = group_of(b)
        n += np.bincount(g[g >= 0], minlength=len(combos))
    seen = [i for i in range(len(combos)) if n[i]]
    t = pd.DataFrame({
        "n_players": pd.array([combos[i][0] for i in seen], dtype=games["n_players"].dtype),
        "end_reason": pd.Categorical([combos[i][1] for i in seen],
                                     dtype=games["end_reason"].dtype)
        if isinstance(games["end_reason"].dtype, pd.CategoricalDtype)
        else [combos[i][1] for i in seen],
        "n": n[seen]})
    t["games"] = t.groupby("n_players")["n"].transform("sum")
    t["share"] = t["n"] / t["games"]
    t["lo"], t["hi"] = wilson(t["n"], t["games"])
    return t


def score_summary(players: pd.DataFrame) -> pd.DataFrame:
    """Score mean (t interval), sd and quartiles by player count and strategy."""
    rows = []
    # the win shares of a group (decoded to float64) taken after its scores' statistics,
    # not beside them: at a million 4-player games each is a 32 MB column
    # pandas' mean of the shares, summed a block at a time from the byte a row they are
    # held in (``rows.float_mean``): no float64 column of every row
    shares = (RW.float_mean(g["win_share"]) for _, g in groups(
        players, ["n_players", "strategy"], ["win_share"], decode=False))
    for (n, s), g in groups(players, ["n_players", "strategy"], ["score"]):
        score = g["score"].to_numpy()
        if score.dtype.kind in "iu":  # from the counts of each score, not float64 copies
            h = IntegerSummary(score)
            (m, lo, hi), sd = h.mean_ci(), h.sd
            q = [h.quantile(v) for v in (0.25, 0.5, 0.75)]
        else:
            m, lo, hi = mean_ci(g["score"])
            sd = float(g["score"].std(ddof=1)) if len(g) > 1 else math.nan
            q = list(g["score"].quantile([0.25, 0.5, 0.75]).to_numpy())
        rows.append({"n_players": n, "strategy": s, "n": len(g), "mean": m, "lo": lo, "hi": hi,
                     "sd": sd, "q25": q[0], "median": q[1], "q75": q[2],
                     "win_rate": next(shares)})
    return pd.DataFrame(rows)


def game_length(games: pd.DataFrame) -> pd.DataFrame:
    """Mean turns and rounds per game by player count (t intervals): from the counts of
    each length (``IntegerSummary``), a count's games found without copying them."""
    rows = []
    for n in RW.present(games["n_players"]):
        at = RW.where_equal(games["n_players"], n)
        for col in ("n_turns", "n_rounds"):
            values = games[col].to_numpy()
            values = values if at is None else values[at]
            if values.dtype.kind in "iu":
                m, lo, hi = IntegerSummary(values).mean_ci()
            else:
                m, lo, hi = mean_ci(values)
            rows.append({"n_players": n, "measure": col, "games": len(values), "mean": m,
                         "lo": lo, "hi": hi})
    return pd.DataFrame(rows)


# ---- 2. start-player advantage --------------------------------------------------------
def seat_advantage(players: pd.DataFrame, by: Sequence[str] = ()) -> pd.DataFrame:
    """Win rate (shared wins counted fractionally) and mean score by seat.

    One row per (n_players, *by, seat): ``win_rate`` with Wilson ``lo``/``hi``, the fair
    share ``1/n_players``, ``excess`` = win_rate - fair, ``edge`` = win_rate - the
    group's own win rate over all seats (with the seat's interval shifted by it), and
    ``score`` with t interval; both intervals clustered by deal (``deal_key``: the seat
    rotations of one deal share its cards; each game its own deal without the column).

    The figures are ``analysis.values.seat_figures`` of the rows (the one computation,
    shared with ``analysis.values.seat_advantage``: the same figures on the same games,
    ``tests/test_seat_figures.py``), summed a block of rows at a time (blocks cut between
    deals), not a copy of each group's rows: the same counts and score means, the win
    shares' sums and the intervals to the last bits (``tests/test_seat_blocks.py``).
    """
    keys = ["n_players", *by, "seat"]
    cluster = "deal_key" if "deal_key" in players else "game_id"
    combos, group_of = RW.group_index(players, keys)
    deals = players[cluster].to_numpy()
    share = RW.float_values(players["win_share"])
    score = players["score"].to_numpy()

    def blocks() -> Iterator[Block]:
        for b in cluster_cuts(deals):
            yield group_of(b), deals[b], (share(b), score[b])

    rows = []
    for combo, f in zip(combos, seat_figures(blocks, len(combos)), strict=True):
        if f is None:
            continue
        key = dict(zip(keys, combo, strict=True))
        fair = 1.0 / key["n_players"]
        rows.append({**key, "games": f.games, "wins": f.wins, "win_rate": f.win_rate,
                     "lo": f.lo, "hi": f.hi, "fair": fair, "excess": f.win_rate - fair,
                     "score": f.score, "score_lo": f.score_lo, "score_hi": f.score_hi})
    out = pd.DataFrame(rows)
    if len(out):  # edge over the group's own rate across seats (= 1/n without ``by``)
        grp = out.groupby(keys[:-1])
        base = grp["wins"].transform("sum") / grp["games"].transform("sum")
        out["edge"], out["edge_lo"], out["edge_hi"] = (out["win_rate"] - base,
                                                       out["lo"] - base, out["hi"] - base)
    return out


def seat_test(players: pd.DataFrame, seats: pd.DataFrame | None = None) -> pd.DataFrame:
    """Chi-square goodness of fit of (fractional) wins by seat to equal shares, per count.

    The wins are ``seat_advantage``'s (``analysis.values.seat_figures``: the one sum of the
    win shares per seat); ``seats``: its frame of these rows (no ``by``) where the caller
    has it (the report's seat section), else worked out here."""
    seats = seat_advantage(players) if seats is None else seats
    rows = []
    counts = players["n_players"]
    for n in RW.present(counts):
        at = RW.where_equal(counts, n)
        g = players if at is None else players[at]  # no copy of a one-count frame
        mine = seats[seats["n_players"] == n]
        wins = mine.set_index("seat")["wins"].reindex(range(int(n)), fill_value=0.0)
        total = wins.sum()
        if n < 2 or total <= 0:
            continue
        chi2, p = sps.chisquare(wins.to_numpy(), np.full(int(n), total / n))
        rows.append({"n_players": n, "games": n_games(g),
                     "wins_counted": total, "chi2": float(chi2), "df": int(n) - 1,
                     "p_value": float(p), "rotated": bool(g["rotated"].all())
                     if "rotated" in g else False})
    return pd.DataFrame(rows)


# ---- 3./4. adjusted effects -----------------------------------------------------------
def indicators(lists: Iterable[Any], ids: Sequence[str]) -> np.ndarray:
    """(rows, len(ids)) 0/1 matrix: does row i's list contain id j."""
    col = {k: j for j, k in enumerate(ids)}
    lists = list(lists)
    out = np.zeros((len(lists), len(ids)), np.float64)
    for i, items in enumerate(lists):
        if items is None:
            continue
        for k in items:
            j = col.get(k)
            if j is not None:
                out[i, j] = 1.0
    return out


def fixed_effects(players: pd.DataFrame) -> tuple[np.ndarray, list[str]]:
    """Dummies (first level dropped) for strategy and run x player count x seat."""
    cells = (players["run"].astype(str) + "|" + players["n_players"].astype(str) + "|seat"
             + players["seat"].astype(str))
    parts, names = [], []
    for name, s in (("strategy", players["strategy"].astype(str)), ("cell", cells)):
        d = pd.get_dummies(s, prefix=name, dtype=float)
        if d.shape[1] > 1:
            parts.append(d.to_numpy()[:, 1:])
            names += list(d.columns[1:])
    x = np.hstack(parts) if parts else np.zeros((len(players), 0))
    return x, names


def ols_robust(x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """OLS coefficients and HC3 robust standard errors (x includes any intercept).

    HC3 scales each squared residual by 1/(1 - leverage)^2, which keeps intervals honest
    for indicators that are 1 in only a few rows.
    """
    xtx_inv = np.linalg.pinv(x.T @ x)
    beta = xtx_inv @ (x.T @ y)
    e = y - x @ beta
    lev = np.sum((x @ xtx_inv) * x, axis=1)
    w = e / np.clip(1 - lev, 1e-8, None)
    xe = x * w[:, None]
    cov = xtx_inv @ (xe.T @ xe) @ xtx_inv
    return beta, np.sqrt(np.clip(np.diag(cov), 0, None))


def adjusted_effects(players: pd.DataFrame, ind: np.ndarray, ids: Sequence[str],
                     outcome: str, min_count: int = 20) -> pd.DataFrame:
    """Effect of each indicator on ``outcome`` adjusted for strategy and seat cells.

    Regresses ``outcome`` on an intercept, the indicators (columns with fewer than
    ``min_count`` ones are left out and reported as NaN) and ``fixed_effects``.
    """
    y = players[outcome].to_numpy(dtype=float)
    fe, _ = fixed_effects(players)
    counts = ind.sum(axis=0)
    use = np.flatnonzero((counts >= min_count) & (counts <= len(y) - min_count))
    x = np.hstack([np.ones((len(y), 1)), ind[:, use], fe])
    beta, se = ols_robust(x, y)
    est = np.full(len(ids), np.nan)
    err = np.full(len(ids), np.nan)
    est[use] = beta[1:1 + len(use)]
    err[use] = se[1:1 + len(use)]
    return pd.DataFrame({"id": list(ids), "n_with": counts.astype(int), "effect": est,
                         "se": err, "lo": est - Z95 * err, "hi": est + Z95 * err})


def task_points(overrides: Mapping[str, Any] | None = None) -> pd.DataFrame:
    """Printed points and colour of every task (with any ``task_points`` override:
    ``runs.printed_points_under``)."""
    pts = printed_points_under(overrides)
    return pd.DataFrame({"id": list(TASK_IDS), "colour": [t.colour for t in C.TASKS],
                         "printed": [pts[t.id] for t in C.TASKS],
                         "text": [t.text for t in C.TASKS]})


def task_lit_regression(players: pd.DataFrame, overrides: Mapping[str, Any] | None = None,
                        min_count: int = 20) -> pd.DataFrame:
    """Per task: take and light rates, adjusted effect of lighting it on score and winning.

    An observed association (``adjusted_effects``: players who lit the task against
    those who did not, adjusted for strategy and seat), not ``analysis.task_values``, the
    forked causal value the report shows (the same decision played on twice, same random
    streams): lighting comes with a bonfire's other benefits and with the games a player
    was winning anyway.  The sensitivity table reads it (no forks per variant).

    ``flag`` is ``under-valued`` when the score interval lies above the printed points,
    ``over-valued`` when it lies below them, else empty.  ``relative`` is the surplus
    (value - printed) minus the lit-weighted mean surplus (``attrs["mean_surplus"]``);
    ``relative_flag`` is ``above par`` / ``below par`` when the interval moved by it
    excludes 0 (the mean's own uncertainty is ignored).
    """
    n = len(players)
    lit = indicators(players["bonfire_task_ids"], TASK_IDS)
    unlit = indicators(players["unlit_task_ids"], TASK_IDS)
    taken = np.clip(lit + unlit, 0, 1).sum(axis=0)
    nlit = lit.sum(axis=0)
    out = task_points(overrides)
    out["players"] = n
    out["taken"] = taken.astype(int)
    out["take_rate"] = taken / n if n else np.nan
    out["take_lo"], out["take_hi"] = wilson(taken, n)
    out["lit"] = nlit.astype(int)
    with np.errstate(invalid="ignore", divide="ignore"):
        out["lit_rate"] = nlit / taken
    out["lit_lo"], out["lit_hi"] = wilson(nlit, taken)
    score = adjusted_effects(players, lit, TASK_IDS, "score", min_count)
    win = adjusted_effects(players.assign(won01=players["won"].astype(float)), lit, TASK_IDS,
                           "won01", min_count)
    out["value"], out["value_lo"], out["value_hi"] = score["effect"], score["lo"], score["hi"]
    out["win_effect"], out["win_lo"], out["win_hi"] = win["effect"], win["lo"], win["hi"]
    out["flag"] = np.where(out["value_lo"] > out["printed"], "under-valued",
                           np.where(out["value_hi"] < out["printed"], "over-valued", ""))
    # Lighting also brings a bonfire's other benefits; the surplus over the printed points,
    # relative to the lit-weighted average surplus, says which tasks are out of line.
    surplus = out["value"] - out["printed"]
    ok = surplus.notna()
    mean_surplus = float(np.average(surplus[ok], weights=out["lit"][ok])) if ok.any() else 0.0
    out["surplus"] = surplus
    out["relative"] = surplus - mean_surplus
    half = (out["value_hi"] - out["value_lo"]) / 2
    out["relative_flag"] = np.where(out["relative"] - half > 0, "above par",
                                    np.where(out["relative"] + half < 0, "below par", ""))
    out.attrs["mean_surplus"] = mean_surplus
    return out


def gnome_owned_regression(players: pd.DataFrame, min_count: int = 20) -> pd.DataFrame:
    """Per gnome: recruitment rate and adjusted effect of owning it on score and winning.

    An observed association, as ``task_lit_regression``, not ``analysis.gnome_values``
    (the forked value of recruiting it that the report's gnome section shows).

    ``flag`` is ``strong`` / ``weak`` when the score interval excludes 0 above / below.
    """
    n = len(players)
    own = indicators(players["gnome_ids"], GNOME_IDS)
    k = own.sum(axis=0)
    text = [C.SPECIALIST_TEXT[i] for i in range(1, C.N_SPECIALISTS + 1)] + list(C.ELDER_TEXT)
    out = pd.DataFrame({"id": list(GNOME_IDS),
                        "kind": ["specialist"] * C.N_SPECIALISTS + ["elder"] * C.N_ELDERS,
                        "text": text, "players": n, "owned": k.astype(int)})
    out["recruit_rate"] = k / n if n else np.nan
    out["recruit_lo"], out["recruit_hi"] = wilson(k, n)
    score = adjusted_effects(players, own, GNOME_IDS, "score", min_count)
    win = adjusted_effects(players.assign(won01=players["won"].astype(float)), own, GNOME_IDS,
                           "won01", min_count)
    out["effect"], out["lo"], out["hi"] = score["effect"], score["lo"], score["hi"]
    out["win_effect"], out["win_lo"], out["win_hi"] = win["effect"], win["lo"], win["hi"]
    out["flag"] = np.where(out["lo"] > 0, "strong", np.where(out["hi"] < 0, "weak", ""))
    return out


# ---- 5. Tom -----------------------------------------------------------------------------
# The solo games, Tom's difficulty (``solo_figures``) and the handicaps are
# ``analysis.values``' (re-exported above): ``analysis.tom_difficulty`` reads the same.


def tom_line_means(players: pd.DataFrame) -> pd.DataFrame:
    """Tom's mean points per score line (``score_*`` and ``pts_*`` columns), t intervals.
    Not ``analysis.errata.tom_lines`` (the errata sheet's lines for Tom's handicap)."""
    tom = players[players["strategy"] == TOM]
    cols = [c for c in tom.columns if (c.startswith("score_") or c.startswith("pts_"))
            and c != "score_ingame"]
    rows = []
    for c in cols:
        m, lo, hi = mean_ci(tom[c])
        if len(tom) and (tom[c] != 0).any():
            rows.append({"line": c, "mean": m, "lo": lo, "hi": hi})
    return pd.DataFrame(rows, columns=["line", "mean", "lo", "hi"])


# ---- 6. method and caveats ------------------------------------------------------------
_ASSIGN = re.compile(r"^([A-Z][A-Z0-9_]*(?:\s*,\s*[A-Z][A-Z0-9_]*)*)\s*[=:]")


def assumed_facts(source: str) -> pd.DataFrame:
    """The component facts tagged ``assumed`` in components.py source: name and note."""
    lines = source.splitlines()
    rows = []
    for i, line in enumerate(lines):
        comment = line.split("#", 1)[1].strip() if "#" in line else ""
        if "assumed" not in comment.lower():
            continue
        m = _ASSIGN.match(line)
        if m is None and line.lstrip().startswith("#"):  # a comment above its assignment
            m = next((a for a in map(_ASSIGN.match, lines[i + 1:i + 4]) if a), None)
        rows.append({"line": i + 1, "name": m.group(1) if m else "(section)", "note": comment})
    n_tasks = sum(t.provenance == "assumed" for t in C.TASKS)
    rows.append({"line": 0, "name": "TASKS",
                 "note": f"{n_tasks} of {len(C.TASKS)} tasks: depicted parameters and point "
                         f"values assumed [RULINGS 8]"})
    return pd.DataFrame(rows)


def precision_warning(est: pd.DataFrame, n: float, target: float, what: str,
                      lo: str = "lo", hi: str = "hi") -> dict[str, Any] | None:
    """A warning when the median interval half-width exceeds ``target``, else None.

    Returns {"text", "half_width", "target", "games", "games_needed"}; intervals shrink as
    1/sqrt(games), so halving a width takes 4x the games.
    """
    hw = ((est[hi] - est[lo]) / 2).dropna()
    if hw.empty or n <= 0:
        return None
    med = float(hw.median())
    if med <= target:
        return None
    need = int(games_needed(n, med, target))  # med > target > 0 and n > 0: a number
    return {"text": f"{what}: intervals are about ±{med:.3g} wide (median), too wide to "
                    f"resolve differences of ±{target:g}; that needs about {need:,} games "
                    f"({need / n:.1f}x the {int(n):,} played).",
            "half_width": med, "target": target, "games": int(n), "games_needed": need}
