"""The one way bonfire_sim creates files: atomic, exclusive, never through a link.

Every file bonfire_sim writes (Parquet chunks and tables, manifests, reports, CSV, JSON,
the fork cache, tuning studies, weight files) goes through ``atomic_file``, as databases
write their files:

1. the folder is checked (a directory, or created) before anything is created in it;
2. a temporary ``NAME.<random>.tmp`` is created beside the target with
   ``O_CREAT | O_EXCL | O_NOFOLLOW``: its name cannot be predicted, and a file, link or
   hard link planted at any name makes the create fail instead of being written through
   (a colleague's shared folder may hold anything);
3. the data is written through that descriptor, flushed and fsynced;
4. ``os.replace`` moves it over ``NAME`` (a link at ``NAME`` is replaced, not followed).

A crash, a kill or a full disk leaves either the old file or the new one, never a
truncated mix.  A failed write removes its temporary and becomes one ``OutputError``
naming the path (the CLI prints it as one ``Error:`` line).  The lock files writers hold
are opened the same way (``open_lock``: no link followed, a hard-linked lock refused).
``check_output_file`` lets a command refuse a bad output path before computing anything.
JSON is written strictly (``dumps_json``: no NaN or infinity).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import secrets
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

from bonfire_sim.errors import OutputError
from bonfire_sim.infra import ownership
from bonfire_sim.infra.nofollow import CLOEXEC as _CLOEXEC
from bonfire_sim.infra.nofollow import NOFOLLOW as _NOFOLLOW
from bonfire_sim.infra.nofollow import open_lock as open_lock
from bonfire_sim.infra.nofollow import refuse_shared as _refuse_shared

TMP_SUFFIX = ".tmp"
# NAME.<12 hex digits>.tmp, or an older version's NAME.tmp
_TMP_NAME = re.compile(r"(?P<name>.+?)(?:\.[0-9a-f]{12})?\.tmp")


def temp_target(name: str) -> str | None:
    """The file name a temporary named ``name`` was being written for (an interrupted
    write leaves one), or None when ``name`` is not a temporary of ours."""
    m = _TMP_NAME.fullmatch(name)
    return m["name"] if m else None


def os_error(path: str | Path, error: OSError) -> OutputError:
    """An ``OSError`` as one clear line that names the path."""
    reason = error.strerror or str(error) or type(error).__name__
    return OutputError(f"cannot write {path}: {reason}")


def _check_folder(folder: Path, mkdir: bool) -> None:
    """The folder a file is created in: created if asked, and a directory."""
    if mkdir:
        folder.mkdir(parents=True, exist_ok=True)
    if not stat.S_ISDIR(os.stat(folder).st_mode):
        raise NotADirectoryError(20, "not a directory", str(folder))


def _temp_name(path: Path, attempt: int) -> str:
    """The name of ``path``'s temporary at the ``attempt``-th try: unpredictable (the
    exclusive create is what makes a planted name harmless; tests predict it to plant)."""
    return f"{path.name}.{secrets.token_hex(6)}{TMP_SUFFIX}"


def _create_temp(path: Path) -> tuple[int, Path]:
    """Create ``path``'s temporary exclusively, without following links: (fd, its path)."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW | _CLOEXEC
    for attempt in range(100):
        tmp = path.with_name(_temp_name(path, attempt))
        try:
            fd = os.open(tmp, flags, 0o666)  # the umask applies, as for open(..., "w")
        except FileExistsError:
            continue  # a planted name (or a collision): never written through, try another
        try:
            _refuse_shared(fd, path, f"cannot write {path}: its temporary file")
        except BaseException:
            os.close(fd)
            _discard(None, tmp)
            raise
        return fd, tmp
    raise OutputError(f"cannot write {path}: no free temporary name beside it")


@contextlib.contextmanager
def atomic_file(path: str | Path, mkdir: bool = True) -> Iterator[IO[bytes]]:
    """Yield a binary file to write; on success it replaces ``path`` atomically.

    The file is a temporary created exclusively beside ``path`` (see the module
    docstring); on any exception it is removed and the target is left untouched; an
    ``OSError`` (disk full, permissions) is re-raised as ``OutputError`` naming ``path``.
    """
    path = Path(path)
    tmp: Path | None = None
    f: IO[bytes] | None = None
    try:
        _check_folder(path.parent, mkdir)
        fd, tmp = _create_temp(path)
        f = os.fdopen(fd, "wb")
        yield f
        f.flush()
        os.fsync(f.fileno())
        f.close()
        os.replace(tmp, path)
    except OSError as e:
        _discard(f, tmp)
        raise os_error(path, e) from None
    except BaseException:
        _discard(f, tmp)
        raise


def _discard(f: IO[bytes] | None, tmp: Path | None) -> None:
    if f is not None:
        with contextlib.suppress(OSError, ValueError):
            f.close()
    if tmp is not None:
        with contextlib.suppress(OSError):
            tmp.unlink()


def append(path: str | Path, data: bytes) -> None:
    """Append ``data`` to the log ``path`` (created if missing) in one ``write`` and fsync
    it, never through a link: a symbolic link, hard-linked or special file there is one
    ``OutputError`` and nothing is appended to what it leads to."""
    path = Path(path)
    flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT | _NOFOLLOW | _CLOEXEC
    try:
        fd = os.open(path, flags, 0o644)
    except OSError as e:
        if os.path.islink(path):
            raise OutputError(f"cannot write {path}: it is a symbolic link; bonfire_sim "
                              f"never makes links: remove it and try again") from None
        raise os_error(path, e) from None
    try:
        _refuse_shared(fd, path, f"cannot write {path}: it")
        os.write(fd, data)
        os.fsync(fd)
    except OSError as e:
        raise os_error(path, e) from None
    finally:
        os.close(fd)


def write_text(path: str | Path, text: str) -> Path:
    """Write ``text`` (UTF-8) to ``path`` atomically; returns the path."""
    return write_bytes(path, text.encode("utf-8"))


def write_bytes(path: str | Path, data: bytes) -> Path:
    """Write ``data`` to ``path`` atomically; returns the path."""
    path = Path(path)
    with atomic_file(path) as f:
        f.write(data)
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
