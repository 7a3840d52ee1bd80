"""The append-only log of finished chunks beside a run's manifest.

Rewriting ``manifest.json`` after every chunk made a run quadratic in its chunk count: at
10 million games that is 20,000 rewrites of a manifest growing to megabytes, all by the
one client process, long before the workers are the bottleneck.  Instead each finished
chunk appends one JSON line (its manifest entry) to ``chunks.jsonl`` and fsyncs it: O(1)
per chunk.  The manifest itself is written at the start and once more when the run is
merged, with every chunk entry folded in; then the log is removed.

Crash safety: a chunk's files are written (atomically) before its line, so a listed chunk
always has its files.  A crash during an append can leave a torn last line (no newline);
it is ignored and that chunk is simply played again on ``--resume``.  Any other line that
is not a well-formed entry means the log was edited: refused, naming the line.  A later
line for the same chunk index replaces an earlier one (a chunk recomputed after its files
were found corrupt).
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from bonfire_sim.errors import DataError
from bonfire_sim.infra import fileio, readers

LOG = "chunks.jsonl"


def append(out: Path, entry: Mapping[str, Any]) -> None:
    """Append one finished chunk's manifest entry to the run's log (fsynced)."""
    line = json.dumps(dict(entry), sort_keys=True, separators=(",", ":"), allow_nan=False)
    # O_APPEND: one write() per line, so concurrent readers never see half a line except
    # at the very end after a crash (handled in ``read``); never through a planted link.
    fileio.append(Path(out) / LOG, (line + "\n").encode())


def read(out: Path) -> dict[str, dict[str, Any]]:
    """The chunk entries the log holds, by chunk index (as a string, like the manifest)."""
    path = Path(out) / LOG
    try:
        data = readers.read_bytes(path, "chunk log")  # a FIFO here is refused, not waited on
        links = os.stat(path).st_nlink
    except FileNotFoundError:
        return {}
    except OSError as e:
        raise DataError(f"{path} is unreadable ({e.strerror})") from None
    if links > 1:  # appending would write into the file's other name, wherever it is
        raise DataError(f"{path} has {links} hard links; a run's chunk log has one name "
                        f"(bonfire_sim never makes links): remove the link, or start the run "
                        f"afresh in a new directory")
    lines = data.split(b"\n")
    # the part after the last newline is a torn append (or empty): not a finished chunk
    complete, _torn = lines[:-1], lines[-1]
    entries: dict[str, dict[str, Any]] = {}
    for number, raw in enumerate(complete, 1):
        try:
            entry = readers.parse_json(raw, f"{path} line {number}")
            index = entry["index"]
        except (ValueError, TypeError, KeyError):
            raise DataError(f"{path} line {number} is not a chunk entry: the run's chunk "
                            f"log was edited or damaged; start the run afresh in a new "
                            f"directory") from None
        if not isinstance(entry, dict) or isinstance(index, bool) or not isinstance(index, int):
            raise DataError(f"{path} line {number} is not a chunk entry: the run's chunk "
                            f"log was edited or damaged; start the run afresh in a new "
                            f"directory")
        entries[str(index)] = entry
    return entries


def remove(out: Path) -> None:
    """Drop the log once the manifest lists every chunk (a missing log is fine)."""
    try:
        (Path(out) / LOG).unlink(missing_ok=True)
    except OSError as e:
        raise fileio.os_error(Path(out) / LOG, e) from None
