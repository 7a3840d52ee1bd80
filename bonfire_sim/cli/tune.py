"""``bonfire-sim tune``: CMA-ES weight tuning by self-play (thin over ``studies.tune``)."""

from __future__ import annotations

import click

from bonfire_sim.cli.options import DIR, FILE, Budget, FiniteFloat, backend_options, quiet_option
from bonfire_sim.config import MAX_GAMES, TUNE_FLOATS

MAX_GENERATIONS = 100_000  # a generation of the default study is ~3,000 games
MAX_POPSIZE = 1_000  # cma's default is about 15 candidates


@click.command()
@click.option("--style", default="portal", show_default=True,
              help="Built-in style whose weight row is the starting point.")
@click.option("--field", "field_specs", default="portal", show_default=True, metavar="A,B,...",
              help="2-player opponents (player specs), each met on every deal in both seats.")
@click.option("--deals2", type=Budget(0, MAX_GAMES), default=100, show_default=True,
              help="2-player deals per opponent and candidate (x 2 seatings).")
@click.option("--games4", type=Budget(0, MAX_GAMES), default=40, show_default=True,
              help="4-player self-play games per candidate.")
@click.option("--generations", type=Budget(1, MAX_GENERATIONS, "generations", 3000),
              default=100, show_default=True,
              help="CMA-ES generations (a resumed study may be given more).")
@click.option("--budget", type=click.IntRange(0), default=0, show_default=True,
              help="Stop after this many games in total (0: no limit).")
@click.option("--popsize", type=Budget(0, MAX_POPSIZE, "candidates", 240 * 100),
              default=0, show_default=True,
              help="Candidates per generation (0: cma's default for the dimension).")
@click.option("--sigma", type=FiniteFloat(*TUNE_FLOATS["sigma"], lo_open=True),
              default=0.3, show_default=True,
              help="Initial step size in units of each weight's scale.")
@click.option("--seed", type=click.IntRange(0), default=0, show_default=True,
              help="Seed of the deals and of the optimiser.")
@click.option("--w-score", type=FiniteFloat(*TUNE_FLOATS["w_score"]),
              default=0.01, show_default=True,
              help="Objective weight of one point of 4-player self-play winning score.")
@click.option("--w-bonfires", type=FiniteFloat(*TUNE_FLOATS["w_bonfires"]),
              default=0.05, show_default=True,
              help="Objective weight of one lit bonfire per player in 4-player self-play.")
@click.option("--bonfires-min", type=FiniteFloat(*TUNE_FLOATS["bonfires_min"]),
              default=0.0, show_default=True,
              help="A floor on lit bonfires per player in 4-player self-play: each one "
                   "below it costs --w-short in the objective (0: no floor).")
@click.option("--w-short", type=FiniteFloat(*TUNE_FLOATS["w_short"]),
              default=0.0, show_default=True,
              help="Objective cost of one lit bonfire per player below --bonfires-min.")
@click.option("--w-stalled", type=FiniteFloat(*TUNE_FLOATS["w_stalled"]),
              default=2.0, show_default=True,
              help="Objective weight of the stalled shares (2-player and 4-player games).")
@click.option("--start", type=FILE, default="", metavar="FILE.toml",
              help="Start from this weights file (e.g. an earlier study's --weights-out) "
                   "instead of the style's row.")
@click.option("--bound", "bound_specs", multiple=True, metavar="NAME=LO:HI",
              help="Keep weight NAME within [LO, HI] (repeatable; replaces its default bound).")
@click.option("--keep-signature", type=FiniteFloat(0.0, 100.0), default=0.0, show_default=True,
              metavar="F",
              help="Keep every weight the style's own module sets (its plan) within a factor "
                   "F of its start value, so a tuned style stays that style (0: off).")
@click.option("--jobs", type=click.IntRange(1), default=1, show_default=True,
              help="Worker processes (results do not depend on it).")
@click.option("--out", type=DIR, default="runs/tune", show_default=True, help="Study directory.")
@click.option("--resume", is_flag=True, help="Continue the study in --out.")
@click.option("--weights-out", type=FILE, default=None, metavar="FILE.toml",
              help="Also write the final mean row as a weights file (usable as style@FILE).")
@backend_options
@quiet_option
def tune(style: str, field_specs: str, deals2: int, games4: int, generations: int,
         budget: int, popsize: int, sigma: float, seed: int, w_score: float,
         w_bonfires: float, bonfires_min: float, w_short: float, w_stalled: float,
         start: str, bound_specs: tuple[str, ...], keep_signature: float, jobs: int,
         out: str, resume: bool, weights_out: str | None, quiet: bool) -> None:
    """Tune a style's weight row with CMA-ES on paired deals (common random numbers).

    Each generation's candidates play the same deals: 2-player games against every field
    opponent in both seats, and 4-player self-play.  The objective rewards the 2-player
    win rate, the point margin, the self-play winning score and lit bonfires (a slope,
    --w-bonfires, and/or a floor, --bonfires-min with --w-short), and punishes games that
    end without the countdown (--w-stalled).  The study is saved atomically after every
    generation; --resume continues it exactly.

    Example:

    \b
        bonfire-sim tune --field portal,planner --generations 60 --jobs 2 --out runs/tp

    \b
        bonfire-sim tune --style guardian --keep-signature 1.5 --bound yellow_floor=0.8:1.2 \
            --field tuned,guardian --generations 40 --jobs 2 --out runs/tg

    \b
        bonfire-sim tune --field portal,planner --generations 80 --jobs 2 --out runs/tp --resume
    """
    from bonfire_sim.infra import budget as estimate  # (``budget`` is an option here)
    from bonfire_sim.infra.progress import Progress
    from bonfire_sim.strategies.specs import split_specs
    from bonfire_sim.studies.tune import Study, TuneConfig, parse_bound
    from bonfire_sim.studies.tune import tune as run_tune

    config = TuneConfig(style=style, field=tuple(split_specs(field_specs)), deals2=deals2,
                        games4=games4, generations=generations, budget=budget,
                        popsize=popsize, sigma=sigma, seed=seed, w_score=w_score,
                        w_bonfires=w_bonfires, bonfires_min=bonfires_min, w_short=w_short,
                        w_stalled=w_stalled, start=start,
                        bounds=tuple(parse_bound(b) for b in bound_specs),
                        keep_signature=keep_signature)
    def announce(study: Study) -> None:  # a long study says what it costs, once checked
        if quiet:
            return
        per_generation = (popsize or 15) * (2 * deals2 * len(config.field) + games4)
        total = max(0, generations - study.generation) * per_generation
        if config.budget:
            total = min(total, max(0, config.budget - study.games))
        estimate.announce(total, jobs, lambda line: click.echo(line, err=True))

    with Progress(total=generations, desc="generations", unit="gen", quiet=quiet) as bar:
        def progress(study: Study) -> None:
            bar.update(study.generation - bar.n)
            best = study.history[-1]["best"]
            bar.write(f"generation {study.generation}: best objective {best['objective']:.3f} "
                      f"(win2 {best.get('win2', 0):.3f}, score4 {best.get('win_score4', 0):.1f},"
                      f" bonfires4 {best.get('bonfires4', 0):.2f},"
                      f" stalled2 {best.get('stalled2', 0):.3f}), {study.games} games")
        study = run_tune(config, out, jobs=jobs, resume=resume, progress=progress,
                         weights_out=weights_out or None, on_start=announce)
    click.echo(f"{study.generation} generations, {study.games} games, "
               f"{study.seconds / 60:.1f} min; study in {out}")
