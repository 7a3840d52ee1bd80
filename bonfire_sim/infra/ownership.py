"""Who may write where: a run directory (or a tuning study) belongs to the command that
made it, and one process at a time.

Run directories are verified file by file when they are loaded (``sim.load``): a page, a
CSV or another run written into one makes it unloadable.  So every command asks
``check_may_write`` about each of its outputs before it does any work, and a file name a
command picks by itself (not one the user typed, e.g. a sweep's ``sweep.csv``) is
replaced only if the command wrote it (``check_may_replace``).

``locked`` is the lock a writer holds on its run or study: ``LOCK`` in the folder holds
the writer's pid and host, and an advisory ``flock`` on it says whether that writer is
alive.  The kernel drops the ``flock`` when its process dies however it dies, so a lock
file a killed process left behind is recovered without anyone deleting it.  The lock
file is the one file not written through ``fileio``'s atomic writer (a lock must be
taken in place, and it holds no data, only a note of who holds it), but it is opened
by ``nofollow.open_lock``: never through a link, and a hard-linked or special file there
is refused before it is truncated or written (a shared folder may hold one planted).

This module sits beside ``fileio`` (below every layer): it knows the marker files of a
run and a study by name, not the modules that write them.
"""

from __future__ import annotations

import contextlib
import os
import socket
from collections.abc import Callable, Iterator
from pathlib import Path

from bonfire_sim.errors import BonfireError, OutputError
from bonfire_sim.infra.nofollow import open_lock

MANIFEST = "manifest.json"  # a run directory's manifest (sim.runner writes it)
RUN_FORMAT = "bonfire_sim-run"
STUDY = "study.json"  # a tuning study's state (tune writes it)
STUDY_FORMAT = "bonfire_sim-tune"
LOCK = "bonfire.lock"  # in a run or study folder while a process writes it
KINDS = {"run": (MANIFEST, RUN_FORMAT), "study": (STUDY, STUDY_FORMAT)}
NAMES = {"run": "run directory", "study": "tuning study"}


def folder_kind(folder: Path) -> str | None:
    """``"run"`` or ``"study"`` when ``folder`` holds one (by its marker file), else None."""
    from bonfire_sim.infra import readers  # a FIFO named manifest.json: not ours, no wait

    for kind, (marker, fmt) in KINDS.items():
        path = folder / marker
        try:
            if not path.is_file():
                continue
            doc = readers.parse_json(readers.read_bytes(path, marker), path)
        except (OSError, ValueError, BonfireError):
            continue  # unreadable: not recognisably ours (load refuses it on its own)
        if isinstance(doc, dict) and doc.get("format") == fmt:
            return kind
    return None


def _absolute(path: str | Path) -> Path:
    """``path`` made absolute with symlinks resolved (a link into a run is in the run)."""
    return Path(path).expanduser().resolve(strict=False)


def _shown(folder: Path) -> str:
    """A folder as the user would write it: relative to the working directory if inside."""
    try:
        return str(folder.relative_to(Path.cwd().resolve())) or "."
    except ValueError:
        return str(folder)


def owner(path: str | Path, own: str | Path | None = None,
          own_kind: str | None = None) -> tuple[str, Path] | None:
    """The (kind, folder) of the run or study ``path`` would land in, other than ``own``.

    Every folder from ``path`` itself up to the root is looked at, so a run nested in a
    run nested in a run is found at any depth.  ``own`` (of kind ``own_kind``) is the
    folder the command itself writes, e.g. the run ``run --resume`` completes.
    """
    target = _absolute(path)
    mine = _absolute(own) if own is not None else None
    for folder in (target, *target.parents):
        kind = folder_kind(folder)
        if kind is not None and not (folder == mine and kind == own_kind):
            return kind, folder
    return None


