"""The check's second look: task rows it cannot resolve get more forks before the verdict.

A check round (``reprice --verify``'s and the errata sheet's) says per re-priced card and
player count whether the card's surplus lies within ± margin on fresh deals: ``within``
only when the row is measured and its whole 95% interval lies inside (``window.verdict``),
``off`` when the interval lies wholly beyond.  A row whose interval crosses the margin is
neither a pass nor a failure, so instead of reading its point estimate the check forks
that card again at that count on new deals (the seeds after the check's), at most
``CHECK_TOP_UPS`` looks, and the verdict rests on all its forks (the check's and every
look's, clustered by seed and deal).  A row still open after them is reported as
unresolved, with its forks and the interval left.

**Each look doubles.**  Every open row is forked again on twice the last look's games
(the check's ``games`` x 2, x 4, x 8 ...).  Looks sized to each row's gap to the margin
were measured and dropped (commit e93b797 and before: ``SIZED``): a row's ask rests on its
point estimate, mostly noise at the check, so on the example sheet they verified 2 and 4
task lines of 24 (row caps 16 and 32) where doubling verified 6 (B9 at 4 players read near
-1 at the check, asked 671,703 games and was held; doubling gave it 10,758 forks and
verified it).  A row not measured is doubled like the rest.

**A last look for rows the reference moved.**  A sharper reference moves every row of its
tier, including rows resolved at the look before (on the example sheet R22 and Y14 at 3
players crossed the margin after the final top-up).  After the ``CHECK_TOP_UPS`` looks,
one more (seed ``CHECK_SEEDS`` after the check's) takes the rows open now that were not
open when the last look was planned, on the next doubling of games.  Its own forks can move its
tier's other rows again; that is not chased further (a row it moves is reported as it
stands, with its interval).

**The reference is topped up too.**  A row's surplus is its value minus the leave-one-out
mean of its tier (``table._relative``), so its variance is var_i + sum_{j != i} var_j /
(m-1)^2: the card's own term and the reference's.  Forking only the open card shrinks only
the first; on the example sheet (B9 at 4 players) the reference was 10% of the variance
on the check's forks, 26% after one top-up, 47% after two and 66% after a third, whose
2.16x forks of B9 took its half-width only from 0.45 to 0.38 (0.22 without the
reference).  So each top-up also forks the *other* cards of each open row's tier at that
count, on the first ``y`` games of the same new seed (the open cards' games begin with the
same deals; every tier card stands at its new print there, never the pre-change survey's).
``y`` is the marginal rule of a fixed budget: with ``x`` own games at this look (the
row's games at this look), a reference game costs ``c`` card forks (the ``c`` cards forked) and buys
``-dR/dy``, an own game costs one and buys ``V_i a / (a + x)^2`` (``a``: the card's games
so far); ``y`` minimises R(y) + c y V_i a / (a + x)^2 on a grid of 0..x games, so the
reference gets games exactly while a reference fork buys more than the card's own last
fork (where the two terms are alike, after the top-up the reference term is about the
card's own).  Each card's term is predicted from its games so far (its variance falls as
1 / games): the check's ``games`` for the cards it verifies, ``base_games`` for the rest.
Several open rows of one tier and count share one reference: it gets the largest ``y``
any of them asks (each row's ``y`` from its own ``x``).

One home for the step: ``price._check`` (``reprice --verify``) and the errata sheet's check
round (``errata_measure.fresh_measure``) both call ``top_up_check`` with their own way of
playing more forks (``MoreFn``) and of reading a card table from forks.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from bonfire_sim.analysis.cards.table import MIN_DEALS
from bonfire_sim.analysis.cards.window import verdict
from bonfire_sim.analysis.intervals import t95

# More forks for check rows whose interval crosses the margin, at most.  Three since the
# reference is topped up too: on the example sheet a third look of B9's forks alone left
# all 9 open task lines open (the reference term had become 53-66% of their variance);
# with its reference it verified B9 and Y10 (24 lines: 6 verified, 7 open, 11 off).
CHECK_TOP_UPS = 3
# Seeds a check's looks may take after its own: the top-ups, then the last look for rows
# the sharper reference moved across after theirs.
CHECK_SEEDS = CHECK_TOP_UPS + 1
GRID = 64  # the reference's games are chosen among x * k / GRID, k = 0 .. GRID

# ({players: the cards open at that count}, seed, games) -> the fork table of those cards
# on ``games`` new games of ``seed`` (``probe_values`` rows with a ``cluster`` column)
MoreFn = Callable[[Mapping[int, Sequence[str]], int, int], pd.DataFrame]


@dataclass(frozen=True)
class Reference:
    """The reference forks of one top-up: the ``cards`` of tier ``group`` at ``players``
    forked on the first ``games`` games of the top-up's seed, for the open ``rows``."""

    players: int
    group: str
    games: int
    cards: tuple[str, ...]
    rows: tuple[str, ...]

    def to_json(self) -> dict[str, Any]:
        return {"players": self.players, "group": self.group, "games": self.games,
                "cards": list(self.cards), "rows": list(self.rows)}


