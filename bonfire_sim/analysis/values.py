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
from scipy import stats as sps

from bonfire_sim.analysis import flags as FL
from bonfire_sim.analysis.compensation import as_seat_points, compensation
from bonfire_sim.analysis.intervals import mean_ci, t_half, wilson
from bonfire_sim.analysis.probes import GNOME_IDS, TASK_IDS, ProbeSettings, probe_values
from bonfire_sim.analysis.runs import Run, RunLike, as_runs
from bonfire_sim.errors import DataError
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


def _merge_ids(*lists: object) -> str:
    """Union of comma-separated game-id lists, sorted, at most ``EXAMPLES``."""
    ids = {int(x) for s in lists if isinstance(s, str) and s for x in s.split(",")}
    return ", ".join(str(x) for x in sorted(ids)[:EXAMPLES])


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
        se = float(d.std(ddof=1) / np.sqrt(n)) if n > 1 else np.nan
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
def player_rows(runs: list[Run]) -> pd.DataFrame:
    """Human player rows of all runs with ``players`` (count), ``run`` and ``win_share``."""
    parts = []
    for run in runs:
        p = run.data.players
        p = p[p["strategy"] != TOM].copy()
        g = run.data.games.set_index("game_id")
        p["players"] = run.config.players
        p["run"] = run.label
        p["deal"] = g["deal"].reindex(p["game_id"]).to_numpy()
        parts.append(p)
    if not parts:
        return pd.DataFrame()
    p = pd.concat(parts, ignore_index=True)
    winners = p.groupby(["run", "game_id"])["won"].transform("sum")
    p["win_share"] = np.where(p["won"], 1.0 / winners.clip(lower=1), 0.0)
    return p


def _item_counts(lists: pd.Series, ids: Sequence[str]) -> np.ndarray:
    counts = pd.Series(0, index=list(ids), dtype=float)
    flat = pd.Series([x for row in lists for x in (row if row is not None else ())])
    if len(flat):
        vc = flat.value_counts()
        counts = counts.add(vc.reindex(counts.index, fill_value=0), fill_value=0)
    return counts.to_numpy()


def _printed(runs: list[Run]) -> dict[int, dict[str, int]]:
    """Printed task points per player count (overrides applied); runs of one player count
    must agree."""
    out: dict[int, dict[str, int]] = {}
    for run in runs:
        pts = {t.id: int(t.points) for t in C.TASKS}
        pts.update({str(k): int(v) for k, v in
                    dict(run.config.overrides.get("task_points", {})).items()})
        n = run.config.players
        if n in out and out[n] != pts:
            raise DataError(f"runs with {n} players print different task points; analyse "
                            f"them separately (or compare them with `bonfire-sim compare`)")
        out[n] = pts
    return out


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
        se = (g["hi"] - g["lo"]) / (2 * 1.959963984540054)
        w = 1.0 / se ** 2
        est = float((w * g["value"]).sum() / w.sum())
        q = float((w * (g["value"] - est) ** 2).sum())
        het_p = float(sps.chi2.sf(q, len(g) - 1))
        if het_p < alpha:
            continue
        pse = float(np.sqrt(1.0 / w.sum()))
        rows.append({key: item, "players": 0, "value": est, "lo": est - 1.959963984540054 * pse,
                     "hi": est + 1.959963984540054 * pse, "n": int(g["n"].sum()),
                     "het_p": het_p})
    return pd.DataFrame(rows)


def _finish(frame: pd.DataFrame, key: str, margin: float, pooled: bool) -> pd.DataFrame:
    out = frame
    if pooled and len(frame):
        extra = pool(frame, key)
        if len(extra):
            # Pooled rows are a summary: they carry no flag of their own.
            extra["imprecise"] = FL.imprecise(extra["lo"], extra["hi"], margin)
            extra["flag"] = ""
            out = pd.concat([frame, extra], ignore_index=True)
    return out.reset_index(drop=True)


