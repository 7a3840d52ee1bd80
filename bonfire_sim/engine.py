"""The engine's public Python face: legal moves, validated ``apply``, move names.

The kernels in ``bonfire_sim.rules`` trust their input for speed; this wrapper is where a
caller's mistakes become clear errors (``IllegalMoveError`` names the move and the phase).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from bonfire_sim.errors import IllegalMoveError
from bonfire_sim.rules import components as C
from bonfire_sim.rules import layout as L
from bonfire_sim.rules import tables as T
from bonfire_sim.rules.moves import apply_move
from bonfire_sim.rules.moves import legal_moves as _legal_kernel
from bonfire_sim.rules.pay_choice import PAY_TILES, unpack

MoveLike = Sequence[int] | np.ndarray


def legal_moves(state: np.ndarray, params: np.ndarray | None = None) -> np.ndarray:
    """The legal moves of the pending decision as an (n, 5) int64 array (copy)."""
    p = T.DEFAULT_PARAMS if params is None else params
    buf = np.zeros((L.MAX_MOVES, L.MOVE_W), dtype=np.int64)
    n = _legal_kernel(state, p, buf)
    return buf[:n].copy()


def apply(state: np.ndarray, move: MoveLike, params: np.ndarray | None = None) -> np.ndarray:
    """Apply ``move`` (a row [kind, a, b, c, d]) to ``state`` in place after checking it.

    Raises ``IllegalMoveError`` if the game is over or the move is not legal now.
    """
    p = T.DEFAULT_PARAMS if params is None else params
    mv = np.zeros(L.MOVE_W, dtype=np.int64)
    vals = list(move)
    if not 1 <= len(vals) <= L.MOVE_W:
        raise IllegalMoveError(f"a move has 1..{L.MOVE_W} integers, got {len(vals)}")
    mv[: len(vals)] = vals
    if state[L.G_OVER]:
        raise IllegalMoveError("the game is over; no move can be applied")
    legal = legal_moves(state, p)
    if not (legal == mv).all(axis=1).any():
        raise IllegalMoveError(
            f"illegal move {describe_move(mv)} in phase {phase_name(state)} for seat "
            f"{int(state[L.G_CUR])}; {len(legal)} legal moves, e.g. "
            f"{', '.join(describe_move(m) for m in legal[:3])}"
        )
    apply_move(state, p, mv)
    return state


def _stock_text(counts: Sequence[int], names: Sequence[str]) -> str:
    return "+".join(f"{n}x{name}" for n, name in zip(counts, names, strict=True) if n) or "none"


def _payment_text(code: int, what: int) -> str:
    if what == PAY_TILES:
        return f"tiles={_stock_text(unpack(code, 7), C.ACTION_TILES)}"
    return f"resources={_stock_text(unpack(code, 6), C.RESOURCES)}"


def phase_name(state: np.ndarray) -> str:
    return L.PHASE_NAMES[int(state[L.G_PHASE])]


def move_name(kind: int) -> str:
    return L.MOVE_NAMES[int(kind)] if 0 <= kind < len(L.MOVE_NAMES) else f"kind{kind}"


def describe_move(mv: MoveLike) -> str:
    """Compact, unambiguous text for a move row, e.g. ``ship(island=5, paid=2)``."""
    k, a, b, c, d = (int(x) for x in mv)
    name = move_name(k)
    fields = {
        L.M_SWAP: lambda: f"swap={a}",
        L.M_FATE: lambda: f"end={'top' if a == 0 else 'bottom'}, row={b}, col={c}, orient={d}",
        L.M_SHIP: lambda: f"island={a}, paid={b}",
        L.M_PATH: lambda: "deck" if a == 4 else f"slot={a}",
        L.M_TASK: lambda: f"slot={a}, pile={b}, space={c}",
        L.M_GUARD: lambda: f"colour={C.GUARDIAN_COLOURS[a]}",
        L.M_PROCESSION: lambda: f"paid={a}",
        L.M_FIRE: lambda: f"space={a}, rewards={b}, portal={c}, paid={d}",
        L.M_GNOME: lambda: f"gnome={a}, mode={b}",
        L.M_IGNITE: lambda: f"space={a}",
        L.M_BONUS: lambda: f"common={C.COMMON[a][0]}",
        L.M_MOVE_GUARD: lambda: f"colour={C.GUARDIAN_COLOURS[a]}, dest={b}, res={c}",
        L.M_COUNCIL: lambda: f"space={a}, {'point' if b else 'bonus'}",
        L.M_TAKE_PATH: lambda: f"source={a}",
        L.M_TAKE_GUARD: lambda: f"colour={C.GUARDIAN_COLOURS[a]}",
        L.M_TAKE_SPEC: lambda: f"specialist={a + 1}",
        L.M_SHIP_TO: lambda: f"island={a}",
        L.M_PAY: lambda: _payment_text(a, b),
        L.M_DISCARD: lambda: f"keep={_stock_text(unpack(a, 7), C.ACTION_TILES)}",
    }
    inner = fields.get(k)
    return f"{name}({inner()})" if inner else f"{name}()"
