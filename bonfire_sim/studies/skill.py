"""Skill depth: how often the stronger of two players wins, rung by rung up a ladder of skill.

A designer changing a rule wants to know whether the game becomes more or less a game of
skill.  The anchors that grade games by skill (the 2025 Tabletop Games Balancing Competition
scores a game by the win-rate matrix of four agents of graded strength; Ludii reports a
skill trace) look at how reliably a stronger agent beats a weaker one.  Here:

* **Rungs**: player specs from weakest to strongest (default ``DEFAULT_RUNGS``: ``random``
  < the hand-weighted ``portal`` < ``tuned`` < ``search:16``).  The order is the claim
  under test: a cell below its fair share says the rungs are out of order.
* **Cells**: every pair of rungs (weaker i < stronger j) at each player count, in each
  lineup: at 2 players one against one; at 3 or 4 players one stronger against the rest
  weaker, and one weaker against the rest stronger (``LINEUPS``).  Each deal is played in
  every distinct seat order of the lineup (each rung in each seat equally often, on the
  same deals); deal ``i`` is ``ladder.deal_seed(seed, i)``, shared by every cell.
* **Win share**: the share of games the stronger side wins (a win shared by k seats counts
  1/k), with a Wilson 95% interval over games; its fair share is the stronger side's seats
  / players (1/2 at two players, 1/4 for one against three, 3/4 for three against one).
* **Edge**: ``(share - fair) / (1 - fair)``, 0 = the stronger side wins only its fair share,
  1 = it wins every game, so lineups and player counts compare on one scale.
* **Skill depth** (the one-number summary), per player count: the mean edge over the cells
  of *adjacent* rungs (both lineups at 3-4 players).  With it the summary rows give the
  mean win share of the stronger player over adjacent rungs per lineup.

``search`` is slow, so cells that seat a search rung play ``search_games`` deals (default:
as many as the others) and the rung's budget is its spec (``search:N``); the document
records both.  The matrix is a tidy table stored as JSON (``write_matrix``), read back by
the report's skill-depth section (``read_matrix``, which refuses a tampered document).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from bonfire_sim.analysis.intervals import Z95, se_from_interval, wilson
from bonfire_sim.config import check_count, check_overrides, check_seed
from bonfire_sim.errors import ConfigError, DataError
from bonfire_sim.studies.ladder import GameResult, Rules, play_plan, seatings

DEFAULT_RUNGS: tuple[str, ...] = ("random", "portal", "tuned", "search:16")
# (stronger seats, weaker seats) per player count: the lone stronger player against a
# weaker field, and a stronger field against one weaker player.
LINEUPS: dict[int, tuple[tuple[int, int], ...]] = {
    2: ((1, 1),), 3: ((1, 2), (2, 1)), 4: ((1, 3), (3, 1))}
FORMAT = "bonfire_sim-skill-depth"
VERSION = 1
CELL_COLUMNS = ("players", "lineup", "stronger", "weaker", "rung_gap", "strong_seats",
                "deals", "games", "wins", "share", "lo", "hi", "fair", "edge")


@dataclass(frozen=True)
class SkillConfig:
    """What a skill-depth matrix plays: rungs (weakest first), player counts, deals per
    cell (``search_games`` for cells with a search rung), seed and the game's rules."""

    rungs: tuple[str, ...] = DEFAULT_RUNGS
    players: tuple[int, ...] = (2, 4)
    games: int = 100
    search_games: int | None = None
    seed: int = 1
    overrides: Mapping[str, Any] = field(default_factory=dict)
    variants: Mapping[str, str] = field(default_factory=dict)

    def check(self) -> SkillConfig:
        """The checked config (``ConfigError`` names the first bad setting)."""
        from bonfire_sim.rules import components as C
        from bonfire_sim.strategies.specs import parse_player

        rungs = tuple(self.rungs)
        if len(rungs) < 2:
            raise ConfigError("a skill-depth matrix needs at least 2 rungs, weakest first")
        if len(set(rungs)) < len(rungs):
            raise ConfigError(f"a rung is listed twice in {', '.join(rungs)}")
        for r in rungs:
            parse_player(r)
        counts = tuple(self.players)
        if not counts or any(isinstance(n, bool) or n not in LINEUPS for n in counts):
            raise ConfigError(f"skill-depth player counts must be 2, 3 or 4, got {counts}")
        if len(set(counts)) < len(counts):
            raise ConfigError(f"a player count is listed twice: {counts}")
        check_count("games", self.games)
        if self.search_games is not None:
            check_count("search games", self.search_games)
        variants = dict(self.variants)
        C.resolve_variants(variants)  # an unknown fact or reading is refused
        return SkillConfig(rungs, counts, self.games, self.search_games,
                           check_seed(self.seed), check_overrides(dict(self.overrides)),
                           variants)

    @property
    def rules(self) -> Rules:
        return Rules(dict(self.overrides), dict(self.variants))

    def deals(self, weaker: str, stronger: str) -> int:
        """Deals a cell plays: fewer where a (slow) search rung sits, if asked."""
        if self.search_games is not None and (is_search(weaker) or is_search(stronger)):
            return self.search_games
        return self.games


