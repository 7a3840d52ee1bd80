"""When is a game decided: how often the leader after each round goes on to win.

Works from a run's turn log (``run --turn-log all``) and its players table; solo games
are left out (the question is about seats racing each other).

The turn log holds each seat's in-game points and stock but not its final-scoring
lines.  The standing after round r is a **running score**, the part of "the final
scoring if the game ended now" that the logs determine: in-game points (council, fire,
elders, passing) + the printed points of the bonfires lit by the end of round r (the
players table records the turn each bonfire was lit) + the fate-supply points of the fate
tiles still to place + the leftover points of the resources and tiles held.  It leaves
out guardian, portal, path and common-task points, which the final scoring adds; the
row ``final`` uses the final score.

Leader: the highest running score, ties broken by more bonfires as the rulebook breaks a
final tie ("the player with more Bonfires wins the tie"); seats still level share the
lead.  A game counts ``|leaders ∩ winners| / |leaders|`` towards "the leader wins", so a
shared lead with the winner counts in part, and at the final scoring, where the leaders
are exactly the winners (the engine ranks by the same rule), the share is 1.

Rounds are counted from the start; a game counts for round r if it lasted r rounds.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from bonfire_sim.errors import ConfigError, DataError
from bonfire_sim.sim.load import RunData

LEVELS = (0.5, 0.8)  # the shares the summary reports "from which round"
# A round enters the summary's curve only if this share of the games lasted that long:
# the few longest games alone would make the late rounds noise.
MIN_GAMES_SHARE = 0.1
QUANTILES = (0.1, 0.5, 0.9)  # score bands of the trajectories


def _run(run: str | Path | RunData) -> RunData:
    """A loaded run with its turn log (``DataError`` if it kept none)."""
    if isinstance(run, str | Path):
        from bonfire_sim.sim.load import load

        run = load(run, categorical=False, lazy=False)
    if not isinstance(run, RunData):
        raise DataError(f"not a run: {run!r} (give a run directory or a loaded run)")
    if run.turns is None or len(run.turns) == 0:
        raise DataError("the run kept no turn log; run it with `--turn-log all` to see when "
                        "its games are decided")
    return run


def _points_table(config: dict[str, Any]) -> tuple[dict[str, int], int, int]:
    """Printed points of each task id, points per fate tile left and the leftover
    divisor, under the run's overrides and variants."""
    from bonfire_sim.rules import components as C
    from bonfire_sim.rules import tables as T

    try:
        p = T.build_params(config.get("overrides") or None, config.get("variants") or None)
    except (KeyError, ValueError, TypeError) as error:
        raise DataError(f"the run's overrides or variants are unusable ({error})") from None
    tasks = {t.id: int(p[T.T_POINTS + i]) for i, t in enumerate(C.TASKS)}
    return tasks, int(p[T.FATE_SUP_PTS]), int(p[T.LEFT_DIV])


