"""Concrete changes for the flagged gnomes of an errata sheet, tried on fresh deals.

A gnome prints no number, but its ability does: S4's "+2 points when recruiting an elder",
an elder's "1 point per ...", or the ability itself.  For a gnome flagged ``strong`` or
``weak`` the candidates are its knob (``tables.GNOME_KNOBS``) one step, then two steps,
towards the average gnome, or, for a strong specialist without a knob, its ability
switched off (``specialist_ability = {S23 = 0}``).  Each candidate is planted as an
override and played on fresh deals at every count where the gnome is flagged; the
gnome's recruit value is forked there again (``cards.gnome_values`` on that gnome alone).

The variant's worth against the average gnome is its new recruit value minus today's
reference (the mean of the other gnomes, measured once on the runs: one gnome's change
moves the others little), its interval widened by the reference's.  The smallest
candidate whose interval lies inside ±margin at every flagged count is proposed
(verified); if none does, the best one whose point estimate is inside is proposed as
``not resolved`` with the forks it would need; if every candidate is wholly beyond the
margin, nothing is proposed (``not verified``).

**A trial the first look cannot resolve gets more forks** (the rule the check's task
rows follow, ``cards.check_topup``): a count whose interval crosses ±margin is played
again on new deals of the seeds after the trial's (``seed + 1``, ``seed + 2``), as many
games as the forks it needs (``top_up_games``), at most ``GNOME_TOP_UPS`` looks and
``GNOME_TOP_UP_CAP`` times the trial's games in all, and its verdict rests on every fork
(the trial's and its top-ups', clustered by run and deal).  Only the variant's own term
shrinks: today's reference was measured once on the runs and is not forked again, so the
forks needed are those that bring the *own* half-width to sqrt(room^2 - ref^2), and a row
whose reference half-width alone is as wide as its distance to the margin is left open
with that said (more of its own forks cannot resolve it).  The cap keeps a candidate
sitting on the margin "not resolved" instead of forking it without end.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from bonfire_sim.analysis.errata_measure import fresh_dir
from bonfire_sim.analysis.intervals import games_needed
from bonfire_sim.analysis.targets import resolved
from bonfire_sim.rules import tables as T
from bonfire_sim.sim.runconfig import RunConfig

# A trial row crossing the margin is forked again at most this many times, on at most
# GNOME_TOP_UP_CAP x the trial's games in all (the example sheet's trials: 600 games,
# 126-144 forks, half-widths 1.5-2.5 points; 8x the games halves to thirds of them
# (about 1/3 when the own term dominates), enough for a variant 0.5 point inside the
# margin, not for one on it).
GNOME_TOP_UPS = 2
GNOME_TOP_UP_CAP = 8

# (candidate, players, looks [(seed, games), ...]) -> the gnome's ``gnome_values`` rows
# (``value``, ``lo``, ``hi``, ``n``) at that count on the forks of all those looks' games
VariantFn = Callable[["Candidate", int, Sequence[tuple[int, int]]], pd.DataFrame]

UNITS = {"specialist_points": "points", "specialist_gold": "gold",
         "specialist_yellow": "yellow tiles", "specialist_resources": "extra resources",
         "elder_points": "points per thing counted"}
STEPS = (1, 2)  # knob steps tried, smallest first; then half the way (see ``candidates``)


@dataclass(frozen=True)
class Candidate:
    """One concrete change of a gnome: override ``key`` of ``gnome`` from ``today`` to
    ``value`` (``specialist_ability``: 0 = switched off)."""

    gnome: str
    key: str
    today: int
    value: int

    @property
    def overrides(self) -> dict[str, dict[str, int]]:
        """The override that plants it."""
        return {self.key: {self.gnome: self.value}}

    @property
    def label(self) -> str:
        """``S4: +2 -> +1 points`` or ``S23: ability switched off``."""
        if self.key == "specialist_ability":
            return f"{self.gnome}: ability switched off (a blank card)"
        return f"{self.gnome}: +{self.today} -> +{self.value} {UNITS.get(self.key, '')}".strip()


@dataclass
class Trial:
    """A candidate's result per flagged player count: ``rows[n]`` = relative value,
    ``lo``, ``hi``, ``n`` forks, ``forks_needed``; ``verified`` True (inside ±margin at
    every count), False (wholly beyond at some count) or None (not resolved)."""

    candidate: Candidate
    rows: dict[int, dict[str, float]] = field(default_factory=dict)
    verified: bool | None = None
    # per count, every look played: (seed, games) the trial's first, then its top-ups'
    looks: dict[int, list[tuple[int, int]]] = field(default_factory=dict)
    # per count, why the top-ups stopped with the row still open ("cap", "reference")
    stopped: dict[int, str] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        """Plain data for the sheet."""
        return {"change": self.candidate.label, "key": self.candidate.key,
                "value": self.candidate.value, "verified": self.verified,
                "per_count": {str(n): dict(r) for n, r in sorted(self.rows.items())},
                "looks": {str(n): [list(x) for x in v] for n, v in sorted(self.looks.items())},
                "stopped": {str(n): v for n, v in sorted(self.stopped.items())}}


def candidates(gnome: str, flag: str,
               overrides: Mapping[str, Any] | None = None) -> list[Candidate]:
    """The changes to try for ``gnome`` flagged ``flag`` (``strong`` / ``weak``), smallest
    first: its first knob one and two steps towards the average gnome, then, when that is
    further, half of today's value down (strong) or twice it up (weak), within
    0..``MAX_GNOME_AMOUNT`` (today's value is the runs' ``overrides`` or the printed one);
    or a strong specialist's ability switched off."""
    for key, (_slot, knobs) in T.GNOME_KNOBS.items():
        if gnome in knobs:
            today = int(dict((overrides or {}).get(key, {})).get(gnome, knobs[gnome]))
            step = -1 if flag == "strong" else 1
            far = today // 2 if flag == "strong" else 2 * today
            values = [today + step * k for k in STEPS]
            if step * (far - values[-1]) > 0:
                values.append(far)
            return [Candidate(gnome, key, today, v) for v in values
                    if 0 <= v <= T.MAX_GNOME_AMOUNT]
    if flag == "strong" and gnome in T.SPECIALIST_IDS:
        return [Candidate(gnome, "specialist_ability", int(gnome[1:]), 0)]
    return []