# ---- tasks ------------------------------------------------------------------------------
def task_values(runs: RunLike | Sequence[RunLike], *, probes: ProbeSettings | int | None = None,
                margin: float = FL.MARGIN, alpha: float = FL.ALPHA, pooled: bool = False,
                jobs: int = 1, quiet: bool = True) -> pd.DataFrame:
    """Per task and player count, from engine forks (``probes.probe_values``).

    * ``value`` / ``lo`` / ``hi`` / ``n``: the **lit value**: the mover's final score when it
      ignites the task at a decision where it could, minus the same game with the task left
      unlit for good (light forks).  Printed points enter branch A only, so a change of k
      printed points moves this value by about k.
    * ``take_value`` (``take_lo``, ``take_hi``, ``take_n``): receiving the task at a
      decision where it could, minus the best other move (take forks; includes the risk of
      never lighting it and what the action could have done instead).
    * ``win_lit`` / ``win_take`` (with ``_lo``/``_hi``): the same differences in win share.
    * ``lit_after_take``: share of take forks whose branch A ends with the task lit;
      ``price_slope``: that minus the same share in branch B, i.e. the points one more
      printed point adds to ``take_value``.
    * ``fair_price`` (``fp_lo``, ``fp_hi``): printed - take_value / price_slope, the printed
      points at which taking the task would be neutral (first order: the strategies' play
      is held fixed).
    * ``take_rate`` (share of players who received it), ``lit_rate`` (lit | received),
      ``printed``, ``colour``, ``text``; ``q_value`` and ``flag`` (``strong`` = fair price
      more than ``margin`` below printed, ``weak`` = above; BH at ``alpha`` over the tasks
      of one player count); ``imprecise`` (fair-price or lit-value interval wider than ±
      margin); ``games``: example game ids of the forks (``bonfire-sim replay --run DIR
      --game ID``).
    With ``pooled=True`` rows with ``players`` = 0 pool the lit value over player counts
    for tasks whose counts agree (Cochran's Q, ``het_p``).
    """
    rs = as_runs(runs)
    printed = _printed(rs)  # refuses mixed task points before any fork is computed
    tab = probe_table(rs, probes, jobs=jobs, quiet=quiet)
    players = player_rows(rs)
    light = fork_estimates(tab, "light") if len(tab) else fork_estimates(tab.head(0), "light")
    take = fork_estimates(tab, "take") if len(tab) else fork_estimates(tab.head(0), "take")
    info = {t.id: (t.colour, t.text) for t in C.TASKS}
    rows = []
    for n in sorted(printed):
        p = players[players["players"] == n]
        held = _item_counts(p["bonfire_task_ids"], TASK_IDS) + _item_counts(
            p["unlit_task_ids"], TASK_IDS)
        lit = _item_counts(p["bonfire_task_ids"], TASK_IDS)
        for j, tid in enumerate(TASK_IDS):
            rows.append({"task": tid, "players": n, "printed": printed[n][tid],
                         "colour": info[tid][0], "text": info[tid][1],
                         "take_rate": held[j] / len(p) if len(p) else np.nan,
                         "lit_rate": lit[j] / held[j] if held[j] else np.nan})
    out = pd.DataFrame(rows)
    lv = light.rename(columns={"item": "task", "win": "win_lit", "win_lo": "win_lit_lo",
                               "win_hi": "win_lit_hi", "games": "light_games"})
    out = out.merge(lv[["task", "players", "value", "lo", "hi", "n", "win_lit", "win_lit_lo",
                        "win_lit_hi", "light_games", "kept"]], on=["task", "players"],
                    how="left")
    tv = take.rename(columns={"item": "task", "value": "take_value", "lo": "take_lo",
                              "hi": "take_hi", "n": "take_n", "win": "win_take",
                              "win_lo": "win_take_lo", "win_hi": "win_take_hi",
                              "has_a": "lit_after_take", "slope": "price_slope",
                              "games": "take_games"})
    out = out.merge(tv[["task", "players", "take_value", "take_lo", "take_hi", "take_n",
                        "win_take", "win_take_lo", "win_take_hi", "lit_after_take",
                        "price_slope", "ratio", "ratio_se", "take_games"]],
                    on=["task", "players"], how="left")
    out["n"] = out["n"].fillna(0).astype(int)
    out["take_n"] = out["take_n"].fillna(0).astype(int)
    # A slope near 0 (taking hardly changes whether it gets lit) makes the price undefined.
    ok = out["price_slope"] >= 0.1
    half = t_half(out["ratio_se"], out["take_n"])
    out["fair_price"] = np.where(ok, out["printed"] - out["ratio"], np.nan)
    out["fp_lo"] = np.where(ok, out["fair_price"] - half, np.nan)
    out["fp_hi"] = np.where(ok, out["fair_price"] + half, np.nan)
    out["q_value"] = np.nan
    out["flag"] = ""
    for _n, idx in out.groupby("players").groups.items():
        g = out.loc[idx]
        q, f = FL.flag(g["fair_price"], g["ratio_se"], g["printed"], margin, alpha,
                       labels=("weak", "strong"))
        out.loc[idx, "q_value"] = q
        out.loc[idx, "flag"] = f
    out["imprecise"] = (FL.imprecise(out["lo"], out["hi"], margin)
                        | FL.imprecise(out["fp_lo"], out["fp_hi"], margin))
    out["games"] = [_merge_ids(a, b) for a, b in zip(out["light_games"], out["take_games"],
                                                      strict=True)]
    out = out.drop(columns=["light_games", "take_games", "ratio", "ratio_se"])
    return _finish(out, "task", margin, pooled)


