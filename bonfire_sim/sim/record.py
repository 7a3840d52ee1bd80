"""``GameRecord``: one traced game (result + events), and its JSON form.

Kept apart from ``play`` so that reading, narrating or diffing a stored trace never loads
the numba engine: ``GameRecord.from_dict(json.load(f))`` rebuilds a record from its JSON.
The event kinds are documented in ``bonfire_sim.sim.play``.
"""

from __future__ import annotations

import html
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from bonfire_sim.infra import fileio


@dataclass(frozen=True, repr=False)
class GameRecord:
    """One finished game: the result per seat and the event trace (see the module doc)."""

    seed: int
    players: int
    solo: bool
    strategies: tuple[str, ...]  # per seat; "tom" for seat 1 in solo
    scores: tuple[int, ...]
    lines: tuple[dict[str, int], ...]  # per seat: score line name -> points
    ranks: tuple[int, ...]  # 1 = best (ties share a rank)
    won: tuple[bool, ...]
    bonfires: tuple[int, ...]
    end_reason: str  # layout.END_NAMES
    n_turns: int
    n_rounds: int
    trigger_turn: int | None  # turn at which the countdown started, None if never
    n_decisions: int
    events: tuple[dict, ...]

    def __repr__(self) -> str:
        """One line: the result, not the (long) event trace."""
        return (f"GameRecord(seed={self.seed}, players={self.players}, "
                f"strategies={self.strategies}, scores={self.scores}, ranks={self.ranks}, "
                f"end_reason={self.end_reason!r}, n_turns={self.n_turns}, "
                f"events=<{len(self.events)} events>)")

    def _repr_html_(self) -> str:
        """The final scoring table (notebooks show this instead of the trace)."""
        rows = self.table()
        heads = list(rows[0]) if rows else []
        head = "".join(f"<th>{html.escape(str(h))}</th>" for h in heads)
        body = "".join("<tr>" + "".join(f"<td>{html.escape(str(r[h]))}</td>" for h in heads)
                       + "</tr>" for r in rows)
        return (f"<table><caption>seed {self.seed}, {self.players} players, ended by "
                f"{html.escape(self.end_reason)} after {self.n_turns} turns, "
                f"{len(self.events)} events</caption><tr>{head}</tr>{body}</table>")

    def table(self) -> list[dict]:
        """The final scoring table: one row per seat, the score lines, total and rank."""
        return [
            {"seat": seat, "strategy": self.strategies[seat], **self.lines[seat],
             "total": self.scores[seat], "rank": self.ranks[seat]}
            for seat in range(len(self.scores))
        ]

    def result(self) -> dict[str, Any]:
        """Every field but the events, JSON-able."""
        return {
            "seed": self.seed, "players": self.players, "solo": self.solo,
            "strategies": list(self.strategies), "scores": list(self.scores),
            "lines": [dict(x) for x in self.lines], "ranks": list(self.ranks),
            "won": list(self.won), "bonfires": list(self.bonfires),
            "end_reason": self.end_reason, "n_turns": self.n_turns,
            "n_rounds": self.n_rounds, "trigger_turn": self.trigger_turn,
            "n_decisions": self.n_decisions,
        }

    def to_dict(self) -> dict[str, Any]:
        """``{"result": ..., "events": [...]}``, JSON-able."""
        return {"result": self.result(), "events": list(self.events)}

    def to_json(self) -> str:
        """The record as JSON text, one event per line (small, diffable golden files)."""
        return record_json(self.to_dict())

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> GameRecord:
        """Rebuild a record from ``to_dict()`` / ``json.loads(to_json())``."""
        r = data["result"]
        return cls(
            seed=r["seed"], players=r["players"], solo=r["solo"],
            strategies=tuple(r["strategies"]), scores=tuple(r["scores"]),
            lines=tuple(dict(x) for x in r["lines"]), ranks=tuple(r["ranks"]),
            won=tuple(r["won"]), bonfires=tuple(r["bonfires"]), end_reason=r["end_reason"],
            n_turns=r["n_turns"], n_rounds=r["n_rounds"], trigger_turn=r["trigger_turn"],
            n_decisions=r["n_decisions"], events=tuple(data["events"]),
        )


def record_json(data: Mapping[str, Any]) -> str:
    """``{"result": ..., "events": [...]}`` as JSON with one event per line."""
    head = fileio.dumps_json(data["result"], "the game record")
    body = ",\n".join("  " + fileio.dumps_json(e, "the game record", separators=(",", ":"))
                      for e in data["events"])
    return f'{{"result": {head},\n "events": [\n{body}\n ]}}\n'
