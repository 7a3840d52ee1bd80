"""Pure-Python strategy plug-ins, loaded by dotted path (``mypkg.mod:MyStrategy``).

A plug-in is any object with ``choose(self, view, moves) -> int``:

* ``view`` is a read-only :class:`StateView` of the game for the acting seat (its
  resources, action tiles, tasks, score, the phase, ...); ``view.state`` is a read-only
  copy of the raw state vector for anything the accessors do not cover;
* ``moves`` is a read-only (n, 5) int64 array of legal move rows ``[kind, a, b, c, d]``
  (``bonfire_sim.rules.layout.M_*``; ``bonfire_sim.engine.describe_move`` names them);
* the return value is the index of the chosen row.

Example::

    class FirstMove:
        name = "first"
        def choose(self, view, moves):
            return 0

``load_plugin("mypkg.mod:FirstMove")`` imports the module, takes the attribute,
instantiates it if it is a class, and checks it has a ``choose`` method.  Plug-in seats are
played by ``bonfire_sim.sim.pyloop.play_mixed`` (a Python loop; built-in seats still use
the compiled strategies).
"""

from __future__ import annotations

import importlib
from typing import Any, Protocol, runtime_checkable

import numpy as np

from bonfire_sim.errors import ConfigError, PluginError
from bonfire_sim.rules import components as C
from bonfire_sim.rules import layout as L
from bonfire_sim.rules import tables as T
from bonfire_sim.rules.scoring import NLINES, score_lines
from bonfire_sim.rules.turns import pass_points


@runtime_checkable
class Strategy(Protocol):
    """What a plug-in must provide."""

    def choose(self, view: StateView, moves: np.ndarray) -> int:
        """Index into ``moves`` of the move to play."""
        ...


class StateView:
    """Read-only view of a game state for the acting seat (``seat``).

    Names are the component names of ``bonfire_sim.rules.components`` (``RESOURCES``,
    ``ACTION_TILES``, ``TASKS``, ...).  Every accessor returns plain Python values.
    """

    def __init__(self, state: np.ndarray, params: np.ndarray | None = None) -> None:
        s = np.array(state, dtype=np.int64, copy=True)
        s.setflags(write=False)
        self.state = s
        self.params = T.DEFAULT_PARAMS if params is None else params
        self.seat = int(s[L.G_CUR])
        self._pb = L.player_base(self.seat)

    def _block(self, off: int, n: int, seat: int | None = None) -> list[int]:
        pb = self._pb if seat is None else L.player_base(seat)
        return [int(x) for x in self.state[pb + off:pb + off + n]]

    @property
    def players(self) -> int:
        """Human players in the game."""
        return int(self.state[L.G_HUMANS])

    @property
    def phase(self) -> str:
        """Name of the pending decision (``layout.PHASE_NAMES``)."""
        return L.PHASE_NAMES[int(self.state[L.G_PHASE])]

    @property
    def round(self) -> int:
        return int(self.state[L.G_ROUND])

    @property
    def countdown(self) -> bool:
        """True once the countdown is running."""
        return bool(self.state[L.G_CD_ACTIVE])

    @property
    def pass_points(self) -> int:
        """Points for passing now (0: passing is not possible)."""
        return int(pass_points(self.state, self.seat))

    @property
    def council_novices(self) -> int:
        return int(self.state[L.G_COUNCIL_N])

    def resources(self, seat: int | None = None) -> dict[str, int]:
        """Resources held, by name."""
        return dict(zip(C.RESOURCES, self._block(L.P_RES, 6, seat), strict=True))

    def tiles(self, seat: int | None = None) -> dict[str, int]:
        """Action tiles held, by name (``yellow`` is the joker)."""
        return dict(zip(C.ACTION_TILES, self._block(L.P_TILES, 7, seat), strict=True))

    def tasks(self, seat: int | None = None) -> list[dict[str, Any]]:
        """Tasks on the bonfire spaces: space, task id, points, colour, lit."""
        ids = self._block(L.P_TASK, C.MAX_TASKS, seat)
        lit = self._block(L.P_LIT, C.MAX_TASKS, seat)
        return [
            {"space": k, "task": C.TASKS[t].id, "points": C.TASKS[t].points,
             "colour": C.TASKS[t].colour, "lit": bool(lit[k])}
            for k, t in enumerate(ids) if t >= 0
        ]

    def score(self, seat: int | None = None) -> int:
        """The seat's score if the game ended now (final-scoring lines included)."""
        out = np.zeros(NLINES, np.int64)
        return int(score_lines(self.state, self.params, self.seat if seat is None else seat, out))

    def fate_left(self, seat: int | None = None) -> int:
        """Fate tiles left in the column."""
        lo, hi = self._block(L.P_FATE_LO, 2, seat)
        return hi - lo

    def paths(self, seat: int | None = None) -> int:
        return self._block(L.P_NPATH, 1, seat)[0]

    def portals(self, seat: int | None = None) -> int:
        return self._block(L.P_NPORTAL, 1, seat)[0]

    def gnomes(self, seat: int | None = None) -> int:
        return self._block(L.P_NGNOME, 1, seat)[0]

    def guardians(self, seat: int | None = None) -> dict[str, int]:
        """Owned guardians by colour: -1 waiting area, 0..6 path, 10+k bonfire k."""
        pos = self._block(L.P_GUARD, 5, seat)
        return {c: q for c, q in zip(C.GUARDIAN_COLOURS, pos, strict=True) if q != L.GP_NONE}


