"""The whole card table to a margin: forks spent where the intervals need them.

``card_values`` forks every card on the same games, so its precision follows how often
the players meet each card: after 400 four-player games a blue task has hundreds of
forks and a 95% half-width under a point, a gnome about a hundred (half-width about 2.2),
and a yellow task nobody plays for (Y15: its five action tiles in the supply) a handful.
Forking every card on more games to reach the last one wastes nearly all the forks on
the cards already measured.

``survey_cards`` measures per player count in stages:

1. **all cards** on the first ``games`` games (the runs' own forks when runs are given);
2. **top-ups**, round after round on fresh deals: every row still wider than the margin
   gets the games its ``forks_needed`` ask for at its own fork rate (10% spare; a later
   round corrects a rate estimated from few forks), its cards alone forked.  Rows asking
   for the same number of games share a batch, and a round's batches share one pass over
   its games (``probes.probe_staggered``: a card is forked in its first games only), so
   the rare cards' long batch costs base games, not 99 cards' forks, and no game is
   played twice.  A row never gets more than ``games_cap(max_games, players)`` games in
   all (a card the players almost never meet would need hundreds of thousands): it stays
   ``not measured`` with the forks it has.  The cap is a budget of play: ``max_games``
   four-player games, and as many seat-games at the other counts (twice the games at 2
   players), since a game's cost grows with its seats' decisions.

Every fork of a card estimates the same quantity (the card's value at a decision drawn
uniformly from the eligible ones of a game of this configuration), so the stages pool;
the interval is clustered by (seed, deal).  Each card is forked at most once per deal
(one batch per card per round, a fresh seed per round), and everything is a function of
the configuration and the seed: the same call gives the same table with any number of
workers or on a cluster.  Different player counts, players, variants or overrides are
different games and are never pooled (``groups.group_runs``).  ``bonfire-sim reprice``
estimates from the same survey (``top_up_runs`` on its runs' own forks), so the price
loop and ``values`` see the same rows.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace

import numpy as np
import pandas as pd

from bonfire_sim.analysis import flags as FL
from bonfire_sim.analysis.cards.groups import check_one_game, group_runs
from bonfire_sim.analysis.cards.probes import (
    GNOME_IDS,
    TASK_IDS,
    ProbeSettings,
    probe_staggered,
    probe_values,
)
from bonfire_sim.analysis.cards.table import (
    DEFAULT_MEASURE,
    TOP_UP_RUN,
    card_kinds,
    card_settings,
    card_table,
    check_measure,
    population,
    populations,
    printed_points,
    task_kinds,
)
from bonfire_sim.analysis.runs import Run, RunLike, as_runs
from bonfire_sim.errors import ConfigError, DataError
from bonfire_sim.infra.progress import step_of
from bonfire_sim.sim.runconfig import RunConfig

FIRST_GAMES = 400  # games per player count on which every card is forked
MAX_GAMES = 32_000  # four-player games per card at most, all stages together (other
# counts: as many seat-games, ``games_cap``): the whole table at 2, 3 and 4 players stays
# within 5 minutes on 2 cores (bench card-table)
ROUNDS = 4  # top-up rounds at most
SPARE = 1.1  # a top-up asks for 10% more forks than the estimate says
# The half-width the top-ups aim for, as a share of the margin: a row flagged alone among
# 66 needs |surplus| >= margin + 3.2 se (``flags.detection_floor``), so a planted 2-point
# change at one count is detected only when the half-width is about 0.6 of a 1-point margin.
TARGET_SHARE = 0.6


def kinds_of(measure: str = DEFAULT_MEASURE) -> dict[str, tuple[str, ...]]:
    """The forks a card's value uses, per kind of card (a top-up forks only these)."""
    return {"task": task_kinds(measure), "gnome": ("gnome",)}


