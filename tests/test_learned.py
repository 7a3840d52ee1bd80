"""The learned player (``strategies.learned``) and its fit (``studies.learn``)."""

from __future__ import annotations

import json

import numpy as np
import pytest
from click.testing import CliRunner

from bonfire_sim.cli.main import main
from bonfire_sim.errors import ConfigError
from bonfire_sim.rules import layout as L
from bonfire_sim.rules import tables as T
from bonfire_sim.strategies import evaluate as E
from bonfire_sim.strategies import labels as LB
from bonfire_sim.strategies import learned as LR
from bonfire_sim.strategies import weights_for
from bonfire_sim.strategies.price_context import NEG
from bonfire_sim.studies import expert as X
from bonfire_sim.studies import learn as LN

TINY = LN.LearnConfig(deals2=5, deals4=0, samples=1, seed=3, iters=30)


@pytest.fixture(scope="module")
def recorded():
    return X.record_positions(X.start_row("tuned"), TINY.expert_config(), 0)


def test_the_phases_are_the_labelled_ones():
    assert LR.LEARN_PHASES == sum(1 << ph for ph in X.LABEL_PHASES)


def test_candidates_are_the_rows_own_in_the_searchs_order(recorded):
    """Candidate 0 is the row's choice; the candidate set is the one the labels cover."""
    pos = recorded
    w = X.start_row("tuned")
    cand, x = LR.features_of(pos.states, T.DEFAULT_PARAMS, pos.offsets, pos.rows, w,
                             LR.WIDTH)
    chosen = LB.choices(pos.states, T.DEFAULT_PARAMS, pos.offsets, pos.rows, w)
    assert np.array_equal(cand[:, 0], chosen)
    assert np.all(x[:, 0, LR.F_FIRST] == 1.0) and np.all(x[:, 0, LR.F_GAP] == 0.0)
    # the labelled candidates (tuned's top 5, search.candidates) are the same moves but
    # for ties (the search breaks them in the order its removals leave) and moves the row
    # cannot price (below NEG: never a candidate here)
    floats = np.empty(E.N_FLOATS)
    ints = np.empty(E.scratch_ints(T.DEFAULT_PARAMS), np.int64)
    E.clear_labels(ints)
    differ = 0
    for i in range(len(pos)):
        ours, theirs = set(cand[i][cand[i] >= 0]), set(pos.cand[i, :pos.k[i]])
        if ours == theirs:
            continue
        differ += 1
        mv = pos.rows[pos.offsets[i]:pos.offsets[i + 1]]
        vals = np.empty(len(mv))
        E.values_in(pos.states[i].copy(), T.DEFAULT_PARAMS, mv, len(mv), w, floats, ints,
                    vals)
        only_ours = sorted(vals[j] for j in ours - theirs)
        only_theirs = sorted(vals[j] for j in theirs - ours if vals[j] > NEG)
        assert only_ours[:len(only_theirs)] == only_theirs[:len(only_ours)], i
    assert differ < 0.2 * len(pos)


def test_training_is_reproducible(recorded, tmp_path):
    d = LN.dataset(recorded)
    a, fa = LN.fit_model(d, TINY)
    b, fb = LN.fit_model(d, TINY)
    assert np.array_equal(a, b) and fa == fb
    path = LN.write_model(tmp_path / "m.json", a, TINY, "cmd", fa)
    m = LR.load_model(path)
    w1, b1, v, u = LN._unpack(a, LR.NF, LR.HIDDEN)
    assert np.array_equal(m["w1"], w1) and np.array_equal(m["u"], u)
    # the compiled score is the fit's score
    x = d.x[0, 0]
    nz = np.empty(LR.NF, np.int64)
    assert LR.model_score(x, m["w1"], m["b1"], m["v"], m["u"], nz) == pytest.approx(
        float(LN.scores(a, d.x[:1])[0, 0]))


def test_the_fit_learns_a_planted_preference_on_held_out_deals(recorded):
    """Labels that say 'the Great Bonfire is best late, the row's choice otherwise' (a
    preference that depends on the position, not a fixed bonus): the fit's held-out
    regret falls far below the row's, and a fit that cannot see the candidates' kinds
    (features zeroed) does not learn it."""
    d = LN.dataset(recorded)
    late = d.x[:, :, LR.F_CTX + LR.C_LATE] < 0.5
    fire = d.x[:, :, LR.F_KIND + L.M_FIRE] == 1.0
    has_fire = (fire & d.mask).any(axis=1) & late[:, 0]
    assert has_fire.sum() > 20
    q = np.where(fire & late, 1.0, 0.0)
    q[~has_fire, 0] = 1.0
    planted = LN.Dataset(d.x, q * d.mask, d.mask, d.deal)
    cfg = LN.LearnConfig(deals2=5, deals4=0, samples=1, seed=3, iters=200)
    _, f = LN.fit_model(planted, cfg)
    assert f["start_regret_heldout"] > 0.05
    assert f["fit_regret_heldout"] < 0.3 * f["start_regret_heldout"]
    blind = planted.x.copy()
    blind[:, :, LR.F_KIND:LR.F_PHASE] = 0.0
    _, fb = LN.fit_model(LN.Dataset(blind, planted.q, planted.mask, planted.deal), cfg)
    assert fb["fit_regret_heldout"] > 2 * f["fit_regret_heldout"]


def test_the_command_writes_a_network_with_its_provenance(tmp_path):
    out = tmp_path / "net.json"
    res = CliRunner().invoke(main, [
        "expert", "--network", str(out), "--deals2", "5", "--deals4", "0", "--samples",
        "1", "--seed", "4", "--iters", "5", "--quiet", "--out", str(tmp_path / "run")])
    assert res.exit_code == 0, res.output
    doc = json.loads(out.read_text())
    assert "bonfire-sim expert --network" in doc["provenance"]["command"]
    assert doc["provenance"]["config"]["seed"] == 4
    assert LR.load_model(out)["w1"].shape == (LR.HIDDEN, LR.NF)


def test_bad_settings_are_refused():
    with pytest.raises(ConfigError):
        LN.LearnConfig(deals2=1, deals4=0)
    with pytest.raises(ConfigError):
        LN.LearnConfig(l2=-1.0)


def test_learned_plays_a_whole_game_with_the_shipped_network():
    from bonfire_sim.studies.headtohead import head_to_head

    r = head_to_head("learned", "tuned", 2, 2, 1)
    assert r.games == 4 and 0.0 <= r.share <= 1.0
    assert np.all(np.isfinite(weights_for("learned")[:10]))