def check_may_write(path: str | Path, own: str | Path | None = None,
                    own_kind: str | None = None) -> Path:
    """Refuse ``path`` (a file or folder a command is about to write) when it lies in a
    run directory or tuning study other than ``own``; returns ``path``.

    Called before any work, so a refused command has written nothing.
    """
    found = owner(path, own, own_kind)
    if found is not None:
        kind, folder = found
        raise OutputError(
            f"cannot write {path}: it is inside the {NAMES[kind]} {_shown(folder)}, which "
            f"holds only its own files; choose a path outside it")
    return Path(path)


def check_may_replace(path: str | Path, ours: Callable[[Path], bool]) -> Path:
    """Refuse to replace an existing file at ``path`` that ``ours(path)`` does not
    recognise as written by this command (for file names a command picks by itself)."""
    path = Path(path)
    if path.exists() and not (path.is_file() and ours(path)):
        raise OutputError(
            f"cannot write {path}: a file of that name exists that bonfire-sim did not "
            f"write; move it away or choose another output folder")
    return path


# ---- the writer's lock ----------------------------------------------------------------------
def lock_holder(folder: str | Path) -> str:
    """What the lock file of ``folder`` says about its holder ("process PID on HOST")."""
    from bonfire_sim.infra import readers  # below fileio, which imports this module

    try:
        text = readers.read_bytes(Path(folder) / LOCK, "lock file").decode(
            "utf-8", "replace").split()
    except (OSError, BonfireError):
        text = []
    if len(text) >= 2 and text[0].isdigit():
        host = "" if text[1] == socket.gethostname() else f" on {text[1]}"
        return f"process {text[0]}{host}"
    return "another process"


def _flock(fd: int) -> bool:
    """Take an exclusive advisory lock on ``fd`` without waiting; False if it is held."""
    try:
        import fcntl
    except ImportError:  # no advisory locks (Windows): every writer proceeds, as before
        return True
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    return True


def _acquire(folder: Path) -> int:
    """Open and lock ``folder/LOCK``; the locked descriptor, or OutputError naming the holder.

    A process may unlink the file (on release) between our open and our flock; then we
    hold a lock on a dead inode, so we check that the path still is what we locked.
    """
    path = folder / LOCK
    while True:
        fd = open_lock(path)  # no link followed; a hard-linked lock is refused
        if not _flock(fd):
            os.close(fd)
            raise OutputError(
                f"{_shown(_absolute(folder))} is in use by {lock_holder(folder)} (lock file "
                f"{LOCK}); wait for it to finish, or stop it")
        try:
            same = os.fstat(fd).st_ino == os.stat(path).st_ino
        except FileNotFoundError:
            same = False
        if same:
            return fd
        os.close(fd)


@contextlib.contextmanager
def locked(folder: str | Path) -> Iterator[None]:
    """Hold the writer's lock of ``folder`` (created, with its parents, if missing).

    A second writer is refused at once with one line naming the holder's pid; a lock file
    whose process is gone is taken over.  On exit the lock file is removed, and so are
    the folders this call created if they were left empty (a refused or failed start
    leaves nothing behind).
    """
    folder = Path(folder)
    new_dirs = [d for d in (folder, *folder.parents) if not d.exists()]
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise OutputError(f"cannot create {folder}: {e.strerror or e}") from None
    try:
        fd = _acquire(folder)
    except BaseException:
        _remove_empty(new_dirs)
        raise
    try:
        with contextlib.suppress(OSError):  # a full disk: the lock holds, its note is empty
            os.ftruncate(fd, 0)
            os.write(fd, f"{os.getpid()} {socket.gethostname()}\n".encode())
        yield
    finally:
        with contextlib.suppress(OSError):
            os.unlink(folder / LOCK)  # while still holding it: see _acquire
        os.close(fd)
        _remove_empty(new_dirs)


def _remove_empty(dirs: list[Path]) -> None:
    for d in dirs:  # innermost first
        with contextlib.suppress(OSError):
            d.rmdir()
