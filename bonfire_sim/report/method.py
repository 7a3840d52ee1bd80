"""The report's method section: how the numbers are made, the assumptions in force and
how much they matter (``bonfire-sim sensitivity``); shared by ``report`` and ``compare``."""

from __future__ import annotations

import inspect
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from bonfire_sim import __version__
from bonfire_sim.report import html as H
from bonfire_sim.report import stats as S
from bonfire_sim.rules import components as C

# Half-widths a conclusion needs (95% intervals): below these a figure gets no warning.
TARGET = {"seat_rate": 0.02, "seat_score": 0.5, "task_value": 1.0, "gnome_effect": 1.0,
          "tom_rate": 0.03, "handicap": 1.0}


def variants_in_force(runs: Sequence[tuple[str, Any]]) -> pd.DataFrame:
    """One row per (run, fact): the variant in force, whether it is the default, why."""
    rows = []
    for label, data in runs:
        chosen = C.resolve_variants(data.manifest.get("config", {}).get("variants"))
        for fact, name in chosen.items():
            v = C.variant(fact, name)
            rows.append({"run": label, "fact": fact, "variant": name,
                         "default": name == C.default_variants()[fact],
                         "provenance": v.provenance, "why": v.why})
    return pd.DataFrame(rows)


def _sensitivity_blocks(doc: dict[str, Any] | None) -> list[dict[str, Any]]:
    if doc is None:
        return [H.text_block(
            "How much each headline figure moves when an assumed fact is read another way "
            "(Tom's deck, the fate area, guardian points): run `bonfire-sim sensitivity "
            "--config experiments/sensitivity.toml` (paired games on identical deals) and "
            "pass its JSON with `bonfire-sim report --sensitivity FILE` to show the table "
            "here.")]
    wide = pd.DataFrame(doc["wide"])
    return [H.text_block(
                f"Sensitivity to the assumed facts: each variant replayed the default's deals "
                f"({doc['games']:,} seat-rotated games per player count, {doc['solo_games']:,} "
                f"solo games per style, seed {doc['seed']}). Cells: variant - default with "
                f"the 95% interval of the paired difference (rates in percentage points)."),
            H.table_block(wide, {c: (c, "") for c in wide.columns},
                          caption="How each headline figure moves under each variant")]


FORK_METHOD = (
    "Task and gnome values are interventions in the engine, not correlations. The game "
    "state is one integer vector that carries its random streams, so copying it at a "
    "decision forks the game: both copies draw the same numbers until their moves make "
    "them differ (common random numbers). In every probed game, for every task and gnome, "
    "one decision at which the mover could receive the task, ignite it, or recruit the "
    "gnome is drawn uniformly at random (reservoir sampling from a seed per game, so the "
    "result is the same for any number of workers), and that decision is played out twice "
    "with the seats' own strategies. Take fork: A = receive the task, B = the best other "
    "move; the difference in the mover's final score is the receipt value, the task's "
    "worth with the cost and risk of meeting its condition in it. Light fork: A = ignite "
    "now, B = the best other move, and in B the task is dead from there on (0 points, "
    "and the mover ignites it only if it is ever its only main option, so no fork puts "
    "the mover out of the game); the difference is the lit value, shown beside the "
    "receipt value (forced forks do the same after a take the strategy would not have "
    "made, so tasks the players avoid are measured too). A task's surplus is its "
    "receipt value minus the mean receipt value of the other tasks of its colour (the "
    "game's difficulty tiers) at that player count; the fair printed value is printed - "
    "surplus / (2 x the surplus a printed point buys at fixed play, held in 0.5-2), and "
    "`bonfire-sim reprice --verify` checks a whole-point proposal on fresh deals. "
    "Gnome fork: A = recruit the gnome, B = the best other move; a gnome's value is that "
    "difference minus the mean of the other gnomes (points against the average gnome). "
    "Intervals: Student t over deals, clustered by deal (the games of one deal under seat "
    "rotation share its cards). A row is measured when its 95% half-width is within the "
    "margin (and it rests on at least 10 deals); otherwise it says the forks it needs. "
    "Every row on 10+ deals is tested, so one whose whole interval lies beyond the "
    "margin is flagged before it is measured. Values are per player count; a pooled row "
    "is shown only where Cochran's Q does not reject equal values (p >= 0.05).")
FLAG_METHOD = (
    "Flags: a row is flagged only when its estimate lies more than the practical margin "
    "from its reference (task surplus vs 0, gnome vs the average gnome, compensation vs "
    "0): one-sided test of |difference| <= margin, Benjamini-Hochberg false discovery rate "
    "5% within each family (e.g. the tasks of one player count; scipy.stats."
    "false_discovery_control). Every row whose 95% interval is wider than ± the margin "
    "gets a precision warning with the observations it would need.")


