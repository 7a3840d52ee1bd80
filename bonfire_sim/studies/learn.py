"""Fit the ``learned`` player's network to the search's rollout labels.

1. **record**: ``studies.expert.record_positions`` with ``tuned`` as the policy (one round
   of ``bonfire-sim expert``'s recording: at every labelled decision ``tuned``'s top
   ``width`` moves, each rolled out ``samples`` times with ``tuned`` in every seat);
2. **features**: ``strategies.learned.features_of`` describes the same candidates on the
   stored states exactly as the player will in play;
3. **fit** (``fit_model``): a softmax over each position's labelled candidates (a
   candidate the labels do not cover is left out), minimising the expected *regret* of the
   pick (best label minus the pick's label, as ``studies.expert`` measures it) plus a
   little cross-entropy towards the best label and an L2 penalty, by L-BFGS from a seeded
   start that plays the row's own choice.  Every fifth deal is held out
   (``expert.holdout_mask``'s rule); its figures are reported, never fitted.

``train`` is the one seeded function a command (``bonfire-sim learn``) calls; the model is
written as JSON with its provenance (``model_doc``).
"""

from __future__ import annotations

import datetime as _dt
import json
import math
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np
from scipy import optimize

from bonfire_sim.errors import ConfigError
from bonfire_sim.rules import tables as T
from bonfire_sim.strategies import learned as LR
from bonfire_sim.studies.expert import (
    HOLDOUT_EVERY,
    ExpertConfig,
    Positions,
    record_positions,
    start_row,
)

POLICY = "tuned"  # the row whose candidates the network re-ranks (learned's own row)


@dataclass(frozen=True)
class LearnConfig:
    """Everything a fit depends on (stored in the model file's provenance)."""

    deals2: int = 100
    deals4: int = 30
    samples: int = 8
    seed: int = 35
    hidden: int = LR.HIDDEN
    l2: float = 1e-4
    ce: float = 0.1  # weight of the cross-entropy towards the best label
    iters: int = 300

    def __post_init__(self) -> None:
        if self.hidden != LR.HIDDEN:
            raise ConfigError(f"learn: this build's network has {LR.HIDDEN} hidden units")
        if self.deals2 + self.deals4 < 5:
            raise ConfigError("learn: give at least 5 deals (--deals2 + --deals4)")
        if self.samples < 1 or self.iters < 1:
            raise ConfigError("learn: --samples and --iters must be at least 1")
        if not (math.isfinite(self.l2) and self.l2 >= 0 and math.isfinite(self.ce)
                and self.ce >= 0):
            raise ConfigError("learn: --l2 and --ce must be numbers >= 0")

    def expert_config(self) -> ExpertConfig:
        """The recording's settings (one round of ``bonfire-sim expert`` from tuned)."""
        return ExpertConfig(start=POLICY, rounds=1, deals2=self.deals2, deals4=self.deals4,
                            width=LR.WIDTH, samples=self.samples, seed=self.seed)


@dataclass
class Dataset:
    """Candidates' features ``x`` (N, K, NF), labels ``q`` (N, K; 0 where ``mask`` is
    false: a candidate without a label), and the deal of each position."""

    x: np.ndarray
    q: np.ndarray
    mask: np.ndarray
    deal: np.ndarray

    def subset(self, keep: np.ndarray) -> Dataset:
        """The positions where ``keep`` is true."""
        return Dataset(self.x[keep], self.q[keep], self.mask[keep], self.deal[keep])

    def __len__(self) -> int:
        return int(self.x.shape[0])


def dataset(pos: Positions, w: np.ndarray | None = None) -> Dataset:
    """The features of the row's candidates on ``pos`` and their labels, by move index
    (positions where fewer than two candidates carry a label are dropped)."""
    row = start_row(POLICY) if w is None else w
    cand, x = LR.features_of(pos.states, T.DEFAULT_PARAMS, pos.offsets, pos.rows, row,
                             LR.WIDTH)
    n, k = cand.shape
    q = np.zeros((n, k))
    mask = np.zeros((n, k), bool)
    for j in range(k):
        for c in range(pos.cand.shape[1]):
            hit = (cand[:, j] >= 0) & (pos.cand[:, c] == cand[:, j]) & (c < pos.k)
            q[hit, j] = pos.q[hit, c]
            mask[hit, j] = True
    keep = mask.sum(axis=1) >= 2
    return Dataset(x, q, mask, pos.deal).subset(keep)


