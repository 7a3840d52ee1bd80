"""Report figures: each takes tidy frames (from ``report.stats``) and ``ax=None``.

Every function draws on ``ax`` (a new figure when None) and returns the axes; none
computes a statistic.  ``to_png_base64`` turns a drawn figure into an embeddable string.
"""

from __future__ import annotations

import base64
import io
from typing import Any

import numpy as np
import pandas as pd
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.ticker import MaxNLocator

from bonfire_sim.analysis.intervals import IntegerSummary
from bonfire_sim.infra.extras import require
from bonfire_sim.report.rows import present, value_counts, where_equal
from bonfire_sim.report.stats import groups as groups_of

FLAG_COLOURS = {"under-valued": "#1b9e77", "over-valued": "#d95f02", "strong": "#1b9e77",
                "weak": "#d95f02", "": "#777777"}


def _ax(ax: Axes | None, size: tuple[float, float] = (6.4, 3.6)) -> Axes:
    if ax is None:
        # A bare Figure (no pyplot): the user's matplotlib backend and open figures are
        # left alone, and nothing needs closing.
        ax = Figure(figsize=size, dpi=90).subplots()
    return ax


def to_png_base64(ax: Axes) -> str:
    """PNG of the axes' figure as base64 text; closes the figure."""
    fig = ax.figure
    assert isinstance(fig, Figure)  # every axes here is drawn on its own Figure
    fig.tight_layout()
    buf = io.BytesIO()
    fig.savefig(buf, format="png", bbox_inches="tight")  # keeps legends drawn outside
    return base64.b64encode(buf.getvalue()).decode("ascii")


def _err(mid: Any, lo: Any, hi: Any) -> np.ndarray:
    mid, lo, hi = (np.asarray(v, dtype=float) for v in (mid, lo, hi))
    return np.vstack([np.clip(mid - lo, 0, None), np.clip(hi - mid, 0, None)])


# ---- overview ---------------------------------------------------------------------------
def score_distributions(players: pd.DataFrame, ax: Axes | None = None) -> Axes:
    """Box plots of final score by player count and strategy (columns n_players, strategy,
    score)."""
    ax = _ax(ax, (7.5, 3.8))
    # each group's scores as stored (int16), found without pandas' grouper (stats.groups)
    groups = [(key, g["score"]) for key, g in groups_of(players, ["n_players", "strategy"],
                                                       ["score"])]
    values = [g.to_numpy() for _, g in groups]
    if all(v.dtype.kind in "iu" and len(v) for v in values):
        # the boxes from the counts of each score (``box_stats``): matplotlib's own
        # statistics copy every score as float64 (32 MB for a million 4-player games)
        ax.bxp([box_stats(IntegerSummary(v)) for v in values], **_box_args())
    else:
        ax.boxplot(values, showfliers=False)
    del values
    ax.set_xticks(range(1, len(groups) + 1),
                  [f"{n}p {s}" for (n, s), _ in groups], rotation=45, ha="right", fontsize=8)
    ax.set_ylabel("final score")
    ax.set_title("Score distribution by player count and strategy")
    return ax


def box_stats(h: IntegerSummary, whis: float | None = None) -> dict[str, Any]:
    """``matplotlib.cbook.boxplot_stats`` of the integers ``h`` counts (no bootstrap, no
    fliers: the report draws none): the mean, quartiles (``np.percentile``'s, exactly),
    the whiskers at the furthest values within ``whis`` IQR of the box, the notch."""
    import matplotlib as mpl

    whis = mpl.rcParams["boxplot.whiskers"] if whis is None else whis
    q1, med, q3 = (h.quantile(q) for q in (0.25, 0.5, 0.75))
    iqr = q3 - q1
    present = h.values[h.counts > 0]
    hi = present[present <= q3 + whis * iqr]
    lo = present[present >= q1 - whis * iqr]
    notch = 1.57 * iqr / np.sqrt(h.n)
    return {"mean": h.mean, "iqr": iqr, "cilo": med - notch, "cihi": med + notch,
            "whishi": q3 if not len(hi) or hi.max() < q3 else hi.max(),
            "whislo": q1 if not len(lo) or lo.min() > q1 else lo.min(),
            "fliers": np.array([]), "q1": q1, "med": med, "q3": q3}


