"""``bonfire-sim strength FILE.toml``: play the strength ladder, measure, report.

A strength-ladder file (``experiments/strength-ladder.toml``)::

    [strength]
    players = [2, 3, 4]        # multiplayer counts (solo is played per Tom deck)
    games = 600                # seat-rotated games per fast rung and count
    search_games = 24          # the same for the search rung (slow), or "auto"
    solo_games = 600           # solo games per fast rung and Tom deck
    search_solo_games = 24     # the same where the solo player searches, or "auto"
    pilot_games = 48           # "auto": the pilot run that measures the widths
    search_max_games = 1500    # "auto": the most games a sized run may play
    search_budget = 8          # the search rung is search:8
    probe_games = 0            # forked games per run for the card values (0: none)
    card_budget = 4            # the search rung's card forks at search:4 (0: its own)
    decks = ["task1", "gnome", "path", "guardian"]
    seed = 35
    out = "runs/strength-ladder"
    jobs = 2

    [report]
    out = "reports/strength-ladder.html"
    title = "Answers against strength"

Writes the runs under ``out/rung=<name>/`` (sized runs under ``.../sized/``), the tidy
answers (``answers.csv``), their marks (``marks.csv``), the games each sized figure needs
(``sizing.csv``, with ``"auto"``), whether the cards keep their order from the rung below
the top to the top (``card-agreement.csv``, with ``probe_games``) and the ladder's
description (``ladder.json``) in ``out``, and the report page.  Every value is checked
before a game is played; paths stay inside the folder the command is run from.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import pandas as pd

from bonfire_sim.config import check_count, check_seed, read_toml
from bonfire_sim.errors import ConfigError
from bonfire_sim.infra import fileio, safepaths
from bonfire_sim.report import strength as RS
from bonfire_sim.studies import strength as ST
from bonfire_sim.studies import strength_sizing as SZ

KEYS = {"strength": {"players", "games", "search_games", "solo_games", "search_solo_games",
                     "search_budget", "probe_games", "decks", "seed", "out", "jobs",
                     "pilot_games", "search_max_games", "card_budget"},
        "report": {"out", "title"}}


@dataclass(frozen=True)
class StrengthFile:
    """A checked strength-ladder file."""

    config: ST.StrengthConfig
    out: Path
    report: Path
    title: str
    jobs: int


def _int(where: str, value: Any, lo: int = 0, hi: int = 10**6) -> int:
    return check_count(where, value, lo, hi)


def read_strength_file(path: str | Path) -> StrengthFile:
    """The checked file, or one ``ConfigError`` naming the file and the bad value."""
    doc = read_toml(path, "strength-ladder file")
    where = str(path)
    for table, allowed in KEYS.items():
        part = doc.get(table, {})
        if not isinstance(part, dict):
            raise ConfigError(f"{where}: [{table}] must be a table")
        extra = sorted(set(part) - allowed)
        if extra:
            raise ConfigError(f"{where}: unknown key(s) {', '.join(extra)} in [{table}]; "
                              f"known: {', '.join(sorted(allowed))}")
    unknown = sorted(set(doc) - set(KEYS))
    if unknown:
        raise ConfigError(f"{where}: unknown table(s) {', '.join(unknown)}; known: "
                          f"[strength], [report]")
    s, r = doc.get("strength", {}), doc.get("report", {})
    players = s.get("players", [2, 3, 4])
    decks = s.get("decks", list(ST.DECKS))
    if not isinstance(players, list):
        raise ConfigError(f"{where}: strength.players must be a list such as [2, 3, 4]")
    if not isinstance(decks, list) or not all(isinstance(d, str) for d in decks):
        raise ConfigError(f"{where}: strength.decks must be a list of Tom deck names "
                          f"({', '.join(ST.DECKS)})")
    if not players and not decks:  # [] for one of them: a ladder of the other alone
        raise ConfigError(f"{where}: the ladder measures nothing: give strength.players "
                          f"(such as [2, 3, 4]) or strength.decks (such as [\"task1\"])")
    counts: dict[str, Any] = {k: _int(f"{where}: strength.{k}", s[k]) for k in
              ("games", "solo_games", "probe_games", "pilot_games", "search_max_games")
              if k in s}
    for k in ("search_games", "search_solo_games"):
        if k in s:
            counts[k] = ST.AUTO if s[k] == ST.AUTO else _int(
                f"{where}: strength.{k} (a whole number or \"auto\")", s[k])
    if counts.get("pilot_games") == 0:
        raise ConfigError(f"{where}: strength.pilot_games must be at least 1")
    config = replace(ST.StrengthConfig(
        players=tuple(_int(f"{where}: strength.players", n, 2, 4) for n in players),
        decks=tuple(decks),
        search_budget=_int(f"{where}: strength.search_budget", s.get("search_budget", 8),
                           1, 4096),
        card_budget=_int(f"{where}: strength.card_budget", s.get("card_budget", 0), 0, 4096),
        seed=check_seed(s.get("seed", 35), f"{where}: strength.seed")), **counts)
    base = Path.cwd()
    out = safepaths.within(base, s.get("out", "runs/strength-ladder"), where, "strength.out")
    report = safepaths.within(base, r.get("out", "reports/strength-ladder.html"), where,
                              "report.out")
    title = r.get("title", RS.TITLE)
    if not isinstance(title, str):
        raise ConfigError(f"{where}: report.title must be a string")
    jobs = _int(f"{where}: strength.jobs", s.get("jobs", 1), 1, 256)
    return StrengthFile(config, Path(out), Path(report), title, jobs)


def describe(config: ST.StrengthConfig,
             played: Mapping[str, Mapping[str, int]] | None = None) -> dict[str, Any]:
    """The ladder as stored next to the answers (``ladder.json``) and printed: per rung
    its players and games (``games`` at the largest player count, ``solo_games`` per Tom
    deck; ``sized``: the sized runs' games by setting, from ``SZ.top_up``)."""
    seen: dict[tuple[str, ...], str] = {}
    played = played or {}
    rungs = []
    for rung in config.rungs:
        same = seen.setdefault(tuple(rung.seats), rung.name)
        sized = dict(played.get(rung.name, {}))
        if same != rung.name:  # the reused rung's sized games are this rung's too
            sized.update({k: v for k, v in played.get(same, {}).items()
                          if k.startswith("players=")})
        rungs.append({"name": rung.name, "seats": list(rung.seats), "solo": rung.solo,
                      "games": (config.games_for(rung, max(config.players))
                                if config.players else 0),
                      "solo_games": config.solo_for(rung),
                      "sized": sized,
                      "same_as": same if same != rung.name else None})
    return {"rungs": rungs, "players": list(config.players), "decks": list(config.decks),
            "seed": config.seed, "probe_games": config.probe_games,
            "card_budget": config.card_budget,
            "search_budget": config.search_budget,
            "search_games": config.search_games,
            "search_solo_games": config.search_solo_games,
            "pilot_games": config.pilot_games,
            "search_max_games": config.search_max_games, "aim": SZ.AIM}


def run_strength(file: StrengthFile, *, progress: Callable[[int, int], None] | None = None,
                 status: Callable[[str], None] | None = None,
                 quiet: bool = True) -> tuple[pd.DataFrame, Path]:
    """Play (or resume) the ladder, measure the answers, write the tables and the page;
    returns (the tidy answers, the page's path).  ``quiet=False`` shows the card
    surveys' progress (forks are cached, so a survey interrupted resumes)."""
    fileio.check_output_file(file.report)
    dirs = ST.play_ladder(file.config, file.out, jobs=file.jobs, progress=progress,
                          status=status)
    dirs, needs, played = SZ.top_up(file.config, dirs, file.out, jobs=file.jobs,
                                    progress=progress, status=status)
    # the card tables once, for the card rows and for the cards' order
    tables = (ST.ladder_card_tables(dirs, file.config.probe_games, file.jobs,
                                    config=file.config, quiet=quiet, status=status)
              if file.config.probe_games else {})
    answers = ST.strength_answers(dirs, tables=tables)
    meta = describe(file.config, played)
    agree = ST.card_agreement(tables, seed=file.config.seed)
    write_tables(file.out, answers, meta, needs, agree)
    return answers, RS.write_page(file.report, answers, meta, file.title, needs=needs,
                                  agreement=agree)


def write_tables(out: Path, answers: pd.DataFrame, meta: Mapping[str, Any],
                 needs: pd.DataFrame | None = None,
                 agreement: pd.DataFrame | None = None) -> None:
    """``answers.csv``, ``marks.csv``, ``ladder.json``, (sized ladders) ``sizing.csv`` and
    (with card values) ``card-agreement.csv`` in the ladder's folder."""
    fileio.write_text(out / "answers.csv", answers.to_csv(index=False))
    fileio.write_text(out / "marks.csv", SZ.with_costs(ST.marks(answers), needs)
                      .to_csv(index=False))
    fileio.write_text(out / "ladder.json", json.dumps(meta, indent=1, sort_keys=True) + "\n")
    if needs is not None and not needs.empty:
        fileio.write_text(out / "sizing.csv", needs.to_csv(index=False))
    if agreement is not None and not agreement.empty:
        fileio.write_text(out / "card-agreement.csv", agreement.to_csv(index=False))
