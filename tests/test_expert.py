"""Expert iteration (``bonfire-sim expert``): labels, the fit, and the one command."""

from __future__ import annotations

import numpy as np
import pytest
from click.testing import CliRunner

from bonfire_sim.cli.main import main
from bonfire_sim.errors import ConfigError
from bonfire_sim.rules import tables as T
from bonfire_sim.strategies import labels as LB
from bonfire_sim.strategies import load_weights, weights_for
from bonfire_sim.studies import expert as X

TINY = X.ExpertConfig(rounds=1, deals2=5, deals4=0, width=3, samples=2, generations=2,
                      seed=3)


@pytest.fixture(scope="module")
def recorded():
    return X.record_positions(X.start_row("tuned"), TINY, 0)


def test_recording_labels_the_policys_candidates_and_is_seeded(recorded):
    pos = recorded
    assert len(pos) > 100
    # the policy's own choice is always candidate 0, and every label has 2..width moves
    chosen = LB.choices(pos.states, T.DEFAULT_PARAMS, pos.offsets, pos.rows,
                        X.start_row("tuned"))
    assert np.array_equal(chosen, pos.cand[:, 0])
    assert pos.k.min() >= 2 and pos.k.max() <= TINY.width
    assert np.all(np.abs(pos.q[:, :2]) <= 2.0)
    again = X.record_positions(X.start_row("tuned"), TINY, 0)
    assert np.array_equal(again.q, pos.q) and np.array_equal(again.states, pos.states)


def test_the_fit_learns_to_imitate_a_planted_player(recorded):
    """Labels that say 'portal's choice is best': fitted from tuned's row, the held-out
    regret falls (portal's own row has regret 0 there)."""
    pos = recorded
    params = T.DEFAULT_PARAMS
    target = LB.choices(pos.states, params, pos.offsets, pos.rows, weights_for("portal"))
    planted = X.Positions(pos.states, pos.offsets, pos.rows, pos.cand.copy(),
                          pos.q.copy(), pos.k.copy(), pos.deal, pos.players)
    n = planted.rows.shape[0]
    for i in range(len(pos)):
        # every legal move a candidate: portal's choice worth 1, the others 0
        m = pos.offsets[i + 1] - pos.offsets[i]
        planted.k[i] = 2
        planted.cand[i, :2] = (target[i], (target[i] + 1) % m)
        planted.q[i, :2] = (1.0, 0.0)
    assert n == pos.rows.shape[0]
    assert X.regret(planted, weights_for("portal"))[0] == 0.0
    fit = X.fit_row(planted, X.start_row("tuned"), generations=15, sigma=0.5, seed=1)
    f = fit.figures
    assert f["start_regret_heldout"] > 0.1
    assert f["fit_regret_heldout"] < f["start_regret_heldout"] - 0.03
    assert f["fit_agree_heldout"] > f["start_agree_heldout"]


def test_the_command_writes_a_weights_file_with_its_provenance(tmp_path):
    out = tmp_path / "w.toml"
    res = CliRunner().invoke(main, [
        "expert", "--rounds", "1", "--deals2", "5", "--deals4", "0", "--width", "2",
        "--samples", "1", "--generations", "1", "--seed", "4", "--quiet",
        "--out", str(tmp_path / "run"), "--weights-out", str(out)])
    assert res.exit_code == 0, res.output
    text = out.read_text()
    assert "bonfire-sim expert" in text and "seed 4" in text and "round 1:" in text
    row = weights_for("tuned", load_weights(out))
    assert np.all(np.isfinite(row))
    assert (tmp_path / "run" / "positions-1.npz").is_file()


@pytest.mark.parametrize("bad", [dict(width=1), dict(deals2=1, deals4=0), dict(sigma=0.0),
                                 dict(samples=0)])
def test_bad_settings_are_refused(bad):
    with pytest.raises(ConfigError):
        X.ExpertConfig(**bad)