@dataclass(frozen=True)
class TopUp:
    """One look of a check: its ``seed``, the largest ``games`` it played, the ``rows``
    (card, players) it forked again because their interval crossed the margin, each on
    each on ``games`` of them, the ``reference`` forks of their tiers on the same seed,
    and whether it is the ``last`` look (for rows the sharper reference moved across
    after theirs)."""

    seed: int
    games: int
    rows: tuple[tuple[str, int], ...]
    reference: tuple[Reference, ...] = ()
    last: bool = False

    def to_json(self) -> dict[str, Any]:
        return {"seed": self.seed, "games": self.games,
                "rows": [[c, n] for c, n in self.rows],
                "reference": [r.to_json() for r in self.reference], "last": self.last}


def open_rows(table: pd.DataFrame, cards: Sequence[str], margin: float) -> dict[int, list[str]]:
    """Per player count, the ``cards`` whose task row the check cannot resolve against
    ± ``margin`` (``verdict`` ``unresolved``: not measured, or the interval crosses it)."""
    t = table[table["card"].isin(list(cards)) & (table["kind"] == "task")]
    t = t[verdict(t, margin) == "unresolved"]
    out: dict[int, list[str]] = {}
    for n, g in t.groupby("players", sort=True):
        out[int(n)] = sorted(str(c) for c in g["card"].unique())
    return out


def _variances(tier: pd.DataFrame) -> pd.Series:
    """Per card of one tier and count: the squared standard error of its value (from its
    95% t interval on its deals), NaN where the row is not in the tier's reference."""
    q = t95(np.maximum(tier["deals"].astype(float) - 1, 1))
    se = (tier["hi"].astype(float) - tier["lo"].astype(float)) / (2 * q)
    ok = tier["value"].notna() & np.isfinite(se) & (tier["deals"] >= MIN_DEALS)
    return pd.Series(np.where(ok, se ** 2, np.nan), index=tier["card"].astype(str))


def reference_games(var: Mapping[str, float], card: str, opened: Sequence[str],
                    seen: Mapping[str, int], x: int) -> int:
    """The games (0 .. ``x``, on a grid of ``x / GRID``) on which the reference cards of
    ``card``'s tier are forked at this top-up: those minimising the row's predicted
    reference term R(y) plus the cost of its forks valued at the card's own marginal
    variance per game (module docstring).  ``var``: the squared standard error of every
    card of the tier (NaN: not in the reference); ``opened``: the open cards of the
    tier, which get ``x`` games anyway; ``seen``: the games each card has had so far.
    Only the reference cards not open are forked: each reference game costs one fork of
    each."""
    vi = float(var.get(card, np.nan))
    if not np.isfinite(vi) or x <= 0:
        return 0
    others = {c: float(v) for c, v in var.items() if c != card and np.isfinite(v)}
    if not others:
        return 0
    m1 = len(others)
    fixed = sum(v * seen[c] / (seen[c] + x) for c, v in others.items() if c in opened)
    refs = [(v, seen[c]) for c, v in others.items() if c not in opened]
    if not refs:
        return 0
    cost = len(refs)  # the cards forked for it (card forks per reference game)
    a = seen[card]
    price = vi * a / (a + x) ** 2  # what one more own game would buy
    ys = np.arange(GRID + 1) * x / GRID
    ref = (fixed + sum(v * b / (b + ys) for v, b in refs)) / m1 ** 2
    best = int(np.argmin(ref + price * cost * ys))
    return int(np.ceil(ys[best]))


