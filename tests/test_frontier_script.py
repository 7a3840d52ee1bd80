"""scripts/frontier.py: every arm is a seat spec the package plays, and bad input is one
``Error:`` line and exit 2 (the script's numbers are on the frontier findings page)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

SCRIPTS = Path(__file__).resolve().parents[1] / "scripts"


@pytest.fixture(scope="module")
def fr():
    sys.path.insert(0, str(SCRIPTS))
    try:
        import frontier
        yield frontier
    finally:
        sys.path.remove(str(SCRIPTS))


def test_every_arm_is_a_player_and_the_masked_ones_search_part_of_the_game(fr) -> None:
    from bonfire_sim.strategies import search as SE
    from bonfire_sim.strategies.specs import parse_player

    full = parse_player("search:4").weight_row()
    for label, spec in fr.ARMS.items():
        if spec.startswith("frontier:"):
            row = getattr(fr, spec.split(":")[1])().row
            assert row[SE.R_WIDTH] <= 4 and row[SE.R_FROM] > 0, label  # a narrowed xlate4
            continue
        p = parse_player(spec)  # every other arm is a built-in spec
        if label not in ("tuned", "expert", "search4"):
            # a masked arm searches fewer phases or fewer turns than the whole search, or
            # it is not cheap
            row = p.weight_row()
            masked = [row[i] != full[i] for i in (SE.R_PHASES, SE.R_FROM, SE.R_UNTIL)]
            assert p.kind == "search" and any(masked), label


@pytest.mark.parametrize("argv, says", [
    (["arm", "nope"], "invalid choice"),
    (["arm", "tuned", "--deals", "0"], "--deals must be at least 1"),
    (["arm", "tuned", "--deals", "1", "--jobs", "0"], "--jobs must be at least 1"),
    (["arm", "tuned", "--deals", "1", "--seed", "-5"], "seed must be"),
])
def test_bad_input_is_one_error_line(fr, capsys, argv, says) -> None:
    try:
        rc = fr.main(argv)
    except SystemExit as e:
        rc = e.code
    err = capsys.readouterr().err.strip().splitlines()
    assert rc == 2 and len(err) == 1 and err[0].startswith("Error:") and says in err[0]


@pytest.mark.parametrize("order", [0, 1])
def test_the_late_row_control_replays_expert(order: int) -> None:
    """scripts/late_row.py's control (``expert``'s row in both halves, through the plug-in
    path) plays the built-in ``expert``'s game, score for score: the late row's games
    differ from ``expert``'s only by the fitted row."""
    from bonfire_sim.studies.ladder import play_schedule

    sys.path.insert(0, str(SCRIPTS))
    try:
        def play(spec: str):
            lineup = (spec, "tuned") if order == 0 else ("tuned", spec)
            return play_schedule([spec, "tuned"], 2, 3640, [(0, lineup)])[0]

        ours, builtin = play("late_row:EarlyOnly"), play("expert")
    finally:
        sys.path.remove(str(SCRIPTS))
    assert ours.scores == builtin.scores and ours.ranks == builtin.ranks


@pytest.mark.parametrize("argv, says", [
    (["fit", "--seed", "-1", "--deals", "4"], "seed must be"),
    (["fit", "--from", "0", "--deals", "4"], "--from must be"),
    (["arm", "--deals", "1"], "--deals must be at least 2"),
])
def test_the_late_row_script_refuses_bad_input_before_writing(capsys, tmp_path, monkeypatch,
                                                              argv, says) -> None:
    sys.path.insert(0, str(SCRIPTS))
    try:
        import late_row
    finally:
        sys.path.remove(str(SCRIPTS))
    monkeypatch.chdir(tmp_path)
    try:
        rc = late_row.main(argv)
    except SystemExit as e:
        rc = e.code
    err = capsys.readouterr().err.strip().splitlines()
    assert rc == 2 and len(err) == 1 and err[0].startswith("Error:") and says in err[0]
    assert not any(tmp_path.iterdir())  # nothing written


@pytest.mark.parametrize("order", [0, 1])
def test_the_narrow_control_replays_the_builtin_masked_search(fr, order: int) -> None:
    """``Narrow4`` (the plug-in path at width 4, budget 4) plays the built-in
    ``search_expert:4:phases=main:turns=40-999``'s game score for score, so the narrower
    arms differ from it by their width and budget only."""
    from bonfire_sim.studies.ladder import play_schedule

    sys.path.insert(0, str(SCRIPTS))
    try:
        def play(spec: str):
            lineup = (spec, "tuned") if order == 0 else ("tuned", spec)
            return play_schedule([spec, "tuned"], 2, 3640, [(d, lineup) for d in range(4)])

        ours, builtin = play("frontier:Narrow4"), play(fr.Narrow.spec)
    finally:
        sys.path.remove(str(SCRIPTS))
    # four deals: a control at width 3 departs on some of them (checked)
    assert [(r.scores, r.ranks) for r in ours] == [(r.scores, r.ranks) for r in builtin]
