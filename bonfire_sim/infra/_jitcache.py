"""Point numba's on-disk cache at a directory keyed by the kernels' source code.

numba's ``cache=True`` re-validates a function only against its OWN file: edit a rule
kernel and every caller compiled in another file keeps running the old code from cache.
For a simulator whose numbers must be trusted that is unacceptable, so the cache lives in
a directory named after a hash of every file that holds kernels; any edit starts a fresh
cache.  Inside it the compiled files are named after the subpackage, not the install path,
so two venvs, containers or worktrees of the same sources share one compile (numba's own
index checks each file's content hash, not its path or mtime).  ``BONFIRE_SIM_CACHE_DIR``
overrides the root (default: the user cache directory).

The kernels are compiled for numba's ``generic`` CPU of the architecture (x86-64's
baseline), not for this machine's: numba keys every cached kernel by the CPU name and
features it was compiled for, so only a generic compile can load on another machine, and
that is what lets a release wheel carry the compiled engine (``infra.shipped_cache``).
It costs no measurable speed (docs/explanation/performance.md) and plays the same games.
numba sets its CPU for the whole process, so importing the engine sets
``NUMBA_CPU_NAME=generic`` unless it is set already (a user's own ``NUMBA_CPU_NAME``
wins; the wheel's compiled engine is then not used and the kernels compile for it).

Only our own kernels are routed there (a numba cache locator for files of this package,
``strategies`` included): ``NUMBA_CACHE_DIR`` and the user's own numba code are untouched.  The
locator is installed when numba is first imported (``install_import_hook``), not when
``bonfire_sim`` is, so importing the package imports nothing heavy and sets nothing.
"""

from __future__ import annotations

import hashlib
import os
import sys
import sysconfig
from importlib.abc import MetaPathFinder
from pathlib import Path
from typing import Any

_PKG = Path(__file__).resolve().parent.parent  # bonfire_sim/
_SOURCES = ("rules", "sim", "strategies")


def source_hash() -> str:
    """Hash of every kernel-bearing source file (names and contents).

    All of rules/ and strategies/ count (their module constants are compiled in), with the
    weight rows in strategies/rows/; of sim/ only the files that define kernels.
    """
    h = hashlib.sha256()
    for sub in _SOURCES:
        folder = (_PKG / sub).resolve()
        for f in sorted(folder.glob("*.py")) if folder.is_dir() else ():
            data = f.read_bytes()
            if sub == "sim" and b"@njit" not in data:
                continue  # sim/ also holds plain-Python modules (runner, traces)
            h.update(f.name.encode())
            h.update(data)
    # The built-in weight rows kept as data (strategies/rows/*.toml) are compiled in too:
    # sim.loop.DEFAULT_ROWS is a global array, frozen into the cached kernels, so a changed
    # row must start a fresh cache like a changed kernel.
    # The learned player's network (rows/learned.json) is a global array too.
    rows = _PKG / "strategies" / "rows"
    for f in sorted([*rows.glob("*.toml"), *rows.glob("*.json")]):
        h.update(f.name.encode())
        h.update(f.read_bytes())
    return h.hexdigest()[:16]


def cache_root() -> str:
    """bonfire_sim's user cache directory (compiled kernels, fork tables)."""
    return os.environ.get("BONFIRE_SIM_CACHE_DIR") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "bonfire_sim"
    )


def cache_dir() -> str:
    """The cache directory of the current kernel sources."""
    return os.path.join(cache_root(), f"numba-{source_hash()}")


# numba's name for the architecture's baseline CPU (no host-specific instructions)
GENERIC_CPU = "generic"


def choose_cpu() -> None:
    """Make numba compile for the generic CPU in this process and its children unless
    ``NUMBA_CPU_NAME`` names another (called before numba reads its configuration)."""
    if not os.environ.get("NUMBA_CPU_NAME"):
        os.environ["NUMBA_CPU_NAME"] = GENERIC_CPU


