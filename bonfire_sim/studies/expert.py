"""Expert iteration: fit the fast evaluator's weight row to the search's judgement.

One round (``expert_round``):

1. **record** (``record_positions``): play seeded games (2 and 4 players) in which one
   seat, rotated over the deals, is the *expert* - the flat search with the current
   policy's rollouts - and the other seats play the policy itself.  At every decision of
   the labelled phases (``LABEL_PHASES``) of every seat, the policy's top ``width``
   candidate moves are rolled out on the same ``samples`` determinizations
   (``strategies.labels.candidate_values``); the state, the legal moves, the candidates
   and their mean values are stored.  The expert seat plays the best labelled candidate.
2. **fit** (``fit_row``): CMA-ES over the weight row (``studies.tune.Space`` around the
   policy's row), objective the mean *regret* of the row's own choice on the stored
   positions - the best candidate's value minus the chosen one's - computed by calling the
   evaluator on the stored states (no game is played; a whole pass over 10,000 positions
   takes a fraction of a second).  Positions of a fifth of the deals are held out: the
   fitted row's held-out regret and agreement are reported next to the start row's.
3. the fitted row is the next round's policy (its rollouts label the next positions).

``train`` runs the rounds and writes the final row as a weights file with its provenance
(command, seed, date, per-round figures): ``bonfire-sim expert`` is the one command that
rebuilds ``strategies/rows/expert.toml``.
"""

from __future__ import annotations

import datetime as _dt
import json
import math
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from bonfire_sim.errors import ConfigError
from bonfire_sim.infra import fileio
from bonfire_sim.rules import layout as L
from bonfire_sim.rules import tables as T
from bonfire_sim.rules.moves import apply_move, legal_moves
from bonfire_sim.rules.rng import game_seed
from bonfire_sim.rules.setup import new_game
from bonfire_sim.strategies import W, load_weights, weight_table
from bonfire_sim.strategies import evaluate as E
from bonfire_sim.strategies import labels as LB
from bonfire_sim.strategies.weights import WEIGHT_NAMES
from bonfire_sim.studies.tune import BOUNDS, DEFAULT_BOUNDS, Space

MASK63 = (1 << 63) - 1
# The search's phases plus the council bonus's follow-ups (which specialist, guardian,
# path tile, Great Bonfire space, island, guardian move) and the path pick: where the
# specialists, elders and guardians are won or lost.  Payments and fate placements stay
# unlabelled (many near-equal moves; cheap to get right one ply deep).
LABEL_PHASES = tuple(sorted({L.PH_SWAP, L.PH_MAIN, L.PH_POST, L.PH_SHIP_ACTION, L.PH_COUNCIL,
                             L.PH_C_PATH, L.PH_C_GUARD, L.PH_C_FIRE, L.PH_C_SPEC, L.PH_C_MOVE,
                             L.PH_C_SHIP, L.PH_PATH_PICK, L.PH_PROCESSION}))
HOLDOUT_EVERY = 5  # every fifth deal's positions are held out of the fit


@dataclass
class Positions:
    """Labelled positions: states, legal moves (``rows[offsets[i]:offsets[i+1]]``),
    candidates (-1 padded), their values, and the deal each came from."""

    states: np.ndarray
    offsets: np.ndarray
    rows: np.ndarray
    cand: np.ndarray
    q: np.ndarray
    k: np.ndarray
    deal: np.ndarray
    players: np.ndarray

    def __len__(self) -> int:
        return int(self.states.shape[0])

    def subset(self, mask: np.ndarray) -> Positions:
        """The positions where ``mask`` is true."""
        idx = np.flatnonzero(mask)
        rows, offsets = [], [0]
        for i in idx:
            r = self.rows[self.offsets[i]:self.offsets[i + 1]]
            rows.append(r)
            offsets.append(offsets[-1] + len(r))
        return Positions(self.states[idx], np.array(offsets, np.int64),
                         np.concatenate(rows) if rows else self.rows[:0], self.cand[idx],
                         self.q[idx], self.k[idx], self.deal[idx], self.players[idx])

    def save(self, path: Path) -> None:
        """Write as one ``.npz`` through the atomic writer (no link followed, no half file
        left where a round is interrupted)."""
        with fileio.atomic_file(path) as f:
            np.savez_compressed(f, **{k: getattr(self, k) for k in self.__dataclass_fields__})

    @classmethod
    def load(cls, path: Path) -> Positions:
        """Read a file written by ``save``."""
        with np.load(path) as z:
            return cls(**{k: z[k] for k in cls.__dataclass_fields__})

    @classmethod
    def concat(cls, parts: Sequence[Positions]) -> Positions:
        """All positions of ``parts`` in order."""
        offsets = [np.zeros(1, np.int64)]
        base = 0
        for part in parts:
            offsets.append(part.offsets[1:] + base)
            base += int(part.offsets[-1])
        return cls(np.concatenate([x.states for x in parts]), np.concatenate(offsets),
                   np.concatenate([x.rows for x in parts]),
                   np.concatenate([x.cand for x in parts]),
                   np.concatenate([x.q for x in parts]), np.concatenate([x.k for x in parts]),
                   np.concatenate([x.deal for x in parts]),
                   np.concatenate([x.players for x in parts]))