# ---- the network ---------------------------------------------------------------------------
def _unpack(theta: np.ndarray, nf: int, h: int) -> tuple[np.ndarray, ...]:
    w1 = theta[:h * nf].reshape(h, nf)
    b1 = theta[h * nf:h * nf + h]
    v = theta[h * nf + h:h * nf + 2 * h]
    u = theta[h * nf + 2 * h:]
    return w1, b1, v, u


def scores(theta: np.ndarray, x: np.ndarray, h: int = LR.HIDDEN) -> np.ndarray:
    """The network's score of every candidate (N, K) (``learned.model_score``)."""
    w1, b1, v, u = _unpack(theta, x.shape[-1], h)
    return x @ u + np.tanh(x @ w1.T + b1) @ v


def _loss(theta: np.ndarray, d: Dataset, h: int, l2: float, ce: float
          ) -> tuple[float, np.ndarray]:
    """Mean expected regret + ce x cross-entropy to the best label + l2 x |theta|^2, and
    its gradient."""
    w1, b1, v, u = _unpack(theta, d.x.shape[-1], h)
    a = np.tanh(d.x @ w1.T + b1)  # (N, K, H)
    s = d.x @ u + a @ v
    s = np.where(d.mask, s, -1e9)
    s = s - s.max(axis=1, keepdims=True)
    e = np.exp(s) * d.mask
    pi = e / e.sum(axis=1, keepdims=True)
    qm = np.where(d.mask, d.q, -1e9)
    gap = np.where(d.mask, qm.max(axis=1, keepdims=True) - d.q, 0.0)
    reg = (pi * gap).sum(axis=1)
    best = (qm == qm.max(axis=1, keepdims=True)) & d.mask
    best = best / best.sum(axis=1, keepdims=True)  # ties share the target
    logp = np.log(np.maximum(pi, 1e-300))
    cross = -(best * logp).sum(axis=1)
    n = len(d)
    f = float(reg.mean() + ce * cross.mean() + l2 * (theta @ theta))
    g = (pi * (gap - reg[:, None]) + ce * (pi - best)) * d.mask / n  # dF/ds (N, K)
    gu = np.einsum("nk,nkf->f", g, d.x)
    gv = np.einsum("nk,nkh->h", g, a)
    ga = g[:, :, None] * v * (1.0 - a * a)  # (N, K, H)
    gw1 = np.einsum("nkh,nkf->hf", ga, d.x)
    gb1 = ga.sum(axis=(0, 1))
    grad = np.concatenate([gw1.ravel(), gb1, gv, gu]) + 2 * l2 * theta
    return f, grad


def start_theta(nf: int, h: int, seed: int) -> np.ndarray:
    """A seeded start that plays the row's own choice (skip weight on ``F_FIRST``) with
    small random hidden weights."""
    rng = np.random.default_rng(seed)
    w1 = rng.normal(0.0, 0.1, (h, nf))
    b1 = np.zeros(h)
    v = rng.normal(0.0, 0.01, h)
    u = np.zeros(nf)
    u[LR.F_FIRST] = 2.0
    return np.concatenate([w1.ravel(), b1, v, u])


def pick_regret(theta: np.ndarray, d: Dataset) -> tuple[float, float]:
    """Mean regret and agreement with the best label of the network's argmax pick."""
    if len(d) == 0:
        return math.nan, math.nan
    s = np.where(d.mask, scores(theta, d.x), -np.inf)
    pick = s.argmax(axis=1)
    qm = np.where(d.mask, d.q, -np.inf)
    best = qm.max(axis=1)
    got = qm[np.arange(len(d)), pick]
    return float((best - got).mean()), float((got == best).mean())


