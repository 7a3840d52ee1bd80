"""``bonfire-sim sensitivity``: how each headline figure moves under each named variant."""

from __future__ import annotations

import click

from bonfire_sim.cli.options import DIR, FILE, backend_options, emit_rows, quiet_option


@click.command()
@click.option("--games", type=int, default=None,
              help="Seat-rotated games per player count 2-4, per variant [default: 2000].")
@click.option("--solo-games", type=int, default=None,
              help="Solo games per style against Tom, per variant [default: 1000].")
@click.option("--players", default=None, metavar="1,2,3,4",
              help="Player counts to study (1 = solo) [default: 1,2,3,4].")
@click.option("--variant", "variants", multiple=True, metavar="FACT=NAME|FACT",
              help="Variants to compare with the default (repeatable; a bare fact means "
                   "all its variants) [default: every variant].")
@click.option("--seed", type=int, default=None, help="Master seed [default: 2026].")
@click.option("--jobs", type=int, default=None, help="Worker processes [default: 1].")
@click.option("--work", type=DIR, default=None, metavar="DIR",
              help="Directory for the runs; finished runs are reused [default: "
                   "runs/sensitivity].")
@click.option("--config", "config_file", type=FILE, default=None, metavar="FILE.toml",
              help="A file with a [sensitivity] table (these options override it).")
@click.option("--csv", "csv_out", type=FILE, default=None, help="Write the long table.")
@click.option("--json", "json_out", type=FILE, default=None,
              help="Write the study as JSON (for `bonfire-sim report --sensitivity`).")
@click.option("--html", "html_out", type=FILE, default=None, help="Write an HTML page.")
@backend_options
@quiet_option
def sensitivity(games: int | None, solo_games: int | None, players: str | None,
                variants: tuple[str, ...], seed: int | None, jobs: int | None,
                work: str | None, config_file: str | None, csv_out: str | None,
                json_out: str | None, html_out: str | None, quiet: bool) -> None:
    """Replay identical deals under each named variant of an uncertain fact and show
    how each headline figure moves against the default: start-player shares, stalled
    games, the best style's win rate, Tom's score and each style's solo win rate (the
    fast solo players steady and tuned first), the strongest and weakest task and
    gnome.  Each cell holds the variant's own value, then the paired difference from the
    default with its 95% interval.

    Example:

    \b
        bonfire-sim sensitivity --games 400 --solo-games 200 --jobs 2

    \b
        bonfire-sim sensitivity --config experiments/sensitivity.toml
    """
    from dataclasses import replace

    from bonfire_sim.errors import ConfigError
    from bonfire_sim.infra import fileio
    from bonfire_sim.infra.progress import Progress
    from bonfire_sim.pipelines.sensitivity import (
        SensitivityPlan,
        load_plan,
        parse_arms,
        run_sensitivity,
        total_games,
        wide_table,
        write_atomic,
        write_html,
    )
    from bonfire_sim.sim.runner import resolve_jobs

    plan, settings = load_plan(config_file) if config_file else (SensitivityPlan(), {})
    changes: dict = {}
    if games is not None:
        changes["games"] = games
    if solo_games is not None:
        changes["solo_games"] = solo_games
    if seed is not None:
        changes["seed"] = seed
    if players:
        try:
            changes["players"] = tuple(int(x) for x in players.split(","))
        except ValueError:
            raise ConfigError(f"--players takes counts like 1,2,4, got {players!r}") from None
    if variants:
        changes["variants"] = parse_arms(variants)
    plan = replace(plan, **changes) if changes else plan
    jobs = resolve_jobs(jobs if jobs is not None else settings.get("jobs", 1))
    work = work or settings.get("work", "runs/sensitivity")
    csv_out = csv_out or settings.get("csv")
    json_out = json_out or settings.get("json")
    html_out = html_out or settings.get("html")
    for target in (csv_out, json_out, html_out):  # before any game is played
        if target:
            fileio.check_output_file(target)
    with Progress(total_games(plan), desc="sensitivity", unit="game", quiet=quiet) as bar:
        long, doc = run_sensitivity(plan, work, jobs=jobs, progress=bar.update)
    emit_rows(wide_table(long).to_dict("records"), "table")
    click.echo(f"({doc['seconds']:.0f} s; runs in {work})")
    if csv_out:
        click.echo(f"wrote {write_atomic(csv_out, long.to_csv(index=False))}")
    if json_out:
        click.echo(f"wrote {write_atomic(json_out, fileio.dumps_json(doc, json_out, indent=1))}")
    if html_out:
        click.echo(f"wrote {write_html(html_out, doc)}")
