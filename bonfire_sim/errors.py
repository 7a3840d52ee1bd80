"""Domain errors.  The CLI turns each into one ``Error: <message>`` line and exit code 2."""

from __future__ import annotations


class BonfireError(Exception):
    """Base of every error bonfire_sim raises on purpose."""


class ConfigError(BonfireError, ValueError):
    """A parameter, experiment or command-line setting is invalid."""


class DataError(BonfireError):
    """Component data, a results file or a trace is missing or malformed."""


class IllegalMoveError(BonfireError):
    """A move was applied that the rules do not allow in this state."""


class OutputError(BonfireError):
    """A file or directory cannot be written (bad path, permissions, disk full)."""


class EngineMismatchError(BonfireError):
    """Stored results were made by a different engine (rules, package or library versions)."""


class PluginError(BonfireError):
    """A plug-in strategy failed or answered nonsense (the message names seat, seed, turn)."""


class WorkerError(BonfireError):
    """A worker process ended unexpectedly (killed, out of memory, or code that exited or
    crashed it, such as a plug-in calling ``os._exit``)."""