@dataclass(frozen=True)
class Batch:
    """One probe: ``games`` games of ``players`` players from ``seed``, forking ``cards``
    (all of them in the first stage; in a top-up each card in the games it asked for),
    with the forks it gave and its wall time."""

    players: int
    stage: int
    seed: int
    games: int
    cards: tuple[str, ...]
    forks: int
    seconds: float


@dataclass
class Survey:
    """``table``: ``card_table`` rows (66 tasks, 33 gnomes per player count) plus ``who``
    (the players) and ``games`` (games the row's card was forked on); ``batches``: every
    probe played, in order; ``seconds``: the wall time of all of them."""

    table: pd.DataFrame
    batches: list[Batch] = field(default_factory=list)
    seconds: float = 0.0



def _batch_size(games: float) -> int:
    """A top-up's games rounded up to a multiple of 16 (at least 32): a round's cards
    share one pass over its games, so sizes need no coarser grid, and a multiple of 16
    keeps the pass's chunks few."""
    return int(max(32, math.ceil(games / 16) * 16))


def top_up_plan(table: pd.DataFrame, played: Mapping[str, int], max_games: int) -> dict[
        int, list[str]]:
    """Batch size -> cards: the rows of one player count still wider than the margin (or
    on too few deals), each asking for the games its ``forks_needed`` need (10% spare) at
    its own fork rate over the ``played`` games (a row without a fork: four times its
    games so far), in multiples of 16, and never beyond ``max_games`` games in all (a
    row at the cap gets no more: it stays ``not measured`` with the forks it has)."""
    plan: dict[int, list[str]] = {}
    for _, r in table[table["status"] != "measured"].iterrows():
        card = str(r["card"])
        had = int(played.get(card, 0))
        room = max_games - had
        if room <= 0 or had <= 0:
            continue
        n = int(r["n"])
        need = float(r["forks_needed"]) if n > 0 else math.nan
        more = (max(0.0, SPARE * need - n) * had / n if math.isfinite(need)
                else 4.0 * had)
        size = min(_batch_size(more), room)
        plan.setdefault(size, []).append(card)
    return dict(sorted(plan.items()))


def games_cap(max_games: int, players: int) -> int:
    """Games per card at ``players`` players for a cap of ``max_games`` four-player games:
    the same number of seat-games (64,000 two-player games for 32,000)."""
    return max_games * 4 // players


