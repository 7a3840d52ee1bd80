"""Registry of CLI commands: name -> "module:attribute" of a ``click.Command``.

To add a command, write ``bonfire_sim/cli/<name>.py`` with a thin click command (parse,
call one library function, print) and add one line here.  Rules for command modules:

* import heavy modules (numba kernels, polars, matplotlib) inside the command function,
  not at module top, so ``bonfire-sim --help`` stays fast;
* the help text has an ``Example:`` block, its command lines in a ``\b`` paragraph so
  click keeps them on their own lines (``tests/test_cli.py`` parses each one), and the
  command has a row in the README's CLI table;
* a long command shows progress through ``bonfire_sim.infra.progress`` and takes
  ``options.quiet_option``;
* raise ``bonfire_sim.errors.BonfireError`` (or ValueError) for bad input: the group
  turns it into one ``Error: ...`` line and exit code 2.
"""

from __future__ import annotations

COMMANDS: dict[str, str] = {
    "cards": "bonfire_sim.cli.cards:cards",
    "replay": "bonfire_sim.cli.replay:replay",
    "view": "bonfire_sim.cli.view:view",
    "strategies": "bonfire_sim.cli.strategies_cmd:strategies",
    "ladder": "bonfire_sim.cli.ladder:ladder",
    "run": "bonfire_sim.cli.run:run",
    "bench": "bonfire_sim.cli.bench:bench",
    "solo": "bonfire_sim.cli.solo:solo",
    "coverage": "bonfire_sim.cli.coverage:coverage",
    "report": "bonfire_sim.cli.report:report",
    "experiment": "bonfire_sim.cli.experiment:experiment",
    "compare": "bonfire_sim.cli.compare:compare",
    "sequential": "bonfire_sim.cli.sequential:sequential",
    "check": "bonfire_sim.cli.check:check",
    "sensitivity": "bonfire_sim.cli.sensitivity:sensitivity",
    "tune": "bonfire_sim.cli.tune:tune",
    "reprice": "bonfire_sim.cli.reprice:reprice",
    "values": "bonfire_sim.cli.values:values",
    "expert": "bonfire_sim.cli.expert:expert",
    "warm": "bonfire_sim.cli.warm:warm",
    "strength": "bonfire_sim.cli.strength:strength",
    "errata": "bonfire_sim.cli.errata:errata",
}
