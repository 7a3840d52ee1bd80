"""``bonfire-sim sequential``: play two configurations on the same deals until their
difference is decided (a sequential probability ratio test, as fishtest does)."""

from __future__ import annotations

import click

from bonfire_sim.cli.options import quiet_option


@click.command()
@click.argument("config_a", metavar="A.toml")
@click.argument("config_b", metavar="B.toml")
@click.option("--metric", type=click.Choice(["score", "win"]), default="score",
              show_default=True, help="What is compared per deal: final score or win share.")
@click.option("--seat", type=int, default=0, show_default=True,
              help="Whose metric: this seat (0 = start player) ...")
@click.option("--strategy", default=None, help="... or the mean of this strategy's seats.")
@click.option("--h0", type=float, default=0.0, show_default=True,
              help="Difference B - A under the null hypothesis.")
@click.option("--h1", type=float, default=None,
              help="Difference B - A worth detecting (negative: B lower) "
                   "[default: 1 point for score, 0.02 for win].")
@click.option("--alpha", type=float, default=0.05, show_default=True,
              help="Chance of deciding H1 when H0 holds.")
@click.option("--beta", type=float, default=0.05, show_default=True,
              help="Chance of deciding H0 when H1 holds.")
@click.option("--budget", type=click.IntRange(min=2), default=None,
              help="Most games per configuration [default: A's games].")
@click.option("--jobs", type=click.IntRange(min=1), default=1, show_default=True,
              help="Worker processes (the decision does not depend on it).")
@click.option("--trace", "trace_out", default=None, metavar="FILE.csv",
              help="Write the LLR after every chunk.")
@quiet_option
def sequential(config_a: str, config_b: str, metric: str, seat: int, strategy: str | None,
               h0: float, h1: float | None, alpha: float, beta: float, budget: int | None,
               jobs: int, trace_out: str | None, quiet: bool) -> None:
    """Play experiment A and experiment B chunk by chunk on the same deals (they may
    differ only in [overrides] and [variants]) until a sequential probability ratio test
    decides whether B - A of one seat's or strategy's score or win share is H0 or H1, or
    the budget is spent.  Cheaper than a fixed-size comparison when the answer is clear.

    Example:

    \b
        bonfire-sim sequential experiments/sequential/base.toml experiments/sequential/b13-eight.toml

    \b
        bonfire-sim sequential experiments/sequential/base.toml experiments/sequential/seat1-two-points.toml --metric win --seat 0 --h1 -0.02 --jobs 2
    """  # noqa: E501 (an example is one copyable line)
    from bonfire_sim import fileio
    from bonfire_sim.analysis.sequential import sequential_compare
    from bonfire_sim.experiment import load_experiment
    from bonfire_sim.progress import Progress

    a, extra_a = load_experiment(config_a)
    b, extra_b = load_experiment(config_b)
    move_timeout = extra_a.get("move_timeout", extra_b.get("move_timeout"))
    if h1 is None:
        h1 = 1.0 if metric == "score" else 0.02
    total = budget if budget is not None else a.games
    with Progress(total, "games per configuration", "game", quiet=quiet) as bar:
        last = [0]

        def on_chunk(games: int) -> None:
            bar.update(games - last[0])
            last[0] = games

        result = sequential_compare(a, b, metric=metric, seat=None if strategy else seat,
                                    strategy=strategy, h0=h0, h1=h1, alpha=alpha, beta=beta,
                                    budget=budget, jobs=jobs, on_chunk=on_chunk,
                                    status=bar.write,
                                    move_timeout=move_timeout)
    if trace_out:
        fileio.write_text(trace_out, result.trace.to_csv(index=False))
    click.echo(result.summary())
