"""bonfire_sim: a Monte-Carlo simulator and balance lab for Stefan Feld's *Bonfire*.

Importing the package is cheap: the numba-compiled engine is loaded only when one of the
lazy names below is first used (``bonfire_sim.play``, ``bonfire_sim.load``,
``bonfire_sim.run``, ``bonfire_sim.sweep``).  Importing it imports nothing heavy and
leaves numba's cache settings alone (only bonfire_sim's own kernels are cached in its
directory); in a process with numba, numba compiles for its generic CPU unless
``NUMBA_CPU_NAME`` is set, which a compiled engine shared across machines needs
(``infra._jitcache``).
"""

from __future__ import annotations

import importlib
from importlib.metadata import PackageNotFoundError, version
from typing import Any

from bonfire_sim.infra import _jitcache

_jitcache.install_import_hook()  # numba is configured only when the engine is imported

try:
    __version__ = version("bonfire-sim")
except PackageNotFoundError:  # running from a source tree that was never installed
    __version__ = "0.1.0"

# name -> (module, attribute): imported on first access by __getattr__ (PEP 562)
_LAZY: dict[str, tuple[str, str]] = {
    "play": ("bonfire_sim.sim.play", "play"),
    "load": ("bonfire_sim.sim.load", "load"),
    "run": ("bonfire_sim.api", "run"),
    "sweep": ("bonfire_sim.api", "sweep"),
    "RunData": ("bonfire_sim.sim.load", "RunData"),
}

__all__ = ["__version__", *_LAZY]


def __getattr__(name: str) -> Any:
    """Import a lazy public name on first use and cache it in the module namespace."""
    if name not in _LAZY:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    module_name, attr = _LAZY[name]
    value = getattr(importlib.import_module(module_name), attr)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_LAZY})
