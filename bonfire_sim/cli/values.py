"""``bonfire-sim values``: every task's and gnome's card value to a margin, forks spent
where the intervals need them (``analysis.cards.survey``)."""

from __future__ import annotations

import math

import click

from bonfire_sim.cli.options import (
    DIR,
    FILE,
    FORMATS,
    Budget,
    FiniteFloat,
    backend_options,
    emit_rows,
    measure_option,
    quiet_option,
)
from bonfire_sim.config import MAX_GAMES

OUT_SUFFIXES = (".csv", ".parquet", ".json")


def _counts(text: str) -> tuple[int, ...]:
    from bonfire_sim.errors import ConfigError

    try:
        counts = tuple(sorted({int(x) for x in text.split(",") if x.strip()}))
    except ValueError:
        raise ConfigError(f"--players must be player counts like 2,3,4, got {text!r}") from None
    if not counts or any(n not in (2, 3, 4) for n in counts):
        raise ConfigError(f"--players must list counts among 2, 3 and 4 (card values need "
                          f"rivals), got {text!r}")
    return counts


@click.command()
@click.argument("run_dirs", type=DIR, nargs=-1, metavar="[RUN_DIR]...")
@click.option("--players", "players_text", default="2,3,4", show_default=True,
              metavar="N,N,...", help="Player counts to measure (without RUN_DIR).")
@click.option("--strategies", default="", metavar="A,B,...",
              help="Seat players without RUN_DIR: one for every seat, or one per seat of "
                   "the largest count (smaller counts seat the first ones) [default: the "
                   "default population].")
@click.option("--games", type=Budget(1, MAX_GAMES), default=400, show_default=True,
              help="Games per player count on which every card is forked (of a run: its "
                   "first games).")
@click.option("--max-games", type=Budget(1, MAX_GAMES), default=32_000, show_default=True,
              help="Four-player games per card at most, all stages together (as many "
                   "seat-games at the other counts: twice the games at 2 players); a card "
                   "that needs more stays 'not measured' with the forks it has.")
@click.option("--rounds", type=click.IntRange(min=0, max=20), default=4, show_default=True,
              help="Top-up rounds at most (each on fresh deals).")
@click.option("--margin", type=FiniteFloat(lo=0, lo_open=True), default=1.0,
              show_default=True, help="The 95% half-width, in points, a row must reach to be "
              "measured (the top-ups aim for 0.6 x it, so that a 2-point deviation at one "
              "count is flagged).")
@click.option("--seed", type=int, default=None,
              help="Without RUN_DIR: the first stage's seed [default: 1]; top-ups take the "
                   "seeds above it.  With runs: the top-ups' first seed [default: one "
                   "above the runs'].")
@click.option("--out", type=FILE, default=None,
              help="Write the whole table (.csv, .parquet or .json).")
@click.option("--format", "fmt", type=click.Choice(FORMATS), default="table", show_default=True,
              help="table: the summary, flags and rows not measured; csv/json: every row.")
@click.option("--jobs", type=click.IntRange(min=1), default=1, show_default=True,
              help="Worker processes for the forks (on dask: tasks in flight).")
