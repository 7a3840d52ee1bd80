"""Golden traces: the checked-in games in tests/golden replay move for move.

A failure means the engine, a strategy or the trace format now plays a stored game
differently.  If that change is intended, regenerate the traces and review the diff:

    .venv/bin/python scripts/regen_golden.py && git diff tests/golden
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from bonfire_sim.sim.play import play

GOLDEN = Path(__file__).resolve().parent / "golden"
FILES = sorted(GOLDEN.glob("seed*_p*.json"))
HINT = ("if this change is intended, run `.venv/bin/python scripts/regen_golden.py` and "
        "review `git diff tests/golden`")
MAX_BYTES = 300_000


def _case(path: Path) -> tuple[int, int]:
    m = re.fullmatch(r"seed(\d+)_p(\d)\.json", path.name)
    assert m, f"unexpected golden file name {path.name}"
    return int(m[1]), int(m[2])


def first_difference(expected: dict, actual: dict) -> str:
    """A short report of where two traces part: result fields, then the first event."""
    out = []
    for key in sorted(set(expected["result"]) | set(actual["result"])):
        a, b = expected["result"].get(key), actual["result"].get(key)
        if a != b:
            out.append(f"result.{key}: golden {a!r} != now {b!r}")
    ev_a, ev_b = expected["events"], actual["events"]
    for i, (a, b) in enumerate(zip(ev_a, ev_b, strict=False)):
        if a != b:
            keys = [k for k in sorted(set(a) | set(b)) if a.get(k) != b.get(k)]
            out.append(f"event {i} differs in {', '.join(keys)}:\n  golden {json.dumps(a)}\n"
                       f"  now    {json.dumps(b)}")
            break
    else:
        if len(ev_a) != len(ev_b):
            out.append(f"event count: golden {len(ev_a)} != now {len(ev_b)}")
    return "\n".join(out)


def test_there_are_golden_traces_for_solo_and_multiplayer():
    assert FILES, "no golden traces; run scripts/regen_golden.py"
    assert {_case(f)[1] for f in FILES} == {1, 2, 3, 4}


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.stem)
def test_a_golden_game_replays_exactly(path):
    seed, players = _case(path)
    expected = json.loads(path.read_text(encoding="utf-8"))
    strategies = [s for s in expected["result"]["strategies"] if s != "tom"]
    actual = json.loads(play(seed, players, strategies).to_json())
    if actual != expected:
        pytest.fail(f"{path.name} no longer replays:\n{first_difference(expected, actual)}\n"
                    f"Hint: {HINT}", pytrace=False)


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.stem)
def test_a_golden_file_stays_small(path):
    assert path.stat().st_size < MAX_BYTES
