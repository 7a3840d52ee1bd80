"""``bonfire-sim ladder``: round-robin of players with ratings."""

from __future__ import annotations

import click

from bonfire_sim.cli.options import (
    FILE,
    Budget,
    backend_options,
    emit_rows,
    format_csv,
    format_option,
    progress_callback,
    quiet_option,
    seed_option,
    set_option,
    variant_option,
)
from bonfire_sim.config import MAX_GAMES


def _counts(ctx: click.Context, param: click.Parameter, value: str) -> tuple[int, ...]:
    from bonfire_sim.errors import ConfigError

    try:
        counts = tuple(int(v) for v in value.split(",") if v.strip())
    except ValueError:
        counts = ()
    if not counts or any(not 2 <= n <= 4 for n in counts) or len(set(counts)) < len(counts):
        raise ConfigError(f"--players takes a count 2..4 or, with --skill-depth, a list such "
                          f"as 2,4; got {value!r}")
    return counts


@click.command()
@click.option("--players", "counts", default="2", show_default=True, metavar="N[,N...]",
              callback=_counts,
              help="Seats per game, 2..4 (with --skill-depth a list, e.g. 2,4).")
@click.option("--games", type=click.IntRange(1), default=20, show_default=True,
              help="Deals; each deal is played by every lineup in every seat order.")
@seed_option
@click.option("--strategies", "names", default=None, metavar="A,B,...",
              help="Comma-separated player specs: built-in names, name@weights.toml, "
                   "search:N, package.module:Class (default: every scripted built-in; add "
                   "search:N for the strength reference).")
@click.option("--csv", "csv_path", type=FILE, default=None,
              help="Also write the table as CSV to this file.")
@click.option("--jobs", type=int, default=1, show_default=True,
              help="Worker processes, -1 = every core (the results do not depend on it).")
@click.option("--tom-games", type=Budget(0, MAX_GAMES), default=0, show_default=True,
              help="Also play this many solo games of the top-rated player against Tom: "
                   "Tom's win rate and the handicap equilibrium against the strongest.")
@click.option("--move-timeout", type=float, default=None, metavar="SECONDS",
              help="Stop with an error when a plug-in seat takes longer than this per move "
                   "(default: no limit).")
@click.option("--skill-depth", is_flag=True,
              help="Instead of the round robin, the skill-depth matrix: --strategies are "
                   "rungs, weakest first (default random,portal,tuned,search:16); each pair "
                   "plays --games deals per cell in every seat order (at 4 players one "
                   "stronger against three weaker and the reverse).")
@click.option("--search-games", type=Budget(1, MAX_GAMES), default=None, metavar="N",
              help="With --skill-depth: deals per cell that seats a search rung (search is "
                   "slow; default: --games).")
@click.option("--out", "out", type=FILE, default=None, metavar="FILE.json",
              help="With --skill-depth: store the matrix (tidy JSON) for `bonfire-sim report "
                   "--skill-depth FILE.json`.")
@click.option("--config", "config_file", type=FILE, default=None, metavar="FILE.toml",
              help="With --skill-depth: play under this experiment file's [overrides] and "
                   "[variants] (--variant and --set apply on top).")
@click.option("--baseline", type=FILE, default=None, metavar="FILE.json",
              help="With --skill-depth: a matrix of the same rungs under other rules (e.g. "
                   "the printed game); prints the skill depth against it per player count.")
@variant_option
@set_option
@format_option
@backend_options
@quiet_option
def ladder(counts: tuple[int, ...], games: int, seed: int, names: str | None,
           csv_path: str | None, jobs: int, tom_games: int, move_timeout: float | None,
           skill_depth: bool, search_games: int | None, out: str | None,
           config_file: str | None, baseline: str | None, variants: dict[str, str],
           overrides: dict, fmt: str, quiet: bool) -> None:
    """Round-robin ladder of players: win rates (Wilson 95%), scores, Bradley-Terry ratings.

    Every N-subset of the players plays each deal in every seat order, so each player
    sits in each seat equally often on identical deals.  Players are specs: built-in
    names, name@weights.toml, search:N (the strength reference), package.module:Class.
    With --tom-games the top-rated player also meets Tom (rulebook solo) and the line
    below the table gives Tom's win rate and the handicap where the challenge settles.

    Example:

    \b
        bonfire-sim ladder --players 4 --games 10 --seed 1 --csv ladder.csv

    \b
        bonfire-sim ladder --players 2 --games 4 --strategies tuned,portal,search:16

    With --skill-depth it plays the skill-depth matrix instead: how often the stronger of
    each pair of rungs wins (Wilson 95%), its fair share, and the skill depth per player
    count (the mean edge over adjacent rungs; docs/howto/skill-depth.md).  --variant and
    --set (or --config) play it under a rules change, to compare with the printed game.

    \b
        bonfire-sim ladder --skill-depth --players 2,4 --search-games 5 --out skill.json
    """
    from bonfire_sim.infra import fileio
    from bonfire_sim.infra.progress import Progress
    from bonfire_sim.sim.runner import resolve_jobs
    from bonfire_sim.strategies import SEARCH_ID, STRATEGY_IDS
    from bonfire_sim.strategies.specs import split_specs
    from bonfire_sim.studies.ladder import play_ladder, summarize

    jobs = resolve_jobs(jobs)
    if csv_path:
        fileio.check_output_file(csv_path)
    if skill_depth:
        _skill_depth(counts, games, seed, names, csv_path, jobs, search_games, out,
                     config_file, variants, overrides, fmt, quiet, baseline)
        return
    if (len(counts) > 1 or out or config_file or search_games or variants or overrides
            or baseline):
        from bonfire_sim.errors import ConfigError

        raise ConfigError("a list of player counts, --out, --config, --search-games, "
                          "--baseline, --variant and --set go with --skill-depth")
    players = counts[0]
    chosen = (split_specs(names) if names
              else sorted(n for n, i in STRATEGY_IDS.items() if i != SEARCH_ID))
    with Progress(None, "ladder games", "game", quiet=quiet) as bar:
        results = play_ladder(chosen, players, games, seed, progress=progress_callback(bar),
                              jobs=jobs, status=bar.write, move_timeout=move_timeout)
    rows = summarize(results, chosen)
    if csv_path:  # before printing: a failed write leaves one error line, no table
        fileio.write_text(csv_path, format_csv(rows) + "\n")
    emit_rows(rows, fmt)
    if tom_games:
        _tom_line(rows[0]["strategy"], tom_games, seed, jobs)