def is_search(spec: str) -> bool:
    from bonfire_sim.strategies.specs import parse_player

    return parse_player(spec).kind == "search"


def lineup_name(strong: int, weak: int) -> str:
    return "1 vs 1" if strong == weak == 1 else (
        f"1 stronger vs {weak} weaker" if strong == 1 else f"{strong} stronger vs 1 weaker")


def cell_plan(config: SkillConfig, players: int) -> list[tuple[int, tuple[str, ...]]]:
    """(deal, seat order) of every game at one player count: pairs x lineups x deals x
    seat orders, so each rung sits in each seat equally often on the same deals."""
    plan = []
    rungs = config.rungs
    for j, stronger in enumerate(rungs):
        for weaker in rungs[:j]:
            for strong, weak in LINEUPS[players]:
                orders = seatings((stronger,) * strong + (weaker,) * weak)
                for deal in range(config.deals(weaker, stronger)):
                    plan += [(deal, order) for order in orders]
    return plan


def stronger_wins(result: GameResult, stronger: str) -> float:
    """The stronger side's share of one game's win (a win shared by k seats counts 1/k)."""
    winners = sum(result.won)
    if not winners:
        return 0.0
    return sum(w for w, s in zip(result.won, result.strategies, strict=True)
               if s == stronger) / winners


def cells(results: Sequence[GameResult], config: SkillConfig, players: int) -> pd.DataFrame:
    """The matrix cells at one player count from its games (tidy: ``CELL_COLUMNS``)."""
    rank = {r: i for i, r in enumerate(config.rungs)}
    acc: dict[tuple[str, str, int], list[float]] = {}
    deals: dict[tuple[str, str, int], set[int]] = {}
    for r in results:
        names = sorted(set(r.strategies), key=rank.__getitem__)
        weaker, stronger = names
        key = (stronger, weaker, r.strategies.count(stronger))
        acc.setdefault(key, []).append(stronger_wins(r, stronger))
        deals.setdefault(key, set()).add(r.deal)
    rows = []
    for (stronger, weaker, strong), wins in acc.items():
        n, k = len(wins), float(sum(wins))
        fair = strong / players
        share = k / n
        lo, hi = (float(v) for v in wilson(k, n))
        lo, hi = min(lo, share), max(hi, share)  # rounding put a 100% share above 1 - 1e-16
        rows.append({"players": players, "lineup": lineup_name(strong, players - strong),
                     "stronger": stronger, "weaker": weaker,
                     "rung_gap": rank[stronger] - rank[weaker], "strong_seats": strong,
                     "deals": len(deals[(stronger, weaker, strong)]), "games": n, "wins": k,
                     "share": share, "lo": lo, "hi": hi, "fair": fair,
                     "edge": (share - fair) / (1 - fair)})
    return pd.DataFrame(rows, columns=list(CELL_COLUMNS))


