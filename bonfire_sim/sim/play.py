"""Play one seeded game move by move and keep its trace: ``play(seed, players) -> GameRecord``.

The compiled ``loop.play_out`` is the fast path for batches; this Python loop is the slow,
observable one: ask the seat's strategy (the same compiled ``loop.choose``), record what
the move paid, gained and scored, apply it, repeat.  The record is a pure function of
(seed, players, strategies, params), jitted or not (``NUMBA_DISABLE_JIT=1``), so traces
can be checked into the repo and diffed (``tests/golden``).

Events (JSON-able dicts, in order; every one has ``i``, ``kind``, ``turn``, ``round``,
``seat``):

* ``move``: a decision of a human seat: ``phase``, ``move`` (the row [kind, a, b, c, d]),
  ``move_text``, ``paid`` / ``gained`` (the seat's stock decreases / increases by name),
  ``points`` (its in-game score change) and ``facts`` (what the move did, by name; see
  ``trace.MOVE_FACTS``).  Payment and gains are split where they could cancel (see
  ``trace.stock_after_payment``); for option I the discard to the tile limit is ``paid``.
  The payer's follow-up choices (how to pay, which tiles to keep) belong to the move they
  pay for: its event is recorded once they are made, with their rows in ``payment``.
* ``tom``: Tom's automatic turn(s) after a human move in solo (``trace.tom_facts``).
* ``countdown``: the council reached the trigger count; ``out``: a seat could do nothing
  and takes no more turns; ``auto_pass``: an out seat passed in the countdown for points.
* ``snapshot``: the board after an ignite or a bonus action (council chain complete), as
  the mover left it: it follows the mover's last line, before the next seat or Tom moves.
* ``end``: the end reason, a final snapshot and the scoring table.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

import numpy as np

from bonfire_sim.config import check_seed
from bonfire_sim.engine import describe_move
from bonfire_sim.errors import ConfigError
from bonfire_sim.lineup import default_seats, is_search_name
from bonfire_sim.rules import layout as L
from bonfire_sim.rules import tables as T
from bonfire_sim.rules.moves import apply_move, legal_moves
from bonfire_sim.rules.scoring import LINE_NAMES, NLINES, final_result
from bonfire_sim.rules.setup import new_game
from bonfire_sim.rules.tasks import n_bonfires
from bonfire_sim.sim import trace, warm
from bonfire_sim.sim.loop import choose, new_buffer, no_weights
from bonfire_sim.sim.record import GameRecord
from bonfire_sim.sim.turn_end import board_at_turn_end, solo_turn_end
from bonfire_sim.strategies import STRATEGY_IDS, TOM, strategy_id
from bonfire_sim.strategies.specs import parse_player

__all__ = ["GameRecord", "default_strategies", "is_search_spec", "play", "seat_strategies",
           "uses_search"]

# Phases inside an ignite / bonus-action chain: the snapshot waits until the chain is done.
COUNCIL_CHAIN = frozenset({
    L.PH_COUNCIL, L.PH_C_PATH, L.PH_C_GUARD, L.PH_C_FIRE, L.PH_C_SPEC, L.PH_C_MOVE,
    L.PH_C_SHIP, L.PH_C_FATE, L.PH_SHIP_ACTION, L.PH_PROCESSION, L.PH_PAY,
})


# ---- validation ------------------------------------------------------------------------
def _check_int(name: str, value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int | np.integer):
        raise ConfigError(f"{name} must be an integer, got {value!r}")
    return int(value)


def default_strategies(players: int) -> list[str]:
    """The default seat strategies (``lineup.default_seats``): the default mix (2-4
    players), the recommended solo player (1)."""
    return list(default_seats(players))


def seat_strategies(players: int, strategies: Sequence[str] | str | None) -> tuple[str, ...]:
    """One strategy name per human seat: a single name applies to every seat.

    ``None``: the strongest fast players, i.e. ``strategies.DEFAULT_MIX`` cycled over the
    seats, or ``strategies.RECOMMENDED_SOLO`` against Tom.
    """
    if strategies is None:
        names: list[str] = default_strategies(players)
    elif isinstance(strategies, str):
        names = [x.strip() for x in strategies.split(",")]
    else:
        names = [str(x).strip() for x in strategies]
    if len(names) == 1:
        names = names * players
    if len(names) != players:
        raise ConfigError(
            f"give 1 strategy or 1 per human seat ({players}), got {len(names)}: "
            f"{', '.join(names)}"
        )
    for name in names:
        if name == TOM:
            raise ConfigError("'tom' is the solo automaton, not a strategy for a seat")
        if is_search_spec(name):
            parse_player(name)  # the budget's range, in one line
            continue
        try:
            strategy_id(name)
        except ValueError as error:
            raise ConfigError(f"{error} (or a search budget such as search:16)") from None
    return tuple(names)


def is_search_spec(name: str) -> bool:
    """Whether ``name`` is the search player with a budget (``search:16``, ``search_ref:64``,
    ``search_expert:8``): the traced game plays it with its own weight row, as ``run``
    does, so a run's search game replays identically.  Checked by its text alone (a name
    read from a run's manifest imports nothing; ``parse_player`` checks the budget)."""
    return is_search_name(name) and ":" in name