def standings(run: str | Path | RunData) -> pd.DataFrame:
    """One row per multiplayer game, round and seat: the running score after the round.

    Columns ``game_id, n_players, n_rounds, round, seat, score, ingame, bonfire_pts,
    fate_pts, leftover_pts, bonfires, won, final``: ``score`` is the sum of the four
    parts (see the module doc); ``final`` rows (``round = n_rounds + 1``) hold the final
    score and bonfires.
    """
    data = _run(run)
    cols = ["game_id", "n_players", "n_rounds", "round", "seat", "score", "ingame",
            "bonfire_pts", "fate_pts", "leftover_pts", "bonfires", "won", "final"]
    games = data.games[["game_id", "n_players", "n_rounds", "solo"]]
    games = games[~games["solo"].astype(bool)].drop(columns="solo")
    if games.empty:
        return pd.DataFrame(columns=cols)
    task_pts, fate_pts, left_div = _points_table(data.config)
    pl = data.players.merge(games, on="game_id")
    assert data.turns is not None  # _run refused a run without a turn log
    turns = data.turns.merge(games[["game_id"]], on="game_id")
    turns = turns.assign(stock=turns["resources"] + turns["tiles"])
    # The state after round r = before the seat's first decision of a later round, else
    # (it decided nothing more) the end of the game.
    first = (turns.sort_values("turn").groupby(["game_id", "seat", "round"], sort=False)
             [["score_ingame", "fate_left", "stock"]].first().reset_index())
    first["round"] -= 1  # the value before round r+1 is the standing after round r
    grid = pl[["game_id", "seat", "n_players", "n_rounds", "score_ingame",
               "score_fate_supply", "score_leftovers"]].rename(
        columns={"score_ingame": "end_ingame"})
    grid["round"] = grid["n_rounds"].map(lambda n: np.arange(1, int(n) + 2))
    grid = grid.explode("round")
    grid["round"] = grid["round"].astype(np.int64)
    grid = grid.merge(first, on=["game_id", "seat", "round"], how="left")
    grid = grid.sort_values(["game_id", "seat", "round"]).reset_index(drop=True)
    later = grid.groupby(["game_id", "seat"])[["score_ingame", "fate_left", "stock"]].bfill()
    out = grid[["game_id", "n_players", "n_rounds", "round", "seat"]].copy()
    out["ingame"] = later["score_ingame"].fillna(grid["end_ingame"]).astype(np.int64)
    out["fate_pts"] = (later["fate_left"] * fate_pts).fillna(
        grid["score_fate_supply"]).astype(np.int64)
    left = later["stock"] // left_div if left_div > 0 else later["stock"] * 0
    out["leftover_pts"] = left.fillna(grid["score_leftovers"]).astype(np.int64)
    # Bonfires lit by the end of round r (last turn r * players) and their printed points.
    lit = pl[["game_id", "seat", "bonfire_task_ids", "bonfire_lit_turns"]].explode(
        ["bonfire_task_ids", "bonfire_lit_turns"]).dropna()
    lit["points"] = lit["bonfire_task_ids"].map(task_pts).astype(np.int64)
    lit["turn"] = lit["bonfire_lit_turns"].astype(np.int64)
    done = out[["game_id", "seat", "round", "n_players"]].merge(
        lit[["game_id", "seat", "turn", "points"]], on=["game_id", "seat"])
    done = done[done["turn"] <= done["round"] * done["n_players"]]
    agg = done.groupby(["game_id", "seat", "round"])["points"].agg(["sum", "size"])
    out = out.merge(agg.reset_index(), on=["game_id", "seat", "round"], how="left")
    out["bonfire_pts"] = out["sum"].fillna(0).astype(np.int64)
    out["bonfires"] = out["size"].fillna(0).astype(np.int64)
    out["score"] = out[["ingame", "bonfire_pts", "fate_pts", "leftover_pts"]].sum(axis=1)
    out["final"] = out["round"] > out["n_rounds"]
    fin = pl.set_index(["game_id", "seat"])
    idx = pd.MultiIndex.from_frame(out.loc[out["final"], ["game_id", "seat"]])
    out.loc[out["final"], "score"] = fin.loc[idx, "score"].to_numpy()
    out.loc[out["final"], "bonfires"] = fin.loc[idx, "n_bonfires"].to_numpy()
    won = fin["won"].astype(bool)
    out["won"] = won.loc[pd.MultiIndex.from_frame(out[["game_id", "seat"]])].to_numpy()
    return out[cols].reset_index(drop=True)


def leader_credit(st: pd.DataFrame) -> pd.DataFrame:
    """Per game and round: ``credit`` = share of the leaders who win (see module doc)."""
    key = st["score"] * 1000 + st["bonfires"]  # score first, bonfires break ties
    top = key.groupby([st["game_id"], st["round"]]).transform("max")
    lead = st[key == top]
    g = lead.groupby(["game_id", "round"])
    out = g.agg(n_players=("n_players", "first"), n_rounds=("n_rounds", "first"),
                final=("final", "first"), leaders=("seat", "size"),
                credit=("won", "mean")).reset_index()
    return out


def leader_wins(run: str | Path | RunData,
                st: pd.DataFrame | None = None) -> pd.DataFrame:
    """Per player count and round: share of games the leader after that round wins.

    Columns ``n_players, round, stage, games, share, winner_leads``: ``share`` counts a
    shared lead in part (``leader_credit``); ``winner_leads`` is the share of games in
    which every leader is a winner (usually: the eventual winner leads alone), so a
    round where everyone is level counts 0.  ``stage`` is the round number as text, or
    ``final`` for the final scoring, where ``round`` is null.
    """
    lc = leader_credit(standings(run) if st is None else st)
    lc["alone"] = (lc["credit"] >= 1.0).astype(float)
    aggs = {"games": ("credit", "size"), "share": ("credit", "mean"),
            "winner_leads": ("alone", "mean")}
    rounds = lc[~lc["final"]].groupby(["n_players", "round"]).agg(**aggs).reset_index()
    rounds["stage"] = rounds["round"].astype(str)
    fin = lc[lc["final"]].groupby("n_players").agg(**aggs).reset_index()
    fin["stage"] = "final"
    fin["round"] = pd.NA
    out = pd.concat([rounds, fin], ignore_index=True)
    out["round"] = out["round"].astype("Int64")
    out = out.sort_values(["n_players", "round"], na_position="last", kind="stable")
    return out[["n_players", "round", "stage", "games", "share", "winner_leads"]
               ].reset_index(drop=True)


