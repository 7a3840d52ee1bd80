"""File checksums hashed once and remembered, so loading a big run does not re-read it.

Hashing every file of a million-game run before each (lazy) load costs as much I/O as the
load itself.  A digest computed here is remembered in the user cache under the file's
identity: device, inode, size, mtime and ctime in nanoseconds.  Any write to the file
changes its ctime, which no user call can set back (``os.utime`` sets mtime, and moves
ctime to now), so a tampered or replaced file is hashed again and still refused by the
caller.  As git does for its index ("racy" entries), a file changed within the last
``RACY_SECONDS`` is never remembered: its next change could fall in the same timestamp
tick.  The memo is an optimisation only: an unreadable or unwritable cache just means the
file is hashed again.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from pathlib import Path

from bonfire_sim.errors import OutputError
from bonfire_sim.infra import _jitcache, fileio

MEMO = "checksums"
RACY_SECONDS = 2.0


def memo_dir() -> Path:
    """``checksums`` in bonfire_sim's user cache directory."""
    return Path(_jitcache.cache_root()) / MEMO


def _identity(st: os.stat_result) -> str:
    return f"{st.st_dev}:{st.st_ino}:{st.st_size}:{st.st_mtime_ns}:{st.st_ctime_ns}"


def _memo_file(folder: Path) -> Path:
    """One memo per folder (a run's chunks/ holds thousands of files: one small JSON)."""
    key = hashlib.sha256(str(folder.resolve()).encode()).hexdigest()[:32]
    return memo_dir() / f"{key}.json"


class Memo:
    """Digests of the files of one folder, read once and written back once (``save``)."""

    def __init__(self, folder: Path) -> None:
        self.path = _memo_file(folder)
        self.changed = False
        try:
            data = json.loads(self.path.read_text())
            self.known: dict[str, str] = data if isinstance(data, dict) else {}
        except (OSError, ValueError):
            self.known = {}

    def sha256(self, path: Path) -> str:
        """The file's SHA-256: remembered if its identity is unchanged, else hashed."""
        st = path.stat()
        ident = f"{path.name}|{_identity(st)}"
        got = self.known.get(ident)
        if isinstance(got, str):
            return got
        digest = fileio.sha256(path)
        if time.time_ns() - max(st.st_ctime_ns, st.st_mtime_ns) > RACY_SECONDS * 1e9:
            # drop what was remembered for an earlier version of this name
            self.known = {k: v for k, v in self.known.items()
                          if not k.startswith(f"{path.name}|")}
            self.known[ident] = digest
            self.changed = True
        return digest

    def save(self) -> None:
        if not self.changed:
            return
        try:
            fileio.write_text(self.path, fileio.dumps_json(self.known, self.path))
        except (OSError, OutputError):
            pass  # a read-only cache: the files are hashed again next time
        self.changed = False


class Memos:
    """The memos of several folders (a run's top level and its chunks/)."""

    def __init__(self) -> None:
        self.by_folder: dict[Path, Memo] = {}

    def sha256(self, path: Path) -> str:
        folder = path.parent
        if folder not in self.by_folder:
            self.by_folder[folder] = Memo(folder)
        return self.by_folder[folder].sha256(path)

    def save(self) -> None:
        for memo in self.by_folder.values():
            memo.save()
