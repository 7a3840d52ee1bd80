"""Report section "When is the game decided" and the links from example games to views.

``section_decided(runs)`` draws, per player count of each run that kept a turn log, the
share of games the leader after each round wins, the distribution of the round after
which the winner no longer changes, and the running-score trajectories by seat
(``bonfire_sim.analysis.decided`` computes them; the module doc says what "running
score" and "leader" mean).  ``link_example_games`` turns the example game ids of the
report's tables into links to view pages written in a ``views/`` folder beside it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from markupsafe import Markup, escape
from matplotlib.axes import Axes
from matplotlib.figure import Figure

from bonfire_sim.analysis import decided as AD
from bonfire_sim.errors import DataError
from bonfire_sim.report import figures as F
from bonfire_sim.report import html as H

SEAT_LINE = ("#d9534f", "#3b7dd8", "#3f9d4a", "#e0a800")  # the viewer's seat colours
VIEWS_DIR = "views"
MAX_VIEWS = 40  # view pages per report (a game replays in about a second)


# ---- figure -----------------------------------------------------------------------------
def decided_figure(lw: pd.DataFrame, dr: pd.DataFrame, tr: pd.DataFrame, n: int,
                   min_games_share: float = AD.MIN_GAMES_SHARE) -> Axes:
    """Two panels for one player count: the leader's win share and the share of games
    already decided after each round (left); running-score median and 10-90% band by
    seat (right).  Rounds that fewer than ``min_games_share`` of the games reached are
    left out.  Returns the left axes (its figure holds both)."""
    fig = Figure(figsize=(10.5, 3.8), dpi=90)
    left, right = fig.subplots(1, 2)
    games = len(dr)
    curve = lw[(lw["n_players"] == n) & lw["round"].notna()
               & (lw["games"] >= min_games_share * games)]
    rounds = curve["round"].astype(int).to_numpy()
    left.plot(rounds, curve["winner_leads"], "o-", ms=3, color="#c8641e",
              label="eventual winner leads after the round")
    decided = [(dr["decided_round"] <= r).mean() for r in rounds]
    left.plot(rounds, decided, "s--", ms=3, color="#555555",
              label="winner leads from here to the end")
    left.axhline(1 / n, color="#999999", lw=0.8, ls=":", label=f"chance 1/{n}")
    for q in AD.LEVELS:
        left.axhline(q, color="#dddddd", lw=0.8)
    left.set_ylim(0, 1.02)
    left.set_xlabel("after round")
    left.set_ylabel("share of games")
    left.set_title(f"{n} players: when is the game decided ({games:,} games)", fontsize=10)
    left.legend(fontsize=7, loc="upper left")
    t = tr[(tr["n_players"] == n) & tr["round"].notna()]
    last = rounds.max() if len(rounds) else 0
    for seat, g in t.groupby("seat"):
        g = g[g["round"] <= last]
        col = SEAT_LINE[int(seat) % len(SEAT_LINE)]
        x = g["round"].astype(int).to_numpy()
        right.fill_between(x, g["q10"], g["q90"], color=col, alpha=0.12)
        right.plot(x, g["q50"], color=col, lw=1.6, label=f"seat {int(seat)}")
    right.set_xlabel("after round")
    right.set_ylabel("running score (median, 10-90%)")
    right.set_title("Running score: in play + lit bonfires + fate supply + leftovers",
                    fontsize=9)
    right.legend(fontsize=7, loc="upper left")
    return left


# ---- section ----------------------------------------------------------------------------
def _has_turn_log(run: Any) -> bool:
    manifest = run.data.manifest
    return any("turns" in c for c in manifest.get("chunks", {}).values())


def section_decided(runs: Sequence[Any]) -> dict[str, Any]:
    """The "decided" section for the report's runs (``analysis.runs.Run`` objects)."""
    from bonfire_sim.sim.load import load

    title = "When is the game decided"
    blocks: list[dict[str, Any]] = []
    rows = []
    for run in runs:
        if run.path is None or run.config.players < 2 or not _has_turn_log(run):
            continue
        try:
            data = load(run.path, categorical=False, lazy=False)
            st = AD.standings(data)
        except DataError:
            continue
        lw, dr, tr = AD.leader_wins(data, st), AD.decided_rounds(data, st), \
            AD.trajectories(data, st)
        summ = AD.summary(data, st=st).assign(run=run.label)
        rows.append(summ)
        for n in sorted(dr["n_players"].unique()):
            s = summ[summ["n_players"] == n].iloc[0]
            blocks.append(H.figure_block(
                F.to_png_base64(decided_figure(lw, dr, tr, int(n))),
                f"Run {run.label}, {n} players: the eventual winner leads in half of "
                f"the games {_r(s['leads_50'], s['rounds'])} and in 80% "
                f"{_r(s['leads_80'], s['rounds'])}; the winner leads for good in half "
                f"of the games {_r(s['decided_50'], s['rounds'])}, in 80% "
                f"{_r(s['decided_80'], s['rounds'])} (median game {s['rounds']:.0f} "
                "rounds)."))
    if not rows:
        return {"id": "decided", "title": title, "blocks": [],
                "absent": "No multiplayer run with a turn log: run with `--turn-log all` "
                          "to see when games are decided."}
    intro = H.text_block(
        "Leader after a round: the highest running score, which is the part of 'the "
        "final scoring if the game ended now' the turn log determines: in-game points + "
        "printed points of the bonfires lit so far + fate-supply points + leftovers "
        "(guardian, portal, path and common-task points are not in the log), ties "
        "broken by more bonfires as in the rules; the "
        "final row uses the final scores, where the leader is the winner by definition. "
        "'Winner leads from here to the end': the share of games in which the eventual "
        "winner leads after this round and every later one. Rounds that fewer than "
        f"{AD.MIN_GAMES_SHARE:.0%} of the games reached are left out. Computed by "
        "bonfire_sim.analysis.decided from the turn log.")
    table = H.table_block(pd.concat(rows, ignore_index=True), {
        "run": ("run", ""), "n_players": ("players", "d"), "games": ("games", ","),
        "rounds": ("median rounds", ".0f"), "leads_50": ("winner leads in ≥50% from round", "d"),
        "leads_80": ("in ≥80% from round", "d"),
        "decided_50": ("winner leads for good in 50% from round", ".0f"),
        "decided_80": ("in 80% from round", ".0f"),
        "left_50": ("rounds before the end (50%)", ".0f"),
        "left_80": ("(80%)", ".0f")},
        caption="From which round the eventual winner leads (a round one past the game's "
                "last means only the final scoring decided; -1 rounds before the end "
                "likewise)")
    return {"id": "decided", "title": title, "blocks": [intro, table, *blocks],
            "absent": None}


