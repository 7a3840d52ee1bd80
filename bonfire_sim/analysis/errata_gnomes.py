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

    def to_json(self) -> dict[str, Any]:
        """Plain data for the sheet."""
        return {"change": self.candidate.label, "key": self.candidate.key,
                "value": self.candidate.value, "verified": self.verified,
                "per_count": {str(n): dict(r) for n, r in sorted(self.rows.items())}}


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


def _variant_row(vals: pd.DataFrame, today: pd.Series, margin: float) -> dict[str, float]:
    """The variant's value against today's reference at one count: its recruit value
    minus today's mean of the other gnomes; the half-width combines the variant's own
    with the reference's (today's relative half-width less the gnome's own value's)."""
    if vals.empty or not np.isfinite(float(vals["value"].iloc[0])):
        return {"relative": math.nan, "lo": math.nan, "hi": math.nan, "n": 0,
                "forks_needed": math.nan}
    v = vals.iloc[0]
    ref = float(today["value"]) - float(today["relative"])
    ref_half2 = max(_half(today, "rel_lo", "rel_hi") ** 2 - _half(today, "lo", "hi") ** 2,
                    0.0)
    half = math.sqrt(_half(v, "lo", "hi") ** 2 + ref_half2)
    rel = float(v["value"]) - ref
    room = margin - abs(rel)
    need = (games_needed(int(v["n"]), half, room) if room > 0 and half > 0
            and math.isfinite(half) else math.nan)
    return {"relative": rel, "lo": rel - half, "hi": rel + half, "n": int(v["n"]),
            "forks_needed": need}


def flagged_gnomes(gv: pd.DataFrame | None) -> dict[str, dict[int, pd.Series]]:
    """Per flagged gnome, today's rows at the counts where it is flagged."""
    out: dict[str, dict[int, pd.Series]] = {}
    if gv is None or gv.empty:
        return out
    rows = gv[(gv["players"] > 0) & (gv["flag"].fillna("") != "")]
    for _, r in rows.iterrows():
        out.setdefault(str(r["gnome"]), {})[int(r["players"])] = r
    return out


def try_changes(gv: pd.DataFrame | None, bases: Mapping[int, RunConfig], games: int,
                margin: float, alpha: float, work_dir: Path, seed: int, *, jobs: int = 1,
                status: Callable[[str], None] | None = None,
                progress: Callable[[int, int], None] | None = None,
                ) -> dict[str, list[Trial]]:
    """Per flagged gnome, its candidates (``candidates``) tried in order on ``games``
    fresh games (seed ``seed``) at each flagged count of ``bases``, stopping at the first
    verified one; runs kept under ``work_dir``; ``progress(done, total)`` after each
    planted change and count (total: every candidate tried)."""
    from bonfire_sim.analysis.cards import ProbeSettings, gnome_values
    from bonfire_sim.analysis.runs import Run
    from bonfire_sim.sim.load import load
    from bonfire_sim.sim.runner import run

    say = status or (lambda _line: None)
    tick = progress or (lambda _done, _total: None)
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
                over = {**base.overrides}
                over[cand.key] = {**dict(over.get(cand.key, {})), gnome: cand.value}
                g = max(games - games % n, n) if base.seat_rotation else games
                cfg = replace(base, seed=seed, games=g, overrides=over)
                where = fresh_dir(work_dir, cfg, f"gnome-{gnome}-{cand.key}-{cand.value}"
                                                 f"-seed{seed}", n)
                say(f"{cand.label} at {n} players: {g:,} fresh games, then its forks")
                run(cfg, where, jobs=jobs, resume=True, replace_stale=True)
                vals = gnome_values([Run(where.name, where, load(where, turns=False))],
                                    probes=ProbeSettings(games=g, kinds=("gnome",),
                                                         gnomes=(gnome,)),
                                    margin=margin, alpha=alpha, jobs=jobs,
                                    quiet=True)  # the trials' bar counts this step
                mine = vals[(vals["gnome"] == gnome) & (vals["players"] == n)]
                trial.rows[n] = _variant_row(mine, row, margin)
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
