"""Orchestrate a two-run comparison report: load -> ``compare_*`` -> figures -> html."""

from __future__ import annotations

import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from bonfire_sim import __version__
from bonfire_sim.config import MAX_POINTS, check_float
from bonfire_sim.errors import ConfigError
from bonfire_sim.infra import extras, fileio
from bonfire_sim.report import figures as F
from bonfire_sim.report import html as H
from bonfire_sim.report import stats as S
from bonfire_sim.report.build import load_runs, provenance, section_method


# ---- comparing two runs -----------------------------------------------------------------
def _clusters(frame: pd.DataFrame) -> np.ndarray:
    """Each row's deal (the seat rotations of one deal share its cards), or its game where
    the rows carry no deal, or the row itself."""
    for key in ("deal_key", "deal", "game_id"):
        if key in frame:
            return frame[key].to_numpy()
    return np.arange(len(frame))


def compare_tasks(pa: pd.DataFrame, pb: pd.DataFrame) -> pd.DataFrame:
    """Per task: share of players who lit it in A and B, B - A (Newcombe interval, each
    rate clustered by deal: the players of one game and the rotations of one deal are
    not independent)."""
    from bonfire_sim.analysis.intervals import clustered_rate_difference
    from bonfire_sim.analysis.values import list_totals

    ta = list_totals(pa["bonfire_task_ids"], _clusters(pa), S.TASK_IDS)
    tb = list_totals(pb["bonfire_task_ids"], _clusters(pb), S.TASK_IDS)
    rows = [clustered_rate_difference(x, y) for x, y in zip(ta, tb, strict=True)]
    ra, rb, d, lo, hi = (np.array(c, dtype=float) for c in zip(*rows, strict=True))
    return pd.DataFrame({"item": list(S.TASK_IDS), "rate_a": ra, "rate_b": rb, "diff": d,
                         "lo": lo, "hi": hi})


def compare_end_reasons(ga: pd.DataFrame, gb: pd.DataFrame) -> pd.DataFrame:
    """Per end reason: share of games in A and B, B - A (Newcombe interval, each rate
    clustered by deal)."""
    from bonfire_sim.analysis.intervals import clustered_rate_difference, clustered_total

    reasons = sorted(set(ga["end_reason"]) | set(gb["end_reason"]))
    rows = [clustered_rate_difference(
        clustered_total((ga["end_reason"] == r).to_numpy(float), _clusters(ga)),
        clustered_total((gb["end_reason"] == r).to_numpy(float), _clusters(gb)))
        for r in reasons]
    ra, rb, d, lo, hi = (np.array(c, dtype=float) for c in zip(*rows, strict=True))
    return pd.DataFrame({"item": reasons, "share_a": ra, "share_b": rb, "diff": d,
                         "lo": lo, "hi": hi})


def significant(diff: pd.DataFrame, lo: str = "lo", hi: str = "hi") -> pd.Series:
    """True where the interval of a difference excludes zero."""
    return (diff[lo] > 0) | (diff[hi] < 0)

def _config_text(label: str, manifest: dict[str, Any]) -> str:
    c = manifest.get("config", {})
    return (f"{label}: {c.get('games')} games, {c.get('players')} players, strategies "
            f"{', '.join(c.get('strategies', []))}, seat rotation {c.get('seat_rotation')}, "
            f"seed {c.get('seed')}, overrides {c.get('overrides') or 'none'}")


def _mark(diff: pd.DataFrame, lo: str = "lo", hi: str = "hi") -> pd.DataFrame:
    return diff.assign(sig=np.where(significant(diff, lo, hi), "differs", ""))


def _diff_table(diff: pd.DataFrame, item: str, what: str, fmt: str = "+.2f"
                ) -> dict[str, Any]:
    return H.table_block(diff, {
        "item": (item, ""), "value_a": (f"{what} A", ".2f"), "value_b": (f"{what} B", ".2f"),
        "diff": ("B - A", fmt), "lo": ("95% lo", fmt), "hi": ("95% hi", fmt),
        "n": ("pairs / n", ","), "deals": ("deals", ","), "paired": ("paired", ""),
        "q_value": ("q", ".3f"), "flag": ("flag", ""), "imprecise": ("wide", "")},
        caption=f"{what}: B - A per {item}", row_class="flag")