# ---- gnomes -----------------------------------------------------------------------------
def gnome_values(runs: RunLike | Sequence[RunLike], *,
                 probes: ProbeSettings | int | None = None, margin: float = FL.MARGIN,
                 alpha: float = FL.ALPHA, pooled: bool = False, jobs: int = 1,
                 quiet: bool = True) -> pd.DataFrame:
    """Per gnome and player count, from gnome forks: ``value`` (``lo``, ``hi``, ``n``) =
    the mover's final score after recruiting the gnome at a decision where it could, minus
    the best other move; ``win_value`` (``win_lo``, ``win_hi``) the same in win share;
    ``owned_after`` share of forks ending with the gnome owned in branch A;
    ``recruit_rate`` (share of players owning it at the end, Wilson ``recruit_lo`` /
    ``recruit_hi``); ``kind``, ``text``; ``relative`` (``rel_lo``, ``rel_hi``): points
    against the average of the other gnomes of the player count, interval clustered by
    deal (``card_values``' scale); ``typical`` (the median gnome value of the player
    count) and ``q_value``/``flag`` (``strong`` / ``weak``: value more than ``margin`` above /
    below the typical gnome, BH at ``alpha`` per player count); ``imprecise``; ``games``.
    A recruit is compared with the best other move at a random moment the gnome was
    available, so values are mostly negative: compare gnomes with each other."""
    rs = as_runs(runs)
    tab = probe_table(rs, probes, jobs=jobs, quiet=quiet)
    players = player_rows(rs)
    est = fork_estimates(tab, "gnome") if len(tab) else fork_estimates(tab.head(0), "gnome")
    texts = [C.SPECIALIST_TEXT[i] for i in range(1, C.N_SPECIALISTS + 1)] + list(C.ELDER_TEXT)
    kinds = ["specialist"] * C.N_SPECIALISTS + ["elder"] * C.N_ELDERS
    rows = []
    for n in sorted({r.config.players for r in rs}):
        p = players[players["players"] == n]
        own = _item_counts(p["gnome_ids"], GNOME_IDS)
        lo, hi = wilson(own, len(p))
        for j, gid in enumerate(GNOME_IDS):
            rows.append({"gnome": gid, "players": n, "kind": kinds[j], "text": texts[j],
                         "recruit_rate": own[j] / len(p) if len(p) else np.nan,
                         "recruit_lo": lo[j], "recruit_hi": hi[j]})
    out = pd.DataFrame(rows)
    ev = est.rename(columns={"item": "gnome", "win": "win_value", "has_a": "owned_after"})
    out = out.merge(ev[["gnome", "players", "value", "se", "lo", "hi", "n", "win_value",
                        "win_lo", "win_hi", "owned_after", "games"]],
                    on=["gnome", "players"], how="left")
    out["n"] = out["n"].fillna(0).astype(int)
    out["q_value"] = np.nan
    out["flag"] = ""
    for _n, idx in out.groupby("players").groups.items():
        g = out.loc[idx]
        # Against the typical gnome: every recruit is compared with the best other move at
        # a random moment it was available, which is mostly negative for all gnomes.
        typical = float(np.nanmedian(g["value"])) if g["value"].notna().any() else 0.0
        out.loc[idx, "typical"] = typical
        q, f = FL.flag(g["value"], g["se"], typical, margin, alpha, labels=("strong", "weak"))
        out.loc[idx, "q_value"] = q
        out.loc[idx, "flag"] = f
    out["imprecise"] = FL.imprecise(out["lo"], out["hi"], margin)
    out = out.drop(columns=["se"]).merge(_relative_gnomes(tab), on=["gnome", "players"],
                                         how="left")
    return _finish(out, "gnome", margin, pooled)


def _relative_gnomes(tab: pd.DataFrame) -> pd.DataFrame:
    """Per gnome and player count: ``relative`` = value minus the mean value of the other
    gnomes of that count, points, with a 95% interval clustered by deal (``rel_lo`` /
    ``rel_hi``): the readable scale of ``card_values``."""
    from bonfire_sim.analysis.card_values import GNOME_GROUP, relative_values

    cols = ["gnome", "players", "relative", "rel_lo", "rel_hi"]
    if not len(tab):
        return pd.DataFrame(columns=cols)
    t = tab[tab["kind"] == "gnome"]
    t = t.assign(cluster=t["run"].astype(str) + "|" + t["deal"].astype(str))
    rel = relative_values(t, ("gnome",), GNOME_GROUP)
    return rel.rename(columns={"card": "gnome", "surplus": "relative", "s_lo": "rel_lo",
                               "s_hi": "rel_hi"})[cols]


