"""The check's second look: task rows it cannot resolve get more forks before the verdict.

A check round (``reprice --verify``'s and the errata sheet's) says per re-priced card and
player count whether the card's surplus lies within ± margin on fresh deals: ``within``
only when the row is measured and its whole 95% interval lies inside (``window.verdict``),
``off`` when the interval lies wholly beyond.  A row whose interval crosses the margin is
neither a pass nor a failure, so instead of reading its point estimate the check forks
that card again at that count on new deals (the seeds after the check's), twice the games
of the previous look each time, at most ``CHECK_TOP_UPS`` times, and the verdict rests on
all its forks (the check's and every top-up's, clustered by seed and deal).  A row still
open after them is reported as unresolved, with its forks and the interval left.

One home for the step: ``price._check`` (``reprice --verify``) and the errata sheet's check
round (``errata_measure.fresh_measure``) both call ``top_up_check`` with their own way of
playing more forks (``MoreFn``) and of reading a card table from forks.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import pandas as pd

from bonfire_sim.analysis.cards.window import verdict

CHECK_TOP_UPS = 2  # more forks for check rows whose interval crosses the margin, at most

# ({players: the cards open at that count}, seed, games) -> the fork table of those cards
# on ``games`` new games of ``seed`` (``probe_values`` rows with a ``cluster`` column)
MoreFn = Callable[[Mapping[int, Sequence[str]], int, int], pd.DataFrame]


@dataclass(frozen=True)
class TopUp:
    """One top-up of a check: its ``seed`` and ``games`` per count, and the ``rows``
    (card, players) it forked again because their interval crossed the margin."""

    seed: int
    games: int
    rows: tuple[tuple[str, int], ...]

    def to_json(self) -> dict[str, Any]:
        return {"seed": self.seed, "games": self.games,
                "rows": [[c, n] for c, n in self.rows]}


def open_rows(table: pd.DataFrame, cards: Sequence[str], margin: float) -> dict[int, list[str]]:
    """Per player count, the ``cards`` whose task row the check cannot resolve against
    ± ``margin`` (``verdict`` ``unresolved``: not measured, or the interval crosses it)."""
    t = table[table["card"].isin(list(cards)) & (table["kind"] == "task")]
    t = t[verdict(t, margin) == "unresolved"]
    out: dict[int, list[str]] = {}
    for n, g in t.groupby("players", sort=True):
        out[int(n)] = sorted(str(c) for c in g["card"].unique())
    return out


def top_up_check(forks: pd.DataFrame, table_of: Callable[[pd.DataFrame], pd.DataFrame],
                 more: MoreFn, cards: Sequence[str], margin: float, seed: int, games: int,
                 *, top_ups: int = CHECK_TOP_UPS,
                 note: Callable[[str], None] | None = None,
                 ) -> tuple[pd.DataFrame, pd.DataFrame, list[TopUp]]:
    """(the card table, all forks, the top-ups played) of a check whose ``forks`` were
    played on the deals of ``seed``, ``games`` of them per count for the ``cards`` it
    verifies: while some of their rows are unresolved (``open_rows``), at most
    ``top_ups`` times, fork those cards again at those counts on ``more`` games (twice
    the last look's) of the next seed (``seed + 1``, ``seed + 2`` ...), and re-read the
    table (``table_of``) from every fork so far."""
    table = table_of(forks)
    played: list[TopUp] = []
    for k in range(top_ups):
        todo = open_rows(table, cards, margin)
        if not todo:
            break
        games *= 2
        s = seed + 1 + k
        rows = tuple((c, n) for n, cs in sorted(todo.items()) for c in cs)
        if note:
            note(f"check: {len(rows)} row(s) unresolved (interval across ±{margin:g}): "
                 f"{games:,} more games of forks for "
                 + ", ".join(f"{c} at {n}p" for c, n in rows) + f" (seed {s})")
        forks = pd.concat([forks, more(todo, s, games)], ignore_index=True)
        table = table_of(forks)
        played.append(TopUp(s, games, rows))
    return table, forks, played
