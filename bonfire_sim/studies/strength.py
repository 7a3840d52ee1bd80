"""Answers against strength: every headline answer measured on a ladder of players.

Every figure we print describes games among our players.  This study plays the same deals
at several rungs of play, weakest first, and measures each headline answer at each rung,
never pooled: the start player's win share and the compensation per seat (2, 3 and 4
players), Tom's win rate and the handicap where the challenge settles per Tom deck, and
(with ``probe_games``) the values of the tasks and gnomes flagged at some rung.

The rungs come from the registry (``bonfire_sim.lineup``), so a new default player moves
the ladder without an edit here: the old hand-weighted mix, the tuned mix, the default
population (with the recommended solo player against Tom), and ``search:N`` in every seat.
A rung whose players equal an earlier rung's reuses that rung's games (the same seeded
deals would give the same games).

Each answer's curve gets a mark from its top two rungs (``convergence``): **converged**
when the 95% interval of their difference lies within the answer's tolerance, **still
moves with strength** when it lies wholly outside, and **undecided** when the games
cannot tell (the search rung is slow, so its intervals are honest and often wide).
Where the top two rungs played the same deals the difference is taken per deal
(``strength_paired``: common random numbers, clustered by deal); elsewhere the two
rungs' intervals are combined as unrelated, and the mark's detail says which.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from bonfire_sim.analysis import flags as FL
from bonfire_sim.analysis import populations as P
from bonfire_sim.errors import ConfigError
from bonfire_sim.infra.numtext import number
from bonfire_sim.lineup import (
    DEFAULT_MIX,
    OLD_MIX,
    RECOMMENDED_SOLO,
    TUNED_MIX,
    is_search_name,
    who_played,
)
from bonfire_sim.rules import components as C
from bonfire_sim.studies import strength_paired as SP

CONVERGED = "converged"
MOVES = "still moves with strength"
UNDECIDED = "undecided"
NOT_MEASURED = "not measured at the top rungs"
# The top two rungs played by the same player(s): their difference is noise, so no mark
# (it was the Tom marks' fate while the top solo rung was the recommended solo player).
SAME_PLAYER = "not marked: the same player at the top two rungs"
AUTO = "auto"  # search_games / search_solo_games sized from a pilot (studies.strength_sizing)
# How close the top two rungs must be for an answer to count as converged (the same
# practical tolerances as the population marks, analysis.populations.TOLERANCE).
TOLERANCE = {"share": P.TOLERANCE["share"], "points": FL.MARGIN, "handicap": 2.0}
ANSWER_COLUMNS = ["answer", "figure", "kind", "tolerance", "rung", "step", "value", "lo",
                  "hi", "who", "games", "setting"]
# The top rung's difference from the rung below (``strength_paired``): NaN where unpaired,
# ``pairing`` says which interval the mark used and why.
PAIR_COLUMNS = ["d", "d_lo", "d_hi", "pairing"]
ANSWERS = ("start player", "tom", "tasks", "gnomes")
DECKS = tuple(v.name for v in C.VARIANTS["tom_deck"])


@dataclass(frozen=True)
class Rung:
    """One rung: its name, the seat specs of its multiplayer games (cycled over the
    seats) and its player against Tom."""

    name: str
    seats: tuple[str, ...]
    solo: str


def _budget(spec: str) -> int:
    """The budget of a search spec (``search:16`` -> 16), 0 for any other player."""
    name, _, n = spec.partition(":")
    return int(n) if name == "search" and n.isdigit() else 0


def ladder(search_budget: int = 8) -> tuple[Rung, ...]:
    """The rungs, weakest first, from the registry (``bonfire_sim.lineup``).  Against Tom
    the top rung plays at least twice the recommended solo player's search budget, so it
    stays above the default rung when that is a search player itself."""
    search = f"search:{search_budget}"
    solo_top = f"search:{max(search_budget, 2 * _budget(RECOMMENDED_SOLO))}"
    return (Rung("old_mix", OLD_MIX, OLD_MIX[0]),
            Rung("tuned_mix", TUNED_MIX, TUNED_MIX[0]),
            Rung("default", DEFAULT_MIX, RECOMMENDED_SOLO),
            Rung(search, (search,), solo_top))


@dataclass(frozen=True)
class StrengthConfig:
    """What to play: per rung and player count ``games`` seat-rotated games (``search_games``
    where the seats search), per rung and Tom deck ``solo_games`` solo games
    (``search_solo_games`` where the solo player searches), all from ``seed`` (the same
    deals at every rung).  A search count of ``"auto"`` plays ``pilot_games`` first and
    then as many games as the top two rungs' marks need, at most ``search_max_games`` a
    run (``studies.strength_sizing``)."""

    players: tuple[int, ...] = (2, 3, 4)
    games: int = 600
    search_games: int | str = 24
    solo_games: int = 600
    search_solo_games: int | str = 24
    decks: tuple[str, ...] = DECKS
    search_budget: int = 8
    probe_games: int = 0  # games whose decisions are forked for the card values (0: none)
    # The search rung's card forks played by search:card_budget in every seat (0: the
    # rung's own budget).  Every fork plays the rest of a game twice, so the card values
    # cost about 27 search games a game at 2 players; search:4 plays level with search:16
    # head to head (49.0%, 45.5-52.5, docs/findings/2026-11-30-search-budget.md) at about
    # 35% of its cost.
    card_budget: int = 0
    seed: int = 35
    rungs: tuple[Rung, ...] = field(default=())
    pilot_games: int = 48
    search_max_games: int = 1500

    def __post_init__(self) -> None:
        if not self.rungs:
            object.__setattr__(self, "rungs", ladder(self.search_budget))
        if len(self.rungs) < 2:
            raise ConfigError("a strength ladder needs at least two rungs")
        bad = [n for n in self.players if n not in (2, 3, 4)]
        if bad:
            raise ConfigError(f"players: 2, 3 or 4 (solo is played per Tom deck), got {bad}")
        unknown = [d for d in self.decks if d not in DECKS]
        if unknown:
            raise ConfigError(f"unknown Tom deck {unknown}; choose from {', '.join(DECKS)}")
        for name in ("games", "search_games", "solo_games", "search_solo_games",
                     "search_budget", "pilot_games", "search_max_games", "probe_games",
                     "card_budget"):
            value = getattr(self, name)
            if value == AUTO and name in ("search_games", "search_solo_games"):
                continue
            if not isinstance(value, int) or isinstance(value, bool) or value < 0:
                more = ' or "auto"' if name.startswith("search_") and "games" in name \
                    and name != "search_max_games" else ""
                raise ConfigError(f"{name} must be a whole number >= 0{more}, got {value!r}")

    def is_search(self, rung: Rung) -> bool:
        """True for a rung whose multiplayer seats search (played on the search counts)."""
        return any(is_search_name(s) for s in rung.seats)

    def auto(self, rung: Rung, solo: bool) -> bool:
        """True where a rung's runs (solo or multiplayer) are sized from a pilot."""
        if solo:
            return is_search_name(rung.solo) and self.search_solo_games == AUTO
        return self.is_search(rung) and self.search_games == AUTO

    def games_for(self, rung: Rung, players: int) -> int:
        """Seat-rotated games of a rung at a player count (the pilot's when sized
        automatically): a whole number of deals."""
        g = self.search_games if self.is_search(rung) else self.games
        g = self.pilot_games if g == AUTO else int(g)
        return max(players, g - g % players)

    def solo_for(self, rung: Rung) -> int:
        """Solo games of a rung per Tom deck (the pilot's when sized automatically); the
        solo player alone decides whether they are the search's counts (the default rung
        plays the fast mix at 2-4 players and the search against Tom)."""
        g = self.search_solo_games if is_search_name(rung.solo) else self.solo_games
        return self.pilot_games if g == AUTO else int(g)


