"""The engine fingerprint: which rules code and which libraries produced a table.

A run stores it in its manifest and in every Parquet file's key-value metadata;
``--resume`` and ``experiment`` refuse to add games made by one engine to a run made by
another (a rules edit, a new package version or another numpy/numba/pyarrow could change
results), and say how to start afresh.
"""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version
from typing import Any

from bonfire_sim import __version__
from bonfire_sim.infra import _jitcache

LIBRARIES = ("numpy", "numba", "pyarrow")


def _version(dist: str) -> str:
    try:
        return version(dist)
    except PackageNotFoundError:
        return "absent"


def engine_fingerprint() -> dict[str, str]:
    """``{"source_hash", "bonfire_sim", "numpy", "numba", "pyarrow"}`` of this process."""
    fp = {"source_hash": _jitcache.source_hash(), "bonfire_sim": __version__}
    fp.update({lib: _version(lib) for lib in LIBRARIES})
    return fp


def describe_difference(stored: Any, current: dict[str, str]) -> str:
    """``"source_hash 1a2b.. -> 3c4d.., numba 0.59 -> 0.60"``: what changed."""
    if not isinstance(stored, dict):
        return "no engine fingerprint recorded (made by an older bonfire_sim)"
    diffs = [f"{k} {stored.get(k, '?')} -> {v}" for k, v in current.items()
             if stored.get(k) != v]
    return ", ".join(diffs) or "identical"