def uses_search(players: int, strategies: Sequence[str] | str | None) -> bool:
    """Whether any human seat of such a game is a search player (the recommended solo player
    is one): such a game is played compiled, never as plain Python (minutes, not seconds)."""
    names = (default_strategies(players) if strategies is None else
             [x.strip() for x in strategies.split(",")] if isinstance(strategies, str) else
             [str(x) for x in strategies])
    return any(is_search_name(n) for n in names)


def _params(params: np.ndarray | Mapping[str, Any] | None,
            variants: Mapping[str, str] | None = None) -> np.ndarray:
    if params is None and not variants:
        return T.DEFAULT_PARAMS
    if params is None or isinstance(params, Mapping):
        try:
            return T.build_params(params, variants)
        except (KeyError, ValueError, TypeError) as error:
            raise ConfigError(f"bad parameter override or variant: {error}") from None
    if variants:
        raise ConfigError("give variants to tables.build_params when passing a parameter "
                          "vector, or pass overrides as a mapping")
    p = np.asarray(params)
    if p.shape != (T.PARAM_SIZE,) or p.dtype != np.int64:
        raise ConfigError(f"params must be an int64 vector of {T.PARAM_SIZE} values")
    return p


# ---- recording -------------------------------------------------------------------------
class _Recorder:
    """Collects the events of one game (used only inside ``play``)."""

    def __init__(self, p: np.ndarray) -> None:
        self.p = p
        self.events: list[dict] = []
        self.chain: str | None = None  # "ignite" / "bonus" while a council chain is open
        # a paying move waiting for the payer's choices: (state before it, its row, choices)
        self.unpaid: tuple[np.ndarray, np.ndarray, list[list[int]]] | None = None
        # a countdown the mover began: (s0, s1, seat), announced when the turn is over
        self.countdown: tuple[np.ndarray, np.ndarray, int] | None = None

    def add(self, kind: str, turn: int, rnd: int, seat: int, **fields: Any) -> None:
        self.events.append({"i": len(self.events), "kind": kind, "turn": turn,
                            "round": rnd, "seat": seat, **fields})

    def after_move(self, s0: np.ndarray, s1: np.ndarray, mv: np.ndarray) -> None:
        """Record the decision that turned s0 into s1 (a payment choice joins its move)."""
        waiting = int(s1[L.G_PHASE]) == L.PH_PAY and not s1[L.G_OVER]
        if int(mv[0]) in (L.M_PAY, L.M_DISCARD) and self.unpaid is not None:
            first, move, rows = self.unpaid
            rows.append([int(x) for x in mv])
            if not waiting:
                self.unpaid = None
                self._record(first, s1, move, rows, (s0, mv))
            return
        if waiting:
            self.unpaid = (s0, mv.copy(), [])
            return
        self._record(s0, s1, mv, [], (s0, mv))

    def _record(self, s0: np.ndarray, s1: np.ndarray, mv: np.ndarray,
                payment: list[list[int]], last: tuple[np.ndarray, np.ndarray]) -> None:
        """Record move mv (s0 -> s1, its payment choices made) and what came with it;
        ``last``: the final decision and the state before it (to replay the turn's end)."""
        seat, turn, rnd = int(s0[L.G_CUR]), int(s0[L.G_TURN]), int(s0[L.G_ROUND])
        kind = int(mv[0])
        before, after = trace.stock(s0, seat), trace.stock(s1, seat)
        mid = trace.stock_after_payment(s0, s1, self.p, mv, seat)
        if mid is None:
            paid, gained = trace.stock_diff(before, after)
        else:
            paid, gained = trace.split_diff(before, mid, after)
        extra = {"payment": payment} if payment else {}
        self.add("move", turn, rnd, seat, phase=L.PHASE_NAMES[int(s0[L.G_PHASE])],
                 move=[int(x) for x in mv], move_text=describe_move(mv), paid=paid,
                 gained=gained, points=self._points(s0, s1, seat, kind),
                 facts=trace.move_facts(s0, s1, self.p, mv, seat), **extra)
        triggered = s1[L.G_CD_ACTIVE] == 1 and s0[L.G_CD_ACTIVE] == 0
        by_mover = triggered and s1[L.G_TRIGGER_TURN] == s0[L.G_TURN]
        if by_mover:  # announced once the mover's turn is over, not inside its narration
            self.countdown = (s0, s1, seat)
        if kind in (L.M_IGNITE, L.M_BONUS):
            self.chain = "ignite" if kind == L.M_IGNITE else "bonus"
        turn_over = s1[L.G_OVER] == 1 or s1[L.G_TURN] != s0[L.G_TURN]  # solo: Tom moved
        if self.chain and (turn_over or int(s1[L.G_PHASE]) not in COUNCIL_CHAIN):
            # The snapshot belongs to the mover's turn: before the next seat's or Tom's
            # lines, and showing the board before they move.
            board = board_at_turn_end(*last, self.p) if turn_over else s1
            self.add("snapshot", turn, rnd, seat, after=self.chain,
                     board=trace.board_snapshot(board))
            self.chain = None
        if self.countdown is not None and turn_over:
            self._countdown(*self.countdown)
            self.countdown = None
        tom = trace.tom_facts(s0, s1, self.p) if s0[L.G_SOLO] == 1 else None
        steps = solo_turn_end(*last, self.p, s1) if tom is not None else None
        if steps is not None:  # Tom's turns one by one, in turn order with the human's
            for ev in steps:
                self.add(**ev)
            return
        outs, passes = _dropouts(s0, s1, seat, kind)
        for ev in outs:
            self.add(**ev)
        if tom is not None:
            self.add("tom", turn + 1, rnd, trace.TOM_SEAT, **tom)
        if triggered and not by_mover:
            self._countdown(s0, s1, trace.TOM_SEAT)
        for ev in passes:
            self.add(**ev)

    @staticmethod
    def _points(s0: np.ndarray, s1: np.ndarray, seat: int, kind: int) -> int:
        """The mover's score change, without an automatic pass later in the same step."""
        gain = trace.score(s1, seat) - trace.score(s0, seat)
        if kind != L.M_PASS:
            gain -= trace.pass_points(s1, seat) - trace.pass_points(s0, seat)
        return gain

    def _countdown(self, s0: np.ndarray, s1: np.ndarray, seat: int) -> None:
        turn = int(s1[L.G_TRIGGER_TURN])
        self.add("countdown", turn, _round_at(s0, turn), seat,
                 council_novices=int(s1[L.G_COUNCIL_N]))