@dataclass(frozen=True)
class ExpertConfig:
    """Everything a training run depends on (stored in the weights file's provenance)."""

    start: str = "tuned"  # the first policy: a built-in style or style@file
    rounds: int = 2
    deals2: int = 60  # 2-player deals per round
    deals4: int = 20  # 4-player deals per round
    width: int = 5
    samples: int = 8
    generations: int = 60
    sigma: float = 0.15
    seed: int = 1
    phases: tuple[int, ...] = LABEL_PHASES

    def __post_init__(self) -> None:
        for name in ("rounds", "width", "samples", "generations"):
            if int(getattr(self, name)) < 1:
                raise ConfigError(f"expert: --{name} must be at least 1")
        if self.width < 2:
            raise ConfigError("expert: --width must be at least 2 (candidates to compare)")
        if self.deals2 < 0 or self.deals4 < 0 or self.deals2 + self.deals4 < HOLDOUT_EVERY:
            raise ConfigError(f"expert: give at least {HOLDOUT_EVERY} deals per round "
                              "(--deals2 + --deals4)")
        if not (math.isfinite(self.sigma) and self.sigma > 0):
            raise ConfigError("expert: --sigma must be a positive number")
        if self.seed < 0:
            raise ConfigError("expert: --seed must be >= 0")


def start_row(spec: str) -> np.ndarray:
    """The weight row (length ``W``) of a style name or ``style@file.toml``."""
    name, _, file = spec.partition("@")
    table = weight_table(name.strip(), load_weights(file.strip()) if file else None)
    row = np.zeros(W, np.float64)
    row[:len(WEIGHT_NAMES)] = [table[k] for k in WEIGHT_NAMES]
    return row


# ---- recording ----------------------------------------------------------------------------
def _record_deals(job: tuple[np.ndarray, int, int, Sequence[int], np.ndarray, int, int,
                             int]) -> Positions:
    """Worker: play and label the deals of ``job`` (see module doc)."""
    return label_deals(*job)


def label_deals(w: np.ndarray, players: int, seed: int, deals: Sequence[int],
                phases_arr: np.ndarray, width: int, samples: int, salt: int,
                from_turn: int = 0) -> Positions:
    """Play ``deals`` with row ``w`` in every seat, one seat a deal (``deal % players``)
    playing the labelled best move, and label every decision of the phases ``phases_arr``
    from game turn ``from_turn`` on (``L.G_TURN``; 0: all) with the top ``width``
    candidates rolled out ``samples`` times each."""
    p = T.DEFAULT_PARAMS
    phases = set(int(x) for x in phases_arr)
    buf = np.zeros((L.MAX_MOVES, L.MOVE_W), np.int64)
    cand = np.zeros(width, np.int64)
    q = np.zeros(width, np.float64)
    states, rows, offsets = [], [], [0]
    cands, qs, ks, deal_ix = [], [], [], []
    for deal in deals:
        s = new_game(game_seed(seed, deal) & MASK63, players)
        expert = deal % players
        while s[L.G_OVER] == 0:
            n = legal_moves(s, p, buf)
            seat = int(s[L.G_CUR])
            k = 0
            if n > 1 and int(s[L.G_PHASE]) in phases and int(s[L.G_TURN]) >= from_turn:
                k = LB.candidate_values(s, p, buf, n, w, width, samples, salt, cand, q)
            if k >= 2:
                states.append(s.copy())
                rows.append(buf[:n].copy())
                offsets.append(offsets[-1] + n)
                c = np.full(width, -1, np.int64)
                c[:k] = cand[:k]
                v = np.zeros(width)
                v[:k] = q[:k]
                cands.append(c)
                qs.append(v)
                ks.append(k)
                deal_ix.append(deal)
            if seat == expert and k >= 2:
                i = int(cand[int(np.argmax(q[:k]))])
            else:
                i = 0 if n == 1 else int(E.choose(s, p, buf, n, w))
            apply_move(s, p, buf[i])
    m = len(states)
    return Positions(
        np.array(states).reshape(m, -1) if m else np.zeros((0, 0), np.int64),
        np.array(offsets, np.int64),
        np.concatenate(rows) if rows else np.zeros((0, L.MOVE_W), np.int64),
        np.array(cands).reshape(m, width), np.array(qs).reshape(m, width),
        np.array(ks, np.int64), np.array(deal_ix, np.int64),
        np.full(m, players, np.int64))


