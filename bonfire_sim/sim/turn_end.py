"""The automatic turns after a solo move, one by one, for the game trace.

When the human's turn ends, ``moves.finish_turn`` runs every automatic turn that follows
in one call: Tom's turns (several in a row once the human has passed or is out) and the
human's own automatic end (out for good, a free pass in the countdown).  The trace needs
them one at a time and in turn order: one line per Tom card, the human's pass after Tom's
turn before it, the countdown banner after the Tom turn that began it (issue 39).

``solo_turn_end`` replays that loop step by step with the engine's own rule functions
(``tom_turn``, ``begin_turn``, ``hand_on_tile``, ...) on a copy of the state, and checks
that it ends on exactly the state the engine reached: if ever the loop below and
``finish_turn`` part ways, it returns None and the caller records the turns together, as
before, rather than a sequence the engine did not play.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from bonfire_sim.rules import layout as L
from bonfire_sim.rules.moves import apply_move, begin_turn
from bonfire_sim.rules.tom import tom_turn
from bonfire_sim.rules.turns import do_pass, end_game, hand_on_tile, pass_points
from bonfire_sim.sim import trace

HUMAN = 0


def board_at_turn_end(s0: np.ndarray, mv: np.ndarray, p: np.ndarray) -> np.ndarray:
    """The state right after move ``mv`` ended the mover's turn, before anyone else moved.

    ``finish_turn`` stops at once on a game marked over (after counting the mover's turn),
    so replaying the move on a copy marked over leaves the board as the mover left it:
    no next seat begun, no Tom card played, no automatic pass scored.
    """
    s = s0.copy()
    s[L.G_OVER] = 1
    apply_move(s, p, mv)
    return s


def solo_turn_end(s0: np.ndarray, mv: np.ndarray, p: np.ndarray, s1: np.ndarray,
                  ) -> list[dict[str, Any]] | None:
    """The events of the automatic turns between the human's move ``mv`` (from ``s0``)
    and the engine's next state ``s1``, in turn order: ``tom`` (one per card), ``out`` and
    ``auto_pass`` of the human, ``countdown`` when a Tom turn began it.  None when the
    step-by-step replay does not reach ``s1`` exactly."""
    s = board_at_turn_end(s0, mv, p)
    s[L.G_OVER] = s0[L.G_OVER]
    events: list[dict[str, Any]] = []
    seat = int(s[L.G_CUR])
    nseats = int(s[L.G_NSEATS])
    for _ in range(10_000):  # the engine's own loop ends far sooner; never spin
        if s[L.G_OVER] == 1:
            break
        if hand_on_tile(s, seat):
            end_game(s, L.END_COUNTDOWN)
            break
        seat = (seat + 1) % nseats
        if seat == 0:
            s[L.G_ROUND] += 1
        s[L.G_TURN] += 1
        s[L.G_CUR] = seat
        pb = L.player_base(seat)
        before = s.copy()
        if seat == trace.TOM_SEAT:
            tom_turn(s, p)
            events += _tom_events(before, s, p)
            continue
        if s[pb + L.P_PASSED] == 1:
            continue
        if s[pb + L.P_OUT] == 0 and begin_turn(s, p):
            break
        s[pb + L.P_OUT] = 1
        if pass_points(s, seat) > 0:
            do_pass(s, seat)
        events += _human_events(before, s, seat)
    else:
        return None
    return events if np.array_equal(s, s1) else None


def _tom_events(before: np.ndarray, after: np.ndarray, p: np.ndarray,
                ) -> list[dict[str, Any]]:
    """One Tom turn, and the countdown if his novice began it."""
    facts = trace.tom_facts(before, after, p)
    if facts is None:  # a turn that did not count (cannot happen: every tom_turn counts)
        return []
    out = [{"kind": "tom", "turn": int(after[L.G_TURN]), "rnd": int(after[L.G_ROUND]),
            "seat": trace.TOM_SEAT, **facts}]
    if after[L.G_CD_ACTIVE] == 1 and before[L.G_CD_ACTIVE] == 0:
        turn = int(after[L.G_TRIGGER_TURN])
        out.append({"kind": "countdown", "turn": turn, "rnd": int(after[L.G_ROUND]),
                    "seat": trace.TOM_SEAT, "council_novices": int(after[L.G_COUNCIL_N])})
    return out


def _human_events(before: np.ndarray, after: np.ndarray, seat: int) -> list[dict[str, Any]]:
    """The human who can do nothing: out for good (once), and a free pass if there is one."""
    pb = L.player_base(seat)
    turn, rnd = int(after[L.G_TURN]), int(after[L.G_ROUND])
    out: list[dict[str, Any]] = []
    if not before[pb + L.P_OUT]:
        out.append({"kind": "out", "turn": turn, "rnd": rnd, "seat": seat})
    if after[pb + L.P_PASSED] and not before[pb + L.P_PASSED]:
        out.append({"kind": "auto_pass", "turn": int(after[pb + L.P_PASS_TURN]), "rnd": rnd,
                    "seat": seat, "points": trace.pass_points(after, seat)
                    - trace.pass_points(before, seat)})
    return out
