"""The card values as the report, ``check`` and the sweeps read them: ``task_values`` and
``gnome_values`` (``table.card_table`` rows of finished runs, with what the runs themselves
say beside them: take and lit rates, recruit rates, example games, who played)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import pandas as pd

from bonfire_sim.analysis import flags as FL
from bonfire_sim.analysis.cards.probes import GNOME_IDS, TASK_IDS, ProbeSettings, probe_values
from bonfire_sim.analysis.cards.survey import card_forks
from bonfire_sim.analysis.cards.table import (
    DEFAULT_MEASURE,
    DETAIL_KINDS,
    TOP_UP_RUN,
    card_table,
    populations,
    task_kinds,
)
from bonfire_sim.analysis.intervals import clustered_mean, clustered_mean_ci, wilson
from bonfire_sim.analysis.runs import Run, RunLike, as_runs, printed_task_points
from bonfire_sim.analysis.values import TOM, example_ids, list_counts, pool
from bonfire_sim.rules import components as C


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


def fork_estimates(tab: pd.DataFrame, kind: str) -> pd.DataFrame:
    """Per (players, item) of one probe kind: the mean score and win differences A - B
    with t intervals clustered by deal, the share ending with the item in each branch, and
    the price slope.

    The forks of one deal's seat rotations share its cards, so they are not independent:
    every interval is clustered by the table's ``cluster`` column where it has one (the
    survey's (seed, deal)), else by ``deal``, as the card table's (with one fork per
    cluster it is the plain t interval).

    Columns: players, item, n, value/se/lo/hi (score), win/win_lo/win_hi, has_a, has_b,
    ratio/ratio_se (value per point of the item's printed points, see ``task_values``),
    games (example game ids), kept (share of forks whose branch B kept its ban).
    """
    t = tab[tab["kind"] == kind]
    by = "cluster" if "cluster" in t.columns else "deal" if "deal" in t.columns else "game_id"
    rows = []
    for (players, item), g in t.groupby(["players", "item"], sort=True):
        d = (g["score_a"] - g["score_b"]).to_numpy(float)
        w = (g["win_a"] - g["win_b"]).to_numpy(float)
        h = (g["has_a"] - g["has_b"]).to_numpy(float)
        cl = g[by].to_numpy()
        n = len(d)
        m, lo, hi = clustered_mean_ci(d, cl)
        wm, wlo, whi = clustered_mean_ci(w, cl)
        se = clustered_mean(d, cl)[1]
        slope = float(h.mean())
        # Ratio estimator value / slope, linearised for its (clustered) standard error.
        ratio = m / slope if slope > 0 else np.nan
        ratio_se = (clustered_mean((d - ratio * h) / slope, cl)[1]
                    if n > 1 and slope > 0 else np.nan)
        rows.append({"players": int(players), "item": item, "n": n, "value": m, "se": se,
                     "lo": lo, "hi": hi, "win": wm, "win_lo": wlo, "win_hi": whi,
                     "has_a": float(g["has_a"].mean()), "has_b": float(g["has_b"].mean()),
                     "slope": slope, "ratio": ratio, "ratio_se": ratio_se,
                     "games": example_ids(g["game_id"]), "kept": float(g["kept_b"].mean())})
    cols = ["players", "item", "n", "value", "se", "lo", "hi", "win", "win_lo", "win_hi",
            "has_a", "has_b", "slope", "ratio", "ratio_se", "games", "kept"]
    return pd.DataFrame(rows, columns=cols)


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




def _example_games(forks: pd.DataFrame, kinds: Sequence[str]) -> pd.DataFrame:
    """Per (players, card): up to ``EXAMPLES`` game ids of its forks of ``kinds`` (in the
    runs: a top-up's games are fresh deals no run holds)."""
    t = forks[forks["kind"].isin(kinds)] if len(forks) else forks
    if len(t) and "run" in t:
        t = t[t["run"] != TOP_UP_RUN]
    if not len(t):
        return pd.DataFrame(columns=["players", "card", "games"])
    return (t.groupby(["players", "item"])["game_id"].agg(example_ids).reset_index()
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
                jobs: int = 1, quiet: bool = True,
                measure: str = DEFAULT_MEASURE) -> pd.DataFrame:
    """Per task and player count, the card value (``table.card_table`` of ``measure``:
    see docs/explanation/values.md), with the runs' own rates beside it.

    * ``value`` / ``lo`` / ``hi`` / ``n`` (``deals``): the **lit value** (igniting the
      task at a decision where its owner could, against never), or with
      ``measure="receipt"`` the **receipt value**, the mover's final score when it
      receives the task at a decision where it could, minus the best other move;
      ``win`` (``win_lo``/``win_hi``) the same in win share, ``win_points`` in points at
      the count's ``win_rate``; interval clustered by deal.
    * ``surplus`` (``s_lo``, ``s_hi``, ``half``): the value minus the mean value of the
      other tasks of its colour at that count (``reference``); ``win_surplus``
      (``w_lo``/``w_hi``) the same in win-equivalent points.
    * beside it: ``lit_share`` (receipts lit by the end), ``rounds_to_light``, ``slope``
      (surplus per printed point), ``lit_value`` (``lit_lo``/``lit_hi``, ``lit_n``,
      ``n_forced``: igniting it against never).
    * ``fair`` = printed - surplus / slope and ``proposed`` (its whole number, never
      below ``window.MIN_PRICE``, 1); ``price_note``: "no price fixes this card" where
      the slope is below 0.1, "change the condition" where the fair value is below 1 (its
      surplus at 1 shown), or a proposal below the colour's lowest printing with its
      evidence.
    * ``status``: ``measured`` (95% half-width of the surplus within ``margin``, forks
      from at least ``table.MIN_DEALS`` deals) or ``not measured`` (``forks_needed``);
      ``imprecise`` is its negation.  Rows on 10+ deals carry ``q_value`` / ``flag``
      (``strong`` / ``weak``, BH at ``alpha`` per count); ``flag_counts`` the test across
      counts where they agree (``pooled``, ``pooled_half``); ``detect`` the detection floor.
    * ``who``: who played (the values describe games among these players); ``printed``,
      ``colour``, ``text``, ``take_rate`` (share of players who received it), ``lit_rate``
      (lit | received), ``games`` (example game ids of its forks).
    With ``pooled=True`` rows with ``players`` = 0 pool the surplus over the counts where
    they agree (Cochran's Q, ``het_p``) and print the same points.
    """
    rs = as_runs(runs)
    printed = printed_task_points(rs)  # refuses mixed task points before any fork is computed
    who = populations(rs)  # and runs of one count with different players
    kinds = task_kinds(measure)
    forks = card_forks(rs, probes, kinds=tuple(dict.fromkeys(kinds + DETAIL_KINDS)),
                       margin=margin, alpha=alpha, jobs=jobs, quiet=quiet, measure=measure)
    tab = card_table(forks, printed, margin, alpha, measure=measure)
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
    ex = _example_games(forks, kinds).rename(columns={"card": "task"})
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
                 quiet: bool = True,
                 progress: Callable[[int, int], None] | None = None,
                 note: Callable[[str], None] | None = None,
                 max_games: int | None = None, rounds: int | None = None,
                 seed: int | None = None,
                 top_up_progress: Callable[[str, int, int], None] | None = None,
                 batches: list[Any] | None = None) -> pd.DataFrame:
    """Per gnome and player count, the card value (``card_values``): ``value`` (``lo``,
    ``hi``, ``n``, ``deals``) = the mover's final score after recruiting the gnome at a
    decision where it could, minus the best other move (interval clustered by deal);
    ``relative`` (``rel_lo``, ``rel_hi``, ``half``): that minus the mean of the other gnomes
    of the count, i.e. **points against the average gnome** (``reference``); ``status``
    (``measured`` / ``not measured``, ``forks_needed``) as for tasks, and on rows of 10+
    deals ``q_value`` / ``flag`` (``strong`` / ``weak``: more than ``margin`` above / below the
    average gnome, Benjamini-Hochberg at ``alpha`` per count); ``imprecise`` (not
    measured); ``recruit_rate`` (share of players owning it at the end, Wilson
    ``recruit_lo`` / ``recruit_hi``), ``kind``, ``text``, ``who``, ``games``.  A gnome
    prints no number, so nothing is proposed here: a strong gnome is weakened by its ability
    (``analysis.errata_gnomes`` tries its amounts or the ability as overrides).
    ``progress(done, total)``: forked games; with ``probes.survey`` the rows wider than
    ``margin`` are topped up on fresh deals (``max_games``, ``rounds``, ``seed``,
    ``note``, ``top_up_progress``, ``batches``: as ``card_forks``)."""
    rs = as_runs(runs)
    who = populations(rs)
    forks = card_forks(rs, probes, kinds=("gnome",), margin=margin, alpha=alpha, jobs=jobs,
                       quiet=quiet, progress=progress, note=note, max_games=max_games,
                       rounds=rounds, seed=seed, top_up_progress=top_up_progress,
                       batches=batches)
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