def _value_blocks(runs: list[Any], probes: Any, paired: bool, margin: float,
                  jobs: int, quiet: bool = True
                  ) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Task (lit and take value) and gnome value differences from the runs' forks."""
    from bonfire_sim.analysis import paired as P
    from bonfire_sim.analysis.cards.views import probe_table

    tabs = [probe_table([r], probes, jobs=jobs, quiet=quiet) for r in runs]
    tab_ab = _direct_table(runs, probes, jobs, quiet) if paired else None
    task_blocks: list[dict[str, Any]] = []
    gnome_blocks: list[dict[str, Any]] = []
    for kind, what, blocks in (("light", "lit value", task_blocks),
                               ("take", "take value", task_blocks),
                               ("gnome", "gnome value", gnome_blocks)):
        d = P.value_differences(tabs[0], tabs[1], kind, paired=paired, margin=margin)
        if d.empty:
            continue
        flagged = d[d["flag"] != ""]
        blocks.append(H.text_block(
            f"{what}: {len(flagged)} of {len(d)} rows differ by more than ±{margin:g} "
            f"point(s) (Benjamini-Hochberg FDR 5%): "
            + (", ".join(f"{r.item} ({r.diff:+.1f})" for r in flagged.itertuples()) or "none")
            + f"; {int(d['imprecise'].sum())} rows are too imprecise to resolve ±{margin:g}."))
        blocks.append(H.figure_block(F.to_png_base64(F.difference_forest(
            d, title=f"{what}, B - A", xlabel="points")), f"{what} difference per item."))
        blocks.append(_diff_table(d.sort_values("diff"), "item", what))
        if tab_ab is not None:
            blocks.extend(_decomposition_blocks(tabs[0], tab_ab, tabs[1], kind, what, margin))
    return task_blocks, gnome_blocks


def _direct_table(runs: list[Any], probes: Any, jobs: int, quiet: bool = True) -> Any:
    """A's games forked under B's rules (cached in A's run directory)."""
    from bonfire_sim.analysis.cards.probes import ProbeSettings, probe_values

    a, b = runs
    settings = probes if isinstance(probes, ProbeSettings) else ProbeSettings(games=probes)
    return probe_values(a.config, settings, run_dir=a.path, jobs=jobs, quiet=quiet,
                        fork_rules=b.config).assign(run=a.label)


def _decomposition_blocks(tab_a: Any, tab_ab: Any, tab_b: Any, kind: str, what: str,
                          margin: float) -> list[dict[str, Any]]:
    from bonfire_sim.analysis import paired as P

    d = P.decomposed_value_differences(tab_a, tab_ab, tab_b, kind, margin=margin)
    d = d[(d["direct_flag"] != "") | (d["situations_flag"] != "") | (d["total_flag"] != "")]
    if d.empty:
        return []
    fmt = "+.2f"
    return [H.table_block(d.sort_values("total_diff"), {
        "item": ("item", ""), "direct_diff": ("direct", fmt), "direct_lo": ("95% lo", fmt),
        "direct_hi": ("95% hi", fmt), "situations_diff": ("situations", fmt),
        "situations_lo": ("95% lo", fmt), "situations_hi": ("95% hi", fmt),
        "total_diff": ("total B - A", fmt), "total_lo": ("95% lo", fmt),
        "total_hi": ("95% hi", fmt), "total_flag": ("flag", "")},
        caption=(f"{what}, flagged rows split: direct = the same decisions of A's games "
                 "forked under B's rules; situations = what the change did by altering "
                 "the decisions the players meet (total = direct + situations)"))]


