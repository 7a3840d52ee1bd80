"""``bonfire-sim coverage`` as a library: what the players reached, and how they played.

Plays the games (or reads a finished run), then reports, for the human seats only:
which dealt tasks were ignited and which abilities took effect, and each player's
mechanism mix (``analysis.mechanisms``) next to the mix of ``search`` on the first deals
of the same seed, so a reader sees whether our fast players use the game's mechanisms the
way the look-ahead player does.  Every block says who played.
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import pandas as pd

from bonfire_sim.analysis.coverage import ability_coverage, task_coverage
from bonfire_sim.analysis.mechanisms import mechanism_mix, side_by_side
from bonfire_sim.lineup import who_played
from bonfire_sim.rules import components as C
from bonfire_sim.sim.load import load
from bonfire_sim.sim.runconfig import RunConfig
from bonfire_sim.sim.runner import run

Progress = Callable[[int, int], None]


@dataclass(frozen=True)
class Coverage:
    """What ``coverage`` found: the tables and the lines it prints."""

    players: int
    who: str  # who played, in words
    tasks: pd.DataFrame  # analysis.coverage.task_coverage
    abilities: pd.DataFrame  # analysis.coverage.ability_coverage
    mix: pd.DataFrame  # measure x player (mean per seat-game), search's columns last
    lines: list[str]


def _play(cfg: RunConfig, out: str, jobs: int, progress: Progress | None,
          status: Callable[[str], None] | None) -> str:
    return str(run(cfg, out, jobs=jobs, progress=progress, status=status))


def coverage(run_dir: str | None, *, games: int = 2000, players: int = 4,
             strategies: Sequence[str] = (), seed: int = 0, jobs: int = 1,
             search_games: int = 8, search_budget: int = 16,
             progress: Progress | None = None, search_progress: Progress | None = None,
             status: Callable[[str], None] | None = None) -> Coverage:
    """Play ``games`` games (turn log kept) or read ``run_dir``, then ``search_games``
    games of ``search:<search_budget>`` in every human seat on the same seed's first
    deals (0: no comparison); return the tables and the printable lines."""
    source = str(run_dir)
    with tempfile.TemporaryDirectory() as tmp:
        if run_dir is None:
            source = "played here, not kept"  # the temporary directory is gone by the end
            cfg = RunConfig(games=games, players=players, strategies=tuple(strategies),
                            seed=seed, turn_log="all",
                            chunk_size=min(20_000, max(50, games // (4 * jobs))))
            run_dir = _play(cfg, f"{tmp}/run", jobs, progress, status)
        data = load(run_dir, turns=True, lazy=False)
        n = int(data.config.get("players", players))
        specs = list(data.config.get("strategies", ()))
        mixes = [mechanism_mix(data.players, data.turns)]
        search_who = ""
        if search_games:
            spec = f"search:{search_budget}"
            scfg = RunConfig(games=search_games, players=n, strategies=(spec,),
                             seed=int(data.config.get("seed", seed)), turn_log="all",
                             chunk_size=max(1, min(search_games, 4)))
            sdata = load(_play(scfg, f"{tmp}/search", jobs, search_progress, status),
                         lazy=False)
            mixes.append(mechanism_mix(sdata.players, sdata.turns))
            search_who = (f"; {who_played([spec] * n, n)}: {search_games} games on the "
                          f"first deals of seed {scfg.seed}")
    tasks = task_coverage(data.players, n)
    abil = ability_coverage(data.players)
    mix = side_by_side(*mixes)
    who = who_played(specs, n)
    games_played = len(data.games)
    dealt = tasks[tasks["dealt"]]
    never = dealt.loc[dealt["ignited"] == 0, "task"].tolist()
    not_dealt = tasks.loc[~tasks["dealt"], "task"].tolist()
    missing_a = abil.loc[abil["effects"] == 0, "gnome"].tolist()
    lines = [f"{games_played} games ({source}); who played: {who}",
             f"tasks the players ignited at least once: {len(dealt) - len(never)}/"
             f"{len(dealt)} dealt" + (f"; never: {', '.join(never)}" if never else "")
             + (f"; not dealt at {n} players: {', '.join(not_dealt)}" if not_dealt else ""),
             f"specialists/elders that took effect for the players: "
             f"{C.N_SPECIALISTS + C.N_ELDERS - len(missing_a)}/"
             f"{C.N_SPECIALISTS + C.N_ELDERS}"
             + (f"; never: {', '.join(missing_a)}" if missing_a else ""),
             "",
             f"Mechanism mix, mean per seat-game (Tom left out): {who}{search_who}"]
    if data.turns is None:
        lines.append("(no turn log in this run: the action counts and the Great Bonfire "
                     "share need a run made with --turn-log all)")
    with pd.option_context("display.max_rows", 200, "display.width", 120):
        lines.append(mix.round(3).to_string())
        lines.append("")
        shown = tasks.assign(dealt=tasks["dealt"].map({True: "yes", False: "not dealt"}))
        lines.append(shown.set_index("task").T.to_string())
        lines.append(abil.drop(columns="text").set_index("gnome").T.to_string())
    return Coverage(n, who, tasks, abil, mix, lines)
