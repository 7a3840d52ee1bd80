"""Fork probes over a run configuration: ``probe_values(config) -> one row per fork``.

The games are those of the run (same deals, seats, strategies and overrides, by game id),
so a probe table belongs to its run.  It is cached in the user's cache directory
(``fork_cache_dir()``: ``$XDG_CACHE_HOME/bonfire_sim/forks``), never in the run: a run
directory holds only the run's own files, and a run on a read-only disk or someone
else's run can be analysed too.  Where the cache cannot be written the table is simply
not cached.  The key covers the run's identity (its configuration and its exact players,
weight files by hash, from the manifest), the probe settings, the package version and a
hash of the engine sources, so a changed rule, strategy or weight file never reuses
stale forks.

Games are split into chunks that run in parallel with joblib (like the runner); each game
samples its decisions from its own seed, so the table is identical for any number of jobs.
"""

from __future__ import annotations

import contextlib
import hashlib
import itertools
import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from bonfire_sim import __version__
from bonfire_sim import strategies as S
from bonfire_sim.errors import BonfireError, ConfigError
from bonfire_sim.infra import _jitcache, fileio
from bonfire_sim.rules import components as C
from bonfire_sim.rules import layout as L
from bonfire_sim.rules import tables as T
from bonfire_sim.rules.rng import game_seed, seed_words
from bonfire_sim.rules.setup import new_game
from bonfire_sim.rules.state import blank_state
from bonfire_sim.sim.chunk import resolve_players, seat_names
from bonfire_sim.sim.loop import W
from bonfire_sim.sim.runconfig import SEED_MASK, RunConfig
from bonfire_sim.sim.runner import read_manifest
from bonfire_sim.strategies.plugin import is_plugin_spec

TASK_IDS = tuple(t.id for t in C.TASKS)
GNOME_IDS = tuple(f"S{i}" for i in range(1, C.N_SPECIALISTS + 1)) + tuple(
    f"E{i}" for i in range(1, C.N_ELDERS + 1))
KINDS = ("take", "light", "gnome", "forced")
# What the report, ``check`` and ``sweep`` fork; ``forced`` (light forks after a forced
# take, see ``forks``) is what the card values add for tasks the players rarely take.
DEFAULT_KINDS = ("take", "light", "gnome")
FORK_CACHE = "forks"  # under the user cache directory of bonfire_sim
COLUMNS = ("game_id", "deal", "rotation", "players", "kind", "item", "seat", "strategy",
           "turn", "decision", "candidates", "score_a", "score_b", "win_a", "win_b", "has_a",
           "has_b", "kept_b", "out_a", "out_b", "lit_turns_a", "lit_turns_b")


def gnomes_in_print_order(gnomes: Any) -> list[str]:
    """Gnome ids in the components' order (S1..S27, E1..E6), not as strings (S15 < S4);
    anything else after them, sorted."""
    seen = {str(g) for g in gnomes}
    return [g for g in GNOME_IDS if g in seen] + sorted(seen - set(GNOME_IDS))


