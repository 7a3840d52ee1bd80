"""Optional dependencies: imported only where used, with one line saying what to install.

The core (run, load, the analysis API) needs none of these.  ``require`` imports one and,
when it is missing, raises a ``ConfigError`` (one ``Error:`` line from the CLI) naming the
extra to install, before the command does any work where it can (``check``).
"""

from __future__ import annotations

import importlib
from types import ModuleType

from bonfire_sim.errors import ConfigError

# module -> (extra that installs it, what needs it)
EXTRAS = {
    "cma": ("tune", "tuning (bonfire-sim tune)"),
    "seaborn": ("report", "the report's figures (bonfire-sim report / compare / experiment)"),
}


def require(module: str) -> ModuleType:
    """Import an optional module, or say in one line which extra installs it."""
    extra, what = EXTRAS[module]
    try:
        return importlib.import_module(module)
    except ImportError:
        raise ConfigError(f"{what} needs {module}, which is not installed: run "
                          f"pip install 'bonfire-sim[{extra}]'") from None


def check(*modules: str) -> None:
    """``require`` each module, up front (before a command spends minutes on work)."""
    for m in modules:
        require(m)
