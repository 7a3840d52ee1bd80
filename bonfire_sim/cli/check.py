"""``bonfire-sim check``: balance assertions for CI, each decided by a sequential test."""

from __future__ import annotations

import click

from bonfire_sim.cli.options import FILE, backend_options, emit_rows, quiet_option


@click.command()
@click.argument("check_file", type=FILE, metavar="FILE.toml")
@click.option("--json", "as_json", is_flag=True, default=False,
              help="Print the results as JSON instead of a table.")
@click.option("--jobs", type=click.IntRange(min=1), default=None,
              help="Worker processes (the verdicts do not depend on it) "
                   "[default: the file's [check] jobs, else 1].")
@backend_options
@quiet_option
@click.pass_context
def check(ctx: click.Context, check_file: str, as_json: bool, jobs: int | None,
          quiet: bool) -> None:
    """Decide every [[assert]] of FILE.toml (a seat's win share, a strategy's score, a
    solo win rate against Tom, a task's or gnome's value, each of one configuration or
    as a paired difference from a baseline) with a sequential test on seeded deals,
    within each assertion's game budget.  The whole file is validated before any game.

    Exit code 0 when every assertion holds, 1 when one fails, 3 when none fails but one
    ran out of budget undecided, 2 for bad input.  The schema and a CI job: see
    docs/howto/ci-balance-check.md.

    Example:

    \b
        bonfire-sim check experiments/checks/holds.toml

    \b
        bonfire-sim check experiments/checks/fails.toml --json --quiet
    """
    from bonfire_sim.analysis.check import load_checks, run_checks
    from bonfire_sim.infra.progress import Progress

    plan = load_checks(check_file)
    with Progress(plan.budget, "check", "game", quiet=quiet) as bar:
        report = run_checks(plan, jobs=jobs, progress=bar.update, status=bar.write)
    if as_json:
        click.echo(report.to_json())
    else:
        emit_rows(report.rows(), "table")
        click.echo(f"{report.verdict}: {sum(r.verdict == 'holds' for r in report.results)} "
                   f"of {len(report.results)} assertions hold")
    ctx.exit(report.exit_code)
