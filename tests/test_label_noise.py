"""The label-noise study (``studies.label_noise``): relabelling and its figures."""

from __future__ import annotations

import numpy as np
import pytest

from bonfire_sim.errors import ConfigError
from bonfire_sim.studies import expert as X
from bonfire_sim.studies.label_noise import noise_figures, relabel

TINY = X.ExpertConfig(rounds=1, deals2=5, deals4=0, width=3, samples=2, generations=2,
                      seed=3)


@pytest.fixture(scope="module")
def recorded():
    pos = X.record_positions(X.start_row("tuned"), TINY, 0)
    return pos.subset(np.arange(len(pos)) % 10 == 0)


def test_relabel_repeats_the_recording_and_other_salts_are_independent(recorded):
    pos = recorded
    w = X.start_row("tuned")
    # the recording labels round 0 with salt 0: the same salt and samples give its labels
    same = relabel(pos, w, TINY.samples, 0, jobs=1, chunk=7)
    ok = ~np.isnan(same)
    assert np.array_equal(ok.sum(axis=1), pos.k)
    assert np.array_equal(same[ok], pos.q[ok])
    other = relabel(pos, w, TINY.samples, 99, jobs=2, chunk=7)
    assert np.array_equal(np.isnan(other), ~ok)
    assert not np.array_equal(other[ok], pos.q[ok])
    with pytest.raises(ConfigError, match="candidates differ"):
        relabel(pos, X.start_row("portal"), 2, 0)


def _noisy(truth: np.ndarray, se: float, rng: np.random.Generator) -> np.ndarray:
    return truth + rng.normal(0, se, truth.shape)


def test_noise_figures_recover_a_planted_noise_and_signal():
    rng = np.random.default_rng(5)
    n, k = 20_000, 4
    # pure noise: no candidate is better; the apparent regret is all selection bias
    flat = np.zeros((n, k))
    f = noise_figures(_noisy(flat, 0.1, rng), _noisy(flat, 0.1, rng))
    assert f["label_se"] == pytest.approx(0.1, rel=0.03)
    assert f["diff_se"] == pytest.approx(0.1 * 2 ** 0.5, rel=0.03)  # two labels' noise
    assert abs(f["split_half_r"]) < 0.03
    assert f["argmax_agree"] == pytest.approx(1 / k, abs=0.02)
    assert f["regret_a"] > 0.1 and abs(f["real_gain"]) < 0.005
    # a real signal: candidate 3 is 0.2 better than the policy's choice everywhere
    truth = np.zeros((n, k))
    truth[:, 3] = 0.2
    truth[:, 1] = rng.normal(0, 0.1, n)
    g = noise_figures(_noisy(truth, 0.05, rng), _noisy(truth, 0.05, rng))
    assert g["real_gain"] == pytest.approx(0.2, abs=0.01)
    # the differences to candidate 0 vary by 0.0122 (0, 0.2 and the spread of candidate
    # 1), their noise by 2 x 0.05 ** 2: r = 0.0122 / (0.0122 + 0.005)
    assert g["split_half_r"] == pytest.approx(0.71, abs=0.02)
    assert g["argmax_agree"] > 0.9
    assert g["floor_a"] < 0.01
    # a candidate missing (NaN) in one labelling only is refused
    a = truth.copy()
    a[0, 2] = np.nan
    with pytest.raises(ConfigError, match="same candidates"):
        noise_figures(a, truth)
