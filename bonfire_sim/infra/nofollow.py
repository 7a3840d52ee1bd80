"""Opening a file without following links: the two primitives that every writer
(``fileio``) and every lock (``ownership``, the compile lock in ``sim.warm``) share.

They live apart from ``fileio`` because ``fileio`` checks ownership before it writes while
``ownership`` takes locks: with the primitives here, neither imports the other.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from bonfire_sim.errors import OutputError

NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)  # absent on Windows (no links planted there)
CLOEXEC = getattr(os, "O_CLOEXEC", 0)


def refuse_shared(fd: int, path: Path, doing: str) -> None:
    """Refuse a descriptor that is not a private regular file: a planted hard link (more
    than one name) or a special file would carry our bytes (or our truncation) elsewhere.
    ``doing``: the message's start ("cannot write X", "cannot lock X: its lock file Y")."""
    info = os.fstat(fd)
    if not stat.S_ISREG(info.st_mode):
        raise OutputError(f"{doing} is not a regular file; bonfire_sim writes only regular "
                          f"files: remove it and try again")
    if info.st_nlink > 1:
        raise OutputError(f"{doing} has {info.st_nlink} hard links, so writing it would "
                          f"change another file; bonfire_sim never makes links: remove it "
                          f"and try again")


def open_lock(path: str | Path) -> int:
    """Open (creating if missing) the lock file ``path`` for reading and writing, never
    through a link: a symbolic link, a hard-linked file or a special file there is one
    ``OutputError`` and nothing of it is changed (no truncation, no byte written).  The
    caller owns the returned descriptor."""
    path = Path(path)
    flags = os.O_RDWR | os.O_CREAT | NOFOLLOW | CLOEXEC | getattr(os, "O_NONBLOCK", 0)
    try:
        fd = os.open(path, flags, 0o644)
    except OSError as e:
        if os.path.islink(path):
            raise OutputError(f"cannot lock {path.parent}: its lock file {path.name} is a "
                              f"symbolic link; bonfire_sim never makes links: remove it "
                              f"and try again") from None
        raise OutputError(f"cannot lock {path.parent} ({path}): {e.strerror or e}") from None
    try:
        refuse_shared(fd, path, f"cannot lock {path.parent}: its lock file {path.name}")
    except BaseException:
        os.close(fd)
        raise
    return fd