@dataclass(frozen=True)
class ProbeSettings:
    """Which forks to play: the first ``games`` games of the run (None = all), which kinds
    (``take``, ``light``, ``gnome``, ``forced``) and which items (None = every task /
    gnome).  ``survey``: the card values top up every row still wider than the margin
    on fresh deals of the same game (``card_survey.card_forks``; the report's
    ``--measure-cards``)."""

    games: int | None = None
    kinds: tuple[str, ...] = DEFAULT_KINDS
    tasks: tuple[str, ...] | None = None
    gnomes: tuple[str, ...] | None = None
    chunk_size: int = 100
    survey: bool = False

    def __post_init__(self) -> None:
        bad = [k for k in self.kinds if k not in KINDS]
        if bad or not self.kinds:
            raise ConfigError(f"probe kinds must be among {', '.join(KINDS)}, got {bad}")
        for name, ids, valid in (("task", self.tasks, TASK_IDS), ("gnome", self.gnomes,
                                                                  GNOME_IDS)):
            unknown = [x for x in ids or () if x not in valid]
            if unknown:
                raise ConfigError(f"unknown {name} id(s) {unknown[:3]} for probing")
        if self.games is not None and self.games < 1:
            raise ConfigError(f"probe games must be >= 1, got {self.games}")
        if self.chunk_size < 1:
            raise ConfigError(f"probe chunk_size must be >= 1, got {self.chunk_size}")
        object.__setattr__(self, "kinds", tuple(sorted(set(self.kinds), key=KINDS.index)))
        for name in ("tasks", "gnomes"):
            v = getattr(self, name)
            if v is not None:
                object.__setattr__(self, name, tuple(sorted(set(v))))

    def want(self) -> np.ndarray:
        """The kernel's 0/1 vector over (kind, item) slots (see ``layout.NSLOT``)."""
        from bonfire_sim.analysis.cards.layout import FORCED0, NSLOT, NTASK

        w = np.zeros(NSLOT, np.int64)
        tasks = [TASK_IDS.index(t) for t in (self.tasks or TASK_IDS)]
        gnomes = [GNOME_IDS.index(g) for g in (self.gnomes or GNOME_IDS)]
        if "take" in self.kinds:
            w[tasks] = 1
        if "light" in self.kinds:
            w[[NTASK + t for t in tasks]] = 1
        if "gnome" in self.kinds:
            w[[2 * NTASK + g for g in gnomes]] = 1
        if "forced" in self.kinds:
            w[[FORCED0 + t for t in tasks]] = 1
        return w


def _game_inputs(config: RunConfig, ids: np.ndarray) -> dict[str, Any]:
    """Seeds, strategy ids and weights of games ``ids``, exactly as ``runner.run_one``."""
    deals = ids // config.rotations
    rots = ids % config.rotations
    seeds = np.array([game_seed(config.seed, int(d)) & SEED_MASK for d in deals], np.int64)
    names = [seat_names(config, int(r)) for r in rots]
    sid = np.zeros((len(ids), L.NP), np.int64)
    wts = np.zeros((len(ids), L.NP, W), np.float64)
    for name in config.strategies:  # refused by name: a run's plug-in is never imported
        if is_plugin_spec(name):
            raise ConfigError(f"the engine forks only compiled players; {name!r} is a Python "
                              f"plug-in, so this run has no fork values")
    players = resolve_players(config)  # the same specs, weights and budgets as the run
    for gi, seat_list in enumerate(names):
        for seat, name in enumerate(seat_list):
            if name == S.TOM:
                continue
            sid[gi, seat] = players[name].sid
            wts[gi, seat] = players[name].weight_row()
    # The fork sampler's own stream per game: independent of chunking and of the game's.
    probe_seed = np.array([np.random.SeedSequence([config.seed, int(i), 0xF0C5])
                           .generate_state(1, np.uint64)[0] for i in ids], np.uint64)
    return {"deals": deals, "rots": rots, "names": names, "sid": sid, "wts": wts,
            "rng_game": np.array([seed_words(int(x), 0) for x in seeds], np.int64),
            "rng_strat": np.array([seed_words(int(x), 1) for x in seeds], np.int64),
            "probe_seed": probe_seed}