@measure_option
@backend_options
@quiet_option
def values(run_dirs: tuple[str, ...], players_text: str, strategies: str, games: int,
           max_games: int, rounds: int, margin: float, seed: int | None, out: str | None,
           fmt: str, jobs: int, measure: str, quiet: bool) -> None:
    """Measure every task's and gnome's card value to +-MARGIN points per player count.

    A task's surplus is its value minus the mean of the other tasks of its colour, in
    points and in win-equivalent points; a gnome's, recruiting it against the average
    gnome.  The value is the receipt value by default (engine forks: receive the task
    now against the best other move, so how hard its condition is counts too), with its
    lit share, rounds from receipt to ignition, take rate and lit value beside it;
    --measure lit makes it the lit value (ignite the task at a moment its owner could,
    against never: the condition's difficulty left out).  Every card is
    forked on --games games; then, round after round on fresh deals, each row still
    wider than 0.6 x the margin is forked alone on the games its interval needs
    (at most --max-games four-player games per card, as many seat-games at the other
    counts).  Rows that stay wider say "not measured" with the forks they have and the
    forks they need; a row on 10+ deals whose interval lies wholly beyond the margin is
    flagged even before it is measured (per count, and across counts where they agree;
    the detection floor is printed).  --out is written after each player
    count, and an interrupted run started again replays only the probe it was in.
    Runs of one
    player count are one game; different counts are measured side by side, never pooled.
    See docs/howto/task-values.md.

    Example:

    \b
        bonfire-sim values --players 2,3,4 --jobs 2 --out card-values.csv
        bonfire-sim values runs/four --max-games 8000 --format csv
        bonfire-sim values --players 3 --measure lit --out lit.csv
    """
    import time

    from bonfire_sim.analysis.cards.survey import survey_cards, whole_games
    from bonfire_sim.config import check_seed
    from bonfire_sim.errors import ConfigError
    from bonfire_sim.infra.fileio import atomic_file, check_output_file
    from bonfire_sim.sim.runconfig import RunConfig
    from bonfire_sim.strategies.specs import split_specs

    if seed is not None:
        check_seed(seed, "--seed")
    path = None
    if out is not None:
        path = check_output_file(out)
        if path.suffix.lower() not in OUT_SUFFIXES:
            raise ConfigError(f"--out {out}: the table is written as "
                              f"{', '.join(OUT_SUFFIXES)}; name the file with one of them")
    source: object
    if run_dirs:
        if strategies or players_text != "2,3,4":
            raise ConfigError("--players and --strategies describe new games; with RUN_DIR "
                              "the runs say who played and how many")
        source = list(run_dirs)
        first_seed = seed
    else:
        counts = _counts(players_text)
        names = tuple(split_specs(strategies)) if strategies else ()
        if len(names) > 1 and len(names) != max(counts):
            raise ConfigError(f"--strategies: give one player for every seat or one per seat "
                              f"of {max(counts)} players, got {len(names)}")
        start = 1 if seed is None else seed
        source = {n: RunConfig(games=whole_games(games, n), players=n, seed=start,
                               seat_rotation=True,
                               strategies=names if len(names) <= 1 else names[:n])
                  for n in counts}
        first_seed = start + 1

    def note(msg: str) -> None:
        if msg and not quiet:
            click.echo(msg, err=True)

    def write(table) -> None:  # noqa: ANN001
        if path is None:
            return
        with atomic_file(path) as f:
            if path.suffix.lower() == ".parquet":
                table.to_parquet(f, index=False)
            elif path.suffix.lower() == ".json":
                f.write(table.to_json(orient="records", indent=1).encode("utf-8"))
            else:
                f.write(table.to_csv(index=False).encode("utf-8"))

    def checkpoint(table) -> None:  # noqa: ANN001
        write(table)
        note(f"wrote the {', '.join(str(n) for n in sorted(set(table['players'])))}-player "
             f"rows so far to {path}" if path is not None else "")

    t0 = time.perf_counter()
    survey = survey_cards(source, margin=margin, games=games,  # type: ignore[arg-type]
                          max_games=max_games, rounds=rounds, seed=first_seed, jobs=jobs,
                          quiet=quiet, note=note, checkpoint=checkpoint, measure=measure)
    wall = time.perf_counter() - t0
    table = survey.table
    write(table)
    if fmt != "table":
        emit_rows(table.to_dict("records"), fmt)
        return
    _print_table(table, survey, margin, wall)
    if path is not None:
        click.echo(f"wrote {path}")


def _fmt(v: float) -> str:
    return "-" if v is None or not math.isfinite(float(v)) else f"{float(v):+.1f}"


