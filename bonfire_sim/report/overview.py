"""The report's overview section: the configuration groups it holds (first in the
details), the runs and their players, then scores, end reasons and game length per
setting (never pooled across settings)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pandas as pd

from bonfire_sim.report import figures as F
from bonfire_sim.report import groups as G
from bonfire_sim.report import html as H
from bonfire_sim.report import rows as RW
from bonfire_sim.report import stats as S
from bonfire_sim.rules import components as C


def _section(sid: str, title: str, blocks: list[dict[str, Any]]) -> dict[str, Any]:
    return {"id": sid, "title": title, "blocks": blocks, "absent": None, "data": {}}


def _fig(ax: Any, caption: str) -> dict[str, Any]:
    return H.figure_block(F.to_png_base64(ax), caption)


def groups_block(groups: Sequence[G.Group]) -> dict[str, Any]:
    """The table of configuration groups, first in the details: what the report holds."""
    return H.table_block(G.groups_table(groups), {
        "group": ("group", ""), "players": ("players", "d"), "player": ("who plays", ""),
        "setting": ("what differs from the default game", ""), "runs": ("runs", ""),
        "games": ("games", ",")},
        caption="Groups in this report: runs of one group play the same game and are "
                "pooled; different groups are never pooled (each section shows them "
                "separately)")


def section_overview(games: pd.DataFrame, players: pd.DataFrame,
                     groups: Sequence[G.Group] | None = None) -> dict[str, Any]:
    groups = list(groups) if groups is not None else _groups_of_frames(games)
    runs = S.run_overview(games, players)
    runs["group"] = runs["run"].map({r: g.label for r, g in G.group_of(groups).items()})
    blocks = [groups_block(groups),
              H.table_block(runs, {"run": ("run", ""), "group": ("group", ""),
                                   "n_players": ("players", "d"), "games": ("games", ","),
                                   "seat_rotation": ("rotated", ""),
                                   "strategies": ("strategy mix (share of seats)", "")},
                            caption="Runs in this report")]
    overrides = [(r, o) for r, o in _overrides(games).items() if o]
    for run, o in overrides:
        blocks.append(H.text_block(f"Run {run} overrides component data: {o}"))
    for run, v in games.attrs.get("variants", {}).items():
        changed = {f: n for f, n in C.resolve_variants(v).items()
                   if n != C.default_variants()[f]}
        if changed:
            blocks.append(H.text_block(f"Run {run} reads uncertain facts differently from the "
                                       f"default: {changed} (see Method and caveats)."))
    parts = G.settings(groups, solo=False) + G.settings(groups, solo=True)
    for setting, members in parts:
        labels = [r for g in members for r in g.runs]
        if len(parts) > 1:
            kind = "Solo" if members[0].solo else "Multiplayer"
            blocks.append(H.heading_block(f"{kind}: {setting}"))
        blocks += _overview_detail(_rows_of(games, labels), _rows_of(players, labels))
    return _section("overview", "Overview", blocks)


def _rows_of(frame: pd.DataFrame, labels: Sequence[str]) -> pd.DataFrame:
    """The rows of these runs; the frame itself when it holds no other (no copy)."""
    return RW.rows_of_runs(frame, labels)


def _groups_of_frames(games: pd.DataFrame) -> list[G.Group]:
    """Groups for frames built without them: from ``attrs["configs"]`` (run -> manifest
    config) when a caller set them, else by player count alone."""
    configs = games.attrs.get("configs", {})
    return G.group_manifests([(run, {"config": configs.get(run, {
        "players": int(g["n_players"].iloc[0]), "games": len(g), "seed": run})})
        for run, g in games.groupby("run", sort=False)])


def _overview_detail(games: pd.DataFrame, players: pd.DataFrame) -> list[dict[str, Any]]:
    blocks = []
    scores = S.score_summary(players)
    blocks.append(H.table_block(scores, {
        "n_players": ("players", "d"), "strategy": ("strategy", ""), "n": ("seats", ","),
        "mean": ("mean score", ".1f"), "lo": ("95% lo", ".1f"), "hi": ("95% hi", ".1f"),
        "sd": ("sd", ".1f"), "median": ("median", ".0f"), "win_rate": ("win rate", ".3f")},
        caption="Final score by player count and strategy (t intervals; win rate counts "
                "shared wins fractionally)"))
    blocks.append(_fig(F.score_distributions(players), "Final scores (boxes: quartiles; "
                                                       "whiskers: 1.5 IQR)."))
    reasons = S.end_reasons(games)
    blocks.append(_fig(F.end_reason_bars(reasons), "Share of games by end reason."))
    blocks.append(H.table_block(reasons, {
        "n_players": ("players", "d"), "end_reason": ("end reason", ""), "n": ("games", ","),
        "share": ("share", ".3f"), "lo": ("95% lo", ".3f"), "hi": ("95% hi", ".3f")},
        caption="End reasons (Wilson intervals)"))
    length = S.game_length(games)
    blocks.append(_fig(F.game_lengths(games), "Rounds per game by player count (a round is "
                                              "one turn of every player)."))
    blocks.append(H.table_block(length, {
        "n_players": ("players", "d"), "measure": ("measure", ""), "games": ("games", ","),
        "mean": ("mean", ".1f"), "lo": ("95% lo", ".1f"), "hi": ("95% hi", ".1f")},
        caption="Game length in turns and rounds (t intervals)"))
    return blocks


def _overrides(games: pd.DataFrame) -> dict[str, Any]:
    return games.attrs.get("overrides", {})


def players_block(runs: Sequence[tuple[str, Any]]) -> dict[str, Any] | None:
    """Which players produced the numbers: each run's seat players from its manifest."""
    rows = []
    for lab, r in runs:
        for spec, rec in (r.manifest.get("seat_players") or {}).items():
            detail = {"search": f"budget {rec.get('budget')}, rollouts by "
                                f"{rec.get('rollout_policy')}",
                      "weights": f"weights file sha256 {str(rec.get('weights_sha256'))[:12]}",
                      "plugin": "Python plug-in"}.get(rec.get("kind"), "built-in weights")
            rows.append({"run": lab, "spec": spec, "kind": rec.get("kind"), "detail": detail})
    if not rows:
        return None
    return H.table_block(pd.DataFrame(rows), {
        "run": ("run", ""), "spec": ("player", ""), "kind": ("kind", ""),
        "detail": ("detail", "")},
        caption="Players of each run (the manifest records every weight; the search "
                "player is the strength reference)")
