#!/usr/bin/env python
"""Regenerate the golden game traces in ``tests/golden`` (``tests/test_golden.py`` replays them).

Run it after an INTENDED rule or trace change, review ``git diff tests/golden``, and commit
the new files with the change that caused them:

    .venv/bin/python scripts/regen_golden.py           # rewrite every trace
    .venv/bin/python scripts/regen_golden.py --check   # only report which ones differ

Each file is ``seed<S>_p<N>.json``: the result and every event of ``bonfire_sim.play(S, N,
strategies)``, one event per line so a diff shows the first changed move.  ``strategies``
are the case's own (below): ``tests/test_golden.py`` replays each file with the strategies
stored in it, so the script must play those, not whatever the default is today.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

GOLDEN = Path(__file__).resolve().parents[1] / "tests" / "golden"
# (seed, players, strategies): random players first, whose many move kinds cover the rules:
# two solo games (one with a countdown, an automatic pass and Tom playing alone), and for
# 2-4 players seed 1 plus a seed chosen for rule coverage (most move kinds).  Random players
# ignore every price, so the bots' own play (payment pricing, issue 39) is guarded by the
# default players (None: the solo default, the default mix) at seed 2.
RANDOM = "random"
CASES: tuple[tuple[int, int, str | None], ...] = (
    (1, 1, RANDOM), (177, 1, RANDOM), (1, 2, RANDOM), (28, 2, RANDOM), (1, 3, RANDOM),
    (283, 3, RANDOM), (1, 4, RANDOM), (299, 4, RANDOM), (2, 1, None), (2, 2, None),
    (2, 4, None))
MAX_BYTES = 300_000


def golden_path(seed: int, players: int) -> Path:
    return GOLDEN / f"seed{seed}_p{players}.json"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="compare only, write nothing")
    args = parser.parse_args(argv)
    sys.path.insert(0, str(GOLDEN.parents[1]))
    from bonfire_sim.sim.play import play

    GOLDEN.mkdir(parents=True, exist_ok=True)
    stale = 0
    for seed, players, strategies in CASES:
        path = golden_path(seed, players)
        text = play(seed, players, strategies).to_json()
        if len(text) > MAX_BYTES:
            raise SystemExit(f"{path.name}: {len(text)} bytes > {MAX_BYTES}; pick another case")
        old = json.loads(path.read_text(encoding="utf-8")) if path.exists() else None
        same = old == json.loads(text)
        stale += not same
        if not args.check and not same:
            path.write_text(text, encoding="utf-8")
        state = "unchanged" if same else ("differs" if args.check else "written")
        print(f"{path.relative_to(GOLDEN.parents[1])}: {len(text):>7} bytes  {state}")
    return 1 if args.check and stale else 0


if __name__ == "__main__":
    sys.exit(main())