def _r(value: Any, rounds: float) -> str:
    """``from round 12``, or ``only at the final scoring``."""
    if value is None or (isinstance(value, float) and np.isnan(value)) or value > rounds:
        return "only at the final scoring"
    return f"from round {int(value)}"


# ---- example games -> view pages --------------------------------------------------------
_IDS = re.compile(r"^\s*\d+(\s*,\s*\d+)*\s*$")


def link_example_games(sections: Sequence[Mapping[str, Any]],
                       runs: Sequence[tuple[str, Any]], run_dirs: Sequence[str | Path],
                       out: str | Path, max_views: int = MAX_VIEWS
                       ) -> Callable[[], int]:
    """Link the example games the report's tables name to view pages; returns the
    function that writes those pages (call it after the report page is written, so a
    page that cannot be written leaves no ``views/`` folder behind).

    A table column headed "example games..." lists game ids of the run with the row's
    player count; rows whose player count matches no single run (pooled rows), and runs
    with a seat that is not a built-in strategy (``replay`` cannot replay those), stay
    text.  At most ``max_views`` pages, in the order the ids appear.  Changes the
    sections' table cells in place.
    """
    from bonfire_sim import strategies as S
    from bonfire_sim.report.view import view_file_name, write_views

    by_players: dict[int, list[Path | None]] = {}
    for (_, data), d in zip(runs, run_dirs, strict=True):
        names = data.config.get("strategies") or ()
        replayable = all(n in S.STRATEGY_IDS for n in names)
        key = int(data.config.get("players", 0))
        # a run that cannot be replayed still counts, so its player count stays ambiguous
        by_players.setdefault(key, []).append(Path(d) if replayable else None)
    folder = Path(out).parent / VIEWS_DIR
    wanted: dict[Path, list[int]] = {}
    for s in sections:
        for b in s.get("blocks", []):
            if b.get("kind") != "table":
                continue
            heads = b["headers"]
            gcol = [i for i, h in enumerate(heads) if str(h).startswith("example games")]
            pcol = [i for i, h in enumerate(heads) if h == "players"]
            if not gcol or not pcol:
                continue
            for row in b["rows"]:
                c = row["cells"]
                text, players = str(c[gcol[0]]), str(c[pcol[0]])
                dirs = by_players.get(int(players), []) if players.isdigit() else []
                if len(dirs) != 1 or dirs[0] is None or not _IDS.match(text):
                    continue
                ids = [int(x) for x in text.split(",")]
                have = wanted.setdefault(dirs[0], [])
                for gid in ids:
                    if gid not in have and sum(map(len, wanted.values())) < max_views:
                        have.append(gid)
                c[gcol[0]] = Markup(", ").join(
                    Markup(f'<a href="{VIEWS_DIR}/{escape(view_file_name(dirs[0], g))}">{g}</a>')
                    if g in have else Markup(str(g)) for g in ids)

    def write() -> int:
        return sum(len(write_views(d, ids, folder)) for d, ids in wanted.items() if ids)

    return write