def _verdict(rows: Mapping[int, Mapping[str, float]], margin: float) -> bool | None:

    ok = [resolved(r["lo"], r["hi"], margin) for r in rows.values()]
    if not ok:
        return None
    return True if all(v is True for v in ok) else False if False in ok else None


def _half(row: Mapping[str, Any] | pd.Series, lo: str, hi: str) -> float:
    return (float(row[hi]) - float(row[lo])) / 2.0


def own_forks_needed(n: int, own_half: float, ref_half: float, target: float) -> float:
    """Forks of the variant for a combined half-width of ``target`` when only its own
    term (``own_half`` on ``n`` forks) shrinks and the reference's (``ref_half``) stays:
    ``games_needed`` to an own half-width of sqrt(target^2 - ref_half^2); NaN when the
    reference alone is at least ``target`` wide (no number of own forks gets there)."""
    left = target ** 2 - ref_half ** 2
    if left <= 0 or not (math.isfinite(own_half) and own_half > 0):
        return math.nan
    return float(games_needed(n, own_half, math.sqrt(left)))


def _variant_row(vals: pd.DataFrame, today: pd.Series, margin: float) -> dict[str, float]:
    """The variant's value against today's reference at one count: its recruit value
    minus today's mean of the other gnomes; the half-width combines the variant's own
    (``own_half``) with the reference's (``ref_half``: today's relative half-width less
    the gnome's own value's); ``forks_needed`` to bring it inside the margin
    (``own_forks_needed``: the reference does not shrink with the variant's forks)."""
    if vals.empty or not np.isfinite(float(vals["value"].iloc[0])):
        return {"relative": math.nan, "lo": math.nan, "hi": math.nan, "n": 0,
                "forks_needed": math.nan, "own_half": math.nan, "ref_half": math.nan}
    v = vals.iloc[0]
    ref = float(today["value"]) - float(today["relative"])
    ref_half2 = max(_half(today, "rel_lo", "rel_hi") ** 2 - _half(today, "lo", "hi") ** 2,
                    0.0)
    own = _half(v, "lo", "hi")
    half = math.sqrt(own ** 2 + ref_half2)
    rel = float(v["value"]) - ref
    room = margin - abs(rel)
    need = (own_forks_needed(int(v["n"]), own, math.sqrt(ref_half2), room)
            if room > 0 and math.isfinite(half) else math.nan)
    return {"relative": rel, "lo": rel - half, "hi": rel + half, "n": int(v["n"]),
            "forks_needed": need, "own_half": own, "ref_half": math.sqrt(ref_half2)}


