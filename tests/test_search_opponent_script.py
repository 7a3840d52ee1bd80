"""scripts/search_opponent.py: the opponent-model search replays the built-in search.

With the opponents playing ``tuned`` (``Control``) the compiled copy must play the built-in
``search:16``'s games, or the experiment would measure the copy instead of the opponent
model; and an arm with another opponent model must really use it (an arm whose opponent
rows or noise were ignored would replay the control).
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

SCRIPTS = Path(__file__).resolve().parents[1] / "scripts"
SEED = 3636


@pytest.fixture(scope="module")
def so():
    sys.path.insert(0, str(SCRIPTS))
    try:
        import search_opponent
        yield search_opponent
    finally:
        sys.path.remove(str(SCRIPTS))


def _play(spec: str, order: int):
    from bonfire_sim.studies.ladder import play_schedule

    lineup = (spec, "tuned") if order == 0 else ("tuned", spec)
    return play_schedule([spec, "tuned"], 2, SEED, [(0, lineup)])[0]


def test_control_row_is_the_builtin_search_row(so) -> None:
    from bonfire_sim.strategies import weights_for
    from bonfire_sim.strategies.specs import parse_player

    control = so.Control()
    np.testing.assert_array_equal(control.row, parse_player("search:16").weight_row())
    np.testing.assert_array_equal(control.opp, weights_for("tuned")[None, :so.NW])
    assert control.noise == 0.0
    assert so.Mixed().opp.shape[0] == 5 and so.Noisy().noise == 0.25


@pytest.mark.parametrize("order", [0, 1])
def test_control_replays_builtin_search16(so, order: int) -> None:
    """Same deal, same seat: the control's game is the built-in's, score for score."""
    sys.path.insert(0, str(SCRIPTS))  # play_schedule imports the plug-in by its spec
    try:
        ours = _play("search_opponent:Control", order)
        builtin = _play("search:16", order)
    finally:
        sys.path.remove(str(SCRIPTS))
    assert ours.scores == builtin.scores and ours.ranks == builtin.ranks


def _differ(a, b) -> list[bool]:
    """Along one game (deal 3, against tuned, ``a`` playing), whether ``b`` would have
    chosen differently at each decision; ``b`` asked twice must agree with itself."""
    from bonfire_sim.sim.pyloop import play_mixed

    differ = []

    class Both:
        def choose(self, view, moves):
            i = a.choose(view, moves)
            j = b.choose(view, moves)
            assert j == b.choose(view, moves)
            differ.append(i != j)
            return i

    play_mixed(3, 2, [Both(), "tuned"])
    assert len(differ) > 20
    return differ


@pytest.mark.parametrize("name", ["Mixed", "Expert"])
def test_opponent_rows_are_used(so, name: str) -> None:
    """The arm chooses differently from its twin whose opponents all play tuned but who
    draws from the search's stream exactly as the arm does (``Mixed``: five rows, all
    tuned's; ``Expert``: the control itself), so the difference is the opponents' rows,
    not a shifted stream; and asking twice gives the same choice (the draws are seeded by
    the visible state)."""
    arm = so.ARMS[name]()

    class Twin(so.OppSearch):
        opponents = (so.rollout_policy("search"),) * len(arm.opponents)

    assert any(_differ(Twin(), arm))


def _rollout(so, state, params, opp_name: str, noise: float) -> tuple[float, list[int]]:
    """One rollout of ``state`` with the mover on tuned, the other seat on ``opp_name``."""
    from bonfire_sim.rules import layout as L
    from bonfire_sim.rules.scoring import NLINES
    from bonfire_sim.strategies import evaluate as E
    from bonfire_sim.strategies import weights_for

    x = np.array(state, dtype=np.int64, copy=True)
    nseat = int(x[L.G_NSEATS])
    ints = np.empty(E.scratch_ints(params), np.int64)
    E.clear_labels(ints)
    work = so.SE.Rollout(np.zeros((L.MAX_MOVES, L.MOVE_W), np.int64),
                         np.zeros(nseat, np.int64), np.zeros((nseat, NLINES), np.int64),
                         np.zeros(nseat, np.int64), np.zeros(nseat, np.int64),
                         np.empty(E.N_FLOATS), ints)
    w = weights_for("tuned")[:so.NW].copy()
    seat_w = np.tile(weights_for(opp_name)[:so.NW], (nseat, 1))
    nrng = np.array([12345], np.int64)
    seat = int(x[L.G_CUR])
    v = so.rollout_opp(x, params, w, seat, work, seat_w, noise,
                       nrng, np.zeros((L.MAX_MOVES, L.MOVE_W), np.int64))
    return v, x.tolist()


def test_rollout_plays_the_opponent_model(so) -> None:
    """From one position, a rollout with tuned opponents differs from one with expert
    opponents and from one with noisy (always) tuned opponents, and repeats itself."""
    from bonfire_sim.sim.pyloop import play_mixed

    seen: list[tuple[np.ndarray, object]] = []

    class Grab:
        def choose(self, view, moves):
            if not seen:
                seen.append((np.array(view.state, copy=True), view.params))
            return 0

    play_mixed(3, 2, [Grab(), "tuned"])
    state, params = seen[0]
    tuned = _rollout(so, state, params, "tuned", 0.0)
    assert tuned == _rollout(so, state, params, "tuned", 0.0)
    assert tuned[1] != _rollout(so, state, params, so.EXPERT, 0.0)[1]
    assert tuned[1] != _rollout(so, state, params, "tuned", 1.0)[1]


@pytest.mark.parametrize("argv", [["arm", "NoSuchArm"], ["arm"], ["cost", "--deals", "x"],
                                  ["cost", "--deals", "0"],
                                  ["arm", "Mixed", "--against", "nosuch", "--deals", "1"]])
def test_bad_arguments_are_one_error_line(so, capsys, argv) -> None:
    """An unknown arm, a missing or bad value: one ``Error:`` line and exit 2, as the
    bonfire-sim commands answer bad input (not argparse's usage block)."""
    with pytest.raises(SystemExit) as stop:
        code = so.main(argv)
        raise SystemExit(code)
    err = capsys.readouterr().err
    assert stop.value.code == 2
    assert err.startswith("Error: ") and err.count("\n") == 1, err