def _print_table(table, survey, margin: float, wall: float) -> None:  # noqa: ANN001
    """The summary per count, the flagged rows and the rows not measured."""
    from bonfire_sim.analysis.cards.probes import TASK_IDS
    from bonfire_sim.rules import components as C

    games: dict[int, int] = {}
    for b in survey.batches:
        games[b.players] = games.get(b.players, 0) + b.games
    click.echo(f"card values to ±{margin:g} point(s), measured in {wall:.0f} s "
               f"({len(survey.batches)} probes)")
    for n, g in table.groupby("players", sort=True):
        parts = [f"{int((k['status'] == 'measured').sum())}/{len(k)} {kind}s measured"
                 for kind in ("task", "gnome") for k in [g[g["kind"] == kind]]]
        dealt = C.tasks_dealt(int(n))
        left = [t for t in TASK_IDS if t not in dealt]
        if left:
            parts[0] += f" ({', '.join(left)} is not dealt at {n} players)"
        click.echo(f"  {n} players ({g['who'].iloc[0]}): {', '.join(parts)}; "
                   f"{int(g['n'].sum())} forks on {games[int(n)]} games")
    flagged = table[table["flag"] != ""].sort_values(["players", "card"])
    if len(flagged):
        click.echo(f"flagged (surplus beyond ±{margin:g} point(s) with confidence):")
        emit_rows([{"card": r.card, "players": int(r.players),
                    "printed": "-" if not math.isfinite(r.printed) else f"{r.printed:.0f}",
                    "surplus": _fmt(r.surplus),
                    "95% interval": f"{_fmt(r.s_lo)} .. {_fmt(r.s_hi)}",
                    "forks": int(r.n), "flag": r.flag} for r in flagged.itertuples()],
                  "table")
    _print_findings(table, margin)
    wide = table[table["status"] != "measured"].sort_values(["players", "card"])
    if len(wide):
        click.echo(f"not measured (interval still wider than ±{margin:g}):")
        emit_rows([{"card": r.card, "players": int(r.players), "forks": int(r.n),
                    # None (an empty cell) where a row has no fork to estimate from
                    "needed": int(r.forks_needed) if math.isfinite(r.forks_needed) else None,
                    "games": int(r.games),
                    "half-width": round(float(r.half), 2) if math.isfinite(r.half) else None}
                   for r in wide.itertuples()], "table")


def _print_findings(table, margin: float) -> None:  # noqa: ANN001
    """The detection floor per count, the cards flagged across counts, the cards no price
    fixes and the cards whose two currencies disagree."""
    from bonfire_sim.analysis.cards.survey import detection_floors

    for n, (med, lo, hi) in detection_floors(table).items():
        click.echo(f"  {n} players: a task is flagged alone from |surplus| >= "
                   f"{med:.1f} point(s) (median detection floor; {lo:.1f}-{hi:.1f})")
    across = table[table["flag_counts"] != ""].drop_duplicates("card")
    if len(across):
        click.echo("flagged across player counts (where the counts agree, pooled):")
        emit_rows([{"card": r.card, "pooled": _fmt(r.pooled),
                    "95% half-width": round(float(r.pooled_half), 2), "flag": r.flag_counts}
                   for r in across.itertuples()], "table")
    notes = table[(table["price_note"] != "") & (table["kind"] == "task")]
    if len(notes):
        click.echo("price notes:")
        for r in notes.sort_values(["card", "players"]).itertuples():
            click.echo(f"  {r.card} at {int(r.players)} players: {r.price_note}")
    both = table[(table["status"] == "measured") & table["win_surplus"].notna()]
    gap = both[(both["surplus"] - both["win_surplus"]).abs() > margin]
    if len(gap):
        click.echo(f"points and win-equivalent points disagree by more than ±{margin:g}:")
        emit_rows([{"card": r.card, "players": int(r.players), "surplus": _fmt(r.surplus),
                    "in wins": _fmt(r.win_surplus), "lit share": f"{r.lit_share:.0%}"
                    if math.isfinite(r.lit_share) else "-"}
                   for r in gap.sort_values(["players", "card"]).itertuples()], "table")