def probe_chunk(config: RunConfig, settings: ProbeSettings, ids: np.ndarray,
                fork_rules: RunConfig | None = None) -> pd.DataFrame:
    """Play and fork games ``ids`` of the run (pure: depends only on its arguments);
    the forks under ``fork_rules``' overrides and variants when given.  Games that deal
    none of the tasks wanted are not played (``games_dealing``: they have no fork)."""
    from bonfire_sim.analysis.cards import layout as F
    from bonfire_sim.analysis.cards.kernel import probe_games

    ids = games_dealing(config, settings, ids)
    g = _game_inputs(config, ids)
    out = np.full((len(ids), F.NSLOT, F.NOUT), np.nan)
    p = T.build_params(config.overrides, config.variants)
    pf = p if fork_rules is None else T.build_params(fork_rules.overrides, fork_rules.variants)
    probe_games(blank_state(L.NP), p, pf, config.players,
                (g["rng_game"], g["rng_strat"], g["probe_seed"]), (g["sid"], g["wts"]),
                settings.want(), out)
    gi, slot = np.nonzero(~np.isnan(out[:, :, F.R_SCORE + F.SIDE_A]))
    rows = out[gi, slot]
    kind = rows[:, F.R_KIND].astype(np.int64)
    item = rows[:, F.R_ITEM].astype(np.int64)
    seat = rows[:, F.R_SEAT].astype(np.int64)

    def pair(field: int) -> tuple[np.ndarray, np.ndarray]:
        return rows[:, field + F.SIDE_A], rows[:, field + F.SIDE_B]

    (score_a, score_b), (win_a, win_b), (has_a, has_b) = (pair(F.R_SCORE), pair(F.R_WIN),
                                                          pair(F.R_HAS))
    out_a, out_b = pair(F.R_OUT)
    lit_a, lit_b = pair(F.R_LIT_TURNS)
    frame = pd.DataFrame({
        "game_id": ids[gi], "deal": g["deals"][gi], "rotation": g["rots"][gi],
        "players": config.players,
        "kind": [KINDS[k] for k in kind],
        "item": [GNOME_IDS[i] if k == F.KIND_GNOME else TASK_IDS[i]
                 for k, i in zip(kind, item, strict=True)],
        "seat": seat,
        "strategy": [g["names"][a][b] for a, b in zip(gi, seat, strict=True)],
        "turn": rows[:, F.R_TURN].astype(np.int64),
        "decision": rows[:, F.R_DECISION].astype(np.int64),
        "candidates": rows[:, F.R_CANDIDATES].astype(np.int64),
        "score_a": score_a, "score_b": score_b, "win_a": win_a, "win_b": win_b,
        "has_a": has_a, "has_b": has_b,
        "kept_b": rows[:, F.R_KEPT_B].astype(bool), "out_a": out_a.astype(bool),
        "out_b": out_b.astype(bool), "lit_turns_a": lit_a, "lit_turns_b": lit_b})
    return frame.loc[:, list(COLUMNS)]


def games_dealing(config: RunConfig, settings: ProbeSettings, ids: np.ndarray) -> np.ndarray:
    """The games of ``ids`` that can give a fork of ``settings``: where it forks only
    some tasks (no gnome), the games whose deal puts one of them on an island.

    A task reaches a player only from the islands it is dealt to at setup (nothing
    refills them), so a game that deals none of the wanted tasks has no decision to
    sample for them: it would be played to the end for no fork.  Each game samples
    from its own streams, so leaving it out changes no other game's forks: the table
    is the same, row for row.  At 2 players 20 of the 65 tasks are dealt, so a top-up
    of a few rare tasks plays about a third of its games (a half at 4 players)."""
    if settings.tasks is None or "gnome" in settings.kinds or not len(ids):
        return ids
    deals = ids // config.rotations
    uniq, inverse = np.unique(deals, return_inverse=True)
    p = T.build_params(config.overrides, config.variants)
    wanted = np.array([TASK_IDS.index(t) for t in settings.tasks], np.int64)
    slots = slice(L.ISLAND_TASKS, L.ISLAND_TASKS + C.N_ISLANDS * 3)
    hit = np.zeros(len(uniq), bool)
    for k, d in enumerate(uniq):
        s = new_game(game_seed(config.seed, int(d)) & SEED_MASK, config.players, p)
        hit[k] = np.isin(wanted, s[slots]).any()
    return ids[hit[inverse]]


def _engine_hash() -> str:
    """The engine sources' hash plus this package's fork kernel (both decide the forks)."""
    forks = b"".join((Path(__file__).parent / f).read_bytes() for f in ("kernel.py", "layout.py"))
    return _jitcache.source_hash() + hashlib.sha256(forks).hexdigest()[:8]


def fork_cache_dir() -> Path:
    """Where fork tables are cached: ``forks`` in bonfire_sim's user cache directory."""
    return Path(_jitcache.cache_root()) / FORK_CACHE


def run_identity(run_dir: str | Path) -> dict[str, Any] | None:
    """What makes a run's games what they are, from its manifest: configuration, exact
    players (weights and weight-file hashes) and engine; None if it cannot be read."""
    try:
        m = read_manifest(Path(run_dir))
    except (BonfireError, OSError):
        return None
    return {k: m.get(k) for k in ("config", "seat_players", "fingerprint")}


