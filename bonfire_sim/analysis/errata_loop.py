"""The joint closed loop of an errata sheet: every proposed change planted together.

Seat points and task prices interact through the same games (re-pricing a card moves the
scores the seat compensation re-ranks), so they are verified together: an ``Edition``
(seat points per player count, one printed value per changed task) is played on FRESH
deals at every player count (``MeasureFn``: games for the seats, engine forks for the
tasks), every target is re-measured, and the edition is moved where a target is still
missed with confidence: a card by the secant step of ``reprice`` (all cards at once), the
seat points of a count to the whole points the re-ranked fresh games ask for (the secant
step of a slope-1 line: a starting point moves a seat's score by exactly one point).  It
stops at a fixed point (nothing moves) or when the rounds are spent; then one **check**
round on new deals, whose figures move nothing, says per line whether its target is met:
the out-of-sample verification of the whole sheet.

The measuring is injected (``MeasureFn``) so the loop itself is a pure function of the
figures it is given: ``errata_measure.fresh_measure`` plays real games, the tests a model.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import pandas as pd

from bonfire_sim.analysis import flags as FL

# MIN_PRICE: a task printed at 0 points is no proposal (its condition must change); the
# one floor of the loop, the sheet and the report (cards/window.py)
from bonfire_sim.analysis.errata_cards import (
    DEFAULT_MEASURE,
    MIN_PRICE,
    check_print,
    first_price,
    next_prices,
    pooled,
    response,
)
from bonfire_sim.analysis.intervals import se_from_interval
from bonfire_sim.analysis.targets import Targets


@dataclass(frozen=True)
class Edition:
    """What is printed: ``seat_points`` per player count (seat 0 first) and
    ``task_points`` (the printed value of every task, the same at every count)."""

    seat_points: Mapping[int, tuple[int, ...]]
    task_points: Mapping[str, int]

    def changes(self, today: Edition) -> dict[str, list[str]]:
        """The components this edition changes against ``today``: seat counts, cards."""
        seats = [f"{n}" for n, p in sorted(self.seat_points.items())
                 if _whole(p, n) != _whole(today.seat_points.get(n, ()), n)]
        cards = sorted(c for c, v in self.task_points.items() if today.task_points.get(c) != v)
        return {"seats": seats, "tasks": cards}

    def n_changes(self, today: Edition) -> int:
        ch = self.changes(today)
        return len(ch["seats"]) + len(ch["tasks"])


def _whole(points: Sequence[float], n: int) -> tuple[int, ...]:
    """Seat points as n whole values (missing seats start at 0, as the rules read them)."""
    p = [int(round(float(v))) for v in points][:n]
    return tuple(p + [0] * (n - len(p)))


@dataclass
class Measure:
    """The figures of one set of games at one edition.

    ``seats``: per (``players``, ``seat``) the win share ``value`` with its 95% ``lo``/
    ``hi``, ``n`` games and ``fair`` = 1/n (the ``seat_advantage`` frame); ``seat_next``:
    per count the whole seat points the re-ranked games ask for (``as_seat_points`` from
    the printed ones); ``cards``: the task rows of a ``card_table`` (per card and count:
    ``surplus``, ``s_lo``/``s_hi``, ``half``, ``status``, ``flag``, ``printed``);
    ``top_ups``: a check round's more forks for the rows it could not resolve
    (``cards.TopUp.to_json``: seed, games, rows), which ``cards`` rest on too;
    ``measure``: what those rows measure (``cards.MEASURES``), so that a printed point is
    read at its response (the sheet once guessed it from the table's columns)."""

    seed: int
    seats: pd.DataFrame
    seat_next: dict[int, list[int]]
    cards: pd.DataFrame
    population: str = ""
    top_ups: list[dict[str, Any]] = field(default_factory=list)
    measure: str = DEFAULT_MEASURE



# (edition, seed, the cards being re-priced) -> figures on fresh deals of that seed.
MeasureFn = Callable[[Edition, int, Sequence[str]], Measure]


@dataclass
class Loop:
    """The loop's course: ``start`` (today's edition), ``estimate`` (the runs' figures at
    today's edition), the ``rounds`` played (edition and figures), the final ``edition``,
    whether it is a ``fixed_point`` and the ``check`` round's figures (per population);
    per steered card its (printed, pooled surplus) ``history`` and its per-count rows
    (``counts``) round by round, on the loop's own deals only."""

    start: Edition
    estimate: Measure
    edition: Edition
    rounds: list[tuple[Edition, Measure]] = field(default_factory=list)
    fixed_point: bool = False
    check: list[Measure] = field(default_factory=list)
    history: dict[str, list[tuple[float, float]]] = field(default_factory=dict)
    seat_history: SeatHistory = field(default_factory=dict)
    counts: dict[str, list[Any]] = field(default_factory=dict)


def seats_missed(seats: pd.DataFrame, targets: Targets) -> dict[int, bool]:
    """Per player count: is some seat's win share shown to lie beyond the tolerance of
    1/n (one-sided test against the tolerance, Benjamini-Hochberg over the seats)?"""
    out: dict[int, bool] = {}
    for n, g in seats.groupby("players"):
        se = se_from_interval(g["lo"], g["hi"])
        _q, flags = FL.flag(g["value"], se, g["fair"], targets.seat_share, targets.alpha)
        out[int(n)] = bool((flags != "").any())
    return out


def seats_within(seats: pd.DataFrame, targets: Targets) -> dict[int, bool | None]:
    """Per player count, whether the seats meet the target, resolved by their intervals:
    True when every seat's whole interval lies within the tolerance of 1/n, False when
    some seat's whole interval lies beyond it, None when the intervals cannot tell (a
    point estimate inside the tolerance with an interval crossing it is not a pass)."""
    tol = targets.seat_share + 1e-12
    lo, hi = seats["lo"] - seats["fair"], seats["hi"] - seats["fair"]
    out: dict[int, bool | None] = {}
    for n, g in seats.groupby("players"):
        inside = ((lo[g.index] >= -tol) & (hi[g.index] <= tol)).all()
        beyond = ((lo[g.index] > tol) | (hi[g.index] < -tol)).any()
        out[int(n)] = True if inside else False if beyond else None
    return out


def first_proposal(start: Edition, estimate: Measure, targets: Targets) -> Edition:
    """The edition round 0 proposes from the runs' figures: seat points where a count's
    seats miss their target with confidence, one whole value for every card flagged at a
    count or across counts (``errata_cards.first_price``: printed - the pooled surplus
    over what a printed point moves it under the default measure; none for a card no
    printed value fixes)."""
    seats = dict(start.seat_points)
    for n, missed in seats_missed(estimate.seats, targets).items():
        if missed and estimate.seat_next.get(n):
            seats[n] = tuple(estimate.seat_next[n])
    prices = dict(start.task_points)
    t = estimate.cards
    # flagged at a count, or across the counts where they agree (a card off by 2 points
    # at every count on few forks each is found only there)
    off = (t["flag"] != "") | (t["flag_counts"] != "") if "flag_counts" in t else t["flag"] != ""
    for card in sorted(set(t.loc[off, "card"])):
        p = first_price(t, str(card), start.task_points[str(card)], estimate.measure)
        if math.isfinite(p):  # never below MIN_PRICE: the check says if that is enough
            prices[str(card)] = max(int(p), MIN_PRICE)
    return Edition(seats, prices)


SeatHistory = dict[int, list[tuple[tuple[int, ...], float]]]


def worst_seat(seats: pd.DataFrame, n: int) -> float:
    """The largest distance of a seat's win share from 1/n at count ``n`` (NaN if none)."""
    g = seats[seats["players"] == n]
    return float((g["value"] - g["fair"]).abs().max()) if len(g) else math.nan


def step(edition: Edition, m: Measure, targets: Targets,
         history: dict[str, list[tuple[float, float]]],
         printed: Mapping[str, int], seat_history: SeatHistory | None = None,
         today: Mapping[int, Sequence[float]] | None = None,
         counts: dict[str, list[Any]] | None = None) -> Edition | None:
    """The next edition after one fresh round, or None at a fixed point (nothing moves).

    Seats: a count whose seats still miss their target with confidence moves to the
    whole points the fresh games ask for.  A count the sheet changes already (its points
    differ from ``today``'s) whose seats are not shown within the tolerance moves to what
    the games ask for too: that refines a change, it adds none.  Whole points can
    straddle fair (two players at 1.6 points: [0, 2] and [0, 3] each about 1.4 pp off on
    opposite sides), so a count asked back to points it played already (``seat_history``:
    per count the points played and their worst seat's distance from fair) settles on
    the best of those instead of bouncing.  Cards: ``errata_cards.next_prices`` (a secant
    step for every re-priced card measured there; a fair-value step for an untouched card
    flagged there; ``counts``: the per-count rows the minimax print reads, as
    ``reprice``'s)."""
    seats = dict(edition.seat_points)
    moved = False
    within = seats_within(m.seats, targets)
    for n, missed in seats_missed(m.seats, targets).items():
        nxt = tuple(m.seat_next.get(n) or ())
        now = tuple(seats.get(n, ()))
        played = (seat_history or {}).setdefault(n, [])
        played.append((now, worst_seat(m.seats, n)))
        changed = _whole(now, n) != _whole((today or {}).get(n, ()), n)
        if not nxt or nxt == now:
            continue
        if missed:
            seats[n], moved = nxt, True
        elif changed and within.get(n) is not True:
            if any(p == nxt for p, _w in played):
                best = min(played, key=lambda pw: pw[1])[0]
                if best != now:
                    seats[n], moved = best, True
            else:
                seats[n], moved = nxt, True
    current = dict(edition.task_points)
    moves, unsteered = next_prices(m.cards, current, dict(printed), history,
                                   targets.task_margin, m.measure, counts)
    cards = {c: max(v, MIN_PRICE) for c, v in moves.items()}
    cards = {c: v for c, v in cards.items() if v != current[c]}
    if not moved and not cards and not unsteered:
        return None  # a re-priced card too wide to steer by is no fixed point: play on
    return Edition(seats, current | cards)


def joint_loop(start: Edition, estimate: Measure, measure: MeasureFn, targets: Targets, *,
               seed: int, rounds: int = 3, check: Sequence[MeasureFn] = (),
               note: Callable[[str], None] | None = None,
               check_measure: MeasureFn | None = None) -> Loop:
    """Plant the whole proposal together on fresh deals and iterate to a fixed point.

    Round ``i`` plays seed ``seed + i`` at the current edition (``measure``); the check
    plays seed ``seed + rounds`` at the final edition with ``check_measure`` (default
    ``measure``; the pipeline's plays more games, see ``FreshPlan``) and with every
    further population's ``check`` function (the same game seated by other players),
    figures that move nothing.  ``note(line)`` hears each step."""
    say = note or (lambda _line: None)
    printed = dict(start.task_points)
    edition = first_proposal(start, estimate, targets)
    loop = Loop(start=start, estimate=estimate, edition=edition)
    # Each re-priced card's (printed, pooled surplus) line and per-count rows start on the
    # loop's own deals, as reprice's do: the estimate measured a card against its tier at
    # today's prices, before the proposal re-priced the tier, so a line through its pair
    # reads the tier's move as the card's own response (Y13 on the planted loop: -0.8 at 4
    # in the estimate, +1.5 at 4 on round 2's deals; 2.0 a point where the rounds' own
    # prices said 0.4-0.7; docs/findings/2026-11-29-plants-one-loop.md).
    loop.history = {c: [] for c in edition.changes(start)["tasks"]}
    loop.counts = {c: [] for c in loop.history}
    for i in range(rounds):
        if edition.n_changes(start) == 0 and i == 0 and not _any_missed(estimate, targets):
            loop.fixed_point = True  # nothing to change: the check round still measures
            break
        focus = edition.changes(start)["tasks"]
        say(f"round {i + 1}/{rounds}: {edition.n_changes(start)} change(s) planted together "
            f"on fresh deals (seed {seed + i})")
        m = measure(edition, seed + i, focus)
        loop.rounds.append((edition, m))
        nxt = step(edition, m, targets, loop.history, printed, loop.seat_history,
                   start.seat_points, loop.counts)
        if nxt is None:
            loop.fixed_point = True
            break
        edition = nxt
    loop.edition = edition = _played_prints(loop, edition, targets, say)
    focus = edition.changes(start)["tasks"]
    say(f"check: {edition.n_changes(start)} change(s) on new deals (seed {seed + rounds}), "
        f"figures that move nothing")
    loop.check = [fn(edition, seed + rounds, focus)
                  for fn in (check_measure or measure, *check)]
    return loop


def _played_prints(loop: Loop, edition: Edition, targets: Targets,
                   say: Callable[[str], None]) -> Edition:
    """The edition the check plays (``edition``, where the rounds left it): each steered
    card at a print some round played unless every played print is shown off
    (``errata_cards.check_print``, reprice's rule): the last round's step rests on that
    round's rows alone (a pooled half-width of about a printed point for a shallow card),
    and the check would verify a print no round played.  Seat points keep their step,
    which plays a slope-1 line and settles on the best played points when asked back to
    them (``step``)."""
    prices = dict(edition.task_points)
    for c in loop.history:
        to = check_print(loop.counts.get(c, []), prices[c],
                         [(ed.task_points[c], m.cards) for ed, m in loop.rounds], c,
                         targets.task_margin)
        if to != prices[c]:
            say(f"{c}: {prices[c]} (not played) -> {to}, the played print fair at every count")
            prices[c] = to
    return replace(edition, task_points=prices)


def _any_missed(m: Measure, targets: Targets) -> bool:
    return (any(seats_missed(m.seats, targets).values())
            or bool((m.cards["flag"] != "").any()))


def drop_effects(loop: Loop, targets: Targets) -> pd.DataFrame:
    """What each change buys: per changed line, the figure its target would show in the
    check round without it (a card: its surplus moved back by the slope times the change;
    seat points: the start seat's win share in the runs, at today's points), and whether
    that misses the target.  The next-smaller sheet drops the change that buys least."""
    rows = []
    if not loop.check:
        return pd.DataFrame(columns=["component", "item", "without", "target", "misses"])
    check = loop.check[0]
    today = loop.start
    for n in loop.edition.changes(today)["seats"]:
        worst = worst_seat(loop.estimate.seats, int(n))
        rows.append({"component": "seats", "item": f"{n} players", "without": 100 * worst,
                     "target": targets.seat_tolerance,
                     "misses": bool(worst > targets.seat_share)})
    for card in loop.edition.changes(today)["tasks"]:
        s = pooled(check.cards, card)
        # what a printed point does to it: the loop's own prices and the check's, as
        # reprice's check reads a card's response (errata_cards.response)
        line = [*loop.history.get(card, []), (float(loop.edition.task_points[card]), s)]
        slope = response(line, check.cards, card, check.measure)
        # back at today's price: the surplus moves by slope x (today - proposed)
        without = s + slope * (today.task_points[card] - loop.edition.task_points[card])
        rows.append({"component": "tasks", "item": card, "without": without,
                     "target": targets.task_margin,
                     "misses": bool(abs(without) > targets.task_margin)})
    out = pd.DataFrame(rows, columns=["component", "item", "without", "target", "misses"])
    return out.assign(excess=(out["without"].abs() - out["target"]))


def next_smaller(loop: Loop, targets: Targets) -> dict[str, object] | None:
    """The sheet with one change fewer: the change whose removal misses its target least
    (None when the sheet changes nothing)."""
    eff = drop_effects(loop, targets)
    if eff.empty:
        return None
    r = eff.sort_values("excess").iloc[0]
    return {"drop": f"{r['component']} {r['item']}", "component": r["component"],
            "item": r["item"], "without": float(r["without"]), "target": float(r["target"]),
            "misses": bool(r["misses"])}


def with_population(m: Measure, name: str) -> Measure:
    """``m`` labelled with the population that played it."""
    return replace(m, population=name)