def record_positions(w: np.ndarray, config: ExpertConfig, round_no: int, jobs: int = 1,
                     progress: Callable[[int, int], None] | None = None) -> Positions:
    """Play and label one round's deals (``config.deals2`` 2-player, ``deals4`` 4-player)
    with policy row ``w``; seeds from ``config.seed`` and the round."""
    seed = (config.seed * 1_000_003 + round_no * 7919) & MASK63
    tasks = []
    chunk = 2
    for players, count in ((2, config.deals2), (4, config.deals4)):
        for first in range(0, count, chunk):
            deals = list(range(first, min(count, first + chunk)))
            tasks.append((w, players, seed + players, deals,
                          np.array(config.phases, np.int64), config.width, config.samples,
                          round_no))
    parts: list[Positions] = []
    if jobs <= 1:
        for i, t in enumerate(tasks):
            parts.append(_record_deals(t))
            if progress:
                progress(i + 1, len(tasks))
    else:
        with ProcessPoolExecutor(jobs) as pool:
            for i, part in enumerate(pool.map(_record_deals, tasks)):
                parts.append(part)
                if progress:
                    progress(i + 1, len(tasks))
    parts = [x for x in parts if len(x)]
    # keep the deal numbers of the two player counts apart
    for x in parts:
        x.deal = x.deal + 100_000 * x.players
    return Positions.concat(parts)


# ---- fitting ------------------------------------------------------------------------------
def regret(pos: Positions, w: np.ndarray) -> tuple[float, float]:
    """Mean regret and agreement of row ``w``'s choices on ``pos``."""
    if len(pos) == 0:
        return math.nan, math.nan
    chosen = LB.choices(pos.states, T.DEFAULT_PARAMS, pos.offsets, pos.rows, w)
    reg, agree = LB.regret_of(chosen, pos.cand, pos.q, pos.k)
    return float(reg.mean()), float(agree.mean())


def holdout_mask(pos: Positions) -> np.ndarray:
    """True for the positions of held-out deals (every ``HOLDOUT_EVERY``-th)."""
    return (pos.deal % HOLDOUT_EVERY) == HOLDOUT_EVERY - 1


@dataclass
class FitResult:
    """A fitted row and its figures on the training and held-out positions."""

    row: np.ndarray
    figures: dict[str, float] = field(default_factory=dict)


def fit_row(pos: Positions, start: np.ndarray, generations: int, sigma: float, seed: int,
            progress: Callable[[int, float], None] | None = None) -> FitResult:
    """CMA-ES over the weight row around ``start``, minimising the mean regret on the
    training part of ``pos``; the figures compare start and fit on the held-out part."""
    import cma

    hold = holdout_mask(pos)
    train, test = pos.subset(~hold), pos.subset(hold)
    start_w = np.asarray(start[:len(WEIGHT_NAMES)], np.float64)
    lo = np.array([BOUNDS.get(k, DEFAULT_BOUNDS)[0] for k in WEIGHT_NAMES])
    hi = np.array([BOUNDS.get(k, DEFAULT_BOUNDS)[1] for k in WEIGHT_NAMES])
    space = Space(start_w, np.maximum(0.25, np.abs(start_w) / 2), np.minimum(lo, start_w),
                  np.maximum(hi, start_w))
    es = cma.CMAEvolutionStrategy(np.zeros(len(WEIGHT_NAMES)), sigma,
                                  {"seed": seed + 1, "verbose": -9,
                                   "maxiter": generations})
    best_row, best_f = space.row([0.0] * len(WEIGHT_NAMES)), regret(train, start)[0]
    for gen in range(generations):
        xs = es.ask()
        fs = [regret(train, space.row(x))[0] for x in xs]
        es.tell(xs, fs)
        mean_row = space.row(list(es.mean))
        mf = regret(train, mean_row)[0]
        if mf < best_f:
            best_f, best_row = mf, mean_row
        if progress:
            progress(gen + 1, mf)
    figures = {"positions_train": float(len(train)), "positions_heldout": float(len(test))}
    for name, row in (("start", start), ("fit", best_row)):
        figures[f"{name}_regret_train"], figures[f"{name}_agree_train"] = regret(train, row)
        figures[f"{name}_regret_heldout"], figures[f"{name}_agree_heldout"] = regret(test, row)
    return FitResult(best_row, figures)


# ---- training ------------------------------------------------------------------------------
def weights_text(row: np.ndarray, header: Sequence[str]) -> str:
    """A weights file (``[weights]`` table) with ``header`` as comment lines."""
    lines = [f"# {h}" if h else "#" for h in header] + ["[weights]"]
    # full precision (repr round-trips): a continued run reads the row back bit for bit
    lines += [f"{k} = {float(row[i])!r}" for i, k in enumerate(WEIGHT_NAMES)]
    return "\n".join(lines) + "\n"