def plan(config: StrengthConfig) -> list[dict[str, Any]]:
    """The runs to play: one dict per (rung, setting) with ``rung``, ``key`` (the run's
    folder name), ``config`` (a RunConfig) and ``same_as`` (the rung whose games it reuses,
    or None)."""
    from bonfire_sim.sim.runconfig import RunConfig

    out: list[dict[str, Any]] = []
    first: dict[tuple[str, ...], str] = {}
    for rung in config.rungs:
        key_seats = tuple(rung.seats)
        same = first.setdefault(key_seats, rung.name)
        for n in config.players:
            seats = tuple(rung.seats[i % len(rung.seats)] for i in range(n))
            games = config.games_for(rung, n)
            # one player in every seat: a rotation of a deal replays the same game (the
            # players are deterministic given the deal), so rotating would pay 2-4x for
            # the same distinct games; rotate only a mix
            cfg = RunConfig(games=games, players=n, strategies=seats,
                            seat_rotation=len(set(seats)) > 1,
                            seed=config.seed + n, chunk_size=chunk_size(games, seats))
            out.append({"rung": rung.name, "key": f"players={n}", "config": cfg,
                        "same_as": same if same != rung.name else None})
        same_solo = first.setdefault(("solo", rung.solo), rung.name)
        for deck in config.decks:
            games = max(1, config.solo_for(rung))
            cfg = RunConfig(games=games, players=1, strategies=(rung.solo,),
                            seed=config.seed + 1, chunk_size=chunk_size(games, (rung.solo,)),
                            variants={"tom_deck": deck})
            out.append({"rung": rung.name, "key": f"solo-{deck}", "config": cfg,
                        "same_as": same_solo if same_solo != rung.name else None})
    return out