def top_up_games(row: Mapping[str, float], games: int, margin: float) -> float:
    """More games for a trial row crossing ±``margin`` that has had ``games`` games: the
    forks that bring its interval inside the margin or wholly beyond it (whichever its
    estimate is nearer: the distance | |relative| - margin |), at the row's forks per
    game; NaN when no number resolves it (the estimate on the margin, or the reference's
    half-width alone wider than the distance)."""
    n = int(row["n"])
    rel = float(row["relative"])
    if n <= 0 or games <= 0 or not math.isfinite(rel):
        return math.nan
    need = own_forks_needed(n, float(row["own_half"]), float(row["ref_half"]),
                            abs(margin - abs(rel)))
    if not math.isfinite(need):
        return math.nan
    return float(math.ceil(max(need - n, 1) * games / n))


def flagged_gnomes(gv: pd.DataFrame | None) -> dict[str, dict[int, pd.Series]]:
    """Per flagged gnome, today's rows at the counts where it is flagged."""
    out: dict[str, dict[int, pd.Series]] = {}
    if gv is None or gv.empty:
        return out
    rows = gv[(gv["players"] > 0) & (gv["flag"].fillna("") != "")]
    for _, r in rows.iterrows():
        out.setdefault(str(r["gnome"]), {})[int(r["players"])] = r
    return out


def _play_variant(bases: Mapping[int, RunConfig], work_dir: Path, margin: float,
                  alpha: float, jobs: int, say: Callable[[str], None]) -> VariantFn:
    """The ``VariantFn`` that plays: each look's fresh games of the candidate planted
    (kept under ``work_dir``, resumed when already there), then the gnome forked on all
    of them (clustered by run and deal)."""
    from bonfire_sim.analysis.cards import ProbeSettings, gnome_values
    from bonfire_sim.analysis.runs import Run
    from bonfire_sim.sim.load import load
    from bonfire_sim.sim.runner import run

    def measure(cand: Candidate, n: int, looks: Sequence[tuple[int, int]]) -> pd.DataFrame:
        base = bases[n]
        over = {**base.overrides}
        over[cand.key] = {**dict(over.get(cand.key, {})), cand.gnome: cand.value}
        runs = []
        for seed, games in looks:
            cfg = replace(base, seed=seed, games=games, overrides=over)
            where = fresh_dir(work_dir, cfg, f"gnome-{cand.gnome}-{cand.key}-{cand.value}"
                                             f"-seed{seed}", n)
            run(cfg, where, jobs=jobs, resume=True, replace_stale=True)
            runs.append(Run(where.name, where, load(where, turns=False)))
        vals = gnome_values(runs, probes=ProbeSettings(
                                games=max(g for _s, g in looks), kinds=("gnome",),
                                gnomes=(cand.gnome,)),
                            margin=margin, alpha=alpha, jobs=jobs,
                            quiet=True)  # the trials' bar counts this step
        return vals[(vals["gnome"] == cand.gnome) & (vals["players"] == n)]

    return measure


def _whole(games: float, n: int, seat_rotation: bool) -> int:
    g = int(games)
    return max(g - g % n, n) if seat_rotation else max(g, 1)


def measure_trial(trial: Trial, n: int, today: pd.Series, measure: VariantFn, seed: int,
                  games: int, margin: float, *, seat_rotation: bool = False,
                  say: Callable[[str], None] | None = None) -> None:
    """``trial``'s row at ``n`` players: the candidate on ``games`` games of ``seed``,
    then, while its interval crosses ±``margin``, more games of ``seed + 1``,
    ``seed + 2`` ... (``top_up_games``, at most ``GNOME_TOP_UPS`` looks and
    ``GNOME_TOP_UP_CAP`` x ``games`` in all), the row read from every look's forks."""
    tell = say or (lambda _line: None)
    cand = trial.candidate
    looks = [(seed, games)]
    row = _variant_row(measure(cand, n, looks), today, margin)
    cap = GNOME_TOP_UP_CAP * games
    for k in range(GNOME_TOP_UPS):
        if resolved(row["lo"], row["hi"], margin) is not None:
            break
        played = sum(g for _s, g in looks)
        want = top_up_games(row, played, margin)
        left = cap - (played - games)
        if not math.isfinite(want):
            trial.stopped[n] = "reference" if (
                math.isfinite(row["relative"]) and row["ref_half"]
                >= abs(margin - abs(row["relative"]))) else "margin"
            break
        if left < n:
            trial.stopped[n] = "cap"
            break
        more = _whole(min(want, left), n, seat_rotation)
        s = seed + 1 + k
        tell(f"{cand.label} at {n} players: not resolved on {row['n']:,} forks "
             f"({row['lo']:+.2f} to {row['hi']:+.2f}): {more:,} more fresh games on seed "
             f"{s} for its forks (wants {int(want):,}; cap {cap:,} in all)")
        looks.append((s, more))
        row = _variant_row(measure(cand, n, looks), today, margin)
        if (k == GNOME_TOP_UPS - 1 or want > left) and resolved(
                row["lo"], row["hi"], margin) is None:
            trial.stopped[n] = "cap"
    trial.rows[n] = {**row, "games": float(sum(g for _s, g in looks))}
    trial.looks[n] = looks