def play(
    seed: int,
    players: int,
    strategies: Sequence[str] | str | None = None,
    params: np.ndarray | Mapping[str, Any] | None = None,
    variants: Mapping[str, str] | None = None,
) -> GameRecord:
    """Play one game of ``players`` (1 = solo against Tom) from ``seed`` and trace it.

    ``strategies``: one built-in strategy name or search budget (``search:16``) per human
    seat, or one for all (default:
    ``strategies.DEFAULT_MIX`` over the seats, ``strategies.RECOMMENDED_SOLO`` in solo).
    ``params``: a parameter vector or ``tables.build_params`` overrides.
    ``variants``: {fact: name} readings of uncertain facts (``components.VARIANTS``).
    """
    seed = _check_int("seed", seed)
    players = _check_int("players", players)
    if not 1 <= players <= 4:
        raise ConfigError(f"players must be 1..4 (1 = solo against Tom), got {players}")
    check_seed(seed)
    humans = seat_strategies(players, strategies)
    p = _params(params, variants)
    warm.use_shipped()  # a notebook's first game loads the wheel's compile, if it has one
    solo = players == 1
    names = humans + ((TOM,) if solo else ())
    sids = [STRATEGY_IDS.get(name, -1) for name in names]
    s = new_game(seed, players, p)
    rec = _Recorder(p)
    buf = new_buffer()
    weights = no_weights()  # built-in strategies' default weights (see bonfire_sim/strategies/)
    for seat, name in enumerate(humans):
        if is_search_spec(name):  # a search budget: its own row, exactly as `run` plays it
            player = parse_player(name)
            sids[seat], weights[seat] = player.sid, player.weight_row()
    while s[L.G_OVER] == 0:
        n = legal_moves(s, p, buf)
        if n == 0:
            raise RuntimeError(f"engine bug: no legal move in phase "
                               f"{L.PHASE_NAMES[int(s[L.G_PHASE])]} (seed {seed})")
        seat = int(s[L.G_CUR])
        i = choose(s, p, buf, n, sids[seat], weights[seat])
        mv = buf[i].copy()
        s0 = s.copy()
        apply_move(s, p, mv)
        rec.after_move(s0, s, mv)
    return _finish(s, p, seed, players, names, rec)


