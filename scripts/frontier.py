"""What does closeness to the search cost?  The cheapest lookahead players against
``search:16``: the speed-strength frontier behind issue 35's stated conflict.

Issue 35 asks for a default player that wins at least 30% of seat-rotated two-player games
against ``search:16`` and costs at most about 1.3-1.75x ``tuned`` a game (the speed bar: the
default mix at 20x Catanatron's games/s).  Every fast try (a static evaluator, 1x) stayed
at or below 17.5%; the search itself (100x and up) plays level.  Nobody had measured the
players in between: the search restricted to a few decisions of the game (the phase and
turn masks of ``search:N:phases=...:turns=A-B``, built in, engine unchanged), the
cheapest lookahead there is.  This script measures them in the order a reader needs:

    # the cost a game of every arm against tuned on the same deals, one process
    nice -n 10 .venv/bin/python scripts/frontier.py cost --deals 20
    # one arm head to head against search:16 (seat-rotated, clustered by deal)
    nice -n 10 .venv/bin/python scripts/frontier.py arm council4 --deals 200 --jobs 2

Findings: ``docs/findings/2026-11-30-speed-strength-frontier.md``.
"""

from __future__ import annotations

import sys
import time
from typing import Any

import numpy as np
from _arms import (
    against_tuned,
    compiled_choice,
    expose_scripts,
    guarded,
    parse,
    parser,
    play_arm,
)

# label -> seat spec; each searches only the named phases (and game turns), tuned elsewhere
ARMS = {
    "tuned": "tuned",
    "expert": "expert",
    "council4": "search:4:phases=council",
    "council16": "search:16:phases=council",
    "few4": "search:4:phases=council+ship+swap",
    "late4": "search:4:phases=main:turns=40-999",
    "early4": "search:4:phases=main:turns=1-19",
    "main4": "search:4:phases=main",
    "end60": "search:4:turns=60-999",
    "end70": "search:4:turns=70-999",
    "xend60": "search_expert:4:turns=60-999",
    "xend70": "search_expert:4:turns=70-999",
    "xlate4": "search_expert:4:phases=main:turns=40-999",
    "xmain30": "search_expert:4:phases=main:turns=30-999",
    "xmain50": "search_expert:4:phases=main:turns=50-999",
    "xall40": "search_expert:4:turns=40-999",
    "search4": "search:4",
    # plug-ins (scripts/ on PYTHONPATH): xlate4 with fewer candidates and rollouts
    "narrow4": "frontier:Narrow4",
    "narrow3": "frontier:Narrow3",
    "narrow2": "frontier:Narrow2",
}


class Narrow:
    """``xlate4`` (``search_expert:4:phases=main:turns=40-999``) racing only ``width`` of
    `expert`'s candidates with ``budget`` rollouts a decision: a plug-in (the Python loop,
    so its wall time is not its cost; its rollouts are), asked through the compiled
    dispatch the built-in search seat uses.  ``Narrow4`` is the control: it must play the
    built-in spec's games."""

    spec = "search_expert:4:phases=main:turns=40-999"
    width, budget = 4, 4

    def __init__(self) -> None:
        from bonfire_sim.strategies import SEARCH_ID
        from bonfire_sim.strategies import search as SE
        from bonfire_sim.strategies.specs import parse_player

        self.row = np.array(parse_player(self.spec).weight_row(), np.float64)
        self.row[SE.R_WIDTH], self.row[SE.R_BUDGET] = self.width, self.budget
        self.sid = SEARCH_ID
        self.name = f"frontier:{type(self).__name__}"

    def choose(self, view: Any, moves: np.ndarray) -> int:
        return compiled_choice(view, moves, self.sid, self.row)


class Narrow4(Narrow):
    width, budget = 4, 4


class Narrow3(Narrow):
    width, budget = 3, 3


class Narrow2(Narrow):
    width, budget = 2, 2


def cost(deals: int, seed: int) -> int:
    """Every arm's cost a game against ``tuned`` on the same deals, in this one process
    (the ratios from one run), after a warm-up."""
    against_tuned("search:4", 1, seed + 1)  # warm-up: load the compiled kernels
    t0 = time.perf_counter()
    for _ in range(5):
        against_tuned("tuned", deals, seed)
    base = (time.perf_counter() - t0) / (5 * 2 * deals)
    print(f"tuned vs tuned: {1000 * base:.2f} ms a game ({2 * deals} games x 5)")
    for label, spec in ARMS.items():
        if spec == "tuned" or spec.startswith("frontier:"):
            continue  # a plug-in's wall time is the Python loop's, not its cost
        _, t = against_tuned(spec, deals, seed)
        ms = 1000 * t / (2 * deals)
        print(f"{label} ({spec}) + tuned: {ms:.1f} ms a game, x{ms / (1000 * base):.1f} tuned")
    return 0


def main(argv: list[str] | None = None) -> int:
    ap, sub = parser(__doc__, ARMS, against=True)
    a = sub.choices["arm"]
    a.set_defaults(seed=3640)  # the frontier's deals (the width and opponent studies: 3636)
    a.add_argument("--jobs", type=int, default=1)
    a.add_argument("--players", type=int, default=2, choices=(2, 3, 4))
    args = parse(ap, argv)
    if args.cmd == "cost":
        return guarded(cost, args.deals, args.seed)
    if args.jobs < 1:
        ap.error("--jobs must be at least 1")
    expose_scripts()  # the plug-in arms are this module's classes
    return guarded(play_arm, ARMS[args.name], args.against, args.deals, args.seed, args.jobs,
                   args.players)


if __name__ == "__main__":
    sys.exit(main())
