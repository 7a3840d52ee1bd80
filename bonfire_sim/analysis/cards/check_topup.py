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

**Each look is sized to what the row needs.**  Doubling the games each look is blind: a
row at -0.78 with half-width 0.30 against a margin of 1 needs its half-width below 0.22,
about twice its games, while a row at -0.97 needs 100 times them.  So a look asks, per open
row, the games that would put its interval on one side of ± margin were its estimate to
stay (``games_to_resolve``: ``intervals.games_needed`` for ``AIM`` of the gap), less its
games so far; rows are served cheapest first within the check's budget (``CHECK_CAP``), and
a row that would need more than its own cap (``ROW_CAP``), or sits on the margin, is held
"at the margin" with what it would need: its interval is reported as it stands, and its
forks go to the rows they can resolve.  A row not measured asks as many games again.

**A last look for rows the reference moved.**  A sharper reference moves every row of its
tier, including rows resolved at the look before (on the example sheet R22 and Y14 at 3
players crossed the margin after the final top-up).  After the ``CHECK_TOP_UPS`` looks,
one more (seed ``CHECK_SEEDS`` after the check's) takes the rows open now that were not
open when the last look was planned, within the same caps.  Its own forks can move its
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
row's sized games), a reference game costs ``c`` card forks (the ``c`` cards forked) and buys
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
from bonfire_sim.analysis.intervals import games_needed, t95

# More forks for check rows whose interval crosses the margin, at most.  Three since the
# reference is topped up too: on the example sheet a third look of B9's forks alone left
# all 9 open task lines open (the reference term had become 53-66% of their variance);
# with its reference it verified B9 and Y10 (24 lines: 6 verified, 7 open, 11 off).
CHECK_TOP_UPS = 3
# Seeds a check's looks may take after its own: the top-ups, then the last look for rows
# the sharper reference moved across after theirs.
CHECK_SEEDS = CHECK_TOP_UPS + 1
# A sized look's bounds, in the check's games per row: a row's own forks over all looks
# (32: twice the doubling's 2 + 4 + 8; at 16 the example sheet held B9, R9, Y1 and Y3,
# asking 28,000-33,000, and verified 2 task lines of 24), and the open rows' own forks of all
# looks per verified row of the check (the doubling spent 5 on the example sheet).  The
# reference forks are not in it: the marginal rule gives a tier at most a look's own games
# (``reference_games``), and a check of one card in a 22-card tier would starve.  A row
# that would need more than its cap is held "at the margin".
ROW_CAP = 32
CHECK_CAP = 6
# A look aims the row's half-width at this share of its gap to the margin: the estimate
# moves with the new games, so aiming at the whole gap would resolve about half the rows.
AIM = 0.8
# Sized looks are not the default: on the example sheet they verified 2 and 4 task lines
# of 24 (row caps 16 and 32) where doubling verified 6, since a row's ask rests on its
# point estimate, mostly noise at the check (B9 at 4 players read near -1 there, asked
# 671,703 games and was held; doubling gave it 10,758 forks and verified it).  Doubling
# (each look twice the last's games for every open row) keeps the last look.
SIZED = False
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
class Hold:
    """An open row a look did not fork: ``why`` "at the margin" (it would need more than
    its cap, ``needs`` games in all, -1 where no number would do: it sits on the margin)
    or "budget" (the check's forks were spent on rows that need fewer)."""

    card: str
    players: int
    why: str
    needs: int

    def to_json(self) -> dict[str, Any]:
        return {"card": self.card, "players": self.players, "why": self.why,
                "needs": self.needs}


@dataclass(frozen=True)
class TopUp:
    """One look of a check: its ``seed``, the largest ``games`` it played, the ``rows``
    (card, players) it forked again because their interval crossed the margin, each on
    its ``row_games`` (sized to what it needs), the ``reference`` forks of their tiers
    on the same seed, the open rows it ``held`` back, and whether it is the ``last``
    look (for rows the sharper reference moved across after theirs)."""

    seed: int
    games: int
    rows: tuple[tuple[str, int], ...]
    reference: tuple[Reference, ...] = ()
    row_games: tuple[int, ...] = ()
    held: tuple[Hold, ...] = ()
    last: bool = False

    def to_json(self) -> dict[str, Any]:
        return {"seed": self.seed, "games": self.games,
                "rows": [[c, n] for c, n in self.rows],
                "row_games": list(self.row_games) or [self.games] * len(self.rows),
                "reference": [r.to_json() for r in self.reference],
                "held": [h.to_json() for h in self.held], "last": self.last}


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


def games_to_resolve(row: Mapping[str, Any], margin: float, seen: int) -> float:
    """The own games in all (``seen`` so far included) that would put the row's 95%
    interval on one side of ± ``margin`` if its estimate stayed where it is: its
    half-width aimed at ``AIM`` of the gap between the estimate and the nearer edge of
    the margin (``intervals.games_needed``).  A row not measured (no interval) asks
    twice its games, the old doubling; a row on the margin asks infinitely many."""
    est, lo, hi = (float(row[k]) for k in ("surplus", "s_lo", "s_hi"))
    if row.get("status", "measured") != "measured" or not np.isfinite(lo + hi + est):
        return float(2 * seen)
    gap = abs(abs(est) - margin)
    if gap <= 0:
        return float("inf")
    need = games_needed(seen, (hi - lo) / 2, AIM * gap)
    return float(need) if np.isfinite(need) else float("inf")


def _round_up(x: float, step: int) -> int:
    """``x`` games rounded up to ``step`` / 16 times a power of two (``step``: the
    check's games, so a row not measured, which asks as many again, gets exactly them).
    A look plays its games once per distinct size and count (``MoreFn`` forks its cards
    on the first ``games`` of one seed), so per-row sizes would replay the same deals
    once per row; on powers of two a count's games played stay within twice its largest
    row's, at the price of at most twice the forks a row asks."""
    k = 0
    while np.ceil(step * 2 ** k / 16) < x:
        k += 1
    return int(np.ceil(step * 2 ** k / 16))


def _look(table: pd.DataFrame, rows: Sequence[tuple[str, int]], margin: float,
          seen: Mapping[tuple[str, int], int], own_left: Mapping[tuple[str, int], int],
          budget: int, step: int,
          ) -> tuple[dict[tuple[str, int], int], list[Reference], list[Hold]]:
    """One sized look: (the own games of each row it forks, their reference forks, the
    rows it holds back).  Each open row asks ``games_to_resolve`` less its games so
    far; a row asking more than its cap leaves (``own_left``) is held (``at the
    margin``); the rest are taken cheapest first while their own forks fit the
    check's ``budget`` left, the others held (``budget``)."""
    idx = table[table["kind"] == "task"].set_index(["card", "players"])
    asks: list[tuple[int, tuple[str, int]]] = []
    held: list[Hold] = []
    for key in rows:
        need = games_to_resolve(idx.loc[[key]].iloc[0], margin, seen[key])
        if not np.isfinite(need) or need - seen[key] > own_left[key]:
            held.append(Hold(key[0], key[1], "at the margin",
                             int(need) if np.isfinite(need) else -1))
            continue
        asks.append((min(_round_up(need - seen[key], step), own_left[key]), key))
    take: dict[tuple[str, int], int] = {}
    for x, key in sorted(asks, key=lambda a: (a[0], a[1])):
        if sum(take.values()) + x > budget:
            held.append(Hold(key[0], key[1], "budget", seen[key] + x))
            continue
        take[key] = x
    return take, (_reference_plan(table, take, seen) if take else []), held


def top_up_check(forks: pd.DataFrame, table_of: Callable[[pd.DataFrame], pd.DataFrame],
                 more: MoreFn, cards: Sequence[str], margin: float, seed: int, games: int,
                 *, top_ups: int = CHECK_TOP_UPS, base_games: int | None = None,
                 sized: bool = SIZED,
                 note: Callable[[str], None] | None = None,
                 ) -> tuple[pd.DataFrame, pd.DataFrame, list[TopUp]]:
    """(the card table, all forks, the top-ups played) of a check whose ``forks`` were
    played on the deals of ``seed``, ``games`` of them per count for the ``cards`` it
    verifies and ``base_games`` (None: ``games``) for every other card: while some of
    their rows are unresolved (``open_rows``), at most ``top_ups`` times, fork each such
    row again on twice the last look's games (``sized``: on the games it needs, ``_look``:
    sized to its gap to the margin, within ``ROW_CAP`` and ``CHECK_CAP``) of the next
    seed (``seed + 1``, ``seed + 2`` ...),
    their tiers' other cards on the first games of it that the reference is worth
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
    rows0 = [(c, n) for n, cs in open_rows(table, cards, margin).items() for c in cs]
    own_left = {k: ROW_CAP * games for k in seen}
    verified = int(((table["kind"] == "task") & table["card"].isin(list(focus))).sum())
    budget = max(CHECK_CAP * verified, ROW_CAP) * games  # at least one row's cap
    step = games  # sized games are rounded up to games / 16 times a power of two
    before: set[tuple[str, int]] = set(rows0)  # the rows open when the last look was planned
    for k in range(top_ups + 1):
        now = [(c, n) for n, cs in open_rows(table, cards, margin).items() for c in cs]
        why = "interval across"
        if k == top_ups:  # the last look: only the rows the reference moved across
            now = [r for r in now if r not in before]
            why = "moved across by the sharper reference after their last look"
        if not now:
            break
        if sized:
            todo, refs, held = _look(table, now, margin, seen, own_left, budget, step)
        else:  # doubling: every open row on twice the last look's games
            todo = dict.fromkeys(now, games * 2 ** (k + 1))
            refs, held = _reference_plan(table, todo, seen), []
        before = set(now)
        s = seed + 1 + k
        if note:
            note(f"check look {k + 1} (seed {s}): {len(now)} row(s) unresolved ({why} "
                 f"±{margin:g}); "
                 + (", ".join(f"{c} at {n}p {x:,} more games" for (c, n), x in todo.items())
                    or "none forked")
                 + "".join(f"; their reference, the {len(r.cards)} other {r.group} "
                           f"card(s) at {r.players}p, on its first {r.games:,} games"
                           for r in refs)
                 + "".join(f"; {h.card} at {h.players}p held ({h.why}"
                           + (f": needs {h.needs:,} games" if h.needs >= 0 else "")
                           + ")" for h in held))
        if not todo:
            played.append(TopUp(s, 0, (), tuple(refs), (), tuple(held), k == top_ups))
            break
        parts = [forks]
        for x in sorted(set(todo.values())):
            same: dict[int, list[str]] = {}
            for (c, n), v in todo.items():
                if v == x:
                    same.setdefault(n, []).append(c)
            parts.append(more({n: sorted(cs) for n, cs in sorted(same.items())}, s, x))
        for y in sorted({r.games for r in refs}):
            same = {}
            for r in refs:
                if r.games == y:
                    same.setdefault(r.players, []).extend(r.cards)
            parts.append(more({n: sorted(cs) for n, cs in sorted(same.items())}, s, y))
        forks = pd.concat(parts, ignore_index=True)
        for key, x in todo.items():
            seen[key] = seen.get(key, start) + x
            own_left[key] = own_left.get(key, ROW_CAP * games) - x
        for r in refs:
            for c in r.cards:
                seen[(c, r.players)] = seen.get((c, r.players), start) + r.games
        budget -= sum(todo.values())
        table = table_of(forks)
        rows = tuple(sorted(todo, key=lambda r: (r[1], r[0])))
        played.append(TopUp(s, max(todo.values()), rows, tuple(refs),
                            tuple(todo[r] for r in rows), tuple(held), k == top_ups))
    return table, forks, played