def chunk_size(games: int, seats: Sequence[str]) -> int:
    """Games per chunk: 200 for fast players; a search run in eighths (at least 8 games),
    so a few hundred slow games still keep every job busy (one 200-game chunk ran on one
    core).  A game depends only on its configuration, seed and index, not on chunking."""
    if not any(is_search_name(s) for s in seats):
        return 200
    return max(8, min(200, games // 8))


# How many fast games one game costs per search seat and unit of budget (measured
# 2026-11-27 on one core: search:16 plays about 5.5 solo games a second where a fast
# player plays about 1,000): the progress counts games by their cost, so the time left
# is right when the slow search rung comes last.
SEARCH_COST_PER_BUDGET = 10.0


def game_cost(cfg: Any) -> float:
    """A game of ``cfg`` in fast-game equivalents: 1 plus the search seats' budgets."""
    seats = [cfg.strategies[i % len(cfg.strategies)] for i in range(cfg.players)]
    return 1.0 + sum(SEARCH_COST_PER_BUDGET * _budget(s) for s in seats)


def play_ladder(config: StrengthConfig, out: str | Path, *, jobs: int = 1,
                progress: Callable[[int, int], None] | None = None,
                status: Callable[[str], None] | None = None) -> dict[str, dict[str, Path]]:
    """Play every run of ``plan(config)`` under ``out/<rung>/<key>`` (a finished run is
    resumed, not replayed); return ``{rung: {key: run directory}}``, a reused rung
    pointing at the directories of the rung it shares games with.  ``progress(done,
    total)`` counts fast-game equivalents (``game_cost``), so its time left holds when
    the search rung's slow games come last."""
    from bonfire_sim.sim.runner import run

    jobs_plan = plan(config)
    total = round(sum(j["config"].games * game_cost(j["config"]) for j in jobs_plan
                      if j["same_as"] is None))
    done = 0.0
    dirs: dict[str, dict[str, Path]] = {}
    for job in jobs_plan:
        if job["same_as"] is not None:
            dirs.setdefault(job["rung"], {})[job["key"]] = dirs[job["same_as"]][job["key"]]
            continue
        where = Path(out) / folder(job["rung"]) / job["key"]

        cost = game_cost(job["config"])
        if status is not None and cost > 1:
            status(f"{job['rung']}, {job['key']}: {job['config'].games:,} games of "
                   f"{', '.join(dict.fromkeys(job['config'].strategies))} (each about "
                   f"{cost:,.0f} fast games of work)")

        def step(d: int, _t: int, base: float = done, cost: float = cost) -> None:
            if progress is not None:
                progress(round(base + d * cost), total)

        dirs.setdefault(job["rung"], {})[job["key"]] = Path(run(
            job["config"], where, jobs=jobs, resume=(where / "manifest.json").is_file(),
            progress=step, status=status))
        done += job["config"].games * cost
    return dirs


def folder(rung: str) -> str:
    return "rung=" + rung.replace(":", "-")


# ---- the answers ---------------------------------------------------------------------
def _row(answer: str, figure: str, kind: str, rung: str, step: int, value: float,
         lo: float, hi: float, label: str, games: int, setting: str = "") -> dict[str, Any]:
    """One answer row; ``setting`` is the run it was measured on (``players=2``,
    ``solo-task1``), so the sizing knows which run to top up."""
    return {"answer": answer, "figure": figure, "kind": kind,
            "tolerance": TOLERANCE[kind], "rung": rung, "step": step,
            "value": float(value), "lo": float(lo), "hi": float(hi), "who": label,
            "games": int(games), "setting": setting}


def seat_answers(runs: Sequence[Any], rung: str, step: int) -> list[dict[str, Any]]:
    """Start player's win share and each seat's compensation, per player count."""
    from bonfire_sim.analysis.runs import as_runs
    from bonfire_sim.analysis.values import seat_advantage

    rows = []
    for r in as_runs(runs):
        n = r.config.players
        sa = seat_advantage([r])
        label = who_played(r.config.strategies, n)
        for s in sa[sa["players"] == n].itertuples():
            if s.seat == 0:
                rows.append(_row("start player", f"{n} players: start player's win share",
                                 "share", rung, step, s.value, s.lo, s.hi, label, s.n,
                                 f"players={n}"))
            else:
                rows.append(_row("start player", f"{n} players: compensation of seat "
                                 f"{int(s.seat)}", "points", rung, step, s.compensation,
                                 s.c_lo, s.c_hi, label, s.n, f"players={n}"))
    return rows


def tom_answers(runs_by_deck: Mapping[str, Any], rung: str, step: int,
                ) -> list[dict[str, Any]]:
    """Per Tom deck: the win rate against Tom and the handicap where the challenge
    settles (bootstrap interval)."""
    from bonfire_sim.analysis.values import tom_difficulty

    rows = []
    for deck, run_dir in runs_by_deck.items():
        for t in tom_difficulty(run_dir).itertuples():
            label = who_played([str(t.strategy)], 1)
            rows.append(_row("tom", f"Tom, {deck} deck: win rate", "share", rung, step,
                             t.value, t.lo, t.hi, label, t.n, f"solo-{deck}"))
            rows.append(_row("tom", f"Tom, {deck} deck: handicap", "handicap", rung, step,
                             t.handicap, t.h_lo, t.h_hi, label, t.n, f"solo-{deck}"))
    return rows


def card_source(config: StrengthConfig | None, rung: Rung | None, players: int,
                run: Any) -> Any:
    """What a rung's card survey forks at ``players``: the rung's own run (its first
    ``probe_games`` games), or at a search rung with ``card_budget`` set the same deals
    (the run's seed, no seat rotation) played by ``search:card_budget`` in every seat."""
    from bonfire_sim.sim.runconfig import RunConfig

    if config is None or rung is None or not (config.card_budget and config.is_search(rung)):
        return [run]
    seats = (f"search:{config.card_budget}",)
    games = config.probe_games
    return {players: RunConfig(games=games, players=players, strategies=seats,
                               seat_rotation=False, seed=config.seed + players,
                               chunk_size=chunk_size(games, seats))}


def card_tables(sources: Mapping[int, Any], probe_games: int, jobs: int = 1, *,
                quiet: bool = True, status: Callable[[str], None] | None = None,
                rung: str = "") -> dict[int, pd.DataFrame]:
    """Per player count (``{players: card_source(...)}``) the whole card table: the
    receipt value of the card survey (``analysis.cards.measure``, no top-ups: forks of the
    first ``probe_games`` games; cached, so asking again costs no forks); ``status``
    hears which survey starts, ``quiet=False`` shows the forks' progress."""
    from bonfire_sim.analysis import cards

    out = {}
    for n, source in sorted(sources.items()):
        if status is not None:
            who = (", ".join(dict.fromkeys(source[n].strategies))
                   if isinstance(source, Mapping) else "its own players")
            status(f"{rung}, players={n}: card values from the forks of {probe_games:,} "
                   f"games of {who}")
        table = cards.measure(source, games=probe_games, rounds=0, jobs=jobs, quiet=quiet)
        out[n] = table[table["players"] == n]
    return out


def card_rows(tables: Mapping[int, pd.DataFrame], rung: str, step: int
              ) -> list[dict[str, Any]]:
    """One rung's card tables (``card_tables``) as answer rows: each task's surplus over
    its colour and each gnome's over the average gnome; the survey's ``flag`` kept in the
    column ``flag`` for ``flagged_cards``."""
    rows = []
    for n, table in tables.items():
        for t in table.itertuples():
            if not pd.notna(t.surplus):
                continue
            kind = "task" if t.kind == "task" else "gnome"
            rows.append({**_row("tasks" if kind == "task" else "gnomes",
                                f"{n} players: {kind} {t.card}", "points", rung, step,
                                t.surplus, t.s_lo, t.s_hi, str(t.who), t.deals,
                                f"players={n}"),
                         "flag": str(t.flag) if pd.notna(t.flag) else ""})
    return rows


def card_sources(config: StrengthConfig | None, rung: Rung | None,
                 runs: Mapping[str, Any]) -> dict[int, Any]:
    """``{players: card_source(...)}`` of a rung's multiplayer runs (``{"players=N":
    run}``)."""
    return {int(k.removeprefix("players=")): card_source(
        config, rung, int(k.removeprefix("players=")), v)
        for k, v in runs.items() if k.startswith("players=")}


def ladder_card_tables(dirs: Mapping[str, Mapping[str, Any]], probe_games: int,
                       jobs: int = 1, *, config: StrengthConfig | None = None,
                       quiet: bool = True, status: Callable[[str], None] | None = None,
                       ) -> dict[str, dict[int, pd.DataFrame]]:
    """``{rung: card_tables(...)}`` of every rung of ``dirs``, measured once for both the
    answers and the cards' order (``config``: the ladder's, for the search rung's
    ``card_budget``)."""
    by_name = {r.name: r for r in config.rungs} if config is not None else {}
    return {rung: card_tables(card_sources(config, by_name.get(rung), runs), probe_games,
                              jobs, quiet=quiet, status=status, rung=rung)
            for rung, runs in dirs.items()}


def card_agreement(tables: Mapping[str, Mapping[int, pd.DataFrame]], seed: int
                   ) -> pd.DataFrame:
    """Do the cards keep their order from the rung below the top to the top?
    (``strength_cards.agreement`` of the two rungs' whole card tables per player count,
    from ``ladder_card_tables``, rungs weakest first; empty without card tables)."""
    from bonfire_sim.studies import strength_cards as SC

    order = [r for r, t in tables.items() if t]
    if len(order) < 2:
        return pd.DataFrame(columns=SC.COLUMNS)
    below, top = (tables[name] for name in order[-2:])
    parts = [SC.agreement(below[n], top[n], seed=seed + n)
             for n in sorted(set(below) & set(top))]
    return pd.concat(parts, ignore_index=True) if parts else pd.DataFrame(columns=SC.COLUMNS)


def flagged_cards(rows: pd.DataFrame) -> pd.DataFrame:
    """The card rows of the cards flagged (strong or weak) at some rung: the headline
    cards; the others are dropped."""
    if "flag" not in rows:
        return rows
    cards = rows["answer"].isin(["tasks", "gnomes"])
    flags = rows["flag"].astype(object).where(rows["flag"].notna(), "")
    hit = set(rows.loc[cards & (flags != ""), "figure"])
    return rows[~cards | rows["figure"].isin(hit)].reset_index(drop=True)


def strength_answers(dirs: Mapping[str, Mapping[str, Any]], *,
                     tables: Mapping[str, Mapping[int, pd.DataFrame]] | None = None,
                     ) -> pd.DataFrame:
    """Tidy ``ANSWER_COLUMNS`` rows of every headline answer at every rung, from
    ``{rung: {key: run}}`` (``play_ladder``'s result: keys ``players=N`` and
    ``solo-<deck>``), rungs in the order given (weakest first); ``tables``: the rungs'
    card tables (``ladder_card_tables``; none: no card rows)."""
    rows: list[dict[str, Any]] = []
    order = list(dirs)
    pairs = (SP.paired_differences(dirs[order[-2]], dirs[order[-1]])
             if len(order) >= 2 else {})
    for step, (rung, runs) in enumerate(dirs.items()):
        multi = [v for k, v in runs.items() if k.startswith("players=")]
        solo = {k.removeprefix("solo-"): v for k, v in runs.items() if k.startswith("solo-")}
        rows += seat_answers(multi, rung, step)
        rows += tom_answers(solo, rung, step)
        if tables:
            rows += card_rows(tables.get(rung, {}), rung, step)
    # the top rung's rows carry its difference from the rung below, paired by deal where
    # the two share their deals (``strength_paired``); the marks read it
    # (a card row's forks fall at other decisions of other games at each rung: unpaired)
    cards_apart = SP.unpaired("each rung forks its own decisions, so no fork has a twin")
    for row in rows:
        if row["rung"] == order[-1]:
            row.update(cards_apart if row["answer"] in ("tasks", "gnomes")
                       else pairs.get((row["setting"], row["kind"]), {}))
    frame = pd.DataFrame(rows, columns=[*ANSWER_COLUMNS, "flag", *PAIR_COLUMNS])
    return flagged_cards(frame)


# ---- the marks -----------------------------------------------------------------------
def convergence(curve: pd.DataFrame, rungs: Sequence[str] | None = None) -> tuple[str, str]:
    """(mark, detail) of one answer's curve (its rows, one per rung measured): the top two
    rungs' difference against the answer's tolerance, never between two rungs of the same
    player (``SAME_PLAYER``).  ``rungs``: the ladder's rungs, weakest first (default: the
    curve's own, by ``step``); a top rung without a measurement leaves the answer not
    measured, never marked from lower rungs."""
    c = curve.sort_values("step")
    order = list(rungs) if rungs is not None else list(dict.fromkeys(c["rung"]))
    if len(order) < 2:
        return NOT_MEASURED, "measured at fewer than two rungs"
    by = {str(r.rung): r for r in c.itertuples()}
    below_name, top_name = order[-2], order[-1]
    missing = [n for n in (below_name, top_name)
               if n not in by or not math.isfinite(float(by[n].value))]
    if missing:
        return NOT_MEASURED, f"not measured at {' and '.join(missing)}"
    top, below = by[top_name], by[below_name]
    if str(top.who) == str(below.who):
        return SAME_PLAYER, (f"{below_name} and {top_name} are both {top.who}: their "
                             f"difference is noise, not strength")
    tol = float(top.tolerance)
    d_lo, d_hi = _paired_interval(top)
    if d_lo is not None and d_hi is not None:
        d = float(top.d)
        if -tol <= d_lo and d_hi <= tol:
            word, detail = CONVERGED, f"within ±{tol:g}"
        elif d_lo > tol or d_hi < -tol:
            word, detail = MOVES, f"beyond ±{tol:g}"
        else:
            word, detail = UNDECIDED, f"too few games to tell a difference of ±{tol:g}"
        return word, (f"{top_name} - {below_name} = {d:+.3g} ({d_lo:+.3g} to {d_hi:+.3g}, "
                      f"{top.pairing}; tolerance ±{tol:g}); {detail}")
    mark, detail = P.number_mark({below_name: (below.value, below.lo, below.hi),
                                  top_name: (top.value, top.lo, top.hi)}, tol)
    word = {P.HOLDS: CONVERGED, P.DIFFERS: MOVES}.get(mark, UNDECIDED)
    d = float(top.value) - float(below.value)
    why = getattr(top, "pairing", None)
    how = f"; {why}" if isinstance(why, str) and why else ""
    return word, (f"{top_name} - {below_name} = {d:+.3g} (tolerance ±{tol:g}); "
                  f"{detail}{how}")


def _paired_interval(top: Any) -> tuple[float | None, float | None]:
    """The top row's paired interval of the difference, (None, None) where unpaired (or
    an answers table from before pairing)."""
    lo, hi = getattr(top, "d_lo", math.nan), getattr(top, "d_hi", math.nan)
    try:
        lo, hi = float(lo), float(hi)
    except (TypeError, ValueError):
        return None, None
    return (lo, hi) if math.isfinite(lo) and math.isfinite(hi) else (None, None)


def marks(answers: pd.DataFrame) -> pd.DataFrame:
    """One row per figure: ``answer``, ``figure``, ``mark``, ``detail``, and one text
    column per rung (value and interval), in the rungs' order."""
    rungs = list(dict.fromkeys(answers.sort_values("step")["rung"]))
    rows = []
    for (answer, figure), g in answers.groupby(["answer", "figure"], sort=False):
        mark, detail = convergence(g, rungs)
        row: dict[str, Any] = {"answer": answer, "figure": figure, "mark": mark,
                               "detail": detail}
        by = {r.rung: r for r in g.itertuples()}
        for rung in rungs:
            r = by.get(rung)
            row[rung] = "not measured" if r is None else _text(r)
        rows.append(row)
    return pd.DataFrame(rows, columns=["answer", "figure", "mark", "detail", *rungs])


def _text(r: Any) -> str:
    fmt = ".3f" if r.kind == "share" else ".1f"
    if not math.isfinite(r.value):
        return "not measured"
    # the one number format: a value that rounds to zero reads 0.0, never -0.0 (the
    # search rung's 3-player compensation of seat 1, -1e-15, read "-0.0")
    ci = (f" ({number(r.lo, fmt)} to {number(r.hi, fmt)})"
          if math.isfinite(r.lo) and math.isfinite(r.hi) else "")
    return f"{number(r.value, fmt)}{ci}"
