"""``bonfire-sim sequential``: play two configurations on the same deals until their
difference is decided (a sequential probability ratio test, as fishtest does).

Exit codes (for CI): 0 the hypothesis named by ``--expect`` was decided, 1 the other one
was, 3 the budget ran out undecided, 2 bad input.
"""

from __future__ import annotations

import math
from typing import Any

import click

from bonfire_sim.cli.options import FILE, Budget, backend_options, quiet_option
from bonfire_sim.config import MAX_GAMES

# Exit codes shared with ``bonfire-sim check``: the asserted outcome, the other, neither.
EXIT_HOLDS, EXIT_FAILS, EXIT_UNDECIDED = 0, 1, 3


class _FiniteFloat(click.ParamType):
    """A float that is finite (``inf`` and ``nan`` are refused as usage errors, exit 2).

    Private until ``options.FiniteFloat`` lands; then swap ``_FINITE`` for it."""

    name = "float"

    def convert(self, value: Any, param: click.Parameter | None,
                ctx: click.Context | None) -> float:
        try:
            f = float(value)
        except (TypeError, ValueError):
            self.fail(f"{value!r} is not a number", param, ctx)
        if not math.isfinite(f):
            self.fail(f"{value!r} is not a finite number", param, ctx)
        return f


_FINITE = _FiniteFloat()


@click.command()
@click.argument("config_a", type=FILE, metavar="A.toml")
@click.argument("config_b", type=FILE, metavar="B.toml")
@click.option("--metric", type=click.Choice(["score", "win"]), default="score",
              show_default=True, help="What is compared per deal: final score or win share.")
@click.option("--seat", type=int, default=0, show_default=True,
              help="Whose metric: this seat (0 = start player) ...")
@click.option("--strategy", default=None, help="... or the mean of this strategy's seats.")
@click.option("--h0", type=_FINITE, default=0.0, show_default=True,
              help="Difference B - A under the null hypothesis.")
@click.option("--h1", type=_FINITE, default=None,
              help="Difference B - A worth detecting, one-sided (negative: B lower) "
                   "[default: two-sided, h0 +- 1 point for score, +- 0.02 for win].")
@click.option("--alpha", type=_FINITE, default=0.05, show_default=True,
              help="Chance of deciding H1 when H0 holds; two-sided (the default without "
                   "--h1): in either direction together, each side tested at alpha/2.")
@click.option("--beta", type=_FINITE, default=0.05, show_default=True,
              help="Chance of deciding H0 when H1 holds.")
@click.option("--expect", type=click.Choice(["h1", "h0"]), default="h1", show_default=True,
              help="The hypothesis you assert: exit 0 when it is decided, 1 when the other "
                   "is, 3 when the budget runs out undecided.")
@click.option("--budget", type=Budget(2, MAX_GAMES), default=None,
              help="Most games per configuration [default: A's games]; at least 100 "
                   "deals' worth (no look decides on fewer).")
@click.option("--jobs", type=click.IntRange(min=1), default=1, show_default=True,
              help="Worker processes (the decision does not depend on it).")
@click.option("--trace", "trace_out", type=FILE, default=None, metavar="FILE.csv",
              help="Write the LLR after every chunk.")
@backend_options
@quiet_option
@click.pass_context
def sequential(ctx: click.Context, config_a: str, config_b: str, metric: str, seat: int,
               strategy: str | None, h0: float, h1: float | None, alpha: float, beta: float,
               expect: str, budget: int | None, jobs: int, trace_out: str | None,
               quiet: bool) -> None:
    """Play experiment A and experiment B chunk by chunk on the same deals (they may
    differ only in [overrides] and [variants]) until a sequential probability ratio test
    decides whether B - A of one seat's or strategy's score or win share is H0 or H1, or
    the budget is spent.  Cheaper than a fixed-size comparison when the answer is clear.

    Without --h1 the test is two-sided (an effect of either sign is H1), and --alpha is
    the chance of deciding H1 in either direction when B - A is h0.  No look decides
    before 100 deals, nor while fewer than 50 of them differ between A and B: per-deal
    differences are mostly zero and skewed, and on fewer the test decides too often.
    Any chunk size is accepted (the test looks after every chunk).  Exit code 0
    when the hypothesis of --expect is decided, 1 when the other one is, 3 when the
    budget runs out first, 2 for bad input.

    Example:

    \b
        bonfire-sim sequential experiments/sequential/base.toml experiments/sequential/b13-eight.toml

    \b
        bonfire-sim sequential experiments/sequential/base.toml experiments/sequential/seat1-two-points.toml --metric win --seat 0 --h1 -0.02 --jobs 2
    """  # noqa: E501 (an example is one copyable line)
    from bonfire_sim.analysis.sequential import sequential_compare, wald_bounds
    from bonfire_sim.errors import ConfigError
    from bonfire_sim.infra import fileio
    from bonfire_sim.infra.progress import Progress
    from bonfire_sim.pipelines.experiment import load_experiment

    wald_bounds(alpha, beta)  # every setting is checked before any game is played
    two_sided = h1 is None
    if h1 is None:
        h1 = h0 + (1.0 if metric == "score" else 0.02)
    if h1 == h0:
        raise ConfigError(f"h1 must differ from h0 (--h1 and --h0 are both {h0:g})")
    a, extra_a = load_experiment(config_a)
    b, extra_b = load_experiment(config_b)
    move_timeout = extra_a.get("move_timeout", extra_b.get("move_timeout"))
    if trace_out:
        fileio.check_output_file(trace_out)
    total = budget if budget is not None else a.games
    with Progress(total, "games per configuration", "game", quiet=quiet) as bar:
        last = [0]

        def on_chunk(games: int) -> None:
            bar.update(games - last[0])
            last[0] = games

        result = sequential_compare(a, b, metric=metric, seat=None if strategy else seat,
                                    strategy=strategy, h0=h0, h1=h1, alpha=alpha, beta=beta,
                                    budget=budget, jobs=jobs, two_sided=two_sided,
                                    on_chunk=on_chunk, status=bar.write,
                                    move_timeout=move_timeout)
    if trace_out:
        fileio.write_text(trace_out, result.trace.to_csv(index=False))
    click.echo(result.summary())
    ctx.exit(exit_code(result.decision, expect))


def exit_code(decision: str, expect: str) -> int:
    """0 when ``decision`` is the expected hypothesis, 3 when undecided, else 1."""
    if decision == "undecided":
        return EXIT_UNDECIDED
    return EXIT_HOLDS if decision.lower() == expect else EXIT_FAILS
