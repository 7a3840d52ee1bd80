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


def row_slices(n: int, size: int = 1 << 20) -> list[slice]:
    """Consecutive slices of ``size`` rows covering ``n``: work on every row done a block
    at a time holds one block's temporaries, not a copy of every row."""
    return [slice(s, min(s + size, n)) for s in range(0, n, size)]
