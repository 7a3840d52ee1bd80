"""What the search experiments (``search_width.py``, ``search_opponent.py``) share: their
command line, whose bad input is one ``Error:`` line and exit 2 as in the ``bonfire-sim``
commands (not argparse's usage block; subcommands inherit the class), and the head-to-head
of one plug-in arm."""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence
from typing import Any, NoReturn


class OneLineParser(argparse.ArgumentParser):
    """``argparse.ArgumentParser`` whose errors are one line on stderr, exit 2."""

    def error(self, message: str) -> NoReturn:
        sys.stderr.write(f"Error: {message} (see {self.prog} --help)\n")
        raise SystemExit(2)


def parser(doc: str, arms: Sequence[str], against: bool) -> tuple[OneLineParser, Any]:
    """The experiment's parser with ``cost`` and ``arm NAME`` (``--against`` where the
    script lets an arm meet another player than ``search:16``); returns it and its
    subparsers, for a script's own subcommands."""
    ap = OneLineParser(description=doc.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    c = sub.add_parser("cost", help="the control and the cost a game against tuned")
    c.add_argument("--deals", type=int, default=20)
    c.add_argument("--seed", type=int, default=3636)
    a = sub.add_parser("arm", help="one arm head to head (against search:16 by default)")
    a.add_argument("name", choices=sorted(arms))
    if against:
        a.add_argument("--against", default="search:16")
    a.add_argument("--deals", type=int, default=200)
    a.add_argument("--seed", type=int, default=3636)
    return ap, sub


def parse(ap: OneLineParser, argv: list[str] | None) -> argparse.Namespace:
    """The arguments, ``--deals`` checked (at least one deal)."""
    args = ap.parse_args(argv)
    if args.deals < 1:
        ap.error("--deals must be at least 1")
    return args


def play_arm(spec: str, against: str, deals: int, seed: int) -> int:
    """``spec`` head to head against ``against`` at 2 players on ``deals`` deals in both
    seatings (one job), printed with its wall time."""
    from bonfire_sim.studies.headtohead import head_to_head

    t0 = time.perf_counter()
    r = head_to_head(spec, against, 2, deals, seed, jobs=1)
    print(r.line())
    print(f"wall {time.perf_counter() - t0:.0f} s, 1 job")
    return 0
