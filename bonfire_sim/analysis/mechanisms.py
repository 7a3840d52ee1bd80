"""What each player does: the mechanism mix per player, from a run's tables.

A balance figure describes the players who made it, so a reader needs to see how those
players play: how many specialists and elders they recruit, how many guardians they walk,
which actions they take, how often a turn goes to the Great Bonfire, and where their points
come from.  Every figure is a mean per seat-game of one player spec (the human seats only:
Tom, the solo automaton, is left out), never pooled over players.

The players table (``players.parquet``) gives the gnomes, guardians and points; the action
counts and the Great Bonfire share need the turn log (``turns.parquet``, a run with
``--turn-log all``): without it those rows are absent, not zero.
"""

from __future__ import annotations

import pandas as pd

from bonfire_sim.strategies import TOM

SCORE_LINES = ("bonfires", "guardians", "portals", "paths", "common", "fate_supply",
               "leftovers", "ingame")
MIX_COLUMNS = ["player", "measure", "value", "games"]
FIRE = "fire"  # the Great Bonfire move's name (rules.layout.MOVE_NAMES)
ACTION = "action"  # the option of the action moves in the turn log


def _specialists(gnome_ids: pd.Series) -> pd.Series:
    return gnome_ids.map(lambda ids: sum(1 for g in ids if str(g).startswith("S")))


def mechanism_mix(players: pd.DataFrame, turns: pd.DataFrame | None = None) -> pd.DataFrame:
    """Tidy ``MIX_COLUMNS`` rows, per player spec (``player``) and ``measure``: the mean
    per seat-game (``games`` seat-games) of specialists and elders recruited (owned at the
    end), guardians walked, tasks lit, paths, portals, the score and each score line; with
    a turn log also each action's count per game (``action: <name>``) and the share of the
    seat's turns that took the Great Bonfire."""
    human = players[players["strategy"] != TOM].copy()
    human["specialists"] = _specialists(human["gnome_ids"])
    per_seat = {"specialists recruited": "specialists", "elders recruited": "n_elders",
                "guardians walked": "n_guardians", "tasks lit": "n_bonfires",
                "paths built": "n_paths", "portals placed": "n_portals", "score": "score",
                **{f"points: {line}": f"score_{line}" for line in SCORE_LINES}}
    rows = []
    for player, g in human.groupby("strategy", sort=True, observed=True):
        n = len(g)
        for measure, column in per_seat.items():
            rows.append((str(player), measure, float(g[column].mean()), n))
    if turns is not None and len(turns):
        rows += _turn_rows(human, turns)
    return pd.DataFrame(rows, columns=MIX_COLUMNS)


def _turn_rows(human: pd.DataFrame, turns: pd.DataFrame) -> list[tuple[str, str, float, int]]:
    """Action counts per seat-game and the Great Bonfire share of turns, per player."""
    seats = human[["game_id", "seat", "strategy"]]
    t = turns[["game_id", "seat", "turn", "option", "action"]].merge(
        seats, on=["game_id", "seat"])  # Tom's decisions (no human row) drop out here
    rows = []
    for player, g in t.groupby("strategy", sort=True, observed=True):
        n = int((human["strategy"] == player).sum())
        acts = g[g["option"].astype(str) == ACTION]["action"].astype(str).value_counts()
        for name, count in sorted(acts.items()):
            rows.append((str(player), f"action: {name}", count / n, n))
        by_turn = g.assign(fire=g["action"].astype(str) == FIRE).groupby(
            ["game_id", "seat", "turn"])["fire"].any()
        rows.append((str(player), "share of turns at the Great Bonfire",
                     float(by_turn.mean()) if len(by_turn) else float("nan"), n))
    return rows


def side_by_side(*mixes: pd.DataFrame) -> pd.DataFrame:
    """One row per measure, one column per player (the players of every mix given), in the
    order the measures first appear; a measure a player lacks is NaN."""
    frame = pd.concat(mixes, ignore_index=True)
    order = list(dict.fromkeys(frame["measure"]))
    wide = frame.pivot_table(index="measure", columns="player", values="value",
                             aggfunc="first", sort=False)
    return wide.reindex(order)[list(dict.fromkeys(frame["player"]))]
