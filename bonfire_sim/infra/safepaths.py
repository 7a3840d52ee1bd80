"""Paths that come from data stay inside the directory that holds the data.

A run manifest names its files relative to the run directory.  A manifest is data that
people pass around, so a file name in it must never lead elsewhere: not an absolute path,
not ``..``, not through a symbolic link that points out of the directory.  ``inside`` is
the one check every reader uses before touching such a path, and it decides from the
path's text and the links inside the directory alone: its message is the same whether
anything exists at the outside target, so a crafted manifest learns nothing about the
reader's other files (existence, size or checksum).

A path's text is taken literally, so before the "inside" test anything another layer
would expand is refused: a leading ``~`` (home folder), ``$VAR``/``${VAR}`` (environment),
a URI or drive (``file:``, ``s3://``; pyarrow and fsspec resolve those), glob characters
(``*?[]``: polars and fsspec expand them), and absurd lengths or depths (which end in an
``OSError`` deep inside a writer).  Every reader of such paths (manifests, experiment,
check and sensitivity files) uses this one test.

``refuse_links`` guards writes: before a command writes into an existing directory (a
run being resumed) it refuses any symbolic link in it, so no write can follow a link out.
bonfire_sim never writes links, so a link there was put there by hand.
"""

from __future__ import annotations

import os
import re
from pathlib import Path, PurePosixPath, PureWindowsPath

from bonfire_sim.errors import ConfigError, DataError

MAX_PATH_CHARS = 1024  # far above any path bonfire_sim writes; PATH_MAX is 4096
MAX_PATH_PARTS = 32
_EXPANDED = re.compile(r"(^|/)~|\$|[*?\[\]]|:")  # home, variables, globs, URIs and drives


def _leads_out(base_real: str, text: str, base: Path) -> bool:
    """Whether ``text`` (a relative path from data) escapes ``base``, or would be
    expanded into another path by a layer below (see the module docstring)."""
    if not text or "\x00" in text or "\\" in text or _EXPANDED.search(text):
        return True
    if len(text) > MAX_PATH_CHARS or len(PurePosixPath(text).parts) > MAX_PATH_PARTS:
        return True
    if PurePosixPath(text).is_absolute() or PureWindowsPath(text).drive:
        return True
    if ".." in PurePosixPath(text).parts:
        return True
    # Follow the links inside ``base`` (realpath resolves a dangling link's text too, so
    # an outside target is refused alike whether or not it exists).
    try:
        real = os.path.realpath(base / text)
    except (OSError, ValueError):  # a link loop or a name the system cannot take
        return True
    return os.path.commonpath([base_real, real]) != base_real


def inside(base: str | Path, rel: object, where: str | Path) -> Path:
    """``base / rel`` when ``rel`` is a relative path that stays inside ``base``.

    ``where`` names the file that listed ``rel`` (for the message).  Anything else - not a
    string, empty, absolute, with ``..``, or through a symbolic link leading out of
    ``base`` - is one ``DataError`` that depends only on ``where`` and ``rel``.
    """
    base = Path(base)
    if not isinstance(rel, str) or _leads_out(os.path.realpath(base), rel, base):
        raise DataError(f"{where} names the file {str(rel)[:120]!r}, which leads outside "
                        f"{base}; bonfire_sim lists only files inside their own directory, "
                        f"so this file was altered: do not use it")
    return base / rel


def refuse_links(base: str | Path, what: str = "directory") -> None:
    """Refuse a symbolic link anywhere inside ``base`` (``base`` itself may be one: the
    user named it), before anything is written there."""
    base = Path(base)
    for root, dirs, files in os.walk(base):  # os.walk does not descend into linked dirs
        for name in (*dirs, *files):
            path = Path(root) / name
            if path.is_symlink():
                rel = path.relative_to(base).as_posix()
                raise DataError(f"{base} holds a symbolic link ({rel}); a bonfire_sim "
                                f"{what} never contains links and nothing is written "
                                f"through one: remove the link (or copy the {what} "
                                f"without links) and try again")


__all__ = ["inside", "refuse_links"]


def within(base: str | Path, rel: object, where: str, what: str) -> Path:
    """``rel`` when it is a relative path that stays inside ``base`` (a path an
    experiment file names: relative to the folder it is run from).

    The same test as ``inside``, with a message for files people write by hand: an
    experiment file from someone else cannot send outputs (or reads) elsewhere.
    """
    base = Path(base)
    if not isinstance(rel, str) or _leads_out(os.path.realpath(base), rel, base):
        raise ConfigError(f"{where}: {what} = {str(rel)[:120]!r} leads outside the folder "
                          f"it is run from ({base}); paths in a file you run (experiment, "
                          f"check, sensitivity, strength) must be relative and stay inside "
                          f"it (no "
                          f"absolute path, no '..', no link leading out, no '~', '$', ':' "
                          f"or '*?[]', at most "
                          f"{MAX_PATH_PARTS} levels)")
    return Path(rel)


def weights_files_within(base: str | Path, specs: object, where: str) -> None:
    """Refuse a ``style@file`` player spec in a shared file (an experiment or check file)
    whose weights file leads outside ``base`` (see ``within``)."""
    for spec in specs if isinstance(specs, list | tuple) else ():
        if isinstance(spec, str) and "@" in spec:
            name, _, file = spec.partition("@")
            within(base, file.strip(), where, f"the weights file of {name.strip()!r}")