def fit_model(d: Dataset, config: LearnConfig,
              progress: Callable[[int, float], None] | None = None
              ) -> tuple[np.ndarray, dict[str, float]]:
    """Fit on the training deals of ``d``; the figures of the start (the row's own
    choice) and the fit on the training and held-out deals."""
    hold = (d.deal % HOLDOUT_EVERY) == HOLDOUT_EVERY - 1  # expert.holdout_mask's rule
    train, test = d.subset(~hold), d.subset(hold)
    if len(train) == 0 or len(test) == 0:
        raise ConfigError("learn: too few positions for a held-out fit; give more deals")
    nf, h = d.x.shape[-1], config.hidden
    theta0 = start_theta(nf, h, config.seed)
    calls = [0]

    def fun(theta: np.ndarray) -> tuple[float, np.ndarray]:
        f, g = _loss(theta, train, h, config.l2, config.ce)
        calls[0] += 1
        if progress and calls[0] % 50 == 0:
            progress(calls[0], f)
        return f, g

    res = optimize.minimize(fun, theta0, jac=True, method="L-BFGS-B",
                            options={"maxiter": config.iters})
    figures = {"positions_train": float(len(train)), "positions_heldout": float(len(test))}
    for name, th in (("start", theta0), ("fit", res.x)):
        figures[f"{name}_regret_train"], figures[f"{name}_agree_train"] = pick_regret(th, train)
        figures[f"{name}_regret_heldout"], figures[f"{name}_agree_heldout"] = \
            pick_regret(th, test)
    return res.x, figures


# ---- the model file ------------------------------------------------------------------------
def model_doc(theta: np.ndarray, nf: int, config: LearnConfig, command: str,
              figures: dict[str, float]) -> dict[str, Any]:
    """The model file's content: provenance, then the arrays ``learned.load_model`` reads
    (``repr`` floats: read back bit for bit)."""
    w1, b1, v, u = _unpack(theta, nf, config.hidden)
    return {
        "provenance": {
            "what": "learned: network re-ranking tuned's top moves, fitted to the search's "
                    "rollout labels (bonfire_sim/studies/learn.py)",
            "command": command, "date": _dt.date.today().isoformat(),
            "config": asdict(config), "figures": {k: round(v, 4) for k, v in figures.items()},
        },
        "w1": w1.tolist(), "b1": b1.tolist(), "v": v.tolist(), "u": u.tolist(),
    }


def train(config: LearnConfig, out: Path, *, jobs: int = 1,
          log: Callable[[str], None] = print) -> tuple[np.ndarray, dict[str, float]]:
    """Record (or reuse ``out/positions.npz`` of the same settings), featurise, fit."""
    out.mkdir(parents=True, exist_ok=True)
    meta, posf = out / "learn.json", out / "positions.npz"
    key = {k: v for k, v in asdict(config).items()
           if k in ("deals2", "deals4", "samples", "seed")}
    if posf.is_file() and meta.is_file() and json.loads(meta.read_text()) == key:
        pos = Positions.load(posf)
        log(f"reusing {len(pos)} recorded positions in {out}")
    else:
        pos = record_positions(start_row(POLICY), config.expert_config(), 0, jobs=jobs,
                               progress=lambda a, b: log(f"recorded {a}/{b} chunks"))
        pos.save(posf)
        meta.write_text(json.dumps(key))
    d = dataset(pos)
    log(f"{len(d)} positions with labelled candidates; fitting")
    theta, figures = fit_model(d, config, lambda i, f: log(f"fit: {i} evaluations, {f:.4f}"))
    return theta, figures


def write_model(path: Path, theta: np.ndarray, config: LearnConfig, command: str,
                figures: dict[str, float]) -> Path:
    """Write the model file (JSON) through the project's one writer."""
    from bonfire_sim.infra import fileio

    doc = model_doc(theta, LR.NF, config, command, figures)
    return fileio.write_text(path, json.dumps(doc, indent=1) + "\n")
