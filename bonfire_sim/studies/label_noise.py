"""How noisy are the search's labels?  Label the same candidates twice, independently.

``bonfire-sim expert`` labels a decision's top candidates by the mean of a few rollouts
each (``strategies.labels.candidate_values``) and fits the weight row to the regret of
its choice against the best label.  If the label differences between candidates are
mostly noise, the fit chases noise and "the best of k labels" is biased upward.  This
study measures it directly on stored positions (``studies.expert.Positions``):

``relabel`` rolls the stored candidates out again with another ``salt`` (independent
determinizations: the random stream is seeded from the state and the salt) and any number
of samples; the policy row must be the one that recorded them (the candidates are its top
moves and are checked to be the stored ones).

``noise_figures`` compares two independent labellings of the same candidates: how often
their best candidate agrees, the split-half correlation of the label differences (each
candidate against the policy's own choice, candidate 0), the standard error of one
label, the regret of the policy's choice each labelling reports, and how much of it is
real - the gain of the best move by one labelling, measured on the other (unbiased: the
two are independent), against the apparent regret (biased upward by the max of noisy
labels).
"""

from __future__ import annotations

import math
from concurrent.futures import ProcessPoolExecutor

import numpy as np

from bonfire_sim.errors import ConfigError
from bonfire_sim.rules import layout as L
from bonfire_sim.rules import tables as T
from bonfire_sim.strategies import labels as LB
from bonfire_sim.studies.expert import Positions


def _relabel_chunk(job: tuple[Positions, np.ndarray, int, int]) -> np.ndarray:
    """Worker: the labels of every position of one chunk (NaN past each one's k)."""
    pos, w, samples, salt = job
    width = pos.cand.shape[1]
    out = np.full((len(pos), width), np.nan)
    cand = np.zeros(width, np.int64)
    q = np.zeros(width, np.float64)
    buf = np.zeros((L.MAX_MOVES, L.MOVE_W), np.int64)
    for i in range(len(pos)):
        n = int(pos.offsets[i + 1] - pos.offsets[i])
        buf[:n] = pos.rows[pos.offsets[i]:pos.offsets[i + 1]]
        s = pos.states[i].copy()
        k = LB.candidate_values(s, T.DEFAULT_PARAMS, buf, n, w, width, samples, salt, cand, q)
        if k != pos.k[i] or not np.array_equal(cand[:k], pos.cand[i, :k]):
            raise ConfigError("relabel: the candidates differ from the stored ones; give the "
                              "row that recorded the positions")
        out[i, :k] = q[:k]
    return out


def relabel(pos: Positions, w: np.ndarray, samples: int, salt: int, jobs: int = 1,
            chunk: int = 25) -> np.ndarray:
    """The stored candidates of ``pos`` labelled again: ``samples`` rollouts each on the
    determinizations of ``salt``; shape (positions, width), NaN where no candidate."""
    if samples < 1:
        raise ConfigError("relabel: samples must be at least 1")
    idx = [np.arange(a, min(len(pos), a + chunk)) for a in range(0, len(pos), chunk)]
    tasks = [(pos.subset(np.isin(np.arange(len(pos)), ix)), w, samples, salt) for ix in idx]
    if jobs <= 1:
        parts = [_relabel_chunk(t) for t in tasks]
    else:
        with ProcessPoolExecutor(jobs) as pool:
            parts = list(pool.map(_relabel_chunk, tasks))
    width = pos.cand.shape[1]
    return np.concatenate(parts) if parts else np.zeros((0, width))


def _corr(a: np.ndarray, b: np.ndarray) -> float:
    """Pearson correlation (NaN if either side is constant)."""
    if a.size < 2 or np.std(a) == 0 or np.std(b) == 0:
        return math.nan
    return float(np.corrcoef(a, b)[0, 1])


def noise_figures(qa: np.ndarray, qb: np.ndarray) -> dict[str, float]:
    """Two independent labellings (same positions, same candidates; NaN where none)
    compared; see the module doc.  ``label_se`` and ``diff_se`` read the repeat spread as
    two equal noises: meant for labellings of the same number of samples.

    ``regret_*`` are the mean regret of candidate 0 (the policy's own choice) by each
    labelling; ``real_gain`` is the mean of ``qb[argmax qa] - qb[0]`` and ``qa[argmax qb]
    - qa[0]`` (what switching to the other labelling's best move gains, measured without
    its selection bias); ``label_se`` is the standard error of one label (from the spread
    of the repeat differences), ``diff_se`` that of a difference to candidate 0 and
    ``diff_sd`` the spread of those differences; ``split_half_r`` the correlation over
    (position, candidate) of the differences to candidate 0, ``spearman_brown`` the
    reliability of the two pooled (``2r / (1 + r)``: their correlation with another
    pooled pair).
    ``floor_a`` is the regret labelling ``a`` charges the move labelling ``b`` finds best:
    what a player as good as ``b``'s best would still show on ``a``'s labels (with ``b``
    of many samples, the noise floor of ``a``'s regret).
    """
    if qa.shape != qb.shape or not np.array_equal(np.isnan(qa), np.isnan(qb)):
        raise ConfigError("noise_figures: the two labellings must cover the same candidates")
    ok = ~np.isnan(qa)
    k = ok.sum(axis=1)
    keep = k >= 2
    qa, qb, ok = qa[keep], qb[keep], ok[keep]
    npos = qa.shape[0]
    if npos == 0:
        raise ConfigError("noise_figures: no position with two labelled candidates")
    fa = np.where(ok, qa, -np.inf)
    fb = np.where(ok, qb, -np.inf)
    ba, bb = fa.argmax(axis=1), fb.argmax(axis=1)
    rows = np.arange(npos)
    da = (qa - qa[:, :1])[:, 1:][ok[:, 1:]]
    db = (qb - qb[:, :1])[:, 1:][ok[:, 1:]]
    r = _corr(da, db)
    gain = 0.5 * ((qb[rows, ba] - qb[:, 0]) + (qa[rows, bb] - qa[:, 0]))
    return {
        "positions": float(npos),
        "argmax_agree": float((ba == bb).mean()),
        "label_se": float(np.sqrt(0.5 * np.mean((qa - qb)[ok] ** 2))),
        "diff_se": float(np.sqrt(0.5 * np.mean((da - db) ** 2))),
        "diff_sd": float(np.sqrt(0.5 * (da.var() + db.var()))),
        "split_half_r": r,
        "spearman_brown": 2 * r / (1 + r) if math.isfinite(r) and r > -1 else math.nan,
        "regret_a": float((fa.max(axis=1) - qa[:, 0]).mean()),
        "regret_b": float((fb.max(axis=1) - qb[:, 0]).mean()),
        "real_gain": float(gain.mean()),
        "floor_a": float((fa.max(axis=1) - qa[rows, bb]).mean()),
        "real_gain_se": float(gain.std(ddof=1) / math.sqrt(npos)) if npos > 1 else math.nan,
    }


__all__ = ["noise_figures", "relabel"]
