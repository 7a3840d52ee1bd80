"""What the search experiments (``search_width.py``, ``search_opponent.py``) share: their
command line, whose bad input is one ``Error:`` line and exit 2 as in the ``bonfire-sim``
commands (not argparse's usage block; subcommands inherit the class), and the head-to-head
of one plug-in arm."""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable, Sequence
from typing import Any, NoReturn

from bonfire_sim.errors import BonfireError


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


def guarded(command: Callable[..., int], *args: Any) -> int:
    """``command(*args)``, a bad value the package refuses (a seed out of range, an unknown
    player) as one ``Error:`` line and exit 2, as the ``bonfire-sim`` commands answer it."""
    try:
        return command(*args)
    except (BonfireError, ValueError) as error:
        sys.stderr.write(f"Error: {error}\n")
        return 2


def compiled_choice(view: Any, moves: Any, sid: int, row: Any) -> int:
    """A plug-in's ``choose`` through the compiled dispatch of built-in seat ``sid`` with
    weight row ``row`` (the path a built-in seat takes, so a control replays its games).
    The view's arrays are read-only copies; the dispatch was compiled (and cached) for
    writable C arrays, so it gets writable copies (no new compile)."""
    import numpy as np

    from bonfire_sim.sim.loop import choose

    s = np.array(view.state, dtype=np.int64, copy=True)
    mv = np.array(moves, dtype=np.int64, copy=True)
    return int(choose(s, view.params, mv, mv.shape[0], sid, row))


def expose_scripts() -> None:
    """Let this process and its workers import the plug-ins of ``scripts/`` by spec
    (``module:Class``): the folder on ``sys.path`` and on the inherited ``PYTHONPATH``."""
    import os
    from pathlib import Path

    here = str(Path(__file__).resolve().parent)
    if here not in sys.path:
        sys.path.insert(0, here)
    paths = os.environ.get("PYTHONPATH", "").split(os.pathsep)
    if here not in paths:
        os.environ["PYTHONPATH"] = os.pathsep.join([here, *[x for x in paths if x]])


def play_arm(spec: str, against: str, deals: int, seed: int, jobs: int = 1,
             players: int = 2) -> int:
    """``spec`` head to head against ``against`` (one seat of ``players`` against the
    rest) on ``deals`` deals in every seating, printed with its wall time."""
    from bonfire_sim.studies.headtohead import head_to_head

    t0 = time.perf_counter()
    r = head_to_head(spec, against, players, deals, seed, jobs=jobs)
    print(r.line())
    print(f"wall {time.perf_counter() - t0:.0f} s, {jobs} job(s)")
    return 0


def against_tuned(spec: str, deals: int, seed: int) -> tuple[list[Any], float]:
    """``spec`` against ``tuned`` on ``deals`` deals in both seatings; results and seconds."""
    from bonfire_sim.studies.ladder import play_schedule

    plan = [(d, (spec, "tuned") if k == 0 else ("tuned", spec))
            for d in range(deals) for k in range(2)]
    t0 = time.perf_counter()
    out = play_schedule([spec, "tuned"], 2, seed, plan)
    return out, time.perf_counter() - t0


def cost_table(arms: Sequence[tuple[str, str]], control: str, deals: int, seed: int) -> int:
    """The ``control`` arm against the built-in ``search:16`` game by game, and the cost a
    game of every arm (``(label, spec)``) against ``tuned`` on the same deals, in this one
    process (ratios from one run); exit 1 if the control departs from ``search:16``."""
    against_tuned("search:16", 1, seed + 1)  # warm-up: load the compiled kernels
    t0 = time.perf_counter()
    for _ in range(5):
        against_tuned("tuned", deals, seed)
    base = (time.perf_counter() - t0) / (5 * 2 * deals)
    ref, ref_t = against_tuned("search:16", deals, seed)
    rows = [("search:16 (built-in)", ref_t)]
    same = True
    for label, spec in arms:
        res, t = against_tuned(spec, deals, seed)
        rows.append((label, t))
        if spec == control:
            diff = [(r.deal, r.strategies, r.scores, q.scores)
                    for r, q in zip(res, ref, strict=True) if r.scores != q.scores]
            same = not diff
            print(f"control: {spec} vs built-in search:16, {len(res)} games: "
                  + ("identical final scores in every game" if same else f"DIFFER: {diff}"))
    games = 2 * deals
    print(f"tuned vs tuned: {1000 * base:.1f} ms a game")
    for label, t in rows:
        ms = 1000 * t / games
        print(f"{label} + tuned: {ms:.0f} ms a game, x{ms / (1000 * base):.0f} tuned, "
              f"x{t / ref_t:.2f} search:16")
    return 0 if same else 1
