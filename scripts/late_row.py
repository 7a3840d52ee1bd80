"""A second weight row for the late game: does the evaluator close the gap to the search
where the frontier says the gap is made?

``scripts/frontier.py`` found that `expert` with its option decisions searched from game
turn 40 on (``search_expert:4:phases=main:turns=40-999``) wins about a third of two-player
games against ``search:16`` where `expert` alone wins 17%, while searching turns 1-19 buys
nothing.  A fast player cannot search, but it can switch rows: this script labels
positions of game turn ``--from`` on with the search's rollouts (``expert`` rows in every
seat, the labelling of ``bonfire-sim expert``), fits a row to them from `expert`'s (the
same CMA-ES fit, ``studies.expert.fit_row``), and plays ``LateRow``: `expert`'s row before
the turn, the fitted row from it, on the compiled evaluator (a plug-in: engine unchanged).

    # label and fit (66 s for 300 deals at 2 jobs); the same seed gives the same row
    nice -n 10 .venv/bin/python scripts/late_row.py fit --deals 300 --jobs 2
    # LateRow (or the control EarlyOnly) head to head against search:16, seat-rotated
    nice -n 10 .venv/bin/python scripts/late_row.py arm LateRow --deals 200 --jobs 2

The fitted row is written to ``runs/late-row/late.toml`` with its provenance (another file:
``LATE_ROW=path``).  Findings: ``docs/findings/2026-11-30-speed-strength-frontier.md``.
"""

from __future__ import annotations

import os
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np
from _arms import OneLineParser, compiled_choice, expose_scripts, guarded, play_arm

OUT = Path("runs/late-row")
MODULE = "late_row"
FROM_TURN = 40


def fit(deals: int, seed: int, jobs: int, first: int) -> int:
    """Label, fit and write the late row."""
    from bonfire_sim.config import check_seed
    from bonfire_sim.infra import fileio
    from bonfire_sim.studies import expert as X

    check_seed(seed)
    if first < 1:
        raise ValueError(f"--from must be a game turn of at least 1, got {first}")
    w = X.start_row("expert")
    # the labelling of `bonfire-sim expert` (salt 1), from game turn `first` on
    tasks = [(w, 2, seed, list(range(d, min(deals, d + 2))),
              np.array(X.LABEL_PHASES, np.int64), 5, 8, 1, first)
             for d in range(0, deals, 2)]
    t0 = time.perf_counter()
    with ProcessPoolExecutor(jobs) as pool:
        parts = []
        for i, part in enumerate(pool.map(_label, tasks)):
            parts.append(part)
            if (i + 1) % 5 == 0 or i + 1 == len(tasks):
                print(f"labelled {2 * (i + 1)}/{deals} deals, "
                      f"{time.perf_counter() - t0:.0f} s", flush=True)
    pos = X.Positions.concat([x for x in parts if len(x)])
    print(f"{len(pos)} positions from game turn {first} on")
    res = X.fit_row(pos, w, generations=60, sigma=0.15, seed=seed)
    for k, v in res.figures.items():
        print(f"{k}: {v:.4f}")
    head = [f"late row: expert's row fitted to search labels from game turn {first} on",
            f"python scripts/late_row.py fit --deals {deals} --seed {seed} --from {first}",
            *(f"{k} = {v:.4f}" for k, v in res.figures.items())]
    fileio.write_text(OUT / "late.toml", X.weights_text(res.row, head))
    print(f"wrote {OUT / 'late.toml'} ({time.perf_counter() - t0:.0f} s)")
    return 0


def _label(job: tuple[Any, ...]) -> Any:
    """Worker: ``studies.expert.label_deals`` on one chunk of deals."""
    from bonfire_sim.studies.expert import label_deals

    return label_deals(*job)


class LateRow:
    """`expert`'s row before game turn ``FROM_TURN``, the fitted late row from it, on the
    compiled evaluator (the built-in ``expert`` seat's dispatch)."""

    def __init__(self) -> None:
        from bonfire_sim.strategies.specs import parse_player
        from bonfire_sim.studies import expert as X

        self.early = X.start_row("expert")
        self.late = self._late_row()
        self.name = f"{MODULE}:{type(self).__name__}"
        self.sid = parse_player("expert").sid  # the built-in expert seat's dispatch

    def _late_row(self) -> np.ndarray:
        """The fitted row (``LATE_ROW`` or ``runs/late-row/late.toml``, written by
        ``fit``)."""
        from bonfire_sim.studies import expert as X

        return X.start_row(f"expert@{os.environ.get('LATE_ROW', OUT / 'late.toml')}")

    def choose(self, view: Any, moves: np.ndarray) -> int:
        from bonfire_sim.rules import layout as L

        row = self.late if int(view.state[L.G_TURN]) >= FROM_TURN else self.early
        return compiled_choice(view, moves, self.sid, row)


class EarlyOnly(LateRow):
    """The control: `expert`'s row throughout through the same plug-in path (must play
    the built-in `expert`'s games)."""

    def _late_row(self) -> np.ndarray:
        from bonfire_sim.studies import expert as X

        return X.start_row("expert")


def arm(name: str, against: str, deals: int, seed: int, jobs: int) -> int:
    """``name`` head to head, the workers finding this module on ``PYTHONPATH``."""
    expose_scripts()
    return play_arm(f"{MODULE}:{name}", against, deals, seed, jobs)


def main(argv: list[str] | None = None) -> int:
    ap = OneLineParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    f = sub.add_parser("fit", help="label late positions and fit the late row")
    f.add_argument("--deals", type=int, default=100)
    f.add_argument("--seed", type=int, default=4040)
    f.add_argument("--from", dest="first", type=int, default=FROM_TURN)
    f.add_argument("--jobs", type=int, default=2)
    a = sub.add_parser("arm", help="LateRow (or the control) head to head")
    a.add_argument("name", nargs="?", default="LateRow", choices=("LateRow", "EarlyOnly"))
    a.add_argument("--against", default="search:16")
    a.add_argument("--deals", type=int, default=200)
    a.add_argument("--seed", type=int, default=3640)
    a.add_argument("--jobs", type=int, default=2)
    args = ap.parse_args(argv)
    if args.deals < 2 or args.jobs < 1:
        ap.error("--deals must be at least 2 and --jobs at least 1")
    if args.cmd == "fit":
        return guarded(fit, args.deals, args.seed, args.jobs, args.first)
    return guarded(arm, args.name, args.against, args.deals, args.seed, args.jobs)


if __name__ == "__main__":
    sys.exit(main())
