"""Atomic file writes and output-path checks shared by every layer that writes files.

Every file bonfire_sim writes (Parquet chunks, manifests, reports, CSV, JSON, the fork
cache, tuning studies) goes through ``atomic_path``: the data is written to ``NAME.tmp``
next to the target and moved over it with ``os.replace``, so a crash, a kill or a full
disk leaves either the old file or the new one, never a truncated mix.  A failed write
removes its ``.tmp`` and becomes one ``OutputError`` naming the path (the CLI prints it
as one ``Error:`` line).
``check_output_file`` lets a command refuse a bad output path before computing anything.
JSON is written strictly (``dumps_json``: no NaN or infinity).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from bonfire_sim.errors import OutputError
from bonfire_sim.infra import ownership

TMP_SUFFIX = ".tmp"


def tmp_path(path: Path) -> Path:
    """The temporary sibling ``atomic_path`` writes ``path`` through."""
    return path.with_name(path.name + TMP_SUFFIX)


def os_error(path: str | Path, error: OSError) -> OutputError:
    """An ``OSError`` as one clear line that names the path."""
    reason = error.strerror or str(error) or type(error).__name__
    return OutputError(f"cannot write {path}: {reason}")


@contextlib.contextmanager
def atomic_path(path: str | Path, mkdir: bool = True) -> Iterator[Path]:
    """Yield a temporary path to write; on success it replaces ``path`` atomically.

    On any exception the temporary file is removed and the target is left untouched;
    an ``OSError`` (disk full, permissions) is re-raised as ``OutputError`` naming ``path``.
    """
    path = Path(path)
    tmp = tmp_path(path)
    try:
        if mkdir:
            path.parent.mkdir(parents=True, exist_ok=True)
        yield tmp
        os.replace(tmp, path)
    except OSError as e:
        _remove(tmp)
        raise os_error(path, e) from None
    except BaseException:
        _remove(tmp)
        raise


def _remove(path: Path) -> None:
    with contextlib.suppress(OSError):
        path.unlink()


def write_text(path: str | Path, text: str) -> Path:
    """Write ``text`` (UTF-8) to ``path`` atomically; returns the path."""
    path = Path(path)
    with atomic_path(path) as tmp:
        with open(tmp, "w", encoding="utf-8") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
    return path


def write_bytes(path: str | Path, data: bytes) -> Path:
    """Write ``data`` to ``path`` atomically; returns the path."""
    path = Path(path)
    with atomic_path(path) as tmp:
        with open(tmp, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
    return path


def dumps_json(obj: Any, what: str | Path = "JSON", **kwargs: Any) -> str:
    """``obj`` as strict JSON: NaN and infinity are an ``OutputError`` naming ``what``.

    Every JSON the program writes goes through here, so no file holds the non-standard
    ``NaN``/``Infinity`` tokens other readers reject; a value that may be missing is
    written as ``null`` by its producer, on purpose.
    """
    try:
        return json.dumps(obj, allow_nan=False, **kwargs)
    except ValueError as e:
        raise OutputError(f"cannot write {what}: a value is not a finite number ({e})") from None


def write_json(path: str | Path, obj: Any) -> Path:
    """Write ``obj`` as indented, key-sorted, strict JSON atomically."""
    return write_text(path, dumps_json(obj, path, indent=1, sort_keys=True))


def sha256(path: str | Path) -> str:
    """Hex SHA-256 of a file's bytes."""
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def check_output_file(path: str | Path, own: str | Path | None = None,
                      own_kind: str | None = None) -> Path:
    """Refuse an output file path that cannot be written, before any work and without
    creating anything: a directory, an unwritable file, a parent that is a file or
    cannot be created or written, or a place inside a run directory or tuning study
    (``ownership.check_may_write``; ``own``/``own_kind``: the command's own folder)."""
    path = Path(path)
    ownership.check_may_write(path, own, own_kind)
    if path.is_dir():
        raise OutputError(f"cannot write {path}: it is a directory")
    if path.exists() and not os.access(path, os.W_OK):
        raise OutputError(f"cannot write {path}: permission denied")
    check_creatable_dir(path.parent, what=str(path))
    return path


def check_creatable_dir(folder: str | Path, what: str | None = None) -> Path:
    """Refuse a directory that neither exists writable nor could be created (no side
    effects): the nearest existing ancestor must be a writable directory."""
    folder = Path(folder)
    target = what or str(folder)
    probe = folder if str(folder) else Path(".")
    while not probe.exists():
        if probe.parent == probe:
            break
        probe = probe.parent
    if probe.exists() and not probe.is_dir():
        raise OutputError(f"cannot write {target}: {probe} is not a directory")
    if not os.access(probe, os.W_OK | os.X_OK):
        raise OutputError(f"cannot write {target}: {probe} is not writable")
    return folder
