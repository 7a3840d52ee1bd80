"""Files only this user's bonfire_sim may read back: signed with a per-user key.

Some state has no faithful data format: ``cma``'s optimiser exists only as a Python
object, and a pickle of it is code - unpickling a crafted file runs whatever it says.  So
such a file is written as ``MAGIC``, an HMAC-SHA256 of the payload under a secret key of
this user, and the payload; ``verified`` checks the HMAC *before* the payload is handed to
anything, and refuses a file without one, with a foreign one or a damaged one.  A study
folder someone else sends therefore cannot run code here; its JSON side stays readable.

The key: 32 random bytes in ``$XDG_CONFIG_HOME/bonfire_sim/state.key`` (default
``~/.config/bonfire_sim/state.key``), created on first use, mode 0600 in a 0700 folder.
Deleting the key makes every signed file unreadable (refused, never run).
"""

from __future__ import annotations

import hashlib
import hmac
import os
import secrets
import stat
from pathlib import Path

from bonfire_sim.errors import ConfigError

MAGIC = b"bonfire_sim-signed-v1\n"
KEY_BYTES = 32
DIGEST = hashlib.sha256().digest_size


def key_path() -> Path:
    """Where this user's key lives (it may not exist yet)."""
    base = os.environ.get("XDG_CONFIG_HOME") or os.path.expanduser("~/.config")
    return Path(base) / "bonfire_sim" / "state.key"


def _create(path: Path) -> None:
    """Create the key atomically: a concurrent first use never sees half a key."""
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    tmp = path.with_name(f"{path.name}.{os.getpid()}.{secrets.token_hex(4)}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        os.write(fd, secrets.token_bytes(KEY_BYTES))
        os.fsync(fd)
    finally:
        os.close(fd)
    try:
        os.link(tmp, path)  # fails if another process made the key first: keep theirs
    except FileExistsError:
        pass
    finally:
        tmp.unlink()


def user_key() -> bytes:
    """This user's signing key, created on first use; refused if others may read it."""
    path = key_path()
    try:
        if not path.exists():
            _create(path)
        info = path.stat()
        key = path.read_bytes()
    except OSError as e:
        raise ConfigError(f"cannot read or create the signing key {path}: "
                          f"{e.strerror or e}") from None
    if not stat.S_ISREG(info.st_mode) or info.st_mode & 0o077 or len(key) < KEY_BYTES:
        raise ConfigError(f"the signing key {path} must be a private file of >= {KEY_BYTES} "
                          f"bytes (chmod 600); delete it to make a new one (files signed "
                          f"with it can then no longer be resumed)")
    return key


def sign(payload: bytes) -> bytes:
    """``payload`` as a signed file's bytes."""
    return MAGIC + hmac.new(user_key(), payload, hashlib.sha256).digest() + payload


def verified(blob: bytes, path: Path, what: str, how_to_go_on: str) -> bytes:
    """The payload of a signed file, or one ``ConfigError`` if this user did not sign it.

    Nothing of ``blob`` past the signature is looked at before the check."""
    head, mac = blob[:len(MAGIC)], blob[len(MAGIC):len(MAGIC) + DIGEST]
    payload = blob[len(MAGIC) + DIGEST:]
    if head != MAGIC or len(mac) != DIGEST or not hmac.compare_digest(
            mac, hmac.new(user_key(), payload, hashlib.sha256).digest()):
        raise ConfigError(f"{path} was not written by your bonfire-sim ({what} is code, so "
                          f"only a file signed with your key {key_path()} is opened); "
                          f"{how_to_go_on}")
    return payload


__all__ = ["key_path", "sign", "verified", "user_key"]