def _reference_plan(table: pd.DataFrame, todo: Mapping[tuple[str, int], int],
                    seen: Mapping[tuple[str, int], int]) -> list[Reference]:
    """The reference forks of one top-up: per count and tier holding open rows (``todo``:
    each row's own games at this look), the largest ``reference_games`` any of them asks,
    for the tier's cards not open."""
    if not {"group", "lo", "hi", "deals", "value"} <= set(table.columns):
        return []  # a table without tiers (a model's): nothing to refer to
    tasks = table[table["kind"] == "task"]
    out = []
    for n in sorted({n for _, n in todo}):
        opened = [c for c, m in todo if m == n]
        at = tasks[tasks["players"] == n]
        for group in sorted({str(g) for g in at.loc[at["card"].isin(opened), "group"]}):
            tier = at[at["group"] == group]
            var = _variances(tier).to_dict()
            here = [c for c in opened if c in var]
            own = {c: seen[(c, n)] for c in var}
            y = max(reference_games(var, c, here, own, todo[(c, n)]) for c in here)
            # the cards of its reference (a row on too few deals is in none: forking
            # it would change what the surplus is measured against, not sharpen it)
            cards = tuple(sorted(c for c, v in var.items() if c not in here
                                 and np.isfinite(v)))
            if y > 0 and cards:
                out.append(Reference(int(n), group, y, cards, tuple(here)))
    return out


def top_up_check(forks: pd.DataFrame, table_of: Callable[[pd.DataFrame], pd.DataFrame],
                 more: MoreFn, cards: Sequence[str], margin: float, seed: int, games: int,
                 *, top_ups: int = CHECK_TOP_UPS, base_games: int | None = None,
                 note: Callable[[str], None] | None = None,
                 ) -> tuple[pd.DataFrame, pd.DataFrame, list[TopUp]]:
    """(the card table, all forks, the top-ups played) of a check whose ``forks`` were
    played on the deals of ``seed``, ``games`` of them per count for the ``cards`` it
    verifies and ``base_games`` (None: ``games``) for every other card: while some of
    their rows are unresolved (``open_rows``), at most ``top_ups`` times, fork each such
    row again on twice the last look's games of the next seed (``seed + 1``, ``seed + 2``
    ...), their tiers' other cards on the first games of it that the reference is worth
    (``reference_games``), and re-read the table (``table_of``) from every fork so far.
    Then one last look (seed ``seed + 1 + top_ups``) for the rows that were resolved at
    the last look and are open now: the sharper reference moved them across."""
    table = table_of(forks)
    played: list[TopUp] = []
    focus = set(cards)
    start = games if base_games is None else base_games
    seen: dict[tuple[str, int], int] = {}
    for c, n in zip(table["card"].astype(str), table["players"].astype(int), strict=True):
        seen[(c, n)] = games if c in focus else start
    before = {(c, n) for n, cs in open_rows(table, cards, margin).items() for c in cs}
    for k in range(top_ups + 1):
        now = [(c, n) for n, cs in open_rows(table, cards, margin).items() for c in cs]
        why = "interval across"
        if k == top_ups:  # the last look: only the rows the reference moved across
            now = [r for r in now if r not in before]
            why = "moved across by the sharper reference after their last look"
        if not now:
            break
        x = games * 2 ** (k + 1)
        todo = dict.fromkeys(now, x)
        refs = _reference_plan(table, todo, seen)
        before = set(now)
        s = seed + 1 + k
        if note:
            note(f"check look {k + 1} (seed {s}): {len(now)} row(s) unresolved ({why} "
                 f"±{margin:g}); "
                 + ", ".join(f"{c} at {n}p {x:,} more games" for c, n in now)
                 + "".join(f"; their reference, the {len(r.cards)} other {r.group} "
                           f"card(s) at {r.players}p, on its first {r.games:,} games"
                           for r in refs))
        opened: dict[int, list[str]] = {}
        for c, n in now:
            opened.setdefault(n, []).append(c)
        parts = [forks, more({n: sorted(cs) for n, cs in sorted(opened.items())}, s, x)]
        for y in sorted({r.games for r in refs}):
            same: dict[int, list[str]] = {}
            for r in refs:
                if r.games == y:
                    same.setdefault(r.players, []).extend(r.cards)
            parts.append(more({n: sorted(cs) for n, cs in sorted(same.items())}, s, y))
        forks = pd.concat(parts, ignore_index=True)
        for key in now:
            seen[key] = seen.get(key, start) + x
        for r in refs:
            for c in r.cards:
                seen[(c, r.players)] = seen.get((c, r.players), start) + r.games
        table = table_of(forks)
        rows = tuple(sorted(now, key=lambda r: (r[1], r[0])))
        played.append(TopUp(s, x, rows, tuple(refs), k == top_ups))
    return table, forks, played