def cache_key(config: RunConfig, settings: ProbeSettings, games: int,
              fork_rules: RunConfig | None = None,
              run: Mapping[str, Any] | None = None) -> str:
    """Hash of everything that determines a probe table (``run``: ``run_identity``)."""
    # ``survey`` only asks the card values for top-ups: the probe table is the same.
    fields = {k: v for k, v in asdict(settings).items() if k != "survey"}
    doc = {"config": config.to_json(), "settings": fields, "games": games,
           "version": __version__, "engine": _engine_hash(), "run": run}
    if fork_rules is not None:
        doc["fork_rules"] = {"overrides": fork_rules.to_json()["overrides"],
                             "variants": fork_rules.to_json()["variants"]}
    return hashlib.sha256(json.dumps(doc, sort_keys=True, default=list).encode()).hexdigest()[:16]


def probe_values(config: RunConfig | dict[str, Any], settings: ProbeSettings | None = None, *,
                 run_dir: str | Path | None = None, jobs: int = 1, quiet: bool = True,
                 progress: Callable[[int, int], None] | None = None,
                 fork_rules: RunConfig | None = None,
                 cache_as: Mapping[str, Any] | None = None) -> pd.DataFrame:
    """The fork table of a run configuration: one row per forked decision.

    Columns: ``game_id``, ``deal``, ``rotation``, ``players``, ``kind`` (take / light /
    gnome), ``item`` (task or gnome id), ``seat`` and ``strategy`` of the mover, ``turn``,
    ``decision``, ``candidates`` (eligible decisions the one forked was drawn from), and per
    branch A (the item) / B (the best alternative): ``score_*`` (mover's final score),
    ``win_*`` (its share of the win), ``has_*`` (item lit / owned at the end); ``kept_b``
    is False where the light ban had to give way (igniting the dead task was the mover's only
    main option); ``out_a`` / ``out_b``: the mover ended the game out (the rules' skip);
    ``lit_turns_a`` / ``lit_turns_b``: turns from receiving the task to igniting it (NaN
    where it ended unlit; gnome forks NaN).
    ``forced`` rows are light forks at a decision reached after a forced take.  With
    ``run_dir`` (the run the configuration is read from) the table is cached in
    ``fork_cache_dir()`` and reused while the run, the settings and the engine are
    unchanged; nothing is written into ``run_dir``.

    ``fork_rules``: another configuration that shares this one's deals (it may differ in
    overrides and variants only); the games are played under ``config`` and every forked
    decision is played out under ``fork_rules``' rules instead.  Against the plain table
    this isolates what a rule change does at the very same decisions from how it changes
    the decisions the players meet (``paired.direct_value_differences``).

    ``cache_as``: cache a table of new games (no ``run_dir``) too, keyed by this tag with
    the configuration (the card survey's first stage: a survey started again after an
    interrupt replays nothing it finished).
    """
    if isinstance(config, dict):  # a manifest's "config" entry
        from bonfire_sim.analysis.runs import run_config

        config = run_config({"config": config})
    settings = settings or ProbeSettings()
    n_games = min(settings.games or config.games, config.games)
    # Key on the games actually forked, so any cap >= the run's size shares one cache.
    settings = replace(settings, games=n_games)
    if fork_rules is not None:
        from bonfire_sim.analysis.runs import check_shared_deals

        check_shared_deals(config, fork_rules)
    identity = run_identity(run_dir) if run_dir else (dict(cache_as) if cache_as else None)
    key = cache_key(config, settings, n_games, fork_rules, identity)
    path = fork_cache_dir() / f"probes-{key}.parquet" if identity else None
    cached = _read_cached(path)
    if cached is not None:
        return cached
    ids = np.arange(n_games, dtype=np.int64)
    chunks = [ids[i:i + settings.chunk_size] for i in range(0, n_games, settings.chunk_size)]
    parts = _execute(config, settings, chunks, jobs, quiet, progress, fork_rules)
    table = (pd.concat(parts, ignore_index=True) if parts
             else pd.DataFrame({c: [] for c in COLUMNS}))
    table.attrs["key"] = key
    if path is not None:
        meta = {"key": key, "config": config.to_json(), "settings": asdict(settings),
                "fork_rules": fork_rules.to_json() if fork_rules is not None else None,
                "games": n_games, "version": __version__, "engine": _engine_hash(),
                "run": identity, "forks": len(table)}
        _write_cached(path, table, meta)
    return table


