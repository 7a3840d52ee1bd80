"""Fixed-size int64 and float64 scratch arrays on the stack of a compiled function.

A heap array costs an allocation, a free and reference counting in every function that
touches it; the engine's small per-call scratch (a flood fill's labels, a one-row move
buffer to ask "is there any move?") is cheaper on the stack.  The size must be a
compile-time constant (a literal or a module-level int), the array must not outlive the
function that makes it (never return or store it), and its contents start undefined.
Called as plain Python (``NUMBA_DISABLE_JIT=1``, or from Python code) they return a heap
array of the same shape.
"""

from __future__ import annotations

import numpy as np
from numba import types
from numba.core import cgutils
from numba.core.extending import _Intrinsic
from numba.extending import intrinsic
from numba.np.arrayobj import make_array, populate_array

from bonfire_sim.rules import layout as L


class _StackInts(_Intrinsic):
    """``stack_ints`` outside compiled code: a heap array."""

    def __call__(self, size):
        return np.empty(size, np.int64)


class _StackFloats(_Intrinsic):
    """``stack_floats`` outside compiled code: a heap array."""

    def __call__(self, size):
        return np.empty(size, np.float64)


class _StackMoves(_Intrinsic):
    """``stack_moves`` outside compiled code: a heap array."""

    def __call__(self, rows):
        return np.empty((rows, L.MOVE_W), np.int64)


def _stack_array(context, builder, arrty, shape):
    ary = make_array(arrty)(context, builder)
    count = 1
    for n in shape:
        count *= n
    data = cgutils.alloca_once(builder, context.get_value_type(arrty.dtype), size=count)
    strides = []
    step = 8
    for n in reversed(shape):
        strides.insert(0, context.get_constant(types.intp, step))
        step *= n
    populate_array(ary, data=data,
                   shape=[context.get_constant(types.intp, n) for n in shape],
                   strides=strides, itemsize=context.get_constant(types.intp, 8),
                   meminfo=None)
    return ary._getvalue()


@intrinsic
def stack_ints(typingctx, size):
    """An int64 array of ``size`` entries on the caller's stack (contents undefined)."""
    if not isinstance(size, types.IntegerLiteral):
        return None
    n = size.literal_value
    arrty = types.Array(types.int64, 1, "C")

    def codegen(context, builder, signature, args):
        return _stack_array(context, builder, arrty, (n,))

    return arrty(size), codegen


@intrinsic
def stack_floats(typingctx, size):
    """A float64 array of ``size`` entries on the caller's stack (contents undefined)."""
    if not isinstance(size, types.IntegerLiteral):
        return None
    n = size.literal_value
    arrty = types.Array(types.float64, 1, "C")

    def codegen(context, builder, signature, args):
        return _stack_array(context, builder, arrty, (n,))

    return arrty(size), codegen


@intrinsic
def stack_moves(typingctx, rows):
    """A (rows, MOVE_W) int64 move buffer on the caller's stack (contents undefined)."""
    if not isinstance(rows, types.IntegerLiteral):
        return None
    shape = (rows.literal_value, L.MOVE_W)
    arrty = types.Array(types.int64, 2, "C")

    def codegen(context, builder, signature, args):
        return _stack_array(context, builder, arrty, shape)

    return arrty(rows), codegen


stack_ints.__class__ = _StackInts
stack_floats.__class__ = _StackFloats
stack_moves.__class__ = _StackMoves