def _tom_line(best: str, games: int, seed: int, jobs: int) -> None:
    """Tom's difficulty against the ladder's top-rated player."""
    import numpy as np

    from bonfire_sim.analysis.solo import handicap_series, play_solo

    g = play_solo(best, games, seed, jobs)
    series = handicap_series(g, seed=seed)
    lo, hi = series.equilibrium_ci
    click.echo(f"Tom vs the top-rated player {best} ({games} solo games): Tom wins "
               f"{np.mean(g.margin < 0):.1%} (ties {np.mean(g.margin == 0):.1%}), mean "
               f"scores {g.human.mean():.1f} vs Tom {g.tom.mean():.1f}; handicap equilibrium "
               f"{series.equilibrium:+.1f} (95% CI {lo:+.1f} .. {hi:+.1f})", err=True)


def _skill_depth(counts: tuple[int, ...], games: int, seed: int, names: str | None,
                 csv_path: str | None, jobs: int, search_games: int | None, out: str | None,
                 config_file: str | None, variants: dict[str, str], overrides: dict,
                 fmt: str, quiet: bool, baseline: str | None = None) -> None:
    """The skill-depth matrix (``studies.skill``): cells to stdout, summary to stderr."""
    from bonfire_sim.infra import fileio
    from bonfire_sim.infra.progress import Progress
    from bonfire_sim.strategies.specs import split_specs
    from bonfire_sim.studies.skill import (
        DEFAULT_RUNGS,
        SkillConfig,
        compare_depth,
        describe,
        read_matrix,
        skill_matrix,
        write_matrix,
    )

    base_overrides: dict = {}
    base_variants: dict[str, str] = {}
    if config_file:
        base_overrides, base_variants = _rules_of(config_file)
    config = SkillConfig(rungs=tuple(split_specs(names) or DEFAULT_RUNGS), players=counts,
                         games=games, search_games=search_games, seed=seed,
                         overrides={**base_overrides, **overrides},
                         variants={**base_variants, **variants}).check()
    if out:
        fileio.check_output_file(out)
    base = read_matrix(baseline) if baseline else None  # a bad file: refused before playing
    if base is not None and list(base[0].get("rungs", [])) != list(config.rungs):
        from bonfire_sim.errors import ConfigError

        raise ConfigError(f"the baseline {baseline} has rungs {base[0].get('rungs')}, not "
                          f"{list(config.rungs)}: compare matrices of the same rungs")
    with Progress(None, "skill-depth games", "game", quiet=quiet) as bar:
        doc = skill_matrix(config, jobs=jobs, progress=progress_callback(bar), status=bar.write)
    if out:
        write_matrix(out, doc)
    rows = [{k: (round(v, 3) if isinstance(v, float) else v) for k, v in r.items()}
            for r in doc["cells"]]
    if csv_path:
        fileio.write_text(csv_path, format_csv(rows) + "\n")
    emit_rows(rows, fmt)
    click.echo(describe(doc["meta"]), err=True)
    for r in doc["summary"]:
        if r["lineup"] == "all lineups":
            click.echo(f"skill depth, {r['players']} players: {r['edge']:.3f} (mean edge over "
                       f"{r['cells']} adjacent-rung cells; 0 = the stronger wins its fair "
                       f"share, 1 = every game)", err=True)
        else:
            click.echo(f"  {r['players']} players, {r['lineup']}: the stronger side wins "
                       f"{r['mean_share']:.1%} on average over adjacent rungs (fair "
                       f"{r['fair']:.0%}); {r['ordered']} of {r['cells']} cells clearly above "
                       f"fair", err=True)
    if base is not None:
        import pandas as pd

        rows_now = pd.DataFrame(doc["cells"])
        same_seed = base[0].get("seed") == config.seed
        for r in compare_depth(rows_now, doc["meta"], base[1], base[0]).itertuples():
            click.echo(f"against {baseline}: skill depth at {r.players} players {r.depth:.3f} "
                       f"vs {r.baseline:.3f}, difference {r.difference:+.3f} (95% "
                       f"{r.lo:+.3f} to {r.hi:+.3f}" + ("" if same_seed else
                                                       "; other seed: deals not shared")
                       + ")", err=True)
    if out:
        click.echo(f"wrote {out}", err=True)


def _rules_of(path: str) -> tuple[dict, dict[str, str]]:
    """An experiment file's [overrides] and [variants] (one point; a sweep is refused)."""
    from bonfire_sim.config import expand_sweep
    from bonfire_sim.errors import ConfigError
    from bonfire_sim.pipelines.experiment import read_experiment

    doc = read_experiment(path)
    points = expand_sweep(doc.get("overrides", {}))
    if len(points) > 1:
        raise ConfigError(f"{path} sweeps {len(points)} override points; a skill-depth "
                          f"matrix plays one game: give one value per override")
    return points[0][1], dict(doc.get("variants", {}))