def _box_args() -> dict[str, Any]:
    """What ``Axes.boxplot(..., showfliers=False)`` hands ``Axes.bxp`` by default."""
    import matplotlib as mpl

    rc = mpl.rcParams
    return {"patch_artist": rc["boxplot.patchartist"], "shownotches": rc["boxplot.notch"],
            "showmeans": rc["boxplot.showmeans"], "showcaps": rc["boxplot.showcaps"],
            "showbox": rc["boxplot.showbox"], "boxprops": {}, "flierprops": {},
            "medianprops": {}, "meanprops": {}, "meanline": rc["boxplot.meanline"],
            "showfliers": False, "capprops": {}, "whiskerprops": {}}


def game_lengths(games: pd.DataFrame, ax: Axes | None = None) -> Axes:
    """Histogram of rounds per game, one outline per player count (columns n_players,
    n_rounds): one bin per round, centred on whole rounds, so no bin straddles two.
    Drawn from the count of each length (the same bars; no copy of a count's games)."""
    ax = _ax(ax)
    rounds = games["n_rounds"].to_numpy()
    lo, hi = int(rounds.min()), int(rounds.max())
    bins = np.arange(lo - 0.5, hi + 1.5, 1.0)
    for n in present(games["n_players"]):
        at = where_equal(games["n_players"], n)
        if rounds.dtype.kind in "iu":
            counts = value_counts(rounds if at is None else rounds[at], lo, hi - lo + 1)
            ax.hist(np.arange(lo, hi + 1), bins=list(bins), weights=counts, histtype="step",
                    lw=1.5, label=f"{n} players")
        else:
            ax.hist(rounds if at is None else rounds[at], bins=list(bins), histtype="step",
                    lw=1.5, label=f"{n} players")
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_xlabel("rounds per game (a round = one turn of every player)")
    ax.set_ylabel("games")
    ax.legend(fontsize=8)
    ax.set_title("Game length")
    return ax


def end_reason_bars(reasons: pd.DataFrame, ax: Axes | None = None) -> Axes:
    """Stacked shares of end reasons per player count (``stats.end_reasons``)."""
    ax = _ax(ax)
    wide = reasons.pivot(index="n_players", columns="end_reason", values="share").fillna(0)
    bottom = np.zeros(len(wide))
    x = np.arange(len(wide))
    for reason in wide.columns:
        ax.bar(x, wide[reason], bottom=bottom, label=reason)
        bottom += wide[reason].to_numpy()
    ax.set_xticks(x, [f"{n} players" for n in wide.index])
    ax.set_ylabel("share of games")
    ax.set_ylim(0, 1)
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1, 1))
    ax.set_title("How games end")
    return ax


# ---- start player -----------------------------------------------------------------------
def seat_win_rates(seats: pd.DataFrame, ax: Axes | None = None) -> Axes:
    """Win rate by seat with Wilson intervals and the fair share 1/n (``stats.seat_advantage``)."""
    ax = _ax(ax)
    counts = sorted(seats["n_players"].unique())
    width = 0.8 / max(len(counts), 1)
    for i, n in enumerate(counts):
        s = seats[seats["n_players"] == n]
        x = s["seat"].to_numpy() + (i - (len(counts) - 1) / 2) * width
        line = ax.errorbar(x, s["win_rate"], yerr=_err(s["win_rate"], s["lo"], s["hi"]),
                           fmt="o", capsize=3, label=f"{n} players")
        ax.hlines(1 / n, x.min() - width, x.max() + width, colors=line[0].get_color(),
                  linestyles="--", lw=1)
    ax.set_xticks(sorted(seats["seat"].unique()),
                  [f"seat {s}" + (" (start)" if s == 0 else "") for s in
                   sorted(seats["seat"].unique())])
    ax.set_ylabel("win rate (dashed: fair 1/n)")
    ax.legend(fontsize=8)
    ax.set_title("Win rate by seat, 95% Wilson intervals")
    return ax


