"""The scripts' argument parser: bad input is one ``Error:`` line and exit 2, as in the
``bonfire-sim`` commands, not argparse's usage block (subcommands inherit the class)."""

from __future__ import annotations

import argparse
import sys
from typing import NoReturn


class OneLineParser(argparse.ArgumentParser):
    """``argparse.ArgumentParser`` whose errors are one line on stderr, exit 2."""

    def error(self, message: str) -> NoReturn:
        sys.stderr.write(f"Error: {message} (see {self.prog} --help)\n")
        raise SystemExit(2)
