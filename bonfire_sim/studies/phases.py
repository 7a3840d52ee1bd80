"""Where the search's strength is made: the per-phase ablation of issue 35.

A hybrid ``search:N:phases=a+b`` (``strategies.specs``) searches at some of the search's
phases and plays its rollout policy, ``tuned``, at the others.  Each arm is an ordinary
seat-rotated run (``bonfire-sim run``) of one hybrid against ``tuned`` on the same deals;
this module reads an arm back:

- ``arm_summary``: the hybrid's win share (Wilson 95% over games, and the interval
  clustered by deal, since both seatings of a deal share its cards) and its mean margin;
- ``decision_counts``: the arm's cost in searches.  It replays the run's first games move
  by move (exactly as the run played them, checked against the run's scores) and counts,
  per phase, the hybrid's decisions that had a choice and the ones it searched.

docs/findings/2026-11-29-search-phases.md holds the table and the commands.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from bonfire_sim.analysis.intervals import clustered_wilson, wilson
from bonfire_sim.errors import ConfigError, DataError


@dataclass(frozen=True)
class ArmSummary:
    """One arm: the hybrid's win share against the other seat's player."""

    spec: str
    games: int
    deals: int
    share: float
    wilson: tuple[float, float]
    clustered: tuple[float, float]
    margin: float  # the hybrid's score minus the best other seat's, mean per game


def arm_summary(run_dir: str | Path, spec: str) -> ArmSummary:
    """Win share of the seat(s) played by ``spec`` in the run (a tie counts as a win)."""
    run = Path(run_dir)
    players = pd.read_parquet(run / "players.parquet")
    games = pd.read_parquet(run / "games.parquet")[["game_id", "deal"]]
    mine = players[players["strategy"] == spec]
    if mine.empty:
        raise ConfigError(f"{spec!r} did not play in {run}")
    best_other = (players[players["strategy"] != spec].groupby("game_id")["score"].max()
                  .rename("best_other"))
    mine = mine.merge(best_other, on="game_id").merge(games, on="game_id")
    won = mine["won"].to_numpy(dtype=float)
    lo, hi = wilson(int(won.sum()), len(won))
    m, clo, chi = clustered_wilson(won, mine["deal"].to_numpy())
    return ArmSummary(spec, len(won), int(mine["deal"].nunique()), float(m),
                      (float(lo), float(hi)), (float(clo), float(chi)),
                      float((mine["score"] - mine["best_other"]).mean()))


def replay_decisions(run: Path, spec: str, games: int) -> Iterator[tuple[np.ndarray, np.ndarray,
                                                                np.ndarray, int, int]]:
    """The run's first ``games`` games replayed exactly (``DataError`` if a replay's scores
    differ from the run's): yields (state, params, moves, n, chosen index) at every decision
    of ``spec``'s seats, before the move is applied."""
    from bonfire_sim.rules import layout as L
    from bonfire_sim.rules.moves import apply_move, legal_moves
    from bonfire_sim.rules.scoring import NLINES, final_result
    from bonfire_sim.rules.setup import new_game
    from bonfire_sim.sim.loop import choose, new_buffer, no_weights
    from bonfire_sim.sim.rungame import game_spec
    from bonfire_sim.strategies.specs import parse_player
    from bonfire_sim.studies.ladder import Rules

    scores_of = (pd.read_parquet(run / "players.parquet").sort_values(["game_id", "seat"])
                 .groupby("game_id")["score"].apply(tuple))
    buf = new_buffer()
    for gid in range(min(games, len(scores_of))):
        g = game_spec(run, gid)
        if spec not in g.strategies:
            raise ConfigError(f"{spec!r} did not play game {gid} of {run}")
        p = Rules(g.overrides, g.variants).params()
        seats = [parse_player(name) for name in g.strategies]
        w = no_weights()
        for k, pl in enumerate(seats):
            w[k] = pl.weight_row()
        s = new_game(g.seed, g.players, p)
        while s[L.G_OVER] == 0:
            n = legal_moves(s, p, buf)
            seat = int(s[L.G_CUR])
            i = int(choose(s, p, buf, n, seats[seat].sid, w[seat]))
            if g.strategies[seat] == spec:
                yield s, p, buf, n, i
            apply_move(s, p, buf[i])
        result = np.zeros(g.players, np.int64)
        final_result(s, p, result, np.zeros((g.players, NLINES), np.int64),
                     np.zeros(g.players, np.int64), np.zeros(g.players, np.int64))
        if tuple(int(x) for x in result) != tuple(scores_of.loc[gid]):
            raise DataError(f"game {gid} of {run} replayed to other scores: {run} was made "
                            f"by another engine")