def try_changes(gv: pd.DataFrame | None, bases: Mapping[int, RunConfig], games: int,
                margin: float, alpha: float, work_dir: Path, seed: int, *, jobs: int = 1,
                status: Callable[[str], None] | None = None,
                progress: Callable[[int, int], None] | None = None,
                measure: VariantFn | None = None,
                ) -> dict[str, list[Trial]]:
    """Per flagged gnome, its candidates (``candidates``) tried in order on ``games``
    fresh games (seed ``seed``) at each flagged count of ``bases``, a count crossing the
    margin topped up on the next seeds (``measure_trial``), stopping at the first
    verified one; runs kept under ``work_dir``; ``progress(done, total)`` after each
    planted change and count (total: every candidate tried).  ``measure``: how a look's
    forks are read (default: played, ``_play_variant``)."""
    say = status or (lambda _line: None)
    tick = progress or (lambda _done, _total: None)
    fork = measure or _play_variant(bases, work_dir, margin, alpha, jobs, say)
    out: dict[str, list[Trial]] = {}
    todo = flagged_gnomes(gv)
    first = next(iter(bases.values()), None)
    over0 = first.overrides if first is not None else {}
    total = sum(len(candidates(g, str(next(iter(r.values()))["flag"]), over0))
                * sum(n in bases for n in r) for g, r in todo.items())
    done = 0
    tick(done, total)
    for gnome, today in sorted(todo.items()):
        flag = str(next(iter(today.values()))["flag"])
        trials = out.setdefault(gnome, [])
        cands = candidates(gnome, flag, over0)
        for cand in cands:
            trial = Trial(cand)
            for n, row in sorted(today.items()):
                if n not in bases:
                    continue
                base = bases[n]
                g = _whole(games, n, base.seat_rotation)
                say(f"{cand.label} at {n} players: {g:,} fresh games, then its forks")
                measure_trial(trial, n, row, fork, seed, g, margin,
                              seat_rotation=base.seat_rotation, say=say)
                done += 1
                tick(done, total)
            trial.verified = _verdict(trial.rows, margin)
            trials.append(trial)
            if trial.verified is True:
                done += (len(cands) - len(trials)) * len(trial.rows)  # not needed now
                tick(done, total)
                break
    tick(total, total)
    return out


def proposal(trials: Sequence[Trial], margin: float) -> Trial | None:
    """The change to print: the first verified trial; else, among the not-resolved ones
    whose estimates all lie inside ±``margin``, the one nearest zero; None when no trial
    qualifies (every one wholly beyond the margin, or none tried)."""
    for t in trials:
        if t.verified is True:
            return t
    open_ = [t for t in trials if t.verified is None and t.rows and all(
        math.isfinite(r["relative"]) and abs(r["relative"]) <= margin
        for r in t.rows.values())]
    if not open_:
        return None
    return min(open_, key=lambda t: max(abs(r["relative"]) for r in t.rows.values()))


def overrides_of(trials: Mapping[str, Sequence[Trial]],
                 margin: float) -> dict[str, dict[str, int]]:
    """The ``[overrides]`` of the proposed gnome changes."""
    out: dict[str, dict[str, int]] = {}
    for gnome, ts in sorted(trials.items()):
        p = proposal(ts, margin)
        if p is not None:
            out.setdefault(p.candidate.key, {})[gnome] = p.candidate.value
    return out
