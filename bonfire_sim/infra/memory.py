"""Giving freed memory back to the system (glibc; elsewhere these do nothing).

The report reads columns of millions of rows; freed, their buffers stay in the C heap
(where glibc keeps them for the next allocation of that size) and in the resident set,
unless the heap's free pages are returned (``give_back``) or such blocks are mapped on
their own (``map_large_blocks``).  Shared by the loading (``sim.load``) and the report
(``report.data.returning_memory``)."""

from __future__ import annotations

import ctypes
import ctypes.util
from functools import cache
from typing import Any

MMAP_BYTES = 4 << 20  # a column of a million int32 values; smaller blocks stay in the heap


@cache
def _libc() -> Any:
    try:
        return ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
    except OSError:
        return None


def map_large_blocks() -> None:
    """``mallopt(M_MMAP_THRESHOLD, MMAP_BYTES)`` where the C library has it (glibc): blocks
    of ``MMAP_BYTES`` and more are mapped from then on (for the rest of the process), so a
    column-sized temporary leaves the resident set as it is freed; glibc would otherwise
    raise its threshold as such blocks are freed (up to 32 MB)."""
    mallopt = getattr(_libc(), "mallopt", None)
    if mallopt is None:  # not glibc
        return
    mallopt.argtypes = [ctypes.c_int, ctypes.c_int]
    mallopt(-3, MMAP_BYTES)  # M_MMAP_THRESHOLD (malloc.h); fixed: no dynamic raise


def give_back() -> None:
    """``malloc_trim(0)`` where the C library has it (glibc; not macOS, musl, Windows):
    the heap's free pages go back to the system."""
    trim = getattr(_libc(), "malloc_trim", None)
    if trim is None:
        return
    trim.argtypes = [ctypes.c_size_t]
    trim(0)


ROWS = 1 << 20  # rows a block of ``row_slices`` (a mask of it is 1 MB)


def row_slices(n: int, size: int | None = None) -> list[slice]:
    """Consecutive slices of ``size`` rows (``ROWS``) covering ``n``: work on every row
    done a block at a time holds one block's temporaries, not a copy of every row."""
    size = size or ROWS
    return [slice(s, min(s + size, n)) for s in range(0, n, size)]


def wide_slices(n: int) -> list[slice]:
    """``row_slices`` for work whose temporaries take 8 bytes or more a row (an intp copy
    of a block of codes): a sixteenth of ``ROWS`` a block (8 MB -> 0.5 MB)."""
    return row_slices(n, max(ROWS >> 4, 1))


def codes(col: Any) -> Any:
    """The codes of a pandas categorical column, as held (a read-only view):
    ``col.cat.codes`` copies them (a byte a row: 4 MB a column of a million 4-player
    games' rows, each time a column is read)."""
    return col.array.codes