def _seat_games(run: Path, spec: str, games: int) -> int:
    players = pd.read_parquet(run / "players.parquet", columns=["game_id", "strategy"])
    return int(((players["strategy"] == spec) & (players["game_id"] < games)).sum())


def decision_counts(run_dir: str | Path, spec: str, games: int) -> pd.DataFrame:
    """Per phase, the mean per seat-game of the decisions of ``spec``'s seats that had a
    choice (``choices``) and of those it searched (``searched``: its phases and turns),
    over the run's first ``games`` games, replayed exactly."""
    from bonfire_sim.rules import layout as L
    from bonfire_sim.strategies import search as SE
    from bonfire_sim.strategies.specs import parse_player

    run = Path(run_dir)
    row = parse_player(spec).row
    mask, lo, hi = int(row[SE.R_PHASES]), int(row[SE.R_FROM]), int(row[SE.R_UNTIL])
    choices = np.zeros(len(L.PHASE_NAMES), np.int64)
    searched = np.zeros(len(L.PHASE_NAMES), np.int64)
    for s, _p, _moves, n, _i in replay_decisions(run, spec, games):
        if n > 1:
            ph, turn = int(s[L.G_PHASE]), int(s[L.G_TURN])
            choices[ph] += 1
            searched[ph] += (mask >> ph) & 1 and lo <= turn and (hi == 0 or turn < hi)
    seat_games = _seat_games(run, spec, games)
    rows = [(L.PHASE_NAMES[ph], choices[ph] / seat_games, searched[ph] / seat_games)
            for ph in range(len(L.PHASE_NAMES)) if choices[ph]]
    return pd.DataFrame(rows, columns=["phase", "choices", "searched"])


def departures(run_dir: str | Path, spec: str, games: int, phase: str = "main"
               ) -> pd.DataFrame:
    """What the hybrid played instead of its rollout policy: at every decision of
    ``phase`` with a choice (run's first ``games`` games), the kind of ``tuned``'s move
    (``policy``) and of the hybrid's (``played``), whether they were the same move, the
    turn, whether the countdown ran and both moves' arguments: one row per decision."""
    from bonfire_sim.rules import layout as L
    from bonfire_sim.strategies import evaluate as E
    from bonfire_sim.strategies import search as SE
    from bonfire_sim.strategies import weights_for
    from bonfire_sim.strategies.specs import rollout_policy

    if phase not in L.PHASE_NAMES:
        raise ConfigError(f"unknown phase {phase!r}; choose from {', '.join(L.PHASE_NAMES)}")
    ph = L.PHASE_NAMES.index(phase)
    w = weights_for(rollout_policy(spec))[:SE.NW]
    rows = []
    for s, p, moves, n, i in replay_decisions(Path(run_dir), spec, games):
        if n > 1 and s[L.G_PHASE] == ph:
            j = int(E.choose(s, p, moves, n, w))
            rows.append((L.MOVE_NAMES[int(moves[j, 0])], L.MOVE_NAMES[int(moves[i, 0])],
                         i == j, int(s[L.G_TURN]), bool(s[L.G_CD_ACTIVE] > 0),
                         tuple(int(x) for x in moves[j, 1:]),
                         tuple(int(x) for x in moves[i, 1:])))
    return pd.DataFrame(rows, columns=["policy", "played", "same", "turn", "countdown",
                                       "policy_args", "played_args"])


# The mechanism mix the ablation table shows per arm (``analysis.mechanisms`` measures).
MIX = ("specialists recruited", "elders recruited", "guardians walked",
       "share of turns at the Great Bonfire", "score")


def arm_row(run_dir: str | Path, spec: str, count_games: int) -> dict[str, float | str]:
    """One line of the ablation table: ``arm_summary``, the searched decisions per
    seat-game (over the first ``count_games`` games) and the hybrid's mechanism mix
    (``MIX``; the Great Bonfire share needs a run with ``--turn-log all``)."""
    from bonfire_sim.analysis.mechanisms import mechanism_mix

    run = Path(run_dir)
    a = arm_summary(run, spec)
    counts = decision_counts(run, spec, count_games)
    turns = run / "turns"
    mix = mechanism_mix(pd.read_parquet(run / "players.parquet"),
                        pd.read_parquet(turns) if turns.exists() else None)
    mine = mix[mix["player"] == spec].set_index("measure")["value"]
    return {"spec": spec, "games": a.games, "deals": a.deals, "share": a.share,
            "lo": a.wilson[0], "hi": a.wilson[1], "clo": a.clustered[0],
            "chi": a.clustered[1], "margin": a.margin,
            "searched": float(counts["searched"].sum()),
            "choices": float(counts["choices"].sum()),
            **{m: float(mine.get(m, np.nan)) for m in MIX}}
