"""The compiled engine a release wheel carries, and copying it into the user cache.

Compiling the engine takes minutes of CPU and about 1 GB at its peak (issue 38).  A
release wheel therefore carries the kernels compiled for numba's generic CPU
(``scripts/build_wheel.py``), as a compiled extension's wheel carries its machine code:
``bonfire_sim/_compiled/`` holds numba's cache files of the warm-up and ``stamp.json``,
which says what they were compiled from and for (the kernels' source hash, numba,
llvmlite, Python, platform, CPU) and each file's SHA-256.

``seed`` copies them into this version's user cache directory when everything in the
stamp matches this process (``_jitcache.target``), so the first command loads instead of
compiling.  It copies only into a directory that holds no compiled file yet (never over a
compile of its own), verifies every file's hash first, and writes through ``fileio``
(atomic, never through a link).  Anything else (no shipped engine: a source checkout or a
plain wheel; another numba, Python, platform or ``NUMBA_CPU_NAME``; a corrupt file) is a
reason, and the command compiles as it would without one.
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path
from typing import Any

SHIPPED = Path(__file__).resolve().parent.parent / "_compiled"
STAMP = "stamp.json"
FORMAT = 1
# the files numba's cache holds: an index (.nbi) and numbered data files (.nbc), in one
# folder per subpackage; nothing else is copied
_FILE = re.compile(r"[A-Za-z0-9_]+/[A-Za-z0-9_.<>-]+\.(nbi|nbc)")


def stamp_for(files: dict[str, bytes]) -> dict[str, Any]:
    """The stamp of compiled ``files`` (relative name -> bytes) built in this process."""
    from bonfire_sim.infra import _jitcache

    return {"format": FORMAT, "sources": _jitcache.source_hash(), **_jitcache.target(),
            "files": {name: hashlib.sha256(data).hexdigest()
                      for name, data in sorted(files.items())}}


def read_stamp(folder: Path | None = None) -> dict[str, Any] | None:
    """The stamp of the compiled engine in ``folder`` (default: this install's; None when
    there is none)."""
    from bonfire_sim.infra import readers

    path = (folder or SHIPPED) / STAMP
    if not path.is_file():
        return None
    try:
        doc = readers.parse_json(readers.read_text(path, "compiled engine stamp"), path)
    except Exception:  # noqa: BLE001 - a broken stamp is a mismatch, not an error
        return {}
    return doc if isinstance(doc, dict) else {}


def mismatch(stamp: dict[str, Any] | None) -> str | None:
    """Why a compiled engine with ``stamp`` cannot be used here (None: it can)."""
    from bonfire_sim.infra import _jitcache

    if stamp is None:
        return "this install carries no compiled engine"
    if stamp.get("format") != FORMAT or not isinstance(stamp.get("files"), dict):
        return "its stamp is unreadable"
    want = {"sources": _jitcache.source_hash(), **_jitcache.target()}
    for key, value in want.items():
        if stamp.get(key) != value:
            return f"it was compiled for {key} {stamp.get(key)!r}, this is {value!r}"
    if not stamp["files"] or not all(isinstance(n, str) and _FILE.fullmatch(n)
                                     for n in stamp["files"]):
        return "its stamp lists no compiled files or unexpected ones"
    return None


def available(folder: Path | None = None) -> bool:
    """Whether ``folder`` holds a compiled engine this process can use (hashes unread)."""
    return mismatch(read_stamp(folder)) is None


def has_compiled(cache: Path) -> bool:
    """Whether the cache directory holds any compiled file (a compile of its own)."""
    return cache.is_dir() and any(cache.glob("*/*.nb[ic]"))


def _verified(cache: Path, folder: Path | None) -> tuple[str | None, dict[str, bytes]]:
    """(why not, {}) or (None, the files to copy, each checked against the stamp)."""
    from bonfire_sim.errors import BonfireError
    from bonfire_sim.infra import readers, safepaths

    stamp = read_stamp(folder)
    why = mismatch(stamp)
    if why:
        return why, {}
    assert stamp is not None
    if has_compiled(cache):
        return f"{cache} holds a compile of its own", {}
    if cache.is_dir():
        try:  # a planted link would carry the copies elsewhere
            safepaths.refuse_links(cache, "cache directory")
        except BonfireError as e:
            return str(e), {}
    data: dict[str, bytes] = {}
    for name, digest in stamp["files"].items():
        path = (folder or SHIPPED) / name
        try:
            data[name] = readers.read_bytes(path, "compiled engine file")
        except (OSError, BonfireError) as e:
            return f"{path} cannot be read ({e})", {}
        if hashlib.sha256(data[name]).hexdigest() != digest:
            return f"{path} differs from its stamp (a corrupt or changed install)", {}
    return None, data


def check(cache: Path, folder: Path | None = None) -> str | None:
    """Why ``seed`` would not copy ``folder``'s engine into ``cache`` (None: it would)."""
    return _verified(cache, folder)[0]


def seed(cache: Path, folder: Path | None = None) -> str | None:
    """Copy the compiled engine in ``folder`` into the empty cache directory ``cache``.

    Returns None when it did, else why not (nothing is copied then: a hash that differs
    from the stamp's is found before the first file is written).  The caller holds the
    cache's compile lock."""
    from bonfire_sim.infra import fileio

    why, data = _verified(cache, folder)
    if why:
        return why
    for name, blob in data.items():
        fileio.write_bytes(cache / name, blob)
    return None
