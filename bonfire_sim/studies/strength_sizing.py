"""How many games the top two rungs of a strength ladder need (``search_games = "auto"``).

A mark compares the top two rungs: *converged* when the 95% interval of their difference
lies within the answer's tolerance, *still moves* when it lies wholly outside.  Whether
the games can tell depends on that interval's half-width, so the search rungs' runs are
sized for it instead of by hand: a pilot of ``pilot_games`` games per run measures each
figure's half-width at both top rungs, and ``intervals.games_needed`` scales it (as
1/sqrt(n)) to a difference half-width of ``AIM`` times the tolerance.  At that width a
figure whose rungs truly agree is marked converged in about 95% of ladders, and one
whose rungs differ by 1.5 tolerances or more is marked as moving.

Where both top rungs are sized (Tom: the recommended solo player and the stronger top
solo player, both searches) both play the same number of games, the same deals, so their
difference is sized on its paired width (``strength_paired``: per deal, as the mark reads
it); where one is a fast rung its width stands as played and the search rung gets what
is left of the aim (nothing when the fast rung alone is wider: then its ``games`` must
grow first).  A run plays the most its affordable figures need, at most
``search_max_games``; a figure that would need more stays at the pilot's games,
undecided, and the table says what it would cost.  A finished sized run of at least the
games now needed is read as played, never replayed (the same deals, a few more of them);
one of fewer stays beside the larger run that replaces it (``sized/<setting>-games=N``).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

import pandas as pd

from bonfire_sim.analysis.intervals import games_needed
from bonfire_sim.studies import strength as ST

AIM = 0.5  # the difference's 95% half-width sized for, as a share of the tolerance
SIZING_COLUMNS = ["figure", "setting", "sized", "pilot_games", "top_half", "below_half",
                  "paired_half", "aim", "games_needed", "affordable"]


def _half(row: Any) -> float:
    return (float(row.hi) - float(row.lo)) / 2


def _paired_half(top: Any) -> float | None:
    """The half-width of the top row's paired difference (``strength_paired``), None
    where the pilots were not paired."""
    lo, hi = getattr(top, "d_lo", math.nan), getattr(top, "d_hi", math.nan)
    try:
        half = (float(hi) - float(lo)) / 2
    except (TypeError, ValueError):
        return None
    return half if math.isfinite(half) else None


def figure_needs(answers: pd.DataFrame, sized: Mapping[str, set[str]], pilot: int,
                 cap: int) -> pd.DataFrame:
    """Per figure marked from the top two rungs, the games a sized run needs
    (``SIZING_COLUMNS``).  ``answers``: the pilot's answers (every rung); ``sized``:
    ``{rung: settings}`` of the runs sized from the pilot (``players=2``,
    ``solo-task1``); ``pilot``: their games; ``cap``: the most a run may play."""
    rungs = list(dict.fromkeys(answers.sort_values("step")["rung"]))
    if len(rungs) < 2:
        return pd.DataFrame(columns=SIZING_COLUMNS)
    below_name, top_name = rungs[-2], rungs[-1]
    rows = []
    for figure, g in answers.groupby("figure", sort=False):
        by = {str(r.rung): r for r in g.itertuples()}
        if below_name not in by or top_name not in by:
            continue
        top, below = by[top_name], by[below_name]
        setting = str(top.setting)
        top_sized = setting in sized.get(top_name, set())
        below_sized = setting in sized.get(below_name, set())
        if not (top_sized or below_sized):
            continue
        aim = AIM * float(top.tolerance)
        h_top, h_below = _half(top), _half(below)
        paired = _paired_half(top)
        if top_sized and below_sized:  # both grow together: the difference's width scales
            # (paired by deal where the pilots share their deals: the paired variance)
            width = paired if paired is not None else math.hypot(h_top, h_below)
            need = games_needed(pilot, width, aim)
        else:  # one fast rung, its width as played: the search rung gets the rest
            fixed, grows = (h_below, h_top) if top_sized else (h_top, h_below)
            left = aim * aim - fixed * fixed
            need = games_needed(pilot, grows, math.sqrt(left)) if left > 0 else math.nan
        rows.append({"figure": figure, "setting": setting,
                     "sized": " and ".join(n for n, s in ((below_name, below_sized),
                                                          (top_name, top_sized)) if s),
                     "pilot_games": pilot, "top_half": h_top, "below_half": h_below,
                     "paired_half": math.nan if paired is None else paired,
                     "aim": aim, "games_needed": need,
                     "affordable": bool(math.isfinite(need) and need <= cap)})
    return pd.DataFrame(rows, columns=SIZING_COLUMNS)


def run_sizes(needs: pd.DataFrame, pilot: int, players_of: Callable[[str], int],
              ) -> dict[str, int]:
    """Games per sized setting: the most its affordable figures need (never fewer than the
    pilot), rounded up to whole deals of its player count."""
    out: dict[str, int] = {}
    for setting, g in needs.groupby("setting", sort=False):
        ok = g.loc[g["affordable"], "games_needed"]
        n = max(pilot, int(ok.max())) if len(ok) else pilot
        p = players_of(str(setting))
        out[str(setting)] = -(-n // p) * p
    return out


def _players_of(setting: str) -> int:
    return int(setting.removeprefix("players=")) if setting.startswith("players=") else 1


def sized_settings(config: ST.StrengthConfig) -> dict[str, set[str]]:
    """``{rung: settings}`` of the runs played as a pilot first (the top two rungs' search
    runs whose count is ``"auto"``)."""
    out: dict[str, set[str]] = {}
    for rung in config.rungs[-2:]:
        keys = set()
        if config.auto(rung, solo=False):
            keys |= {f"players={n}" for n in config.players}
        if config.auto(rung, solo=True):
            keys |= {f"solo-{d}" for d in config.decks}
        if keys:
            out[rung.name] = keys
    return out


def top_up(config: ST.StrengthConfig, dirs: Mapping[str, Mapping[str, Any]],
           out: str | Path, *, jobs: int = 1,
           progress: Callable[[int, int], None] | None = None,
           status: Callable[[str], None] | None = None,
           ) -> tuple[dict[str, dict[str, Any]], pd.DataFrame, dict[str, dict[str, int]]]:
    """Size the pilot runs of ``dirs`` (``play_ladder``'s result) and play the sized runs
    under ``out/rung=<name>/sized/<setting>``; returns (the directories with every sized
    run in place of its pilot, the sizing table, ``{rung: {setting: games}}``).  Without
    an ``"auto"`` count it returns ``dirs`` unchanged and an empty table."""
    from bonfire_sim.sim.runner import run

    sized = sized_settings(config)
    new = {r: dict(k) for r, k in dirs.items()}
    if not sized:
        return new, pd.DataFrame(columns=SIZING_COLUMNS), {}
    pilot = ST.strength_answers(dirs)
    needs = figure_needs(pilot, sized, config.pilot_games, config.search_max_games)
    sizes = run_sizes(needs, config.pilot_games, _players_of)
    jobs_plan = [j for j in ST.plan(config) if j["key"] in sized.get(j["rung"], set())
                 and j["same_as"] is None and sizes.get(j["key"], 0) > j["config"].games]
    total = round(sum(sizes[j["key"]] * ST.game_cost(j["config"]) for j in jobs_plan))
    done = 0.0
    played: dict[str, dict[str, int]] = {}
    for job in jobs_plan:
        n = sizes[job["key"]]
        cfg = replace(job["config"], games=n,
                      chunk_size=ST.chunk_size(n, job["config"].strategies))
        where = Path(out) / ST.folder(job["rung"]) / "sized" / job["key"]
        more = _finished_games(where, cfg)
        if more >= n:  # played before for a wider aim: the same deals, read as they are
            new[job["rung"]][job["key"]] = where
            played.setdefault(job["rung"], {})[job["key"]] = more
            continue
        if more:  # a finished smaller run stays as it is; the larger one goes beside it
            where = where.with_name(f"{job['key']}-games={n}")
        cost = ST.game_cost(cfg)
        if status is not None:
            status(f"{job['rung']}, {job['key']}: sized to {n:,} games (pilot "
                   f"{job['config'].games}) of {', '.join(dict.fromkeys(cfg.strategies))}")

        def step(d: int, _t: int, base: float = done, cost: float = cost) -> None:
            if progress is not None:
                progress(round(base + d * cost), total)

        new[job["rung"]][job["key"]] = Path(run(
            cfg, where, jobs=jobs, resume=(where / "manifest.json").is_file(),
            progress=step, status=status))
        played.setdefault(job["rung"], {})[job["key"]] = n
        done += n * cost
    # a rung that reuses another's games reuses its sized runs too
    for job in ST.plan(config):
        if job["same_as"] is not None:
            new[job["rung"]][job["key"]] = new[job["same_as"]][job["key"]]
    return new, needs, played


def _finished_games(where: Path, cfg: Any) -> int:
    """The games of a finished run in ``where`` whose configuration is ``cfg``'s but for
    its games and chunks (0 when there is none)."""
    from bonfire_sim.sim.runner import MANIFEST, read_manifest
    from bonfire_sim.sim.tablecheck import stored_config

    if not (where / MANIFEST).is_file():
        return 0
    # the run's own reader: a linked, special, corrupt or foreign manifest is one
    # DataError (exit 2), never a traceback or a read elsewhere
    manifest = read_manifest(where)
    stored = stored_config(manifest)
    want = cfg.to_json()
    same = all(stored.get(k) == v for k, v in want.items() if k not in ("games", "chunk_size"))
    return int(stored.get("games", 0)) if same and manifest.get("complete") else 0


def with_costs(marked: pd.DataFrame, needs: pd.DataFrame | None) -> pd.DataFrame:
    """The marks with each sized figure's cost in its ``detail``: the games a run needed
    for the mark and whether the ladder could afford them (an undecided mark then says
    what it would cost instead of only that it is undecided)."""
    if needs is None or needs.empty:
        return marked
    by = {str(r.figure): r for r in needs.itertuples()}
    # a figure over the cap is still read on its setting's run, which another figure of
    # that setting may have sized beyond the pilot: say on how many games, not "not played"
    pilot = int(needs["pilot_games"].max())
    sizes = run_sizes(needs, pilot, _players_of)
    out = marked.copy()
    details = []
    for figure, detail in zip(out["figure"], out["detail"], strict=True):
        r = by.get(str(figure))
        if r is None:
            details.append(detail)
        elif not math.isfinite(float(r.games_needed)):
            details.append(f"{detail}; sizing: the fast rung alone is wider than ±"
                           f"{r.aim:g}, it needs more games first")
        else:
            ran = sizes.get(str(r.setting), pilot)
            said = ("played" if r.affordable
                    else f"over the run cap; read on the {ran:,} games its run was sized to "
                         f"for another figure" if ran > r.pilot_games
                    else "over the run cap, not played")
            details.append(f"{detail}; sizing: {int(r.games_needed):,} games a run for ±"
                           f"{r.aim:g} on the difference ({said}; pilot {r.pilot_games})")
    return out.assign(detail=details)
