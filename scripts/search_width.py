"""Does a wider search beat ``search:16``?  The search with more candidates, as plug-ins.

The built-in search races the ``tuned`` evaluator's top ``width`` = 4 candidates
(``strategies/search.py``); no budget can find a move outside them.  This script plays the
same compiled search with another width without touching the engine (a change under
``rules``/``strategies``/``sim`` would change the engine hash and orphan every stored run):
each class below is a plug-in player (``strategies/plugin.py``) whose row is
``search_row(tuned's row, budget, width)``, asked through the compiled dispatch the
built-in ``search`` seat uses (``sim.loop.choose`` with ``SEARCH_ID``).
``Width4B16`` is the control: it must play the built-in ``search:16``'s games exactly
(``tests/test_search_width_script.py``).  Findings:
``docs/findings/2026-11-30-search-width.md``.

    # the control and the cost a game, every width against tuned on the same deals
    nice -n 10 .venv/bin/python scripts/search_width.py cost --deals 20
    # one arm head to head against the built-in search:16 (seat-rotated, jobs 1)
    nice -n 10 .venv/bin/python scripts/search_width.py arm Width8B16 --deals 200

As a seat spec elsewhere: ``PYTHONPATH=scripts bonfire-sim ... search_width:Width8B16``.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import numpy as np

from bonfire_sim.sim.loop import choose as compiled_choose
from bonfire_sim.strategies import SEARCH_ID, weights_for
from bonfire_sim.strategies import search as SE
from bonfire_sim.strategies.specs import rollout_policy

MODULE = "search_width"


class WidthSearch:
    """The built-in search (sequential halving, ``tuned`` rollouts) with ``width``
    candidates and ``budget`` rollouts a decision."""

    width = SE.DEFAULT_WIDTH
    budget = 16

    def __init__(self) -> None:
        # the same policy row the built-in search:N seat gets (specs._search)
        self.row = SE.search_row(weights_for(rollout_policy("search")), budget=self.budget,
                                 width=self.width)
        self.name = f"{MODULE}:{type(self).__name__}"

    def choose(self, view: Any, moves: np.ndarray) -> int:
        from _arms import compiled_choice

        return compiled_choice(view, moves, SEARCH_ID, self.row)


class Width4B16(WidthSearch):
    """The control: the built-in search:16 as a plug-in."""

    width, budget = 4, 16


class Width6B16(WidthSearch):
    width, budget = 6, 16


class Width8B16(WidthSearch):
    width, budget = 8, 16


class Width8B32(WidthSearch):
    width, budget = 8, 32


ARMS = {cls.__name__: cls for cls in (Width4B16, Width6B16, Width8B16, Width8B32)}


def rollouts(width: int, budget: int) -> int:
    """Rollouts a decision with ``width`` candidates (search.choose's halving schedule)."""
    rounds = int(SE.halving_rounds(width, SE.MODE_HALVING))
    per_round = max(1, budget // rounds)
    m, total = width, 0
    for _ in range(rounds):
        total += max(1, per_round // m) * m
        m = (m + 1) // 2
    return total


def cost(deals: int, seed: int) -> int:
    """The control (Width4B16 against built-in search:16, game by game) and the cost a
    game of every arm against tuned, on the same deals, in this one process."""
    from _arms import against_tuned, cost_table

    against_tuned(f"{MODULE}:Width4B16", 1, seed + 1)  # warm-up
    return cost_table([(f"{name} (width {cls.width}, budget {cls.budget}, "
                        f"{rollouts(cls.width, cls.budget)} rollouts)", f"{MODULE}:{name}")
                       for name, cls in ARMS.items()], f"{MODULE}:Width4B16", deals, seed)


def ranked(s: np.ndarray, p: np.ndarray, moves: np.ndarray, k: int) -> list[int]:
    """``tuned``'s first ``k`` moves in the search's candidate order (``search.candidates``:
    the choice, passing, then the next choices), ranked on ``s`` itself where the search
    ranks on its canonical copy; ``outside`` checks the two agree on the control."""
    from bonfire_sim.rules import layout as L
    from bonfire_sim.strategies import STRATEGY_IDS

    tid, row = STRATEGY_IDS[rollout_policy("search")], weights_for(rollout_policy("search"))
    n = moves.shape[0]
    left = list(range(n))
    pass_i = next((i for i in range(n) if moves[i, 0] == L.M_PASS), -1)
    out: list[int] = []
    while left and len(out) < k:
        sub = np.ascontiguousarray(moves[left])
        i = left[int(compiled_choose(s, p, sub, len(left), tid, row))]
        if not out or i != pass_i:
            out.append(i)
            if len(out) == 1 and pass_i >= 0 and i != pass_i:
                out.append(pass_i)
        left.remove(i)
    return out


def outside(name: str, deals: int, seed: int) -> int:
    """Where the arm's choices rank in tuned's order, along games it plays against the
    built-in search:16 (both seatings): how often it plays a move the width-4 control
    could not have played (rank 5 or later)."""
    from bonfire_sim.rules import layout as L
    from bonfire_sim.sim.pyloop import play_mixed
    from bonfire_sim.studies.ladder import deal_seed

    arm_p, control = ARMS[name](), Width4B16()
    ranks: list[int] = []
    control_ranks: list[int] = []

    class Recorder:
        def choose(self, view: Any, moves: np.ndarray) -> int:
            i = arm_p.choose(view, moves)
            s = np.array(view.state, dtype=np.int64, copy=True)
            if (SE.SEARCH_PHASES >> int(s[L.G_PHASE])) & 1:
                mv = np.array(moves, dtype=np.int64, copy=True)
                order = ranked(s, view.params, mv, mv.shape[0])
                ranks.append(order.index(i))
                control_ranks.append(order.index(control.choose(view, moves)))
            return i

    for d in range(deals):
        for lineup in ((Recorder(), "search:16"), ("search:16", Recorder())):
            play_mixed(deal_seed(seed, d), 2, list(lineup))
    r, c = np.array(ranks), np.array(control_ranks)
    def shares(x: np.ndarray) -> str:
        return (f"tuned's first {100 * np.mean(x == 0):.1f}%, ranks 2-4 "
                f"{100 * np.mean((x >= 1) & (x <= 3)):.1f}%, rank 5+ {100 * np.mean(x >= 4):.1f}%")

    print(f"{name} against search:16, {2 * deals} games, {len(r)} searched decisions with "
          f"2+ moves: its choice is {shares(r)}; the control's at the same decisions: "
          f"{shares(c)} (its rank 5+ is the ranking's error: on the state, not the "
          "search's canonical copy)")
    return 0


def main(argv: list[str] | None = None) -> int:
    # the plug-ins are loaded as module ``search_width`` (also when run as a script)
    here = str(Path(__file__).resolve().parent)
    if here not in sys.path:
        sys.path.insert(0, here)
    from _arms import parse, parser

    ap, sub = parser(__doc__, ARMS, against=False)
    o = sub.add_parser("outside", help="how often the arm plays outside tuned's top 4")
    o.add_argument("name", choices=sorted(ARMS))
    o.add_argument("--deals", type=int, default=10)
    o.add_argument("--seed", type=int, default=3636)
    args = parse(ap, argv)
    from _arms import guarded, play_arm

    if args.cmd == "cost":
        return guarded(cost, args.deals, args.seed)
    if args.cmd == "outside":
        return guarded(outside, args.name, args.deals, args.seed)
    return guarded(play_arm, f"{MODULE}:{args.name}", "search:16", args.deals, args.seed)


if __name__ == "__main__":
    sys.exit(main())