def probe_staggered(config: RunConfig, games: Mapping[str, int], *,
                    kinds: Mapping[str, Sequence[str]], chunk_size: int = 100,
                    jobs: int = 1, quiet: bool = True, cache: bool = True,
                    progress: Callable[[int, int], None] | None = None) -> pd.DataFrame:
    """One pass over the first ``max(games.values())`` games of ``config`` in which card
    ``c`` (a task or gnome id) is forked in its first ``games[c]`` games only, with the
    fork ``kinds`` of its type (``{"task": (...), "gnome": (...)}``): cards that need
    different numbers of games share the games they have in common instead of each
    replaying its own.  Cached like ``probe_values`` (keyed by the configuration, the
    games per card and the engine), so a report re-built with ``--measure-cards`` does not
    play its top-ups again (``cache=False``: neither read nor written, for timing).
    ``progress(done, total)``: games of the pass played (a cached pass reports none)."""
    if not games:
        return pd.DataFrame({c: [] for c in COLUMNS})
    total = max(games.values())
    if total > config.games:
        raise ConfigError(f"{total} games asked of a configuration of {config.games}")
    plan = {"staggered": sorted(games.items()),
            "kinds": {k: list(v) for k, v in sorted(kinds.items())}}
    key = cache_key(config, ProbeSettings(games=total, chunk_size=chunk_size), total,
                    run=plan)
    path = fork_cache_dir() / f"staggered-{key}.parquet" if cache else None
    cached = _read_cached(path)
    if cached is not None:
        return cached
    edges = sorted({0, total, *games.values(), *range(0, total, chunk_size)})
    chunks, each = [], []
    for a, b in itertools.pairwise(edges):
        tasks = tuple(c for c, g in games.items() if g > a and c in TASK_IDS)
        gnomes = tuple(c for c, g in games.items() if g > a and c in GNOME_IDS)
        ks = (tuple(kinds["task"]) if tasks else ()) + (tuple(kinds["gnome"]) if gnomes
                                                         else ())
        chunks.append(np.arange(a, b, dtype=np.int64))
        each.append(ProbeSettings(kinds=ks, tasks=tasks or None, gnomes=gnomes or None))
    parts = _execute(config, each, chunks, jobs, quiet, progress)
    table = pd.concat(parts, ignore_index=True)
    if path is not None:
        _write_cached(path, table, {"key": key, "config": config.to_json(), "plan": plan,
                                    "version": __version__, "engine": _engine_hash(),
                                    "forks": len(table)})
    return table


def _read_cached(path: Path | None) -> pd.DataFrame | None:
    """A cached fork table, or None (absent, or unreadable: it is recomputed)."""
    if path is None or not path.is_file():
        return None
    try:
        return pd.read_parquet(path)
    except Exception:  # a damaged cache file is only a cache miss  # noqa: BLE001
        return None


def _write_cached(path: Path, table: pd.DataFrame, meta: dict[str, Any]) -> None:
    """Cache ``table`` (and its description) atomically; an unwritable cache is skipped."""
    with contextlib.suppress(BonfireError, OSError):
        with fileio.atomic_file(path) as f:
            table.to_parquet(f, index=False)
        fileio.write_text(path.with_suffix(".json"),
                          fileio.dumps_json(meta, path, indent=1, sort_keys=True, default=list))


# CPU seconds the fork chunks have taken in this process and its workers (``bench
# card-table`` reads it: on a shared machine CPU time measures the forks, not the load).
CPU_SECONDS = [0.0]
# Whether this process has forked a chunk itself (the fork kernel is loaded or compiled
# here, hence in the cache for the workers): then no later probe needs its first chunk
# played here, alone, before the workers start.
FORKED_HERE = [False]


def _timed_chunk(config: RunConfig, settings: ProbeSettings, ids: np.ndarray,
                 fork_rules: RunConfig | None) -> tuple[pd.DataFrame, float]:
    """``probe_chunk`` and the CPU seconds it took (in whichever process runs it)."""
    import time

    t0 = time.process_time()
    table = probe_chunk(config, settings, ids, fork_rules)
    FORKED_HERE[0] = True
    return table, time.process_time() - t0