def whole_games(games: int, players: int) -> int:
    """``games`` (at least 1) rounded up to whole seat rotations of ``players`` seats
    (every deal in every seat order)."""
    return -(-max(games, 1) // players) * players


def _whole(config: RunConfig, games: int) -> int:
    return whole_games(games, config.players if config.seat_rotation else 1)


def _fresh(config: RunConfig, seed: int, games: int) -> RunConfig:
    """The configuration's game on other deals: ``seed``, ``games`` (whole rotations)."""
    return replace(config, seed=seed, games=_whole(config, games))


def survey_cards(runs: Sequence[RunLike] | Mapping[int, RunConfig], *,
                 margin: float = FL.MARGIN, alpha: float = FL.ALPHA,
                 games: int = FIRST_GAMES, max_games: int = MAX_GAMES,
                 rounds: int = ROUNDS, seed: int | None = None, jobs: int = 1,
                 quiet: bool = True, cache: bool = True,
                 note: Callable[[str], None] | None = None, target: float | None = None,
                 checkpoint: Callable[[pd.DataFrame], None] | None = None,
                 measure: str = DEFAULT_MEASURE) -> Survey:
    """Every task's and gnome's card value to ± ``margin`` (or ``not measured`` with the
    forks it has), per player count, spending forks where the intervals need them;
    ``max_games``: games per card at 4 players (``games_cap`` at the others).

    ``runs``: finished runs (their forks on their first ``games`` games are the first
    stage, cached like ``card_values``'), or player count -> configuration (the first
    stage plays ``games`` games of it, seed ``seed`` or the configuration's).  Top-ups
    play fresh deals: seeds from ``seed`` (default one above every seed used) upward,
    one per round.  ``target``: the half-width the top-ups aim for (default
    ``TARGET_SHARE`` x margin, so a 2-point change at one count is flagged).  Every probe
    is cached (``probes.fork_cache_dir``), so a survey interrupted and started again
    replays only the probe it was in; ``checkpoint`` receives the table of the counts
    done so far after each count (``values --out`` writes it as it goes).
    ``cache=False``: play every probe even where the fork cache holds it (timings).
    ``measure``: a task's value (``table.MEASURES``).  See the module docstring for the
    design."""
    check_measure(measure)
    for name, v, lo in (("games", games, 1), ("max_games", max_games, 1),
                        ("rounds", rounds, 0)):
        if not isinstance(v, int) or v < lo:
            raise ConfigError(f"{name} must be an integer >= {lo}, got {v!r}")
    if not math.isfinite(margin) or margin <= 0:
        raise ConfigError(f"margin must be a positive number of points, got {margin}")
    groups = _groups(runs)
    used = {c.seed for c, _ in groups.values()}
    base = (max(used) + 1) if seed is None else int(seed)
    if any(base + i in used for i in range(rounds)):
        raise DataError(f"the top-ups' fresh seeds {base}..{base + rounds - 1} include a "
                        f"seed of the first stage ({sorted(used)}): pick a disjoint seed")
    target = TARGET_SHARE * margin if target is None else float(target)
    if not math.isfinite(target) or target <= 0:
        raise ConfigError(f"target must be a positive half-width in points, got {target}")
    survey = Survey(table=pd.DataFrame())
    t_all = time.perf_counter()
    parts = []
    for n, (config, run_dir) in groups.items():
        parts.append(_survey_one(survey, n, config, run_dir, (margin, target), alpha, games,
                                 max_games, rounds, base, jobs, quiet, cache, note, measure))
        if checkpoint is not None:
            checkpoint(pd.concat(parts, ignore_index=True))
    survey.table = pd.concat(parts, ignore_index=True)
    survey.seconds = time.perf_counter() - t_all
    return survey


def _groups(runs: Sequence[RunLike] | Mapping[int, RunConfig]
            ) -> dict[int, tuple[RunConfig, str | None]]:
    """Player count -> (configuration, run directory or None); one run per count."""
    if isinstance(runs, Mapping):
        out: dict[int, tuple[RunConfig, str | None]] = {}
        for n, c in sorted(runs.items()):
            if not isinstance(c, RunConfig) or c.players != n:
                raise ConfigError(f"player count {n}: expected a RunConfig of {n} players")
            out[n] = (c, None)
        if not out:
            raise ConfigError("no player count to survey")
        return out
    rs: list[Run] = as_runs(list(runs))
    if not rs:
        raise DataError("no runs to survey")
    out = {}
    for n, g in group_runs(rs).items():
        if len(g) > 1:
            raise DataError(f"{len(g)} runs of {n} players ({', '.join(r.label for r in g)}): "
                            f"survey one run per player count (its top-ups play fresh "
                            f"deals of that run's game)")
        out[n] = (g[0].config, str(g[0].path))
    return out


def _survey_one(survey: Survey, n: int, config: RunConfig, run_dir: str | None,
                precision: tuple[float, float], alpha: float, games: int, max_games: int,
                rounds: int, base: int, jobs: int, quiet: bool, cache: bool,
                note: Callable[[str], None] | None, measure: str) -> pd.DataFrame:
    """Stages of one player count (``precision`` = (margin, target half-width));
    appends its batches to ``survey``."""
    margin, target = precision
    printed = {n: printed_points(config)}
    first = config if run_dir else _fresh(config, config.seed, games)
    g0 = min(_whole(config, games), first.games)
    t0 = time.perf_counter()
    forks = _tagged(probe_values(first, ProbeSettings(games=g0, kinds=card_kinds(measure)),
                                 run_dir=run_dir, jobs=jobs, quiet=quiet,
                                 cache_as=None if run_dir or not cache else {"survey": 1}),
                    first.seed)
    survey.batches.append(Batch(n, 0, first.seed, g0, ("all",), len(forks),
                                time.perf_counter() - t0))
    played = dict.fromkeys(TASK_IDS + GNOME_IDS, g0)
    extra = top_up(forks, config, played, cards=TASK_IDS + GNOME_IDS, margin=target,
                   alpha=alpha, max_games=games_cap(max_games, n), rounds=rounds, seed=base,
                   jobs=jobs, quiet=quiet, note=note, batches=survey.batches, cache=cache,
                   measure=measure)
    table = card_table(pd.concat([forks, extra], ignore_index=True), printed, margin, alpha,
                       measure=measure)
    table["who"] = population(config.strategies)
    table["games"] = table["card"].map(played).astype(np.int64)
    return table


def top_up(forks: pd.DataFrame, config: RunConfig, played: dict[str, int], *,
           cards: Sequence[str], margin: float = FL.MARGIN, alpha: float = FL.ALPHA,
           max_games: int = MAX_GAMES, rounds: int = ROUNDS, seed: int, jobs: int = 1,
           quiet: bool = True, note: Callable[[str], None] | None = None,
           batches: list[Batch] | None = None, cache: bool = True,
           measure: str = DEFAULT_MEASURE,
           progress: Callable[[str, int, int], None] | None = None) -> pd.DataFrame:
    """The top-up forks of one player count: round after round (fresh seeds ``seed``,
    ``seed + 1``, ...), every row of ``cards`` that ``forks`` (with a ``cluster``
    column) leave wider than ``margin`` forked alone on the games it needs
    (``top_up_plan``) of ``config``'s game.  ``played`` (card -> games forked so far) is
    updated in place; each probe is appended to ``batches``; ``progress(what, done,
    total)``: the games of each round's pass (``what`` names the count, round and seed)."""
    n = config.players
    printed = {n: printed_points(config)}
    wanted = set(cards)
    extra: list[pd.DataFrame] = []
    table = card_table(forks, printed, margin, alpha, measure=measure)
    for r in range(rounds):
        plan = top_up_plan(table[table["card"].isin(wanted)], played, max_games)
        if not plan:
            break
        sizes = {c: _whole(config, g) for g, cs in plan.items() for c in cs}
        cfg = _fresh(config, seed + r, max(sizes.values()))
        if note:
            lo, hi = min(sizes.values()), max(sizes.values())
            note(f"{n} players, top-up {r + 1}: {len(sizes)} row(s) wider than "
                 f"±{margin:g}, each forked on the games it needs ({lo:,}"
                 + (f"-{hi:,}" if hi > lo else "") + f") of seed {cfg.seed}")
        t0 = time.perf_counter()
        what = f"{n} players, top-up {r + 1} (seed {cfg.seed}, {len(sizes)} row(s))"
        got = probe_staggered(cfg, sizes, kinds=kinds_of(measure), jobs=jobs, quiet=quiet,
                              cache=cache, progress=step_of(progress, what))
        if batches is not None:
            batches.append(Batch(n, r + 1, cfg.seed, cfg.games, tuple(sorted(sizes)),
                                 len(got), time.perf_counter() - t0))
        extra.append(_tagged(got, cfg.seed))
        for c, g in sizes.items():
            played[c] += g
        table = card_table(pd.concat([forks, *extra], ignore_index=True), printed, margin,
                           alpha, measure=measure)
    if not extra:
        return forks.iloc[:0].copy()
    return pd.concat(extra, ignore_index=True)


def card_forks(runs: Sequence[Run], probes: ProbeSettings | int | None = None, *,
               kinds: Sequence[str] | None = None, margin: float = FL.MARGIN,
               alpha: float = FL.ALPHA, jobs: int = 1, quiet: bool = True,
               note: Callable[[str], None] | None = None,
               measure: str = DEFAULT_MEASURE,
               progress: Callable[[int, int], None] | None = None,
               max_games: int | None = None, rounds: int | None = None,
               seed: int | None = None,
               top_up_progress: Callable[[str, int, int], None] | None = None,
               batches: list[Batch] | None = None) -> pd.DataFrame:
    """The runs' forks of ``card_settings(probes, measure)`` limited to ``kinds`` (default
    every kind the ``measure``'s card table reads; so the tasks'
    values never pay for gnome forks, nor the reverse; cached like ``probe_values``)
    with ``run`` and a deal ``cluster`` column (run, deal).  With ``probes.survey`` the
    rows of those kinds still wider than ``margin`` are topped up per player count on
    fresh deals of the runs' game (``top_up``, seeds above the runs'); their ``run`` is
    ``TOP_UP_RUN``: at most ``max_games`` (default ``MAX_GAMES``) four-player games per
    card, ``rounds`` (default ``ROUNDS``) rounds on the seeds from ``seed`` (default one
    above the runs').  ``progress(done, total)``: the runs' forked games;
    ``top_up_progress(what, done, total)``: each top-up round's (``top_up``); each
    top-up probe is appended to ``batches``."""
    from bonfire_sim.infra.progress import part_of

    kinds = card_kinds(measure) if kinds is None else kinds
    settings = card_settings(probes, measure)
    settings = replace(settings, kinds=tuple(k for k in settings.kinds if k in kinds)
                       or tuple(kinds), survey=False)
    parts = []
    sizes = [min(settings.games or r.config.games, r.config.games) for r in runs]
    for i, run in enumerate(runs):
        t = probe_values(run.config, settings, run_dir=run.path, jobs=jobs, quiet=quiet,
                         progress=part_of(progress, sum(sizes[:i]), sum(sizes)))
        parts.append(t.assign(run=run.label, cluster=run.label + "|" + t["deal"].astype(str)))
    if not parts:
        return pd.DataFrame()
    forks = pd.concat(parts, ignore_index=True)
    if not (isinstance(probes, ProbeSettings) and probes.survey):
        return forks
    cards = ((TASK_IDS if set(task_kinds(measure)) & set(settings.kinds) else ())
             + (GNOME_IDS if "gnome" in settings.kinds else ()))
    groups = {n: [r for r in runs if r.config.players == n]
              for n in sorted({r.config.players for r in runs})}
    forked = forked_games(groups, settings.games)
    extra, _ = top_up_runs(forks, groups, forked, cards=cards, target=margin, alpha=alpha,
                           # the module's defaults read now: tests lower them
                           max_games=MAX_GAMES if max_games is None else max_games,
                           rounds=ROUNDS if rounds is None else rounds,
                           seed=max(r.config.seed for r in runs) + 1 if seed is None else seed,
                           jobs=jobs, quiet=quiet, note=note, measure=measure,
                           progress=top_up_progress, batches=batches)
    return pd.concat([forks, extra.assign(run=TOP_UP_RUN)], ignore_index=True)


def forked_games(groups: Mapping[int, Sequence[Run]], games: int | None) -> dict[int, int]:
    """Per player count, the runs' games forked (each run's first ``games``, or all of
    them): the games every card of the count was already forked on before its top-ups."""
    return {n: sum(min(games or r.config.games, r.config.games) for r in g)
            for n, g in groups.items()}


def top_up_runs(forks: pd.DataFrame, groups: Mapping[int, Sequence[Run]],
                forked: Mapping[int, int], *, cards: Sequence[str], target: float,
                alpha: float = FL.ALPHA, max_games: int = MAX_GAMES, rounds: int = ROUNDS,
                seed: int, jobs: int = 1, quiet: bool = True,
                note: Callable[[str], None] | None = None,
                measure: str = DEFAULT_MEASURE, batches: list[Batch] | None = None,
                progress: Callable[[str, int, int], None] | None = None,
                ) -> tuple[pd.DataFrame, dict[int, dict[str, int]]]:
    """The survey's top-ups of finished runs' own forks (with a ``cluster`` column), per
    player count of ``groups`` (runs of one count must play one game: the top-ups play
    fresh deals of the first run's): every row of ``cards`` wider than ``target`` forked
    alone on the games it needs (``top_up``; seeds ``seed`` .. ``seed + rounds - 1`` at
    every count), at most ``games_cap(max_games, n)`` games per card (or the ``forked``
    games the runs gave it, if more).  Returns the extra forks and, per count, the games
    each card was forked on in all; ``progress`` as ``top_up``'s."""
    parts = [forks.iloc[:0]]
    played: dict[int, dict[str, int]] = {}
    for n, group in sorted(groups.items()):
        check_one_game(group, "measure them in separate calls")
        played[n] = dict.fromkeys(cards, forked[n])
        parts.append(top_up(forks[forks["players"] == n], group[0].config, played[n],
                            cards=cards, margin=target, alpha=alpha,
                            max_games=max(games_cap(max_games, n), forked[n]),
                            rounds=rounds, seed=seed, jobs=jobs, quiet=quiet, note=note,
                            batches=batches, measure=measure, progress=progress))
    return pd.concat(parts, ignore_index=True), played


def detection_floors(table: pd.DataFrame) -> dict[int, tuple[float, float, float]]:
    """Per player count, the tasks' detection floors (``detect``: the |surplus| a lone
    row needs to be flagged) as (median, least, largest): what "not flagged" rules out."""
    out = {}
    for n, g in table.groupby("players", sort=True):
        d = g.loc[g["kind"] == "task", "detect"].dropna()
        if len(d):
            out[int(n)] = (float(d.median()), float(d.min()), float(d.max()))
    return out


def card_values(runs: RunLike | Sequence[RunLike], *, probes: ProbeSettings | int | None = None,
                margin: float = FL.MARGIN, alpha: float = FL.ALPHA, jobs: int = 1,
                quiet: bool = True, measure: str = DEFAULT_MEASURE) -> pd.DataFrame:
    """``card_table`` of the runs' forks (``card_kinds(measure)``, cached like ``probe_values``;
    topped up where too wide with ``probes.survey``); forks are clustered by (run,
    deal).  Runs of one player count must print the same task points and seat the same
    players; ``who`` says who played."""
    from bonfire_sim.analysis.runs import printed_task_points

    rs = as_runs(runs)
    who = populations(rs)
    printed = printed_task_points(rs)
    out = card_table(card_forks(rs, probes, margin=margin, alpha=alpha, jobs=jobs,
                                quiet=quiet, measure=measure), printed, margin, alpha,
                     measure=measure)
    out["who"] = out["players"].map(who)
    return out


def forks_by_kind(table: pd.DataFrame, measure: str = DEFAULT_MEASURE) -> dict[str, int]:
    """The forks a ``survey_cards`` table rests on, per fork kind (``take``, ``light``,
    ``forced``, ``gnome``), each counted once: a task's ``n`` is its ``measure``'s forks
    and ``lit_n`` its light and forced ones (the same forks under the lit measure)."""
    tasks = table[table["kind"] == "task"]
    gnome = int(table.loc[table["kind"] == "gnome", "n"].sum())
    forced = int(tasks["n_forced"].sum())
    light = int(tasks["lit_n"].sum()) - forced
    take = int(tasks["n"].sum()) if "take" in task_kinds(measure) else 0
    return {"take": take, "light": light, "forced": forced, "gnome": gnome}


def _tagged(forks: pd.DataFrame, seed: int) -> pd.DataFrame:
    """A fork table with its deal ``cluster`` (seed and deal: forks of one deal share its
    cards and are not independent)."""
    return forks.assign(cluster=f"s{seed}|" + forks["deal"].astype(str))