def section_method(games: pd.DataFrame, warnings: list[str],
                   provenance: Sequence[str] = (),
                   variants: pd.DataFrame | None = None,
                   sensitivity: dict[str, Any] | None = None) -> dict[str, Any]:
    facts = S.assumed_facts(inspect.getsource(C))
    blocks = [H.text_block(FORK_METHOD), H.text_block(FLAG_METHOD)]
    blocks += [H.text_block(p) for p in provenance]
    blocks += [
        H.text_block("Intervals are 95%: Wilson score intervals for rates (win rates, take, "
                     "light and recruitment rates, end-reason shares); Student t intervals "
                     "for means; OLS with HC3 heteroskedasticity-robust standard errors for "
                     "adjusted task and gnome effects (normal approximation); a percentile "
                     "bootstrap (500 resamples) for the equilibrium handicap. Tests: "
                     "chi-square goodness of fit of fractional wins by seat."),
        H.text_block("Precision: an interval's width shrinks as 1/sqrt(games), so halving it "
                     "takes 4x the games; the games needed for a target half-width h are "
                     "n x (current half-width / h)^2. Target half-widths used for the "
                     "warnings: " + ", ".join(f"{k} ±{v:g}" for k, v in TARGET.items()) + "."),
        H.text_block("Solo games are used only in the Tom section; Tom's rows never enter "
                     "the seat, task or gnome analyses."),
    ]
    if warnings:
        blocks.append(H.text_block("Warnings in this report: " + " | ".join(warnings)))
    blocks.append(H.table_block(facts, {"name": ("fact", ""), "note": ("note", ""),
                                        "line": ("components.py line", "d")},
                                caption="Component facts in force that are [assumed] (the "
                                        "rulebook pictures are missing): every figure above "
                                        "depends on them"))
    if variants is not None and len(variants):
        blocks.append(H.table_block(variants, {
            "run": ("run", ""), "fact": ("fact", ""), "variant": ("variant in force", ""),
            "default": ("default?", ""), "provenance": ("provenance", ""),
            "why": ("why it is plausible", "")},
            caption="Assumptions in force: the named variant of each uncertain fact, per run "
                    "(bonfire-sim cards --kind variants lists the alternatives)"))
    blocks += _sensitivity_blocks(sensitivity)
    return {"id": "method", "title": "Method and caveats", "blocks": blocks, "absent": None,
            "data": {}}



def load_sensitivity(path: str | Path) -> dict[str, Any]:
    """The JSON document ``bonfire-sim sensitivity --json`` wrote."""
    from bonfire_sim.errors import DataError
    from bonfire_sim.infra import readers

    try:
        doc = readers.parse_json(readers.read_bytes(path, "sensitivity file"), path)
    except FileNotFoundError:
        raise DataError(f"sensitivity file {path} not found") from None
    except (OSError, ValueError) as e:
        raise DataError(f"{path} is unreadable or not JSON ({e})") from None
    if not isinstance(doc, dict) or doc.get("format") != "bonfire_sim-sensitivity":
        raise DataError(f"{path} is not written by bonfire-sim sensitivity --json")
    return doc


# ---- how the report was made --------------------------------------------------------
def provenance(runs: Sequence[Any], command: str | None = None,
               probes: Any = None) -> list[str]:
    """Lines recording how the report was made: engine, runs and their seeds, command."""
    from bonfire_sim.infra._jitcache import source_hash

    lines = [f"Made by bonfire_sim {__version__} (engine source hash {source_hash()}) on "
             f"{time.strftime('%Y-%m-%d %H:%M')}"
             + (f" with: {command}" if command else "") + "."]
    for r in runs:
        c = r.config
        lines.append(f"Run {r.label}: {c.games:,} games, {c.players} players, seed {c.seed}, "
                     f"strategies {', '.join(c.strategies)}, seat rotation {c.seat_rotation}, "
                     f"overrides {dict(c.overrides) or 'none'}"
                     + (f", directory {r.path}" if r.path else "") + ".")
    games = getattr(probes, "games", probes)
    lines.append("Forks: " + (f"the first {games:,} games of each run" if games else
                              "every game of each run") + " (cached in the user's cache "
                 "directory)" + survey_text(probes) + ".")
    return lines


def survey_text(probes: Any) -> str:
    """What ``--measure-cards`` adds to the forks, in words ('' without it)."""
    if not getattr(probes, "survey", False):
        return ""
    from bonfire_sim.analysis.cards.survey import MAX_GAMES

    return (f"; card rows wider than the margin topped up on fresh deals of the same game "
            f"(each on the games its interval needs, at most {MAX_GAMES:,} four-player "
            f"games per card, as many seat-games at the other counts)")


def forks_text(probes: Any, runs: Sequence[Any]) -> str:
    games = getattr(probes, "games", probes)
    each = f"the first {games:,} games" if games else "every game"
    return (f"forks in {each} of each of {len(runs)} run(s) "
            f"({', '.join(r.label for r in runs)}; cached per run){survey_text(probes)}")