def _dropouts(s0: np.ndarray, s1: np.ndarray, mover: int, kind: int
              ) -> tuple[list[dict], list[dict]]:
    """``out`` and ``auto_pass`` events of seats the engine skipped during the move.

    ``finish_turn`` skips a seat that can do nothing (it is out for good, and passes for
    points once the countdown runs).  A seat drops out on its first turn after the move,
    which fixes its turn; the pass turn is recorded by the engine.
    """
    nseats, turn0 = int(s1[L.G_NSEATS]), int(s0[L.G_TURN])
    outs: list[dict] = []
    passes: list[dict] = []
    for seat in sorted(range(nseats), key=lambda k: (k - mover - 1) % nseats):
        if s1[L.G_SOLO] == 1 and seat == trace.TOM_SEAT:
            continue
        pb = L.player_base(seat)
        mine = seat == mover
        if s1[pb + L.P_OUT] and not s0[pb + L.P_OUT] and not (mine and kind == L.M_SKIP):
            turn = turn0 + ((seat - mover) % nseats or nseats)
            outs.append({"kind": "out", "turn": turn, "rnd": _round_at(s0, turn), "seat": seat})
        if s1[pb + L.P_PASSED] and not s0[pb + L.P_PASSED] and not (mine and kind == L.M_PASS):
            turn = int(s1[pb + L.P_PASS_TURN])
            passes.append({"kind": "auto_pass", "turn": turn, "rnd": _round_at(s0, turn),
                           "seat": seat, "points": trace.pass_points(s1, seat)
                           - trace.pass_points(s0, seat)})
    passes.sort(key=lambda ev: ev["turn"])
    return outs, passes


def _round_at(s0: np.ndarray, turn: int) -> int:
    """The round of a later ``turn``, counted on from the turn and seat to move in s0."""
    nseats, mover = int(s0[L.G_NSEATS]), int(s0[L.G_CUR])
    return int(s0[L.G_ROUND]) + (mover + turn - int(s0[L.G_TURN])) // nseats


def _finish(s: np.ndarray, p: np.ndarray, seed: int, players: int, names: tuple[str, ...],
            rec: _Recorder) -> GameRecord:
    nseats = int(s[L.G_NSEATS])
    scores = np.zeros(nseats, np.int64)
    lines = np.zeros((nseats, NLINES), np.int64)
    ranks = np.zeros(nseats, np.int64)
    won = np.zeros(nseats, np.int64)
    final_result(s, p, scores, lines, ranks, won)
    trig = int(s[L.G_TRIGGER_TURN])
    record = GameRecord(
        seed=seed, players=players, solo=players == 1, strategies=names,
        scores=tuple(int(x) for x in scores),
        lines=tuple({n: int(v) for n, v in zip(LINE_NAMES, row, strict=True)} for row in lines),
        ranks=tuple(int(x) for x in ranks), won=tuple(bool(x) for x in won),
        bonfires=tuple(int(n_bonfires(s, L.player_base(k))) for k in range(nseats)),
        end_reason=L.END_NAMES[int(s[L.G_END])], n_turns=int(s[L.G_TURN]),
        n_rounds=int(s[L.G_ROUND]), trigger_turn=None if trig < 0 else trig,
        n_decisions=int(s[L.G_DECISIONS]), events=(),
    )
    rec.add("end", int(s[L.G_TURN]), int(s[L.G_ROUND]), int(s[L.G_CUR]),
            reason=record.end_reason, board=trace.board_snapshot(s), table=record.table())
    return replace(record, events=tuple(rec.events))
