"""The public balance numbers: task and gnome values from engine forks, seat advantage with
its compensation, and Tom's difficulty, one row per item and player count.

Every function takes run directories or loaded runs (``runs.as_runs``) and returns a
pandas DataFrame with the id column (``task``, ``gnome``, ``seat`` or ``strategy``),
``players``, ``value``, ``lo``, ``hi`` (95%), ``n`` and further columns documented per
function.  Flags use ``flags.flag`` (practical margin + Benjamini-Hochberg) within one
player count; ``imprecise`` marks rows whose interval is wider than ± the margin.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from bonfire_sim.analysis import flags as FL
from bonfire_sim.analysis.compensation import (
    as_seat_points,
    compensation,
    whole_points_check,
)
from bonfire_sim.analysis.intervals import (
    Z95,
    clustered_mean_ci,
    clustered_wilson,
    mean_ci,
    mean_se,
    pool_inverse_variance,
    se_from_interval,
    wilson,
)
from bonfire_sim.analysis.probes import GNOME_IDS, TASK_IDS, ProbeSettings, probe_values
from bonfire_sim.analysis.runs import Run, RunLike, as_runs, printed_task_points
from bonfire_sim.rules import components as C

TOM = "tom"
EXAMPLES = 3  # game ids listed per row
HETEROGENEITY_ALPHA = 0.05


# ---- probes -----------------------------------------------------------------------------
def probe_table(runs: RunLike | Sequence[RunLike], probes: ProbeSettings | int | None = None,
                *, jobs: int = 1, quiet: bool = True) -> pd.DataFrame:
    """The fork tables of the runs (cached in their directories), tagged with ``run``.

    ``probes``: settings, or the number of games per run to probe (None = every game).
    """
    settings = probes if isinstance(probes, ProbeSettings) else ProbeSettings(games=probes)
    parts = []
    for run in as_runs(runs):
        t = probe_values(run.config, settings, run_dir=run.path, jobs=jobs, quiet=quiet)
        parts.append(t.assign(run=run.label))
    return pd.concat(parts, ignore_index=True) if parts else pd.DataFrame()


def _examples(ids: pd.Series) -> str:
    return ", ".join(str(int(x)) for x in sorted(set(ids))[:EXAMPLES])


def fork_estimates(tab: pd.DataFrame, kind: str) -> pd.DataFrame:
    """Per (players, item) of one probe kind: the mean score and win differences A - B
    with t intervals, the share ending with the item in each branch, and the price slope.

    Columns: players, item, n, value/se/lo/hi (score), win/win_lo/win_hi, has_a, has_b,
    ratio/ratio_se (value per point of the item's printed points, see ``task_values``),
    games (example game ids), kept (share of forks whose branch B kept its ban).
    """
    t = tab[tab["kind"] == kind]
    rows = []
    for (players, item), g in t.groupby(["players", "item"], sort=True):
        d = (g["score_a"] - g["score_b"]).to_numpy(float)
        w = (g["win_a"] - g["win_b"]).to_numpy(float)
        h = (g["has_a"] - g["has_b"]).to_numpy(float)
        n = len(d)
        m, lo, hi = mean_ci(d)
        wm, wlo, whi = mean_ci(w)
        se = mean_se(d)[1]
        slope = float(h.mean())
        # Ratio estimator value / slope, linearised for its standard error.
        ratio = m / slope if slope > 0 else np.nan
        z = (d - ratio * h) / slope if slope > 0 else np.full(n, np.nan)
        ratio_se = float(z.std(ddof=1) / np.sqrt(n)) if n > 1 and slope > 0 else np.nan
        rows.append({"players": int(players), "item": item, "n": n, "value": m, "se": se,
                     "lo": lo, "hi": hi, "win": wm, "win_lo": wlo, "win_hi": whi,
                     "has_a": float(g["has_a"].mean()), "has_b": float(g["has_b"].mean()),
                     "slope": slope, "ratio": ratio, "ratio_se": ratio_se,
                     "games": _examples(g["game_id"]), "kept": float(g["kept_b"].mean())})
    cols = ["players", "item", "n", "value", "se", "lo", "hi", "win", "win_lo", "win_hi",
            "has_a", "has_b", "slope", "ratio", "ratio_se", "games", "kept"]
    return pd.DataFrame(rows, columns=cols)


# ---- players tables -------------------------------------------------------------------
def player_rows(runs: list[Run], columns: Sequence[str] | None = None) -> pd.DataFrame:
    """Human player rows of all runs with ``players`` (count), ``run`` and ``win_share``.

    ``columns``: the players columns to keep (``game_id`` and ``won`` always); None keeps
    every column.  A big run's rows are copied here, so a caller names what it reads.
    """
    parts = []
    for run in runs:
        p = run.data.players
        keep = list(p.columns) if columns is None else [
            c for c in p.columns if c in {*columns, "game_id", "won"}]
        human = p["strategy"] != TOM
        p = p.loc[human, keep] if not human.all() else p[keep].copy()
        deal = run.data.games.set_index("game_id")["deal"]
        p["players"] = run.config.players
        p["run"] = run.label
        p["deal"] = deal.reindex(p["game_id"]).to_numpy()
        parts.append(p)
    if not parts:
        return pd.DataFrame()
    p = pd.concat(parts, ignore_index=True) if len(parts) > 1 else parts[0]
    winners = p.groupby(["run", "game_id"])["won"].transform("sum")
    p["win_share"] = np.where(p["won"], 1.0 / winners.clip(lower=1), 0.0)
    return p


def list_counts(lists: pd.Series, ids: Sequence[str]) -> np.ndarray:
    """How often each id occurs in a list column (float, in the order of ``ids``).

    Counted in Arrow (flatten + value counts): a million games' task lists never become
    Python objects.  Works on Arrow list columns and on object columns of lists.
    """
    arrow = getattr(lists.array, "__arrow_array__", None)
    arr = arrow() if isinstance(lists.dtype, pd.ArrowDtype) and arrow else pa.array(
        lists, from_pandas=True)
    vc = pc.value_counts(pc.list_flatten(arr)) if len(arr) else None
    counts = dict(zip(vc.field("values").to_pylist(), vc.field("counts").to_pylist(),
                      strict=True)) if vc is not None else {}
    return np.array([counts.get(i, 0) for i in ids], dtype=float)


def _human_counts(rs: Sequence[Run], n: int, column: str,
                  ids: Sequence[str]) -> tuple[np.ndarray, int]:
    """Per id, how many human players of the ``n``-player runs hold it in ``column``, and
    how many human players there are: counted per run, without copying the rows, and
    from the run's file when its loaded players leave the column out (the report's
    lean load)."""
    from bonfire_sim.sim.load import list_item_counts

    total, rows = np.zeros(len(ids)), 0
    for run in rs:
        if run.config.players != n:
            continue
        p = run.data.players
        if column not in p.columns and run.path is not None:
            counts, k = list_item_counts(run.path, column, exclude=TOM)
            total += np.array([counts.get(i, 0) for i in ids], dtype=float)
            rows += k
            continue
        human = p["strategy"] != TOM
        col = p[column] if human.all() else p.loc[human, column]
        total += list_counts(col, ids)
        rows += len(col)
    return total, rows


# ---- pooling across player counts ---------------------------------------------------------
def pool(frame: pd.DataFrame, key: str, alpha: float = HETEROGENEITY_ALPHA) -> pd.DataFrame:
    """Inverse-variance pooled rows (``players`` = 0) for items whose player counts agree.

    Per item, Cochran's Q tests that the per-count values are equal; a pooled row is added
    only where that test does not reject at ``alpha`` (``het_p`` holds its p value).
    """
    rows = []
    for item, g in frame[frame["players"] > 0].groupby(key, sort=False):
        g = g.dropna(subset=["value", "lo", "hi"])
        g = g[g["hi"] > g["lo"]]
        if len(g) < 2:
            continue
        est, pse, het_p = pool_inverse_variance(g["value"], se_from_interval(g["lo"], g["hi"]))
        if het_p < alpha:
            continue
        rows.append({key: item, "players": 0, "value": est, "lo": est - Z95 * pse,
                     "hi": est + Z95 * pse, "n": int(g["n"].sum()),
                     "het_p": het_p})
    return pd.DataFrame(rows)


# ---- tasks and gnomes: the card values --------------------------------------------------
def _example_games(forks: pd.DataFrame, kinds: Sequence[str]) -> pd.DataFrame:
    """Per (players, card): up to ``EXAMPLES`` game ids of its forks of ``kinds`` (in the
    runs: a top-up's games are fresh deals no run holds)."""
    from bonfire_sim.analysis.card_values import TOP_UP_RUN

    t = forks[forks["kind"].isin(kinds)] if len(forks) else forks
    if len(t) and "run" in t:
        t = t[t["run"] != TOP_UP_RUN]
    if not len(t):
        return pd.DataFrame(columns=["players", "card", "games"])
    return (t.groupby(["players", "item"])["game_id"].agg(_examples).reset_index()
            .rename(columns={"item": "card", "game_id": "games"}))


def _pool_cards(frame: pd.DataFrame, key: str, margin: float) -> pd.DataFrame:
    """Pooled rows (``players`` = 0) of the surplus over player counts, where the counts
    agree (Cochran's Q) and print the same points: the one value a card printed once for
    every count would carry (``reprice`` proposes it the same way, inverse-variance)."""
    m = frame[(frame["players"] > 0) & (frame["status"] == "measured")]
    if "printed" in m:
        same = m.groupby(key)["printed"].transform("nunique") == 1
        m = m[same]
    extra = pool(m.rename(columns={"value": "lit", "surplus": "value", "lo": "v_lo",
                                   "hi": "v_hi", "s_lo": "lo", "s_hi": "hi"}), key)
    if not len(extra):
        return extra
    extra = extra.rename(columns={"value": "surplus", "lo": "s_lo", "hi": "s_hi"})
    extra["half"] = (extra["s_hi"] - extra["s_lo"]) / 2
    extra["status"] = np.where(extra["half"] <= margin, "measured", "not measured")
    extra["flag"] = ""  # a summary: the flags are the counts' own
    first = frame.drop_duplicates(key).set_index(key)
    for col in ("printed", "colour", "text", "kind", "who"):
        if col in first:
            extra[col] = extra[key].map(first[col])
    if "printed" in extra:
        extra["fair"] = extra["printed"] - extra["surplus"]
        extra["proposed"] = np.maximum(np.floor(extra["fair"] + 0.5), 0)
    extra["who"] = "; ".join(sorted(set(frame["who"].dropna())))
    return extra


def task_values(runs: RunLike | Sequence[RunLike], *, probes: ProbeSettings | int | None = None,
                margin: float = FL.MARGIN, alpha: float = FL.ALPHA, pooled: bool = False,
                jobs: int = 1, quiet: bool = True) -> pd.DataFrame:
    """Per task and player count, the card value (``card_values``; the one method: see
    docs/explanation/values.md).

    * ``value`` / ``lo`` / ``hi`` / ``n`` (``deals``, ``n_forced``): the **lit value**, the
      mover's final score when it ignites the task at a decision where it could (natural
      and forced forks), minus the same game with the task dead from there on; interval
      clustered by deal.
    * ``surplus`` (``s_lo``, ``s_hi``, ``half``): the lit value minus the mean lit value of
      the other tasks of its colour at that count (``reference``): what the card gives
      beyond the typical card of its tier.  A re-price by k moves it by k.
    * ``fair`` = printed - surplus and ``proposed`` (its whole number, >= 0): the printed
      value at which the card is worth its tier's typical card.
    * ``status``: ``measured`` (95% half-width of the surplus within ``margin``, forks
      from at least ``card_values.MIN_DEALS`` deals) or ``not measured``, with
      ``forks_needed`` for the margin; ``imprecise`` is its negation.  Only measured rows
      carry ``q_value`` / ``flag`` (``strong``: surplus above +margin, worth more than its
      points; ``weak``: below -margin; Benjamini-Hochberg at ``alpha`` per count).
    * ``who``: who played (the values describe games among these players); ``printed``,
      ``colour``, ``text``, ``take_rate`` (share of players who received it), ``lit_rate``
      (lit | received), ``games`` (example game ids of its forks).
    With ``pooled=True`` rows with ``players`` = 0 pool the surplus over the counts where
    they agree (Cochran's Q, ``het_p``) and print the same points.
    """
    from bonfire_sim.analysis.card_survey import card_forks
    from bonfire_sim.analysis.card_values import TASK_KINDS, card_table, populations

    rs = as_runs(runs)
    printed = printed_task_points(rs)  # refuses mixed task points before any fork is computed
    who = populations(rs)  # and runs of one count with different players
    forks = card_forks(rs, probes, kinds=TASK_KINDS, margin=margin, alpha=alpha, jobs=jobs,
                       quiet=quiet)
    tab = card_table(forks, printed, margin, alpha)
    out = tab[tab["kind"] == "task"].rename(columns={"card": "task"}).reset_index(drop=True)
    info = {t.id: (t.colour, t.text) for t in C.TASKS}
    out["colour"] = out["task"].map(lambda t: info[t][0])
    out["text"] = out["task"].map(lambda t: info[t][1])
    out["who"] = out["players"].map(who)
    rates = []
    for n in sorted(printed):
        lit, n_rows = _human_counts(rs, n, "bonfire_task_ids", TASK_IDS)
        held = lit + _human_counts(rs, n, "unlit_task_ids", TASK_IDS)[0]
        with np.errstate(invalid="ignore", divide="ignore"):
            rates.append(pd.DataFrame({"task": TASK_IDS, "players": n,
                                       "take_rate": held / n_rows if n_rows else np.nan,
                                       "lit_rate": np.where(held > 0, lit / held, np.nan)}))
    out = out.merge(pd.concat(rates), on=["task", "players"], how="left")
    ex = _example_games(forks, ("light", "forced")).rename(columns={"card": "task"})
    out = out.merge(ex, on=["task", "players"], how="left")
    out["games"] = out["games"].fillna("")
    out["imprecise"] = out["status"] != "measured"
    if pooled and len(out):
        extra = _pool_cards(out, "task", margin)
        if len(extra):
            extra["imprecise"] = extra["status"] != "measured"
            out = pd.concat([out, extra], ignore_index=True)
    return out.reset_index(drop=True)


def gnome_values(runs: RunLike | Sequence[RunLike], *,
                 probes: ProbeSettings | int | None = None, margin: float = FL.MARGIN,
                 alpha: float = FL.ALPHA, pooled: bool = False, jobs: int = 1,
                 quiet: bool = True) -> pd.DataFrame:
    """Per gnome and player count, the card value (``card_values``): ``value`` (``lo``,
    ``hi``, ``n``, ``deals``) = the mover's final score after recruiting the gnome at a
    decision where it could, minus the best other move (interval clustered by deal);
    ``relative`` (``rel_lo``, ``rel_hi``, ``half``): that minus the mean of the other gnomes
    of the count, i.e. **points against the average gnome** (``reference``); ``status``
    (``measured`` / ``not measured``, ``forks_needed``) as for tasks, and on measured rows
    ``q_value`` / ``flag`` (``strong`` / ``weak``: more than ``margin`` above / below the
    average gnome, Benjamini-Hochberg at ``alpha`` per count); ``imprecise`` (not
    measured); ``recruit_rate`` (share of players owning it at the end, Wilson
    ``recruit_lo`` / ``recruit_hi``), ``kind``, ``text``, ``who``, ``games``.  A gnome
    prints no number, so nothing is proposed: a strong gnome is weakened by its ability."""
    from bonfire_sim.analysis.card_survey import card_forks
    from bonfire_sim.analysis.card_values import card_table, populations

    rs = as_runs(runs)
    who = populations(rs)
    forks = card_forks(rs, probes, kinds=("gnome",), margin=margin, alpha=alpha, jobs=jobs,
                       quiet=quiet)
    counts = sorted({r.config.players for r in rs})
    tab = card_table(forks, {n: {t: 0 for t in TASK_IDS} for n in counts}, margin, alpha)
    out = tab[tab["kind"] == "gnome"].rename(columns={
        "card": "gnome", "kind": "card_kind", "surplus": "relative", "s_lo": "rel_lo",
        "s_hi": "rel_hi"}).drop(columns=["printed", "fair", "proposed", "card_kind"])
    texts = [C.SPECIALIST_TEXT[i] for i in range(1, C.N_SPECIALISTS + 1)] + list(C.ELDER_TEXT)
    kinds = ["specialist"] * C.N_SPECIALISTS + ["elder"] * C.N_ELDERS
    rows = []
    for n in counts:
        own, n_rows = _human_counts(rs, n, "gnome_ids", GNOME_IDS)
        lo, hi = wilson(own, n_rows)
        for j, gid in enumerate(GNOME_IDS):
            rows.append({"gnome": gid, "players": n, "kind": kinds[j], "text": texts[j],
                         "recruit_rate": own[j] / n_rows if n_rows else np.nan,
                         "recruit_lo": lo[j], "recruit_hi": hi[j]})
    out = pd.DataFrame(rows).merge(out, on=["gnome", "players"], how="left")
    out["who"] = out["players"].map(who)
    ex = _example_games(forks, ("gnome",)).rename(columns={"card": "gnome"})
    out = out.merge(ex, on=["gnome", "players"], how="left")
    out["games"] = out["games"].fillna("")
    out["imprecise"] = out["status"] != "measured"
    if pooled and len(out):
        extra = _pool_cards(out.rename(columns={"relative": "surplus", "rel_lo": "s_lo",
                                                "rel_hi": "s_hi"}), "gnome", margin)
        if len(extra):
            extra = extra.rename(columns={"surplus": "relative", "s_lo": "rel_lo",
                                          "s_hi": "rel_hi"})
            extra["imprecise"] = extra["status"] != "measured"
            out = pd.concat([out, extra], ignore_index=True)
    return out.reset_index(drop=True)


def _seat_arrays(runs: Sequence[Run]) -> dict[str, np.ndarray]:
    """The human rows of the runs as flat integer arrays (``game``: a game index unique
    across the runs, ordered by run label and game id; ``seat``, ``score``, ``bonfires``,
    ``game_id``, ``win_share``) and per game its deal cluster (``cluster``: run and deal).

    Plain arrays, not a copy of the players frame: at a million games the seat analysis
    needs a few of them, not a pivot table."""
    parts: dict[str, list[np.ndarray]] = {k: [] for k in (
        "game", "seat", "score", "bonfires", "game_id", "win_share", "game_deal", "game_run")}
    offset = 0
    for i, run in enumerate(sorted(runs, key=lambda r: r.label)):
        p = run.data.players
        human = (p["strategy"] != TOM).to_numpy()
        gid = p["game_id"].to_numpy(np.int64)[human]
        games, row = np.unique(gid, return_inverse=True)
        won = p["won"].to_numpy(bool)[human]
        winners = np.bincount(row, weights=won, minlength=len(games))
        deal = run.data.games.set_index("game_id")["deal"].reindex(games).to_numpy(np.int64)
        parts["game"].append(row + offset)
        parts["seat"].append(p["seat"].to_numpy(np.int64)[human])
        parts["score"].append(p["score"].to_numpy(np.int64)[human])
        parts["bonfires"].append(p["n_bonfires"].to_numpy(np.int64)[human])
        parts["game_id"].append(gid)
        parts["win_share"].append(np.where(won, 1.0 / np.maximum(winners[row], 1), 0.0))
        parts["game_deal"].append(deal)
        parts["game_run"].append(np.full(len(games), i, np.int64))
        offset += len(games)
    out = {k: np.concatenate(v) if v else np.zeros(0, np.int64) for k, v in parts.items()}
    pairs = np.stack([out.pop("game_run"), out.pop("game_deal")], axis=1)
    out["cluster"] = (np.unique(pairs, axis=0, return_inverse=True)[1].ravel()
                      if len(pairs) else np.zeros(0, np.int64))
    return out


def _games_by_seat(a: dict[str, np.ndarray], n: int,
                   ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(games, n) scores and bonfires by seat of the complete games, and their clusters."""
    g = len(a["cluster"])
    scores = np.full((g, n), -1, np.int64)
    bonf = np.zeros((g, n), np.int64)
    filled = np.zeros((g, n), bool)
    scores[a["game"], a["seat"]] = a["score"]
    bonf[a["game"], a["seat"]] = a["bonfires"]
    filled[a["game"], a["seat"]] = True
    complete = filled.all(axis=1)  # a game missing a seat's row is left out
    return scores[complete], bonf[complete], a["cluster"][complete]


# ---- seats ------------------------------------------------------------------------------
def seat_advantage(runs: RunLike | Sequence[RunLike], *, margin: float = FL.MARGIN,
                   alpha: float = FL.ALPHA) -> pd.DataFrame:
    """Per player count (2+) and seat: ``value`` = win share (shared wins split), Wilson
    ``lo``/``hi``, ``n`` games, ``fair`` = 1/n, ``score`` (mean, t ``score_lo``/
    ``score_hi``), both intervals clustered by deal, and the **compensation**: the starting
    points per seat (seat 0 = 0) that would give every seat 1/n of the wins when the
    recorded games are re-ranked, with a 95% interval ``c_lo``/``c_hi``
    (``compensation.compensation``). ``seat_points`` (in ``attrs``, per player count) is the
    whole-point override to test it with (the rounding whose re-ranked win shares come
    closest to 1/n); ``seat_points_exact`` the compensation itself to 0.01 point (a
    fractional ``seat_points`` is a per-deal lottery, the same interpolation the estimate
    uses); ``seat_points_whole`` whether the whole points are fair at that count, measured
    by re-ranking the games under them (``compensation.whole_points_check``). ``q_value`` /
    ``flag``: compensation beyond ± margin points (BH per player count); ``imprecise``:
    compensation interval wider than ± margin; ``games``: example games the seat won. Runs
    should be seat-rotated; otherwise seats are confounded with the strategies sitting
    there."""
    rs = as_runs(runs)
    rows, suggest, exact, whole = [], {}, {}, {}
    for n in sorted({r.config.players for r in rs if r.config.players >= 2}):
        a = _seat_arrays([r for r in rs if r.config.players == n])
        scores, bonf, clusters = _games_by_seat(a, n)
        c, clo, chi = compensation(scores, bonf, clusters)
        suggest[n] = as_seat_points(c, scores, bonf)
        if suggest[n]:  # are whole points fair at this count? (re-ranked, measured)
            whole[n] = whole_points_check(scores, bonf, suggest[n], clusters)
        exact[n] = ([round(float(v), 2) for v in c - np.min(c)]
                    if np.all(np.isfinite(c)) else [])
        for seat in np.unique(a["seat"]):
            seat = int(seat)
            at = a["seat"] == seat
            share = a["win_share"][at]
            wins = float(share.sum())
            # The seat rotations of a deal share its cards: intervals clustered by deal.
            deal = a["cluster"][a["game"][at]]
            _, lo, hi = clustered_wilson(share, deal)
            m, slo, shi = clustered_mean_ci(a["score"][at], deal)
            won = a["game_id"][at][share > 0]
            rows.append({"seat": seat, "players": n, "value": wins / len(share),
                         "lo": float(lo), "hi": float(hi), "n": len(share), "fair": 1.0 / n,
                         "score": m, "score_lo": slo, "score_hi": shi,
                         "compensation": c[seat] if seat < len(c) else np.nan,
                         "c_lo": clo[seat] if seat < len(clo) else np.nan,
                         "c_hi": chi[seat] if seat < len(chi) else np.nan,
                         "games": _examples(won)})
    out = pd.DataFrame(rows, columns=["seat", "players", "value", "lo", "hi", "n", "fair",
                                      "score", "score_lo", "score_hi", "compensation", "c_lo",
                                      "c_hi", "games"])
    out["q_value"] = np.nan
    out["flag"] = ""
    for _n, idx in out.groupby("players").groups.items():
        g = out.loc[idx]
        se = se_from_interval(g["c_lo"], g["c_hi"])
        sub = g["seat"] > 0  # seat 0 is the reference (0 by definition)
        q, f = FL.flag(g.loc[sub, "compensation"], se[sub], 0.0, margin, alpha,
                       labels=("behind", "ahead"))
        out.loc[g.index[sub], "q_value"] = q
        out.loc[g.index[sub], "flag"] = f
    out["imprecise"] = FL.imprecise(out["c_lo"], out["c_hi"], margin) & (out["seat"] > 0)
    out.attrs["seat_points"] = suggest
    out.attrs["seat_points_exact"] = exact
    out.attrs["seat_points_whole"] = whole
    return out


# ---- Tom --------------------------------------------------------------------------------
def tom_difficulty(runs: RunLike | Sequence[RunLike], n_boot: int = 500,
                   seed: int = 0) -> pd.DataFrame:
    """Per strategy in solo runs (``players`` = 1): ``value`` = win rate against Tom
    (Wilson ``lo``/``hi``), ``n`` games, ``score`` and ``tom`` means, ``margin`` (mean
    score - Tom's), ``handicap`` (Tom's head start at which the win rate is 2/7, with
    bootstrap ``h_lo``/``h_hi``) and example ``games`` the strategy won."""
    from bonfire_sim.analysis.solo import SoloGames, handicap_series

    rs = [r for r in as_runs(runs) if r.config.players == 1]
    rows = []
    for run in rs:
        p = run.data.players
        human = p[p["strategy"] != TOM].set_index("game_id")
        tom = p[p["strategy"] == TOM].set_index("game_id")
        g = pd.DataFrame({"strategy": human["strategy"], "score": human["score"],
                          "tom": tom["score"].reindex(human.index), "won": human["won"]})
        for s, h in g.groupby("strategy"):
            k = float(h["won"].sum())
            lo, hi = wilson(k, len(h))
            series = handicap_series(SoloGames(h["score"].to_numpy(), h["tom"].to_numpy()),
                                     n_boot=n_boot, seed=seed)
            rows.append({"strategy": s, "players": 1, "run": run.label,
                         "value": k / len(h), "lo": float(lo), "hi": float(hi), "n": len(h),
                         "score": float(h["score"].mean()), "tom": float(h["tom"].mean()),
                         "margin": float((h["score"] - h["tom"]).mean()),
                         "handicap": series.equilibrium, "h_lo": series.equilibrium_ci[0],
                         "h_hi": series.equilibrium_ci[1],
                         "games": _examples(h.index[h["won"].astype(bool)])})
    return pd.DataFrame(rows, columns=["strategy", "players", "run", "value", "lo", "hi", "n",
                                       "score", "tom", "margin", "handicap", "h_lo", "h_hi",
                                       "games"])

