"""The price loop's last step: among the whole prints near the secant's target, the one
fair at EVERY player count (a minimax over the counts).

A task is printed once for all counts, and the designer's question is "is there ONE
print that is fair at every count?", not "at which print is the card fair on average?".
The loop steers by the surplus pooled over the counts (``price.next_prices``: a secant
step to the pooled zero, rounded), which answers the second: the rounding can pick a
print where one count sits at the margin while a neighbouring whole print would put
every count well inside.  On the planted loop (docs/findings/2026-11-29-plants-one-loop.md,
seeds 99x0, the fair-window gate) R6 at 4 read +0.1 / +0.4 / +1.0 at 2 / 3 / 4 players,
unresolved at 4, where 3 predicts about -0.2 / +0.1 / +0.7; Y13 at 0 read -0.8 at 2
players, where 1 read -0.0 / +0.1 / +0.6.

``minimax_print`` predicts each count's surplus at the whole prints within ``REACH`` of
the secant's rounding (never below ``window.MIN_PRICE``): its surplus this round moved
by its response per printed point (``count_responses``: the count's own slope over the
loop's prices where the history pins it down, else the card's pooled response), and
takes the print whose largest |surplus| over the counts is least -- only where that
beats the secant's rounding by ``GAIN`` surplus points and by the round's largest
row half-width, so that noise between two nearly equal prints does not pick the print
(with ``GAIN`` alone the check's rows preferred the other print for 5 of the 8 cards
it moved on the loops of 2026-11-29).  The check round then verifies it on new deals,
as any print.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Mapping, Sequence

import numpy as np
import pandas as pd

from bonfire_sim.analysis.cards.table import (
    DEFAULT_MEASURE,
    MIN_SLOPE,
    PRICE_SLOPE_HI,
    PRICE_SLOPE_LO,
)
from bonfire_sim.analysis.cards.window import MIN_PRICE

SLOPE_LO, SLOPE_HI = PRICE_SLOPE_LO, PRICE_SLOPE_HI  # the secant slope's bounds

# The minimax print replaces the secant's rounding only when its worst count is this many
# surplus points nearer zero (a quarter of the default 1-point margin): a round's rows
# carry 95% half-widths of 0.3-0.6 at the loop's focus forks, so a smaller gain is a coin
# flip between two prints that are fair alike.
GAIN = 0.25
REACH = 1  # whole prints either side of the secant's rounding that are considered
# A count's own response is used only where its 95% half-width is at most this share of
# the pooled response (two rounds one printed point apart pin a count's slope to about
# +-0.6 at 0.4-point rows: as wide as the slopes themselves)
OWN_SHARE = 0.5

# One count's history: (printed value, {players: (surplus, 95% half-width)}) per round.
CountHistory = Sequence[tuple[float, Mapping[int, tuple[float, float]]]]


def count_responses(history: CountHistory, pooled: float, lo: float = MIN_SLOPE,
                    hi: float = PRICE_SLOPE_HI) -> dict[int, float]:
    """Per player count, what a printed point does to the card's surplus there: the
    weighted least-squares slope of the count's (printed, surplus) pairs over the loop's
    prices, where at least two prices were played and its 95% half-width is at most
    ``OWN_SHARE`` x ``pooled``; else ``pooled`` (the card's response over the counts).
    Held in [``lo``, ``hi``] as the pooled response is."""
    counts = sorted({n for _p, rows in history for n in rows})
    out: dict[int, float] = {}
    for n in counts:
        pts = [(p, rows[n][0], rows[n][1]) for p, rows in history
               if n in rows and math.isfinite(rows[n][0]) and rows[n][1] > 0]
        out[n] = pooled
        x = np.array([q[0] for q in pts], float)
        if len(np.unique(x)) < 2:
            continue
        y = np.array([q[1] for q in pts], float)
        w = 1.0 / (np.array([q[2] for q in pts], float) / 1.96) ** 2
        xm = float((w * x).sum() / w.sum())
        sxx = float((w * (x - xm) ** 2).sum())
        slope = float((w * (x - xm) * y).sum() / sxx)  # x centred: no y mean needed
        half = 1.96 / math.sqrt(sxx)  # the weighted slope's 95% half-width
        if math.isfinite(slope) and half <= OWN_SHARE * pooled:
            out[n] = float(np.clip(slope, lo, hi))
    return out


def worst(price: float, surplus: Mapping[int, float], response: Mapping[int, float],
          at: float) -> float:
    """The largest |surplus| over the counts predicted at print ``at`` from each count's
    ``surplus`` at ``price`` (printed higher, the card gives more: + response x the
    change)."""
    return max(abs(s + response[n] * (at - price)) for n, s in surplus.items())


def minimax_print(target: float, price: float, surplus: Mapping[int, float],
                  response: Mapping[int, float], gain: float = GAIN,
                  noise: float = 0.0) -> tuple[int, int]:
    """(the secant's whole print, the print to play): the secant ``target`` rounded (never
    below ``MIN_PRICE``), or the whole print within ``REACH`` of it (never below) whose
    worst count (``worst``) is least, where that beats the rounding's worst count by at
    least ``gain`` and by at least ``noise`` (the largest 95% half-width of the round's
    rows: a gain the rows cannot resolve is their noise -- on the planted and unplanted
    loops of 2026-11-29 the check's own rows preferred the other print for 5 of the 8
    cards a gain of 0.25 alone had moved, against 4 of the 58 other prints).
    ``surplus``: each count's surplus this round at ``price``; ``response``: each
    count's surplus per printed point."""
    secant = max(int(math.floor(target + 0.5)), MIN_PRICE)
    known = {n: s for n, s in surplus.items() if math.isfinite(s) and n in response}
    if len(known) < 2:
        return secant, secant  # one count: the secant's zero is its own
    prints = [q for q in range(secant - REACH, secant + REACH + 1) if q >= MIN_PRICE]
    best = min(prints, key=lambda q: (worst(price, known, response, q), abs(q - secant)))
    if (worst(price, known, response, secant) - worst(price, known, response, best)
            >= max(gain, noise)):
        return secant, best
    return secant, secant


def secant_step(history: Sequence[tuple[float, float]], lo: float = SLOPE_LO,
                hi: float = SLOPE_HI, first: float = 1.0) -> tuple[float, float]:
    """(next printed value, slope) from one card's (printed, surplus) measurements, the
    last one current: the surplus is taken as linear in the printed value with the slope
    of the two latest distinct prices (``first`` with one price: the measured surplus per
    printed point at fixed play, the share of receipts that score the points), clipped to
    [lo, hi] so one noisy pair cannot send the card far; the next value zeroes the
    line."""
    p, s = history[-1]
    slope = float(np.clip(first, lo, hi)) if math.isfinite(first) else 1.0
    for q, t in reversed(history[:-1]):
        if q != p:
            slope = float(np.clip((s - t) / (p - q), lo, hi))
            break
    return p - s / slope, slope


def responses(history: dict[str, list[tuple[float, float]]], slopes: dict[str, float],
              measure: str = DEFAULT_MEASURE) -> dict[str, float]:
    """``response`` of every card the loop steered: the first proposal's and those
    flagged on a later round's deals alike (1 under the lit value, where a printed point
    moves the value by exactly one)."""
    return {c: 1.0 if measure == "lit" else response(h, slopes.get(c, 1.0))
            for c, h in history.items()}


def response(history: Sequence[tuple[float, float]], first: float = 1.0) -> float:
    """What a printed point does to a re-priced card's surplus once the players have
    re-optimised: the least-squares slope of the loop's (printed, pooled surplus) pairs
    (every steered round's: the estimate's was measured before the proposal re-priced the
    card's tier, ``price.reprice``), or ``first`` (the fixed-play slope) where
    the loop played one price only; held in [``MIN_SLOPE``, ``SLOPE_HI``].  Under the
    receipt value it is well below one (measured at 3 players: R15 0.34, Y20 0.14 a
    printed point), so a surplus within +-1 point leaves the price open by several."""
    p = np.array([h[0] for h in history], float)
    s = np.array([h[1] for h in history], float)
    ok = np.isfinite(s)
    p, s = p[ok], s[ok]
    if len(np.unique(p)) >= 2:
        slope = float(np.polyfit(p, s, 1)[0])
    else:
        slope = float(first) if math.isfinite(first) else 1.0
    return float(np.clip(slope, MIN_SLOPE, SLOPE_HI))


def last_played(history: CountHistory, price: int, played: Collection[int],
                margin: float, flagged: Collection[int] = ()) -> int:
    """The print a card is checked at: ``price`` (where the loop left it) if some round
    played it, else, among the prints the rounds did play (``history``: each round's
    per-count rows at its print, pooled inverse-variance per print and count), the one
    whose worst count is nearest zero, of those not shown off: no round's flag test
    flagged the card there (``flagged``: the evidence that moves a card first flagged
    on a round's deals, at a count or across counts) and no count's pooled row lies
    beyond +-``margin``; ``price`` again where every played print is shown off.  A
    round's last move rests on that round's rows alone, whose pooled half-width (0.45
    at 600 / 2,400 games) is about a printed point for a shallow card: Y13 on the
    planted loop was moved 2 -> 1 on round 3 and checked off at 2 players, where fresh
    deals read it within at every count at 2 (docs/findings/2026-11-29-plants-one-loop.md)."""
    if price in played:
        return price
    rows: dict[int, dict[int, list[tuple[float, float]]]] = {}
    for p, r in history:
        for n, (s, h) in r.items():
            if math.isfinite(s) and h > 0:
                rows.setdefault(int(p), {}).setdefault(n, []).append((s, h))
    worst_: dict[int, float] = {}
    for p, by in rows.items():
        pooled = []
        for rs in by.values():
            w = np.array([1.0 / h ** 2 for _, h in rs])
            pooled.append((float((w * [s for s, _ in rs]).sum() / w.sum()),
                           float(w.sum() ** -0.5)))
        if p in played and p not in flagged and all(abs(s) - h <= margin for s, h in pooled):
            worst_[p] = max(abs(s) for s, _ in pooled)
    return min(worst_, key=lambda p: (worst_[p], abs(p - price))) if worst_ else price


def flagged_on(table: pd.DataFrame, card: str) -> bool:
    """Whether a round's table flags ``card`` (at a count or, where the table ran that
    test, across counts)."""
    g = table[(table["card"] == card) & (table["kind"] == "task")]
    across = (g["flag_counts"] != "").any() if "flag_counts" in g else False
    return bool((g["flag"] != "").any() or across)


def check_print(history: CountHistory, price: int,
                rounds: Sequence[tuple[int, pd.DataFrame]], card: str,
                margin: float) -> int:
    """``last_played`` for a loop's rounds given as (``card``'s print there, the round's
    table): the played prints, and those a round's flag test flagged the card at.  The
    one final-print choice of both price loops (``price.reprice`` and the errata sheet's
    ``errata_loop.joint_loop``): each checks on new deals what its last step left."""
    return last_played(history, price, {int(p) for p, _t in rounds}, margin,
                       {int(p) for p, t in rounds if flagged_on(t, card)})