def check_plugin_path(path: str) -> tuple[str, str]:
    """``(module, attribute)`` of a plug-in path, checked by its text alone (nothing is
    imported): a dotted module name, a colon, an attribute name."""
    module_name, sep, attr = path.partition(":")
    if not sep or not all(p.isidentifier() for p in module_name.split(".")) \
            or not attr.isidentifier():
        raise ConfigError(f"plug-in {path!r}: expected 'package.module:Attribute'")
    return module_name, attr


def load_plugin(path: str) -> Strategy:
    """Import ``module:attribute`` (a class is instantiated) and check it is a strategy.

    Only the user names a plug-in (command line, Python, their experiment file): data
    such as a run manifest is checked with ``check_plugin_path`` and never imported.
    """
    module_name, attr = check_plugin_path(path)
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as error:
        if error.name == module_name or module_name.startswith(f"{error.name}."):
            raise ConfigError(f"plug-in {path!r}: module {module_name!r} not found "
                              f"({error})") from None
        raise _failure(path, "failed to import", error) from None
    except BaseException as error:  # its own code ran: SystemExit and Ctrl-C are its failures
        raise _failure(path, "failed to import", error) from None
    try:
        obj = getattr(module, attr)
    except AttributeError:
        raise ConfigError(f"plug-in {path!r}: module {module_name!r} has no {attr!r}") from None
    if isinstance(obj, type):
        try:
            obj = obj()
        except BaseException as error:
            raise _failure(path, f"failed to construct {attr}()", error) from None
    if not callable(getattr(obj, "choose", None)):
        raise ConfigError(
            f"plug-in {path!r} is not a strategy: it needs a choose(view, moves) method"
        )
    return obj


def _failure(path: str, what: str, error: BaseException) -> PluginError:
    """One line for a plug-in that failed before its first move (no seat or turn yet)."""
    return PluginError(f"plug-in {path!r} {what}, before its first move: "
                       f"{type(error).__name__}: {error}")


def is_plugin_spec(spec: str) -> bool:
    """True if a seat spec names a plug-in (``module:Attribute``) rather than a built-in
    (``search:N`` and ``search_ref:N`` are the built-in search players, see
    ``bonfire_sim.strategies.specs``)."""
    return (":" in spec and not spec.startswith(("search:", "search_ref:"))
            and "@" not in spec)
