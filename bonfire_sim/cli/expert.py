"""``bonfire-sim expert``: fit the fast evaluator to the search (thin over
``studies.expert``)."""

from __future__ import annotations

import shlex
from collections.abc import Callable
from pathlib import Path

import click

from bonfire_sim.cli.options import DIR, FILE, FiniteFloat, quiet_option


@click.command()
@click.option("--start", default="tuned", show_default=True, metavar="STYLE[@FILE]",
              help="The first round's policy: a built-in style or style@weights.toml.")
@click.option("--rounds", type=click.IntRange(1), default=2, show_default=True,
              help="Rounds of record + fit; each round's fitted row labels the next.")
@click.option("--deals2", type=click.IntRange(0), default=60, show_default=True,
              help="2-player deals recorded per round.")
@click.option("--deals4", type=click.IntRange(0), default=20, show_default=True,
              help="4-player deals recorded per round.")
@click.option("--width", type=click.IntRange(2, 16), default=5, show_default=True,
              help="Candidate moves labelled per decision (the policy's top ones).")
@click.option("--samples", type=click.IntRange(1, 1000), default=8, show_default=True,
              help="Rollouts per candidate (the same determinizations for all).")
@click.option("--generations", type=click.IntRange(1), default=60, show_default=True,
              help="CMA-ES generations of the fit per round.")
@click.option("--sigma", type=FiniteFloat(1e-6, 10.0), default=0.15, show_default=True,
              help="Initial step size in units of each weight's scale.")
@click.option("--seed", type=click.IntRange(0), default=1, show_default=True,
              help="Seed of the deals and of the optimiser.")
@click.option("--jobs", type=click.IntRange(1), default=1, show_default=True,
              help="Worker processes for recording (results do not depend on it).")
@click.option("--out", type=DIR, default="runs/expert", show_default=True,
              help="Directory for each round's positions and rows.")
@click.option("--weights-out", type=FILE, default="runs/expert/expert.toml", show_default=True,
              metavar="FILE.toml",
              help="The final row as a weights file with its provenance (use as "
                   "expert@FILE.toml).")
@click.option("--network", type=FILE, default=None, metavar="FILE.json",
              help="Instead of the row, fit the learned player's network (one round of "
                   "labels from tuned; --start, --rounds, --width, --generations and "
                   "--sigma do not apply) and write it here.")
@click.option("--iters", type=click.IntRange(1), default=300, show_default=True,
              help="With --network: L-BFGS iterations of the fit.")
@quiet_option
def expert(start: str, rounds: int, deals2: int, deals4: int, width: int, samples: int,
           generations: int, sigma: float, seed: int, jobs: int, out: str,
           weights_out: str, network: str | None, iters: int, quiet: bool) -> None:
    """Expert iteration: label positions with the search, fit the weight row to them.

    Each round plays seeded games in which one seat (rotated) plays the flat search with
    the current row's rollouts and the others the row itself; at every labelled decision
    the row's top --width moves are rolled out --samples times each.  CMA-ES then fits the
    row to those labels (mean regret of its own choice, no games played); a fifth of the
    deals is held out and the figures are printed.  The fitted row is the next round's
    policy.  The final row is written with the command, seed and figures as comments.

    Example:

    \b
        bonfire-sim expert --rounds 2 --deals2 60 --deals4 20 --seed 1 --jobs 2 \
            --out runs/expert --weights-out runs/expert/expert.toml

    With --network the labels train the learned player's network instead (one round from
    tuned, a held-out fifth of the deals reported; strategies/rows/learned.json is
    rebuilt by the command in its provenance):

    \b
        bonfire-sim expert --network runs/learned/learned.json --deals2 100 --deals4 30 \
            --samples 8 --seed 35 --jobs 2 --out runs/learned
    """
    def log(line: str) -> None:
        if not quiet:
            click.echo(line, err=True)

    if network is not None:
        _network(network, deals2, deals4, samples, seed, jobs, out, iters, log)
        return
    from bonfire_sim.studies.expert import ExpertConfig, provenance, train, weights_text

    config = ExpertConfig(start=start, rounds=rounds, deals2=deals2, deals4=deals4,
                          width=width, samples=samples, generations=generations,
                          sigma=sigma, seed=seed)
    # the command that rebuilds this file, from the options (every one that matters)
    command = " ".join(shlex.quote(a) for a in (
        "bonfire-sim", "expert", "--start", start, "--rounds", str(rounds), "--deals2",
        str(deals2), "--deals4", str(deals4), "--width", str(width), "--samples",
        str(samples), "--generations", str(generations), "--sigma", repr(sigma), "--seed",
        str(seed), "--jobs", str(jobs), "--out", out, "--weights-out", weights_out))

    from bonfire_sim.infra import fileio

    row, history = train(config, Path(out), jobs=jobs, log=log)
    target = fileio.write_text(weights_out,  # the one writer: no link followed
                               weights_text(row, provenance(config, command, history)))
    click.echo(f"{rounds} rounds; weights in {target}")


def _network(network: str, deals2: int, deals4: int, samples: int, seed: int, jobs: int,
             out: str, iters: int, log: Callable[[str], None]) -> None:
    """``expert --network``: fit and write the learned player's network."""
    from bonfire_sim.studies.learn import LearnConfig, train, write_model

    config = LearnConfig(deals2=deals2, deals4=deals4, samples=samples, seed=seed,
                         iters=iters)
    command = " ".join(shlex.quote(a) for a in (
        "bonfire-sim", "expert", "--network", network, "--deals2", str(deals2), "--deals4",
        str(deals4), "--samples", str(samples), "--seed", str(seed), "--iters", str(iters),
        "--jobs", str(jobs), "--out", out))
    theta, figures = train(config, Path(out), jobs=jobs, log=log)
    target = write_model(Path(network), theta, config, command, figures)
    click.echo(f"held-out regret {figures['start_regret_heldout']:.4f} -> "
               f"{figures['fit_regret_heldout']:.4f}, agreement "
               f"{figures['start_agree_heldout']:.3f} -> {figures['fit_agree_heldout']:.3f} "
               f"({figures['positions_heldout']:.0f} held-out positions); network in {target}")