def target() -> dict[str, str]:
    """What numba's cached kernels are valid for besides their sources: numba refuses a
    cache of another numba version, Python version or CPU target (name and features).
    Read without importing numba (a command asks before its heavy imports)."""
    from importlib.metadata import version

    cpu = os.environ.get("NUMBA_CPU_NAME") or GENERIC_CPU
    features = os.environ.get("NUMBA_CPU_FEATURES")
    return {"numba": version("numba"), "llvmlite": version("llvmlite"),
            "python": (f"{sys.implementation.name}-{sys.version_info[0]}."
                       f"{sys.version_info[1]}{getattr(sys, 'abiflags', '')}"),
            "platform": sysconfig.get_platform(), "cpu": cpu,
            # numba's default features: none for the generic CPU, the host's otherwise
            "features": features if features is not None else
            ("" if cpu.lower() == GENERIC_CPU else "host")}


_OURS = (str(_PKG) + os.sep,)
_INSTALLED: list[str] = []


def configure() -> str:
    """Route our kernels' numba cache to ``cache_dir()`` (idempotent); returns it.

    Must run before the kernels are decorated (the import hook sees to that).
    """
    if _INSTALLED:
        return _INSTALLED[0]
    from numba.core import caching

    path = cache_dir()

    class BonfireCacheLocator(caching.UserProvidedCacheLocator):
        """numba's user-directory locator, for bonfire_sim's own files only."""

        def __init__(self, py_func: Any, py_file: str) -> None:
            self._py_file = py_file
            self._lineno = py_func.__code__.co_firstlineno
            self._cache_path = os.path.join(path, self.get_suitable_cache_subpath(py_file))

        @classmethod
        def get_suitable_cache_subpath(cls, py_file: str) -> str:
            # numba names the subfolder after a hash of the file's absolute folder, so every
            # venv, container layer or worktree of the same version compiled again.  The
            # folder is keyed by the sources' hash already (and numba checks each file's
            # content hash), so the subpackage's name is enough: installs of the same
            # sources anywhere share one compile.
            rel = os.path.relpath(os.path.dirname(os.path.abspath(py_file)), _PKG)
            return "pkg" if rel == os.curdir else rel.replace(os.sep, "_")

        @classmethod
        def from_function(cls, py_func: Any, py_file: str) -> Any:
            if not os.path.abspath(py_file).startswith(_OURS):
                return None
            return super(caching.UserProvidedCacheLocator, cls).from_function(py_func, py_file)

    caching.CacheImpl._locator_classes.insert(0, BonfireCacheLocator)
    _INSTALLED.append(path)
    return path


class _EngineImportHook(MetaPathFinder):
    """Configures the cache right after numba itself is first imported (before any kernel
    can be decorated); bonfire_sim's locator only ever matches bonfire_sim's own files."""

    def find_spec(self, name: str, path: Any = None, target: Any = None) -> Any:
        if name != "numba":
            return None
        if self in sys.meta_path:
            sys.meta_path.remove(self)
        for finder in sys.meta_path:
            find = getattr(finder, "find_spec", None)
            spec = find(name, path, target) if find else None
            if spec is not None:
                break
        else:
            return None
        loader = spec.loader
        if loader is None or not hasattr(loader, "exec_module"):
            return spec
        real_exec = loader.exec_module

        def exec_module(module: Any) -> None:
            choose_cpu()  # before numba reads its configuration
            real_exec(module)
            configure()

        loader.exec_module = exec_module
        return spec


def install_import_hook() -> None:
    """Arrange for ``configure()`` to run as soon as numba is imported (at once if it is
    already): importing bonfire_sim alone imports nothing heavy and changes nothing."""
    if _INSTALLED or any(isinstance(f, _EngineImportHook) for f in sys.meta_path):
        return
    if "numba" in sys.modules:
        # numba read its configuration already: reread it now.  A CPU target numba set up
        # before (the user compiled something first) keeps its features: the kernels then
        # compile here instead of loading the generic cache (slower to start, not wrong).
        choose_cpu()
        from numba.core import config

        config.reload_config()
        configure()
    else:
        sys.meta_path.insert(0, _EngineImportHook())