def seat_scores(seats: pd.DataFrame, ax: Axes | None = None) -> Axes:
    """Mean score by seat with t intervals, per player count."""
    ax = _ax(ax)
    for n, s in seats.groupby("n_players"):
        ax.errorbar(s["seat"], s["score"], yerr=_err(s["score"], s["score_lo"], s["score_hi"]),
                    fmt="o-", capsize=3, label=f"{n} players")
    ax.set_xticks(sorted(seats["seat"].unique()))
    ax.set_xlabel("seat (0 = start player)")
    ax.set_ylabel("mean final score")
    ax.legend(fontsize=8)
    ax.set_title("Mean score by seat, 95% t intervals")
    return ax


def seat_excess_by_strategy(seats: pd.DataFrame, ax: Axes | None = None) -> Axes:
    """Start seat's win rate minus the strategy's rate over all seats (``edge``), per
    strategy and player count."""
    ax = _ax(ax)
    s = seats[seats["seat"] == 0].reset_index(drop=True)
    y = np.arange(len(s))
    ax.errorbar(s["edge"], y, xerr=_err(s["edge"], s["edge_lo"], s["edge_hi"]), fmt="o",
                capsize=3)
    ax.axvline(0, color="k", lw=0.8)
    ax.set_yticks(y, [f"{n}p {st}" for n, st in zip(s["n_players"], s["strategy"],
                                                     strict=True)], fontsize=8)
    ax.set_xlabel("start seat win rate - the strategy's rate over all seats")
    ax.set_title("Start-player edge by strategy")
    return ax


# ---- tasks and gnomes ---------------------------------------------------------------------
def ranked_effects(est: pd.DataFrame, value: str = "effect", lo: str = "lo", hi: str = "hi",
                   label: str = "id", ref: str | None = None, ax: Axes | None = None,
                   title: str = "", xlabel: str = "") -> Axes:
    """Horizontal interval chart of estimates sorted by ``value``; ``ref`` column marks a
    reference (e.g. printed points); colours by a ``flag`` column when present."""
    e = est.dropna(subset=[value]).sort_values(value).reset_index(drop=True)
    ax = _ax(ax, (6.4, max(3.0, 0.17 * len(e) + 1.0)))
    y = np.arange(len(e))
    colours = [FLAG_COLOURS.get(f, "#777777") for f in e.get("flag", [""] * len(e))]
    ax.hlines(y, e[lo], e[hi], colors=colours, lw=1.5)
    ax.scatter(e[value], y, c=colours, s=14, zorder=3)
    if ref is not None:
        ax.scatter(e[ref], y, marker="|", c="k", s=40, zorder=4, label=ref)
        ax.legend(fontsize=8, loc="lower right")
    ax.axvline(0, color="k", lw=0.6)
    ax.set_yticks(y, e[label], fontsize=7)
    ax.set_ylim(-1, len(e))
    ax.set_xlabel(xlabel or value)
    ax.set_title(title)
    return ax


def rate_bars(est: pd.DataFrame, value: str, lo: str, hi: str, label: str = "id",
              ax: Axes | None = None, title: str = "", ylabel: str = "") -> Axes:
    """Vertical bars of a rate per item with interval whiskers."""
    ax = _ax(ax, (8.0, 3.2))
    x = np.arange(len(est))
    ax.bar(x, est[value], color="#8da0cb")
    ax.errorbar(x, est[value], yerr=_err(est[value], est[lo], est[hi]), fmt="none",
                ecolor="k", lw=0.8)
    ax.set_xticks(x, est[label], rotation=90, fontsize=7)
    ax.set_ylabel(ylabel or value)
    ax.set_title(title)
    return ax