def summary(matrix: pd.DataFrame) -> pd.DataFrame:
    """Per player count and lineup: the mean win share of the stronger player over adjacent
    rungs against its fair share, and the mean edge; the ``all lineups`` row per count is
    the skill depth (mean edge over every adjacent-rung cell of that count)."""
    adj = matrix[matrix["rung_gap"] == 1]
    rows = []
    for n, g in adj.groupby("players", sort=True):
        for lineup, h in g.groupby("lineup", sort=False):
            rows.append({"players": int(n), "lineup": lineup, "cells": len(h),
                         "mean_share": float(h["share"].mean()), "fair": float(h["fair"].iloc[0]),
                         "edge": float(h["edge"].mean()),
                         "ordered": int((h["lo"] > h["fair"]).sum())})
        rows.append({"players": int(n), "lineup": "all lineups", "cells": len(g),
                     "mean_share": math.nan, "fair": math.nan,
                     "edge": float(g["edge"].mean()), "ordered": int((g["lo"] > g["fair"]).sum())})
    return pd.DataFrame(rows, columns=["players", "lineup", "cells", "mean_share", "fair",
                                       "edge", "ordered"])


def depth_interval(matrix: pd.DataFrame) -> pd.DataFrame:
    """Per player count: the skill depth with a normal 95% interval (each adjacent cell's
    edge has the standard error of its Wilson interval / (1 - fair); cells independent)."""
    adj = matrix[matrix["rung_gap"] == 1]
    rows = []
    for n, g in adj.groupby("players", sort=True):
        se = se_from_interval(g["lo"], g["hi"]) / (1 - g["fair"])
        depth, half = float(g["edge"].mean()), Z95 * math.sqrt(float((se ** 2).sum())) / len(g)
        rows.append({"players": int(n), "depth": depth, "lo": depth - half,
                     "hi": depth + half, "se": half / Z95})
    return pd.DataFrame(rows, columns=["players", "depth", "lo", "hi", "se"])


def compare_depth(matrix: pd.DataFrame, meta: Mapping[str, Any], base: pd.DataFrame,
                  base_meta: Mapping[str, Any]) -> pd.DataFrame:
    """Skill depth of ``matrix`` against a baseline matrix, per player count both have:
    both values and their difference with a 95% interval (independent normal errors; on
    the same seed the deals are shared, so this interval is conservative).  The two must
    have the same rungs: another ladder measures another thing."""
    if list(meta.get("rungs", [])) != list(base_meta.get("rungs", [])):
        raise ConfigError(f"the baseline's rungs {base_meta.get('rungs')} differ from "
                          f"{meta.get('rungs')}: compare matrices of the same rungs")
    a, b = depth_interval(matrix), depth_interval(base)
    both = a.merge(b, on="players", suffixes=("", "_base"))
    diff = both["depth"] - both["depth_base"]
    half = Z95 * (both["se"] ** 2 + both["se_base"] ** 2) ** 0.5
    return pd.DataFrame({"players": both["players"], "depth": both["depth"],
                         "baseline": both["depth_base"], "difference": diff,
                         "lo": diff - half, "hi": diff + half})


def skill_matrix(config: SkillConfig, *, jobs: int = 1,
                 progress: Callable[[int, int], None] | None = None,
                 status: Callable[[str], None] | None = None) -> dict[str, Any]:
    """Play every cell and return the matrix document (``write_matrix`` stores it).

    Same config and seed give the same document whatever ``jobs`` (games depend only on
    their deal and seat order), apart from ``meta.seconds``.
    """
    from bonfire_sim import __version__
    from bonfire_sim.infra._jitcache import source_hash
    from bonfire_sim.sim.warm import ensure_warm

    config = config.check()
    ensure_warm(status)  # compiling is not playing: the recorded time leaves it out
    plans = {n: cell_plan(config, n) for n in config.players}
    total = sum(len(p) for p in plans.values())
    done = 0
    frames = []
    start = time.perf_counter()
    for n in config.players:
        def step(k: int, _total: int, base: int = done) -> None:
            if progress is not None:
                progress(base + k, total)

        results = play_plan(config.rungs, n, config.seed, plans[n], progress=step, jobs=jobs,
                            status=status, rules=config.rules)
        done += len(plans[n])
        frames.append(cells(results, config, n))
    matrix = pd.concat(frames, ignore_index=True)
    return {"format": FORMAT, "version": VERSION,
            "meta": {"rungs": list(config.rungs), "players": list(config.players),
                     "games": config.games, "search_games": config.search_games,
                     "seed": config.seed, "overrides": dict(config.overrides),
                     "variants": dict(config.variants), "games_played": total,
                     "seconds": round(time.perf_counter() - start, 1),
                     "engine": source_hash(), "version": __version__},
            "cells": matrix.to_dict(orient="records"),
            "summary": summary(matrix).to_dict(orient="records")}


