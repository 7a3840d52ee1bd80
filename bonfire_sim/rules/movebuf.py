"""Appending legal moves to the (MAX_MOVES, MOVE_W) int64 move buffer."""

from __future__ import annotations

from numba import njit


@njit(cache=True)
def add(out, n, kind, a, b, c, d):
    """Write move [kind, a, b, c, d] at row n and return n + 1 (silently full-safe)."""
    if n >= out.shape[0]:
        return n
    out[n, 0] = kind
    out[n, 1] = a
    out[n, 2] = b
    out[n, 3] = c
    out[n, 4] = d
    return n + 1