# ---- Tom ----------------------------------------------------------------------------------
def tom_win_rates(tom: pd.DataFrame, ax: Axes | None = None) -> Axes:
    """Win rate against Tom per strategy with Wilson intervals and the 2/7 settle line."""
    ax = _ax(ax, (max(5.5, 1.6 * len(tom) + 1.5), 3.6))
    x = np.arange(len(tom))
    ax.bar(x, tom["win_rate"], color="#66c2a5")
    ax.errorbar(x, tom["win_rate"], yerr=_err(tom["win_rate"], tom["lo"], tom["hi"]),
                fmt="none", ecolor="k", capsize=3)
    ax.axhline(2 / 7, color="k", ls="--", lw=0.8, label="2/7 (challenge settles)")
    ax.set_xticks(x, [wrap_label(s, 18) for s in tom["strategy"]], fontsize=8)
    ax.set_ylabel("win rate vs Tom (handicap 0)")
    ax.set_ylim(0, 1)
    ax.legend(fontsize=8)
    ax.set_title("Winning against Tom")
    return ax


def solo_score_hist(solo: pd.DataFrame, ax: Axes | None = None) -> Axes:
    """Overlaid histograms of the human's and Tom's scores (``analysis.values.solo_games``)."""
    ax = _ax(ax)
    lo = float(min(solo["score"].min(), solo["tom"].min()))
    hi = float(max(solo["score"].max(), solo["tom"].max()))
    bins = list(np.linspace(lo, hi + 1, 30))
    for s, g in solo.groupby("strategy"):
        ax.hist(g["score"], bins=bins, histtype="step", lw=1.5, label=s)
    ax.hist(solo["tom"], bins=bins, alpha=0.35, color="grey", label="Tom")
    ax.set_xlabel("final score")
    ax.set_ylabel("games")
    ax.legend(fontsize=8)
    ax.set_title("Solo scores: strategies and Tom")
    return ax


def tom_line_bars(lines: pd.DataFrame, ax: Axes | None = None) -> Axes:
    """Tom's mean points per score line (``stats.tom_line_means``)."""
    ax = _ax(ax, (5.5, 3.2))
    y = np.arange(len(lines))
    ax.barh(y, lines["mean"], color="#bbbbbb",
            xerr=_err(lines["mean"], lines["lo"], lines["hi"]))
    ax.set_yticks(y, lines["line"], fontsize=8)
    ax.set_xlabel("mean points")
    ax.set_title("Tom's score lines")
    return ax


def handicap_paths(paths: pd.DataFrame, eq: pd.DataFrame, ax: Axes | None = None) -> Axes:
    """Simulated handicap challenge paths with each strategy's settle point."""
    ax = _ax(ax, (7.0, 3.4))
    for s, g in paths.groupby("strategy"):
        line = ax.plot(g["game"], g["handicap"], lw=1, label=s)[0]
        e = eq[eq["strategy"] == s]
        if len(e):
            ax.axhline(float(e["equilibrium"].iloc[0]), color=line.get_color(), ls="--",
                       lw=0.8)
    ax.set_xlabel("game of the challenge")
    ax.set_ylabel("handicap (Tom's head start)")
    ax.legend(fontsize=8)
    ax.set_title("Handicap challenge (dashed: the settle point, zero expected change)")
    return ax


# ---- compare ------------------------------------------------------------------------------
def difference_forest(diff: pd.DataFrame, ax: Axes | None = None, title: str = "",
                      xlabel: str = "B - A") -> Axes:
    """Differences (``diff``, ``lo``, ``hi``) per ``item`` with intervals around zero."""
    d = diff.reset_index(drop=True)
    ax = _ax(ax, (6.4, max(2.4, 0.2 * len(d) + 1.0)))
    y = np.arange(len(d))
    ax.errorbar(d["diff"], y, xerr=_err(d["diff"], d["lo"], d["hi"]), fmt="o", ms=4,
                capsize=2)
    ax.axvline(0, color="k", lw=0.8)
    ax.set_yticks(y, d["item"], fontsize=7)
    ax.set_ylim(-1, len(d))
    ax.set_xlabel(xlabel)
    ax.set_title(title)
    return ax