def compare_sections(runs: list[tuple[str, Any]], *, paths: Sequence[Any] = (),
                     probes: Any = 1000, margin: float = 1.0,
                     jobs: int = 1, quiet: bool = True) -> list[dict[str, Any]]:
    from bonfire_sim.analysis import paired as P
    from bonfire_sim.analysis.runs import Run

    paths = list(paths) or [None] * len(runs)
    aruns = [Run(lab, Path(p) if p else None, data)
             for (lab, data), p in zip(runs, paths, strict=True)]
    a, b, paired = P.compare_runs(aruns)
    (la, ra), (lb, rb) = runs
    games, players = S.combine(runs)
    ga, gb = games[games["run"] == la], games[games["run"] == lb]
    humans = players[players["strategy"] != S.TOM]
    pa, pb = humans[humans["run"] == la], humans[humans["run"] == lb]
    scores = P.flag_differences(P.score_differences(a, b, paired), margin)
    seats = P.flag_differences(P.seat_differences(a, b, paired), 0.0)
    tasks = _mark(compare_tasks(pa, pb))
    reasons = _mark(compare_end_reasons(ga, gb))
    how = ("The runs share their deals (same seed, players, strategies and seat rotation): "
           "every difference is taken within each game and averaged (paired by game, "
           "Student t over deals: a deal's seat rotations are not independent), which "
           "removes the deal-to-deal variation."
           if paired else
           "The runs do not share their deals: differences are unpaired (Welch t for "
           "means, Newcombe for rates).")
    runs_block = [H.text_block(f"A = {_config_text(la, ra.manifest)}"),
                  H.text_block(f"B = {_config_text(lb, rb.manifest)}"),
                  H.text_block(how + f" Every difference is B - A with a 95% interval. "
                               f"Flags: beyond ±{margin:g} point(s) for scores and values "
                               "(0 for win shares), Benjamini-Hochberg FDR 5%.")]
    score_blocks = [
        H.figure_block(F.to_png_base64(F.difference_forest(
            scores, title="Mean score, B - A", xlabel="points")), "Mean score difference."),
        H.figure_block(F.to_png_base64(F.difference_forest(
            scores.assign(diff=scores["win_diff"], lo=scores["win_lo"], hi=scores["win_hi"]),
            title="Win share, B - A", xlabel="win share")), "Win share difference."),
        H.table_block(scores, {
            "item": ("strategy", ""), "n": ("games", ","), "deals": ("deals", ","),
            "score_a": ("score A", ".2f"), "score_b": ("score B", ".2f"),
            "diff": ("B - A", "+.2f"), "lo": ("95% lo", "+.2f"), "hi": ("95% hi", "+.2f"),
            "win_a": ("win A", ".3f"), "win_b": ("win B", ".3f"),
            "win_diff": ("B - A", "+.3f"), "win_lo": ("95% lo", "+.3f"),
            "win_hi": ("95% hi", "+.3f"), "paired": ("paired", ""), "flag": ("flag", "")},
            caption="Score and win share by strategy", row_class="flag")]
    seat_blocks = [
        H.figure_block(F.to_png_base64(F.difference_forest(
            seats.assign(item="seat " + seats["seat"].astype(str)),
            title="Win share by seat, B - A", xlabel="win share")),
            "Win share difference per seat (0 = start player)."),
        H.table_block(seats, {
            "seat": ("seat", "d"), "n": ("games", ","), "deals": ("deals", ","),
            "win_a": ("win A", ".3f"),
            "win_b": ("win B", ".3f"), "diff": ("B - A", "+.3f"), "lo": ("95% lo", "+.3f"),
            "hi": ("95% hi", "+.3f"), "score_diff": ("score B - A", "+.2f"),
            "score_lo": ("95% lo", "+.2f"), "score_hi": ("95% hi", "+.2f"),
            "paired": ("paired", ""), "flag": ("flag", "")},
            caption="Seats: win share and score, B - A (intervals clustered by deal: the "
                    "seat rotations of one deal share its cards)", row_class="flag")]
    task_values, gnome_values = _value_blocks(aruns, probes, paired, margin, jobs, quiet)
    task_blocks = task_values + [
        H.figure_block(F.to_png_base64(F.difference_forest(
            tasks, title="Task lighting rate, B - A", xlabel="share of players")),
            "Share of players lighting each task."),
        H.table_block(tasks.sort_values("diff"), {
            "item": ("task", ""), "rate_a": ("lit A", ".3f"), "rate_b": ("lit B", ".3f"),
            "diff": ("B - A", "+.3f"), "lo": ("95% lo", "+.3f"), "hi": ("95% hi", "+.3f"),
            "sig": ("", "")}, caption="Task lighting rates (unpaired; clustered by deal)",
            row_class="sig")]
    reason_blocks = [H.table_block(reasons, {
        "item": ("end reason", ""), "share_a": ("share A", ".3f"), "share_b": ("share B", ".3f"),
        "diff": ("B - A", "+.3f"), "lo": ("95% lo", "+.3f"), "hi": ("95% hi", "+.3f"),
        "sig": ("", "")}, caption="End reasons", row_class="sig")]
    return [{"id": "runs", "title": "Runs", "blocks": runs_block, "absent": None},
            {"id": "scores", "title": "Scores and win shares", "blocks": score_blocks,
             "absent": None},
            {"id": "seats", "title": "Seats", "blocks": seat_blocks, "absent": None},
            {"id": "tasks", "title": "Task values and lighting", "blocks": task_blocks,
             "absent": None},
            {"id": "gnomes", "title": "Gnome values", "blocks": gnome_values,
             "absent": None if gnome_values else "No gnome forks."},
            {"id": "ends", "title": "End reasons", "blocks": reason_blocks, "absent": None},
            section_method(games, [], provenance(aruns, None, probes))]


def build_compare(run_a: str | Path, run_b: str | Path, out: str | Path, *,
                  probes: Any = 1000, margin: float = 1.0, jobs: int = 1,
                  quiet: bool = True) -> Path:
    """Write an HTML report of B - A differences between two runs; returns its path.

    Refuses runs with different player counts; pairs by game when they share deals.
    """
    fileio.check_output_file(out)
    extras.check("seaborn")  # before the forks
    margin = check_float("margin", margin, 0, MAX_POINTS)
    runs = load_runs([run_a, run_b], lists=True)  # compare tests the task lists per row
    counts = [r.manifest.get("config", {}).get("players") for _, r in runs]
    if counts[0] != counts[1]:
        raise ConfigError(f"cannot compare a {counts[0]}-player run ({run_a}) with a "
                          f"{counts[1]}-player run ({run_b}): compare runs of one player count")
    subtitle = (f"A = {runs[0][0]}, B = {runs[1][0]} — bonfire_sim {__version__}, built "
                f"{time.strftime('%Y-%m-%d %H:%M')}")
    sections = compare_sections(runs, paths=[run_a, run_b], probes=probes, margin=margin,
                                jobs=jobs, quiet=quiet)
    return H.write(out, H.render("Bonfire run comparison", subtitle, sections))