def write_matrix(path: str | Path, doc: Mapping[str, Any]) -> Path:
    """Store the matrix document as strict JSON through the one atomic writer."""
    from bonfire_sim.infra import fileio

    clean = {**doc, "summary": [{k: (None if isinstance(v, float) and math.isnan(v) else v)
                                 for k, v in row.items()} for row in doc["summary"]]}
    return fileio.write_json(path, clean)


def read_matrix(path: str | Path) -> tuple[dict[str, Any], pd.DataFrame, pd.DataFrame]:
    """(meta, cells, summary) of a stored matrix; ``DataError`` for anything else (not
    JSON, another document, missing or non-finite figures, a share outside its interval).
    The summary is recomputed from the cells, so an edited summary cannot disagree."""
    from bonfire_sim.infra import readers

    try:
        doc = readers.parse_json(readers.read_bytes(path, "skill-depth file"), path)
    except FileNotFoundError:
        raise DataError(f"skill-depth file {path} not found") from None
    except (OSError, ValueError) as e:
        raise DataError(f"{path} is unreadable or not JSON ({e})") from None
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        raise DataError(f"{path} is not written by bonfire-sim ladder --skill-depth")
    if doc.get("version") != VERSION:
        raise DataError(f"{path}: unknown skill-depth document version {doc.get('version')!r}")
    if not isinstance(doc.get("meta"), dict):
        raise DataError(f"{path}: the skill-depth document holds no meta table")
    rows = doc.get("cells")
    if not isinstance(rows, list) or not rows or not all(isinstance(r, dict) for r in rows):
        raise DataError(f"{path}: the skill-depth document holds no cells")
    try:
        matrix = pd.DataFrame(rows, columns=list(CELL_COLUMNS))
        numbers = matrix.drop(columns=["lineup", "stronger", "weaker"]).astype(float)
    except (TypeError, ValueError) as e:
        raise DataError(f"{path}: a cell holds a non-number ({e})") from None
    ok = (numbers.notna().all(axis=1) & numbers.abs().lt(float("inf")).all(axis=1)
          & (numbers["games"] >= 1) & numbers["share"].between(0, 1)
          & (numbers["lo"] <= numbers["share"] + 1e-9)
          & (numbers["share"] <= numbers["hi"] + 1e-9)
          & numbers["players"].isin(list(LINEUPS)))
    if not ok.all():
        bad = int((~ok).to_numpy().nonzero()[0][0])
        raise DataError(f"{path}: cell {bad} is not a valid win share (missing, non-finite or "
                        f"outside its interval)")
    for c in ("players", "rung_gap", "strong_seats", "deals", "games"):
        matrix[c] = numbers[c].astype(int)
    for c in ("wins", "share", "lo", "hi", "fair", "edge"):
        matrix[c] = numbers[c]
    return doc["meta"], matrix, summary(matrix)


def describe(meta: Mapping[str, Any]) -> str:
    """One line: rungs, deals per cell (search cells), seed, rules, games, time."""
    rules = ", ".join([f"{k} = {v}" for k, v in (meta.get("variants") or {}).items()]
                      + [f"{k} = {v}" for k, v in (meta.get("overrides") or {}).items()])
    search = (f" ({meta['search_games']} in cells with a search rung)"
              if meta.get("search_games") is not None else "")
    return (f"rungs {' < '.join(map(str, meta.get('rungs', [])))}; {meta.get('games')} deals "
            f"per cell{search}, every seat order; seed {meta.get('seed')}; rules: "
            f"{rules or 'the game as printed'}; {_count(meta.get('games_played'))} games in "
            f"{meta.get('seconds', '?')} s")


def _count(v: Any) -> str:
    return f"{v:,}" if isinstance(v, int) else "?"