# ---- analysis (fork values, compensation) ---------------------------------------------------
FLAG_COLOURS.update({"behind": "#d95f02", "ahead": "#1b9e77", "up": "#1b9e77",
                     "down": "#d95f02"})


# The task flags judge the surplus (a card's worth beyond the typical card of its colour),
# so only the surplus plot is coloured by them; legend and caption come from this mapping.
TASK_LEGEND = {"strong": "surplus above +margin: worth more than its points (strong)",
               "weak": "surplus below -margin: worth less than its points (weak)",
               "": "within the margin, or not shown beyond it"}
GNOME_LEGEND = {"strong": "above the average gnome by more than the margin (strong)",
                "weak": "below the average gnome by more than the margin (weak)",
                "": "not flagged"}
COLOUR_NAMES = {"#1b9e77": "green", "#d95f02": "orange", "#777777": "grey",
                "#555555": "grey"}


def legend_text(legend: dict[str, str]) -> str:
    """``"green: ...; orange: ..."`` for a ``{flag: meaning}`` legend, with the colours
    ``value_intervals`` draws, so a caption cannot contradict its figure."""
    return "; ".join(f"{COLOUR_NAMES.get(FLAG_COLOURS.get(f, '#555555'), 'grey')}: {text}"
                     for f, text in legend.items())


def wrap_label(text: str, width: int = 42) -> str:
    """A tick label wrapped onto lines of ``width`` characters, never cut."""
    import textwrap

    return "\n".join(textwrap.wrap(str(text), width)) or str(text)


def value_intervals(est: pd.DataFrame, key: str, label: str, ref: str | None = None,
                    title: str = "", xlabel: str = "", value: str = "value",
                    lo: str = "lo", hi: str = "hi",
                    legend: dict[str, str] | None = None) -> Axes:
    """Interval plot of ``value`` (``lo``..``hi``) per item, one panel per player count
    (``players``), items in the same order in every panel (by their mean value); a ``ref``
    column is marked with a bar.  With ``legend`` ({flag: meaning}) points are coloured by
    the ``flag`` column and the legend is drawn; without it they are all grey (a flag that
    judges another measure must not colour this one)."""
    e = est.dropna(subset=[value]).rename(columns={value: "_v", lo: "_lo", hi: "_hi"})
    counts = sorted(e["players"].unique()) or [0]
    order = (e.groupby(key)["_v"].mean().sort_values().index.tolist())
    labels = e.drop_duplicates(key).set_index(key)[label].reindex(order)
    lines = max((str(t).count("\n") + 1 for t in labels), default=1)
    sns = require("seaborn")  # imports pyplot: only when a report draws, never on import

    with sns.axes_style("whitegrid"):
        fig = Figure(figsize=(3.4 + 2.6 * len(counts), (0.12 + 0.1 * lines) * len(order) + 1.8),
                     dpi=90)
        axes = fig.subplots(1, len(counts), sharey=True, sharex=True, squeeze=False)
    # One x range for all panels, robust to a few very wide intervals (they run off-axis).
    ends = pd.concat([e["_lo"], e["_hi"], e["_v"]] + ([e[ref]] if ref else [])).dropna()
    if len(ends):
        lo_x, hi_x = float(ends.quantile(0.02)), float(ends.quantile(0.98))
        pad = 0.05 * max(hi_x - lo_x, 1.0)
        axes[0][0].set_xlim(min(lo_x, 0.0) - pad, hi_x + pad)
    y = {k: i for i, k in enumerate(order)}
    for ax, n in zip(axes[0], counts, strict=True):
        g = e[e["players"] == n]
        yy = g[key].map(y).to_numpy()
        flags = g["flag"] if legend is not None and "flag" in g else [""] * len(g)
        colours = [FLAG_COLOURS.get(f, "#555555") if legend is not None else "#555555"
                   for f in flags]
        ax.hlines(yy, g["_lo"], g["_hi"], colors=colours, lw=1.4)
        ax.scatter(g["_v"], yy, c=colours, s=12, zorder=3)
        if ref is not None:
            ax.scatter(g[ref], yy, marker="|", c="k", s=45, zorder=4, label=ref)
        ax.axvline(0, color="k", lw=0.6)
        ax.set_title(f"{n} players" if n else "pooled", fontsize=9)
        ax.set_xlabel(xlabel, fontsize=8)
    axes[0][0].set_yticks(range(len(order)), labels.tolist(), fontsize=7)
    axes[0][0].set_ylim(-1, len(order))
    handles = []
    if legend is not None:
        from matplotlib.lines import Line2D

        handles = [Line2D([], [], color=FLAG_COLOURS.get(f, "#555555"), marker="o", lw=1.4,
                          label=text) for f, text in legend.items()]
    if ref is not None:
        from matplotlib.lines import Line2D

        handles.append(Line2D([], [], color="k", marker="|", ls="", ms=9, label=ref))
    if handles:
        # Below the panels; to_png_base64 saves with a tight box, which includes it.
        fig.legend(handles=handles, fontsize=7, loc="upper center", bbox_to_anchor=(0.5, 0.0),
                   ncol=min(len(handles), 2), frameon=False)
    fig.suptitle(title, fontsize=10)
    return axes[0][0]