def _config_doc(config: ExpertConfig) -> dict[str, Any]:
    """The settings a round depends on (every field but ``rounds``)."""
    doc = {k: getattr(config, k) for k in config.__dataclass_fields__ if k != "rounds"}
    doc["phases"] = list(config.phases)
    return doc


def _load_done(out: Path, config: ExpertConfig) -> list[dict[str, Any]]:
    """The rounds an earlier run of the same settings finished in ``out`` (their figures);
    a run of other settings there is an error."""
    meta = out / "expert.json"
    if not meta.is_file():
        return []
    try:
        doc = json.loads(meta.read_text())
        same = doc["config"] == json.loads(json.dumps(_config_doc(config)))
        history = list(doc["history"])
    except (OSError, ValueError, KeyError, TypeError):
        raise ConfigError(f"{meta} is not an expert run's record; choose an empty --out") \
            from None
    if not same:
        raise ConfigError(f"{out} holds an expert run with other settings; choose another "
                          "--out (only --rounds may change to continue a run)")
    return [h for h in history
            if (out / f"round-{h['round']}.toml").is_file()][:config.rounds]


def train(config: ExpertConfig, out: Path, *, jobs: int = 1,
          log: Callable[[str], None] = print) -> tuple[np.ndarray, list[dict[str, Any]]]:
    """Run ``config.rounds`` rounds of record + fit from ``config.start``; write each
    round's positions and row under ``out`` and return the final row and the figures.

    Rounds an earlier run of the same settings finished in ``out`` are reused (their rows
    are read back), so a run can be continued with more ``--rounds``: every round depends
    only on the settings, the seed and the previous round's row.
    """
    out.mkdir(parents=True, exist_ok=True)
    history = _load_done(out, config)
    w = start_row(config.start)
    if history:
        w = start_row(f"tuned@{out / f'round-{len(history)}.toml'}")
        log(f"continuing after round {len(history)} (its row read from {out})")
    for r in range(len(history), config.rounds):
        t0 = time.time()

        def rec_progress(done: int, total: int, r: int = r, t0: float = t0) -> None:
            el = time.time() - t0
            log(f"round {r + 1}: recorded {done}/{total} chunks, "
                f"{el:.0f}s, about {el / done * (total - done):.0f}s left")

        pos = record_positions(w, config, r, jobs=jobs, progress=rec_progress)
        pos.save(out / f"positions-{r + 1}.npz")
        t1 = time.time()

        def fit_progress(gen: int, f: float, r: int = r, t1: float = t1) -> None:
            if gen % 10 == 0 or gen == config.generations:
                el = time.time() - t1
                log(f"round {r + 1}: fit generation {gen}/{config.generations}, regret "
                    f"{f:.4f}, about {el / gen * (config.generations - gen):.0f}s left")

        res = fit_row(pos, w, config.generations, config.sigma, config.seed + r,
                      fit_progress)
        figs = {"round": r + 1, "positions": len(pos), "record_s": round(t1 - t0, 1),
                "fit_s": round(time.time() - t1, 1),
                **{k: round(v, 4) for k, v in res.figures.items()}}
        history.append(figs)
        log(f"round {r + 1}: held-out regret {figs['start_regret_heldout']} -> "
            f"{figs['fit_regret_heldout']}, agreement {figs['start_agree_heldout']} -> "
            f"{figs['fit_agree_heldout']}")
        w = res.row
        fileio.write_text(out / f"round-{r + 1}.toml", weights_text(w, [f"round {r + 1}"]))
        # the next round reads the row back as a continued run would
        w = start_row(f"tuned@{out / f'round-{r + 1}.toml'}")
        fileio.write_text(out / "expert.json", json.dumps(
            {"config": _config_doc(config), "history": history}, indent=1))
    return w, history


def provenance(config: ExpertConfig, command: str, history: Sequence[dict[str, Any]]
               ) -> list[str]:
    """The comment lines of a trained weights file: command, seed, date, per-round figures."""
    lines = ["expert: the fast evaluator fitted to the search's judgement (expert iteration,",
             "bonfire_sim/studies/expert.py).  Rebuild with:", f"  {command}",
             f"seed {config.seed}, {_dt.date.today().isoformat()}, config: "
             f"start={config.start} rounds={config.rounds} deals2={config.deals2} "
             f"deals4={config.deals4} width={config.width} samples={config.samples} "
             f"generations={config.generations} sigma={config.sigma}"]
    for h in history:
        lines.append(f"round {h['round']}: {h['positions']} positions; held-out regret "
                     f"{h['start_regret_heldout']} -> {h['fit_regret_heldout']}, agreement "
                     f"{h['start_agree_heldout']} -> {h['fit_agree_heldout']}")
    return lines
