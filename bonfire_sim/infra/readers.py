"""Reading files people pass around: regular files only, nesting bounded.

Run directories, studies, experiment, check and weight files come from colleagues, an
archive or a shared drive, so a reader must not trust what sits at a name:

* ``read_bytes`` opens only a **regular file**.  A FIFO (named pipe) or a device in place
  of a manifest would block a plain ``open`` forever (a FIFO waits for a writer) or
  read without end (``/dev/zero``); it is refused in one line at once: the name is
  ``stat``-ed before it is opened, and opened non-blocking and ``fstat``-ed before a
  byte is read.  Links are followed (a user may link their own experiment file); what
  they lead to must be a regular file too.
* ``parse_json`` / ``parse_toml`` bound the **nesting depth** (``MAX_DEPTH``): no file
  bonfire_sim reads nests deeper than a few levels, and a 100,000-level document would
  otherwise end in a ``RecursionError`` traceback.

Every refusal is a ``DataError`` naming the file and what to do (one ``Error:`` line).
"""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path
from typing import Any

from bonfire_sim.errors import DataError

MAX_DEPTH = 64  # far above any file bonfire_sim reads (a manifest nests 4 levels)
_KINDS = {stat.S_ISFIFO: "a FIFO (named pipe)", stat.S_ISCHR: "a character device",
          stat.S_ISBLK: "a block device", stat.S_ISSOCK: "a socket"}


def _refuse_special(mode: int, path: Path, what: str) -> None:
    """Refuse anything but a regular file (a directory is left to the caller's
    ``IsADirectoryError`` handling, as before)."""
    if stat.S_ISREG(mode):
        return
    if stat.S_ISDIR(mode):
        raise IsADirectoryError(21, "Is a directory", str(path))
    kind = next((name for test, name in _KINDS.items() if test(mode)), "not a regular file")
    raise DataError(f"{what} {path} is {kind}, not a regular file; bonfire_sim reads only "
                    f"regular files: put the real file there")


def read_bytes(path: str | Path, what: str = "file") -> bytes:
    """The bytes of the regular file ``path``; a FIFO, device or socket is one
    ``DataError`` at once (``what`` names the file's role).  ``OSError`` as ``open``."""
    path = Path(path)
    _refuse_special(os.stat(path).st_mode, path, what)
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    with os.fdopen(fd, "rb") as f:
        _refuse_special(os.fstat(fd).st_mode, path, what)  # swapped since the stat
        return f.read()


def read_text(path: str | Path, what: str = "file") -> str:
    """``read_bytes`` decoded as UTF-8 (``UnicodeDecodeError`` for other bytes)."""
    return read_bytes(path, what).decode("utf-8")


def check_depth(doc: Any, where: str | Path, limit: int = MAX_DEPTH) -> Any:
    """``doc`` when its lists and tables nest at most ``limit`` deep, else one
    ``DataError`` naming ``where`` (counted without recursion)."""
    stack: list[tuple[Any, int]] = [(doc, 0)]
    while stack:
        node, depth = stack.pop()
        if depth > limit:
            raise _too_deep(where, limit)
        if isinstance(node, dict):
            stack.extend((v, depth + 1) for v in node.values())
        elif isinstance(node, list):
            stack.extend((v, depth + 1) for v in node)
    return doc


def _too_deep(where: str | Path, limit: int) -> DataError:
    return DataError(f"{where} nests lists or tables more than {limit} levels deep; no "
                     f"file bonfire_sim reads nests that deep, so this one is damaged or "
                     f"crafted: check it")


def parse_json(text: str | bytes, where: str | Path) -> Any:
    """``json.loads(text)`` with its nesting bounded (``ValueError`` for bad JSON)."""
    try:
        doc = json.loads(text)
    except RecursionError:
        raise _too_deep(where, MAX_DEPTH) from None
    return check_depth(doc, where)


def parse_toml(text: str, where: str | Path) -> dict[str, Any]:
    """``tomllib.loads(text)`` with its nesting bounded (``TOMLDecodeError`` for bad TOML)."""
    import tomllib

    try:
        doc = tomllib.loads(text)
    except RecursionError:
        raise _too_deep(where, MAX_DEPTH) from None
    return check_depth(doc, where)