def heatmap_by_players(est: pd.DataFrame, key: str, value: str, label: str,
                       title: str = "", cbar: str = "", center: float | None = 0.0) -> Axes:
    """Items x player counts heatmap of ``value`` (seaborn), annotated with the numbers."""
    sns = require("seaborn")

    wide = est.pivot_table(index=key, columns="players", values=value, aggfunc="first")
    labels = est.drop_duplicates(key).set_index(key)[label]
    wide = wide.loc[wide.mean(axis=1).sort_values(ascending=False).index]
    wide.index = labels.reindex(wide.index).tolist()
    wide.columns = [f"{c} players" if c else "pooled" for c in wide.columns]
    ax = Figure(figsize=(2.4 + 1.1 * max(1, wide.shape[1]), 0.17 * len(wide) + 1.4),
                dpi=90).subplots()
    sns.heatmap(wide, annot=True, fmt=".1f", cmap="vlag", center=center, ax=ax,
                annot_kws={"fontsize": 6}, cbar_kws={"label": cbar})
    ax.tick_params(axis="y", labelsize=7)
    ax.tick_params(axis="x", labelsize=8)
    ax.set_title(title, fontsize=10)
    return ax


def seat_compensation(seats: pd.DataFrame, ax: Axes | None = None) -> Axes:
    """Starting points per seat that equalise win shares, with 95% intervals, per count."""
    sns = require("seaborn")

    with sns.axes_style("whitegrid"):
        ax = _ax(ax)
    palette = sns.color_palette("deep")
    counts = sorted(seats["players"].unique())
    width = 0.6 / max(len(counts), 1)
    for i, n in enumerate(counts):
        s = seats[seats["players"] == n]
        x = s["seat"].to_numpy() + (i - (len(counts) - 1) / 2) * width
        ax.errorbar(x, s["compensation"], yerr=_err(s["compensation"], s["c_lo"], s["c_hi"]),
                    fmt="o", capsize=3, color=palette[i % len(palette)], label=f"{n} players")
    ax.set_xticks(sorted(seats["seat"].unique()))
    ax.axhline(0, color="k", lw=0.6)
    ax.set_xlabel("seat (0 = start player)")
    ax.set_ylabel("starting points for equal win rates")
    ax.legend(fontsize=8)
    ax.set_title("Start-player compensation, 95% intervals")
    return ax
