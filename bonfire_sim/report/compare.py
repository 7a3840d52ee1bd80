"""Orchestrate a two-run comparison report: load -> ``stats.compare_*`` -> figures -> html."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from bonfire_sim import __version__, fileio
from bonfire_sim.errors import ConfigError
from bonfire_sim.report import figures as F
from bonfire_sim.report import html as H
from bonfire_sim.report import stats as S
from bonfire_sim.report.build import load_runs, section_method


def _config_text(label: str, manifest: dict[str, Any]) -> str:
    c = manifest.get("config", {})
    return (f"{label}: {c.get('games')} games, {c.get('players')} players, strategies "
            f"{', '.join(c.get('strategies', []))}, seat rotation {c.get('seat_rotation')}, "
            f"seed {c.get('seed')}, overrides {c.get('overrides') or 'none'}")


def _mark(diff: pd.DataFrame, lo: str = "lo", hi: str = "hi") -> pd.DataFrame:
    return diff.assign(sig=np.where(S.significant(diff, lo, hi), "differs", ""))


def compare_sections(runs: list[tuple[str, Any]]) -> list[dict[str, Any]]:
    (la, ra), (lb, rb) = runs
    games, players = S.combine(runs)
    humans = players[players["strategy"] != S.TOM]
    pa, pb = humans[humans["run"] == la], humans[humans["run"] == lb]
    ga, gb = games[games["run"] == la], games[games["run"] == lb]
    scores = _mark(S.compare_scores(pa, pb))
    tasks = _mark(S.compare_tasks(pa, pb))
    reasons = _mark(S.compare_end_reasons(ga, gb))
    runs_block = [H.text_block(f"A = {_config_text(la, ra.manifest)}"),
                  H.text_block(f"B = {_config_text(lb, rb.manifest)}"),
                  H.text_block("Every difference is B - A with a 95% interval: Welch t for "
                               "mean scores, Newcombe's hybrid Wilson interval for rates "
                               "(win rates count shared wins fractionally). Rows marked "
                               "'differs' have intervals that exclude zero; with 66 tasks, "
                               "about 3 such rows are expected by chance alone.")]
    score_blocks = [
        H.figure_block(F.to_png_base64(F.difference_forest(
            scores, title="Mean score, B - A", xlabel="points")), "Mean score difference."),
        H.figure_block(F.to_png_base64(F.difference_forest(
            scores.assign(diff=scores["win_diff"], lo=scores["win_lo"], hi=scores["win_hi"]),
            title="Win rate, B - A", xlabel="win rate")), "Win rate difference."),
        H.table_block(scores, {
            "item": ("strategy", ""), "n_a": ("seats A", ","), "n_b": ("seats B", ","),
            "score_a": ("score A", ".2f"), "score_b": ("score B", ".2f"),
            "diff": ("B - A", "+.2f"), "lo": ("95% lo", "+.2f"), "hi": ("95% hi", "+.2f"),
            "win_a": ("win A", ".3f"), "win_b": ("win B", ".3f"),
            "win_diff": ("B - A", "+.3f"), "win_lo": ("95% lo", "+.3f"),
            "win_hi": ("95% hi", "+.3f"), "sig": ("score", "")},
            caption="Score and win rate by strategy", row_class="sig")]
    task_blocks = [
        H.figure_block(F.to_png_base64(F.difference_forest(
            tasks, title="Task lighting rate, B - A", xlabel="share of players")),
            "Share of players lighting each task."),
        H.table_block(tasks.sort_values("diff"), {
            "item": ("task", ""), "rate_a": ("lit A", ".3f"), "rate_b": ("lit B", ".3f"),
            "diff": ("B - A", "+.3f"), "lo": ("95% lo", "+.3f"), "hi": ("95% hi", "+.3f"),
            "sig": ("", "")}, caption="Task lighting rates", row_class="sig")]
    reason_blocks = [H.table_block(reasons, {
        "item": ("end reason", ""), "share_a": ("share A", ".3f"), "share_b": ("share B", ".3f"),
        "diff": ("B - A", "+.3f"), "lo": ("95% lo", "+.3f"), "hi": ("95% hi", "+.3f"),
        "sig": ("", "")}, caption="End reasons", row_class="sig")]
    return [{"id": "runs", "title": "Runs", "blocks": runs_block, "absent": None},
            {"id": "scores", "title": "Scores and win rates", "blocks": score_blocks,
             "absent": None},
            {"id": "tasks", "title": "Task lighting", "blocks": task_blocks, "absent": None},
            {"id": "ends", "title": "End reasons", "blocks": reason_blocks, "absent": None},
            section_method(games, [])]


def build_compare(run_a: str | Path, run_b: str | Path, out: str | Path) -> Path:
    """Write an HTML report of B - A differences between two runs; returns its path."""
    fileio.check_output_file(out)
    runs = load_runs([run_a, run_b])
    counts = [r.manifest.get("config", {}).get("players") for _, r in runs]
    if counts[0] != counts[1]:
        raise ConfigError(f"cannot compare a {counts[0]}-player run ({run_a}) with a "
                          f"{counts[1]}-player run ({run_b}): compare runs of one player count")
    subtitle = (f"A = {runs[0][0]}, B = {runs[1][0]} — bonfire_sim {__version__}, built "
                f"{time.strftime('%Y-%m-%d %H:%M')}")
    return H.write(out, H.render("Bonfire run comparison", subtitle, compare_sections(runs)))