def _execute(config: RunConfig, settings: ProbeSettings | Sequence[ProbeSettings],
             chunks: Sequence[np.ndarray], jobs: int, quiet: bool,
             progress: Callable[[int, int], None] | None,
             fork_rules: RunConfig | None = None) -> list[pd.DataFrame]:
    """Probe the chunks (in parallel when jobs > 1) with ``settings``, one for all or one
    per chunk; results in chunk order."""
    from bonfire_sim.infra.progress import Progress

    each = ([settings] * len(chunks) if isinstance(settings, ProbeSettings)
            else list(settings))
    if len(each) != len(chunks):
        raise ValueError(f"{len(each)} probe settings for {len(chunks)} chunks")
    total = int(sum(len(c) for c in chunks))
    parts: list[pd.DataFrame] = []
    # a caller that passes ``progress`` draws the display itself (a step of a longer
    # job); a second bar of ours would interleave with its
    with Progress(total, "probing", "games", quiet=quiet or progress is not None) as bar:
        from bonfire_sim.infra.workers import local, on_cluster

        if local(jobs if len(chunks) > 1 else 1):
            results: Iterable[tuple[pd.DataFrame, float]] = (
                _timed_chunk(config, w, c, fork_rules) for w, c in zip(each, chunks,
                                                                       strict=True))
        else:
            from joblib import delayed

            from bonfire_sim.infra.workers import pool
            from bonfire_sim.sim.warm import ensure_warm

            # Compile once, here: the engine (ensure_warm) and the fork kernels (the first
            # chunk), so that the workers load the cache instead of each compiling it.  A
            # cluster's workers have their own caches: there every chunk goes to them.
            # Once this process has forked a chunk the cache holds the kernels, and a
            # first chunk played alone here would only keep a worker idle (a survey calls
            # this once per stage and round).
            first: list[tuple[pd.DataFrame, float]] = []
            if not on_cluster() and not FORKED_HERE[0]:
                ensure_warm(bar.write)
                first = [_timed_chunk(config, each[0], chunks[0], fork_rules)]
            rest = pool(jobs, return_as="generator")(
                delayed(_timed_chunk)(config, w, c, fork_rules)
                for w, c in zip(each[len(first):], chunks[len(first):], strict=True))
            results = itertools.chain(first, rest)
        done = 0
        for c, (part, cpu) in zip(chunks, results, strict=True):
            parts.append(part)
            CPU_SECONDS[0] += cpu
            done += len(c)
            bar.update(len(c))
            if progress:
                progress(done, total)
    return parts


def fork_speed(games: int = 400, players: int = 4, jobs: int = 2,
               kinds: tuple[str, ...] = DEFAULT_KINDS, seed: int = 11,
               strategies: tuple[str, ...] | None = None,
               tasks: tuple[str, ...] | None = None) -> dict[str, float]:
    """Forks per second of ``probe_values`` on ``games`` seat-rotated games of
    ``strategies`` (None: the default population) with ``jobs`` workers, only ``tasks``
    forked when given, compile time excluded (a small warm-up probe runs first), nothing
    cached: ``{"forks", "seconds", "forks_per_s", "games_per_s"}``."""
    import time

    who: dict[str, Any] = {} if strategies is None else {"strategies": tuple(strategies)}
    games -= games % players
    settings = ProbeSettings(kinds=kinds, tasks=tasks, chunk_size=players)
    warm = RunConfig(games=players * 2, players=players, seat_rotation=True, seed=seed + 1,
                     **who)
    probe_values(warm, settings, jobs=jobs)
    cfg = RunConfig(games=max(games, players), players=players, seat_rotation=True,
                    seed=seed, **who)
    t0 = time.perf_counter()
    tab = probe_values(cfg, replace(settings, chunk_size=50), jobs=jobs)
    dt = time.perf_counter() - t0
    return {"forks": float(len(tab)), "seconds": dt, "forks_per_s": len(tab) / dt,
            "games_per_s": cfg.games / dt}
