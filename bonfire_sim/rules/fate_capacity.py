"""How many fate tiles a fate area can take: an exhaustive search over its geometry.

A consequence of the component data, not a fact of its own: ``tables`` compiles it into
the parameter vector (the strategies read it to know when a fate-cell task or the last
column tile is out of reach), and the tests use the same search to prove that a variant
area holds all 8 tiles.  Pure Python; areas are small (at most a few dozen cells).
"""

from __future__ import annotations

from functools import cache

from bonfire_sim.rules.components import Cell, FateArea

Piece = frozenset[Cell]


def pieces(area: FateArea) -> tuple[Piece, ...]:
    """Every 1 x 3 position inside the area (horizontal and vertical)."""
    out = []
    for r, c in area.cells():
        if c + 2 < area.cols:
            out.append(frozenset({(r, c), (r, c + 1), (r, c + 2)}))
        if r + 2 < area.rows:
            out.append(frozenset({(r, c), (r + 1, c), (r + 2, c)}))
    return tuple(out)


def _touch(a: Piece, b: Piece) -> bool:
    return any(abs(r1 - r2) + abs(c1 - c2) == 1 for r1, c1 in a for r2, c2 in b)


def placement_order(area: FateArea, chosen: tuple[Piece, ...]) -> tuple[Piece, ...] | None:
    """The pieces in an order where each touches the starting tile or an earlier piece
    (the placement rule), or None if some piece can never be reached."""
    placed = [frozenset(area.start_cells)]
    left = list(chosen)
    order = []
    while left:
        nxt = next((pc for pc in left if any(_touch(pc, q) for q in placed)), None)
        if nxt is None:
            return None
        left.remove(nxt)
        placed.append(nxt)
        order.append(nxt)
    return tuple(order)


def best_packing(area: FateArea, limit: int) -> tuple[Piece, ...]:
    """A largest set (at most ``limit``) of non-overlapping pieces beside the starting
    tile that can all be placed one after another under the placement rule."""
    free0 = frozenset(area.cells()) - frozenset(area.start_cells)
    all_pieces = pieces(area)
    best: list[tuple[Piece, ...]] = [()]

    def search(free: frozenset[Cell], chosen: tuple[Piece, ...]) -> None:
        if len(chosen) > len(best[0]) and placement_order(area, chosen) is not None:
            best[0] = chosen
        if len(best[0]) >= limit or not free:
            return
        if len(chosen) + len(free) // 3 <= len(best[0]):
            return
        first = min(free)
        for pc in all_pieces:
            if first in pc and pc <= free:
                search(free - pc, (*chosen, pc))
                if len(best[0]) >= limit:
                    return
        search(free - {first}, chosen)

    search(free0, ())
    return best[0]


@cache
def max_extra_tiles(area: FateArea, limit: int = 7) -> int:
    """Most fate tiles (up to ``limit``) that fit beside the starting tile, no protrusion."""
    return len(best_packing(area, limit))