def decided_rounds(run: str | Path | RunData,
                   st: pd.DataFrame | None = None) -> pd.DataFrame:
    """Per game: the round after which the eventual winner leads to the end.

    ``decided_round`` = the first round r such that after every round from r on the
    leaders are winners (``credit == 1``); ``n_rounds + 1`` when only the final scoring
    put the winner ahead.  Columns ``game_id, n_players, n_rounds, decided_round,
    rounds_left`` (``n_rounds - decided_round``, -1 = decided by the final scoring).
    """
    lc = leader_credit(standings(run) if st is None else st)
    lc = lc[~lc["final"]].sort_values(["game_id", "round"])
    rows = []
    for gid, g in lc.groupby("game_id", sort=True):
        ok = (g["credit"].to_numpy() >= 1.0)
        n = int(g["n_rounds"].iloc[0])
        # the last round whose leader was not (only) the winner; decided after it
        bad = np.flatnonzero(~ok)
        decided = int(g["round"].to_numpy()[bad[-1]]) + 1 if bad.size else 1
        rows.append((int(gid), int(g["n_players"].iloc[0]), n, decided))
    out = pd.DataFrame(rows, columns=["game_id", "n_players", "n_rounds", "decided_round"])
    out["rounds_left"] = out["n_rounds"] - out["decided_round"]
    return out


def trajectories(run: str | Path | RunData, st: pd.DataFrame | None = None,
                 quantiles: Sequence[float] = QUANTILES) -> pd.DataFrame:
    """Running score per player count, seat and round: games, median and bands.

    Columns ``n_players, seat, round, stage, games, q10, q50, q90`` (for the default
    quantiles); the ``final`` stage holds the final scores.
    """
    st = standings(run) if st is None else st
    st = st.assign(stage=np.where(st["final"], "final", st["round"].astype(str)))
    st.loc[st["final"], "round"] = -1
    g = st.groupby(["n_players", "seat", "round", "stage"])["score"]
    out = g.size().rename("games").to_frame()
    for q in quantiles:
        out[f"q{round(q * 100)}"] = g.quantile(q)
    out = out.reset_index()
    out["round"] = out["round"].astype("Int64").where(out["round"] >= 0)
    return out


def summary(run: str | Path | RunData, levels: Sequence[float] = LEVELS,
            st: pd.DataFrame | None = None,
            min_games_share: float = MIN_GAMES_SHARE) -> pd.DataFrame:
    """Per player count: from which round the eventual winner leads, in shares of games.

    For each level q (default 50% and 80%): ``leads_q`` = the first round after which
    the eventual winner leads in at least q of the games (``winner_leads`` crosses q,
    over the rounds that at least ``min_games_share`` of the games lasted; null if it
    only does at the final scoring); ``decided_q`` = the round from which the
    winner leads to the end in q of the games (quantile of ``decided_rounds``;
    ``n_rounds + 1`` values mean "only the final scoring"), also as ``left_q`` rounds
    before the game's last round.  ``rounds`` = median game length.
    """
    for q in levels:
        if not 0 < q < 1:
            raise ConfigError(f"levels are shares between 0 and 1, got {q!r}")
    st = standings(run) if st is None else st
    lw = leader_wins(run, st)
    dr = decided_rounds(run, st)
    rows = []
    for n, d in dr.groupby("n_players"):
        curve = lw[(lw["n_players"] == n) & lw["round"].notna()
                   & (lw["games"] >= min_games_share * len(d))]
        row: dict[str, Any] = {"n_players": int(n), "games": len(d),
                               "rounds": float(d["n_rounds"].median()),
                               "final_share": float(lw[(lw["n_players"] == n)
                                                       & (lw["stage"] == "final")]
                                                    ["share"].iloc[0])}
        for q in levels:
            pct = round(q * 100)
            hit = curve[curve["winner_leads"] >= q]
            row[f"leads_{pct}"] = int(hit["round"].iloc[0]) if len(hit) else None
            row[f"decided_{pct}"] = float(np.quantile(d["decided_round"], q,
                                                      method="inverted_cdf"))
            row[f"left_{pct}"] = float(np.quantile(d["rounds_left"], 1 - q,
                                                   method="inverted_cdf"))
        rows.append(row)
    return pd.DataFrame(rows)
