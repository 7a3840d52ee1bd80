"""The ``bonfire-sim`` click group: lazy command loading and clean error messages."""

from __future__ import annotations

import importlib
import os
import sys
from typing import Any

import click

from bonfire_sim import __version__
from bonfire_sim.cli.commands import COMMANDS
from bonfire_sim.errors import BonfireError

# The exit status of a command whose reader went away (``... | head -1``): 128 + SIGPIPE,
# what a shell reports for a Unix tool killed by the closed pipe.
EXIT_CLOSED_PIPE = 141

# Set to 1 to see the full traceback of a domain error instead of the one-line message.
TRACEBACK_ENV = "BONFIRE_SIM_TRACEBACK"


class CleanError(click.ClickException):
    """A domain error shown as one ``Error: <message>`` line on stderr, exit code 2."""

    exit_code = 2

    def __init__(self, error: Exception) -> None:
        message = " ".join(part.strip() for part in str(error).splitlines() if part.strip())
        super().__init__(message or type(error).__name__)


class ClosedPipe(Exception):
    """stdout's reader went away while a command printed (``... | head -1``)."""


class LazyGroup(click.Group):
    """A group whose commands are imported from ``COMMANDS`` only when needed."""

    def __init__(self, *args: Any, lazy_commands: dict[str, str], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.lazy_commands = lazy_commands

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*super().list_commands(ctx), *self.lazy_commands})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name in self.lazy_commands and cmd_name not in self.commands:
            self.add_command(load_command(self.lazy_commands[cmd_name]), cmd_name)
        return super().get_command(ctx, cmd_name)

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except BrokenPipeError as error:
            # The reader left: not the user's error.  Not an OSError any more, or click's
            # own handler would exit 1 (which ``check`` reserves for "the assertion fails").
            raise ClosedPipe from error
        except (BonfireError, ValueError) as error:
            if os.environ.get(TRACEBACK_ENV) == "1":
                raise
            raise CleanError(error) from error
        except OSError as error:  # disk full, permissions, a path that is a directory
            if os.environ.get(TRACEBACK_ENV) == "1":
                raise
            where = f"{error.filename}: " if error.filename else ""
            raise CleanError(ValueError(f"{where}{error.strerror or error}")) from error

    def main(self, *args: Any, standalone_mode: bool = True, **kwargs: Any) -> Any:
        """Like click's, but a usage error is one line (``Error: ... (see --help)``)."""
        run: Any = super().main  # click's overloads do not admit forwarded *args
        if not standalone_mode:
            return run(*args, standalone_mode=False, **kwargs)
        try:
            rv = run(*args, standalone_mode=False, **kwargs)
        except (ClosedPipe, BrokenPipeError):
            end_quietly_on_closed_pipe()
        except click.UsageError as error:
            hint = f" (see '{error.ctx.command_path} --help')" if error.ctx else ""
            message = " ".join(error.format_message().split())
            click.echo(f"Error: {message}{hint}", err=True)
            sys.exit(2)
        except click.ClickException as error:
            error.show()
            sys.exit(error.exit_code)
        except click.Abort as error:
            if isinstance(error.__context__, KeyboardInterrupt):
                click.echo("Error: interrupted (Ctrl-C)", err=True)
                sys.exit(130)  # 128 + SIGINT, as shells report a command stopped by Ctrl-C
            click.echo("Aborted!", err=True)
            sys.exit(1)
        except KeyboardInterrupt:
            click.echo("Error: interrupted (Ctrl-C)", err=True)
            sys.exit(130)
        sys.exit(rv if isinstance(rv, int) else 0)


def end_quietly_on_closed_pipe() -> None:
    """Exit 141 without a word when stdout's reader has gone (``replay ... | head -1``).

    Python ignores SIGPIPE, so the write raises; stdout is pointed at /dev/null first so
    the interpreter's final flush of the unwritten rest cannot raise a second time."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):  # stdout already closed or not a real file
        pass
    finally:
        os.close(devnull)
    sys.exit(EXIT_CLOSED_PIPE)


def load_command(target: str) -> click.Command:
    """Import ``"module:attribute"`` and check that it is a click command."""
    module_name, _, attr = target.partition(":")
    command = getattr(importlib.import_module(module_name), attr)
    if not isinstance(command, click.Command):
        raise TypeError(f"{target} is not a click command")
    return command


def _verbosity(ctx: click.Context, param: click.Parameter, value: int) -> int:
    """``-v`` logs what the package does at INFO (cache directory, compile parts, chunks
    written), ``-vv`` at DEBUG, on stderr; without it only warnings are logged."""
    import logging

    level = logging.WARNING if value == 0 else logging.INFO if value == 1 else logging.DEBUG
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    logging.getLogger("bonfire_sim").setLevel(level)
    return value


@click.group(cls=LazyGroup, lazy_commands=COMMANDS)
@click.version_option(__version__, "--version", prog_name="bonfire-sim")
@click.option("-v", "--verbose", count=True, expose_value=False, is_eager=True,
              callback=_verbosity,
              help="Log what the package does on stderr (-v: steps, -vv: details).")
def main() -> None:
    """Monte-Carlo simulator and balance lab for Stefan Feld's Bonfire.

    Example:

    \b
        bonfire-sim cards --kind tasks --format table
        bonfire-sim -v run --games 200 --players 2 --out runs/first
    """


if __name__ == "__main__":
    main()