# ---- seats ------------------------------------------------------------------------------
def seat_advantage(runs: RunLike | Sequence[RunLike], *, margin: float = FL.MARGIN,
                   alpha: float = FL.ALPHA) -> pd.DataFrame:
    """Per player count (2+) and seat: ``value`` = win share (shared wins split), Wilson
    ``lo``/``hi``, ``n`` games, ``fair`` = 1/n, ``score`` (mean, t ``score_lo``/
    ``score_hi``), and the **compensation**: the starting points per seat (seat 0 = 0) that
    would give every seat 1/n of the wins when the recorded games are re-ranked, with a
    95% interval ``c_lo``/``c_hi`` (``compensation.compensation``).  ``seat_points`` (in
    ``attrs``, per player count) is the whole-point override to test it with (the
    rounding whose re-ranked win shares come closest to 1/n); ``seat_points_exact`` the
    compensation itself to 0.01 point (a fractional ``seat_points`` is a per-deal
    lottery, the same interpolation the estimate uses).  ``q_value`` /
    ``flag``: compensation beyond ± margin points (BH per player count);
    ``imprecise``: compensation interval wider than ± margin; ``games``: example games
    the seat won.  Runs should be seat-rotated; otherwise seats are confounded with the
    strategies sitting there."""
    rs = as_runs(runs)
    players = player_rows(rs)
    players = players[players["players"] >= 2]
    rows, suggest, exact = [], {}, {}
    for n, p in players.groupby("players"):
        n = int(n)
        key = ["run", "game_id"]
        wide = p.pivot_table(index=key, columns="seat", values=["score", "n_bonfires"],
                             aggfunc="first").dropna()
        scores = wide["score"].to_numpy(np.int64)
        bonf = wide["n_bonfires"].to_numpy(np.int64)
        deals = (p.drop_duplicates(key).set_index(key)["deal"].reindex(wide.index)
                 .astype(str).to_numpy())
        runs_of = wide.index.get_level_values("run").astype(str).to_numpy()
        c, clo, chi = compensation(scores, bonf, np.char.add(np.char.add(runs_of, "|"), deals))
        suggest[n] = as_seat_points(c, scores, bonf)
        exact[n] = ([round(float(v), 2) for v in c - np.min(c)]
                    if np.all(np.isfinite(c)) else [])
        for seat, g in p.groupby("seat"):
            seat = int(seat)
            wins = float(g["win_share"].sum())
            lo, hi = wilson(wins, len(g))
            m, slo, shi = mean_ci(g["score"])
            won = g[g["win_share"] > 0]["game_id"]
            rows.append({"seat": seat, "players": n, "value": wins / len(g), "lo": float(lo),
                         "hi": float(hi), "n": len(g), "fair": 1.0 / n, "score": m,
                         "score_lo": slo, "score_hi": shi,
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
        se = (g["c_hi"] - g["c_lo"]) / (2 * 1.959963984540054)
        sub = g["seat"] > 0  # seat 0 is the reference (0 by definition)
        q, f = FL.flag(g.loc[sub, "compensation"], se[sub], 0.0, margin, alpha,
                       labels=("behind", "ahead"))
        out.loc[g.index[sub], "q_value"] = q
        out.loc[g.index[sub], "flag"] = f
    out["imprecise"] = FL.imprecise(out["c_lo"], out["c_hi"], margin) & (out["seat"] > 0)
    out.attrs["seat_points"] = suggest
    out.attrs["seat_points_exact"] = exact
    return out


# ---- Tom --------------------------------------------------------------------------------
def tom_difficulty(runs: RunLike | Sequence[RunLike], n_boot: int = 500,
                   seed: int = 0) -> pd.DataFrame:
    """Per strategy in solo runs (``players`` = 1): ``value`` = win rate against Tom
    (Wilson ``lo``/``hi``), ``n`` games, ``score`` and ``tom`` means, ``margin`` (mean
    score - Tom's), ``handicap`` (Tom's head start at which the win rate is 2/7, with
    bootstrap ``h_lo``/``h_hi``) and example ``games`` the strategy won."""
    from bonfire_sim.solo import SoloGames, handicap_series

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

