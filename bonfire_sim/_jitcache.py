"""Point numba's on-disk cache at a directory keyed by the kernels' source code.

numba's ``cache=True`` re-validates a function only against its OWN file: edit a rule
kernel and every caller compiled in another file keeps running the old code from cache.
For a simulator whose numbers must be trusted that is unacceptable, so the cache lives in
a directory named after a hash of every file that holds kernels; any edit starts a fresh
cache.  ``BONFIRE_SIM_CACHE_DIR`` overrides the root (default: the user cache directory).
"""

from __future__ import annotations

import hashlib
import os
import sys
from pathlib import Path

_PKG = Path(__file__).resolve().parent
_SOURCES = ("rules", "sim", "../strategies")


def source_hash() -> str:
    """Hash of every kernel-bearing source file (names and contents).

    All of rules/ and strategies/ count (their module constants are compiled in); of sim/
    only the files that define kernels.
    """
    h = hashlib.sha256()
    for sub in _SOURCES:
        folder = (_PKG / sub).resolve()
        for f in sorted(folder.glob("*.py")) if folder.is_dir() else ():
            data = f.read_bytes()
            if sub == "sim" and b"@njit" not in data:
                continue  # sim/ also holds plain-Python modules (runner, traces)
            h.update(f.name.encode())
            h.update(data)
    return h.hexdigest()[:16]


def configure() -> str:
    """Set the cache directory (before kernels are compiled); returns it."""
    root = os.environ.get("BONFIRE_SIM_CACHE_DIR") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "bonfire_sim"
    )
    path = os.path.join(root, f"numba-{source_hash()}")
    os.environ["NUMBA_CACHE_DIR"] = path
    numba = sys.modules.get("numba")
    if numba is not None:  # numba already imported: its config read the env var earlier
        numba.config.CACHE_DIR = path
    return path
