"""``bonfire-sim bench``: games/s and decisions/s for fixed, documented scenarios, one
subcommand per measurement (``engine``, ``strategies``, ``catanatron``, ``forks``,
``card-table``, ``search``, ``manifest``)."""

from __future__ import annotations

from typing import Any

import click

from bonfire_sim.cli.options import measure_option, quiet_option

# The flags of the one command that bench was, and the subcommand each became.
OLD_FLAGS = {"--per-strategy": "strategies", "--versus-catanatron": "catanatron",
             "--manifest": "manifest", "--forks": "forks", "--card-table": "card-table",
             "--search": "search", "--quick": "engine --quick", "--games": "engine",
             "--jobs": "engine"}


class BenchGroup(click.Group):
    """``bench``'s subcommands; a call in the old one-command form (``bench --forks``) is
    one error line naming the subcommand that replaced its flag."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        if args and args[0] not in ("--help", "-h") and args[0].startswith("-"):
            old = next((a for a in args if a in OLD_FLAGS and OLD_FLAGS[a] != "engine"),
                       next((a for a in args if a in OLD_FLAGS), None))
            if old is not None:
                new = OLD_FLAGS[old]
                raise click.UsageError(
                    f"bench takes a subcommand now: 'bonfire-sim bench {new} ...' "
                    f"(was 'bench {old}')", ctx)
        return super().parse_args(ctx, args)


def _warm(quiet: bool) -> None:
    from bonfire_sim.cli.options import warm_engine

    warm_engine(quiet)


def _table(header: str, rows: list[str]) -> None:
    click.echo(header)
    click.echo("-" * len(header))
    for row in rows:
        click.echo(row)


@click.group(cls=BenchGroup)
def bench() -> None:
    """Measure engine speed on fixed scenarios (after a warm-up, compile time excluded).

    Example:

    \b
        bonfire-sim bench engine --games 3000 --jobs 2
        bonfire-sim bench strategies --games 2000
        bonfire-sim bench catanatron --games 2000 --catanatron-games 200
        bonfire-sim bench manifest
        bonfire-sim bench forks --games 400 --jobs 2 --strategies tuned
        bonfire-sim bench card-table --jobs 2
        bonfire-sim bench search --games 8
    """


def count(lo: int, hi: int = 1_000_000) -> Any:
    """A click callback: the option's value as a count in lo..hi, or the house error line
    (``--games must be 10..1000000 ...``)."""
    def check(ctx: click.Context, param: click.Parameter, value: int) -> int:
        from bonfire_sim.config import check_count

        return check_count(f"--{(param.name or '').replace('_', '-')}", value, lo=lo, hi=hi)

    return check


def games_option(default: int, lo: int = 10) -> Any:
    """``--games``: games per scenario (at least ``lo``)."""
    return click.option("--games", type=int, default=default, show_default=True,
                        callback=count(lo), help="Games per scenario and measurement.")


def jobs_option(help_text: str) -> Any:
    """``--jobs``: workers (-1 = every core)."""
    return click.option("--jobs", type=int, default=2, show_default=True, help=help_text)


@bench.command()
@games_option(3000)
@jobs_option("Workers for the end-to-end runner measurement (-1 = every core).")
@click.option("--quick", is_flag=True, help="Only the in-process figures (no runner).")
@quiet_option
def engine(games: int, jobs: int, quick: bool, quiet: bool) -> None:
    """Random players and the default mix, 2 and 4 players, turn log off and on.

    Columns: games/s and decisions/s (moves applied, forced ones included) of the engine
    on one core (in-process, tables built, no files), games/s of the full runner with
    --jobs workers (Parquet written, merged), and the latter per core.

    Example:

    \b
        bonfire-sim bench engine --games 3000 --jobs 2
        bonfire-sim bench engine --quick --games 2000
    """
    from bonfire_sim.infra.progress import Progress
    from bonfire_sim.sim.bench import scenarios, time_in_process, time_runner
    from bonfire_sim.sim.runner import resolve_jobs

    jobs = resolve_jobs(jobs)
    _machine()
    _warm(quiet)
    header = (f"{'scenario':38} {'1 core g/s':>11} {'1 core dec/s':>13} {'runner g/s':>11} "
              f"{'per core':>9}")
    todo = scenarios()
    rows = []
    with Progress(len(todo), "bench", "scenario", quiet=quiet) as bar:
        for sc in todo:
            one = time_in_process(sc, games)
            if quick:
                rows.append(f"{sc.name:38} {one.games_per_s:11.0f} "
                            f"{one.decisions_per_s:13.0f} {'-':>11} {'-':>9}")
            else:
                par = time_runner(sc, games, jobs)
                rows.append(f"{sc.name:38} {one.games_per_s:11.0f} "
                            f"{one.decisions_per_s:13.0f} {par:11.0f} {par / jobs:9.0f}")
            bar.update()
    _table(header, rows)


def _machine() -> None:
    import os
    import platform

    click.echo(f"machine: {platform.processor() or platform.machine()}, "
               f"{os.cpu_count()} cores, python {platform.python_version()}")


@bench.command()
@games_option(2000)
@quiet_option
def strategies(games: int, quiet: bool) -> None:
    """Each built-in strategy in 4-player self-play on one core: games/s, the share of
    stalled games and the mean winning score.

    Example:

    \b
        bonfire-sim bench strategies --games 2000
    """
    from bonfire_sim.infra.progress import Progress
    from bonfire_sim.sim.bench import strategy_scenarios, time_self_play

    _warm(quiet)
    todo = strategy_scenarios(4)
    rows = []
    with Progress(len(todo), "bench", "scenario", quiet=quiet) as bar:
        for sc in todo:
            t = time_self_play(sc, games)
            rows.append(f"{sc.name:30} {t.games_per_s:11.0f} {t.stalled:8.3f} "
                        f"{t.mean_winning_score:19.1f}")
            bar.update()
    _table(f"{'scenario':30} {'1 core g/s':>11} {'stalled':>8} {'mean winning score':>19}",
           rows)


@bench.command()
@games_option(2000)
@click.option("--catanatron-games", type=int, callback=count(1), default=200,
              show_default=True, help="Catanatron games to time.")
@click.option("--rounds", type=int, callback=count(1, 1000), default=5, show_default=True,
              help="Interleave the three measurements in this many rounds (a slice of each "
                   "per round), so a change of machine speed affects both engines alike.")
@quiet_option
def catanatron(games: int, catanatron_games: int, rounds: int, quiet: bool) -> None:
    """The default mix and random players in 4-player games against Catanatron's 4-player
    random games, one core, in this run (needs pip install 'bonfire-sim[bench]').

    Example:

    \b
        bonfire-sim bench catanatron --games 2000 --catanatron-games 200
    """
    from bonfire_sim.infra.progress import Progress
    from bonfire_sim.sim.bench import Scenario
    from bonfire_sim.sim.runconfig import default_mix
    from bonfire_sim.sim.versus import catanatron_version, fit_rounds
    from bonfire_sim.sim.versus import versus_catanatron as play_versus

    catanatron_version()  # fail before anything is timed
    _machine()
    mix = Scenario("default mix 4p", 4, default_mix(4), "none")
    rnd = Scenario("random 4p", 4, ("random",), "none")
    rounds = fit_rounds(rounds, games, catanatron_games)
    _warm(quiet)
    with Progress(3 * rounds, "bench", "slice", quiet=quiet) as bar:
        vs = play_versus(mix, rnd, games, catanatron_games, rounds, bar.update)
    click.echo(f"catanatron {catanatron_version()}, {catanatron_games} games; "
               f"bonfire_sim {games} games per scenario; one core, one process, "
               f"{rounds} interleaved rounds")
    rows = [("bonfire_sim default mix 4p", vs.mix), ("bonfire_sim random 4p", vs.random),
            ("catanatron random 4p", vs.catanatron)]
    _table(f"{'engine / players':28} {'games/s':>9} {'decisions/s':>12}",
           [f"{name:28} {sp.games_per_s:9.1f} {sp.decisions_per_s:12.0f}"
            for name, sp in rows])
    click.echo(f"ratio: default mix games/s = {vs.games_ratio:.1f}x "
               f"Catanatron's; random decisions/s = {vs.decisions_ratio:.1f}x Catanatron's")
    if rounds > 1:
        g = [a for a, _ in vs.round_ratios]
        d = [b for _, b in vs.round_ratios]
        click.echo(f"per round: default mix games/s {min(g):.1f}x-{max(g):.1f}x, "
                   f"random decisions/s {min(d):.1f}x-{max(d):.1f}x")


@bench.command()
def manifest() -> None:
    """One manifest update per chunk at 100, 1,000 and 20,000 chunks: the append-only
    chunk log against a full rewrite.

    Example:

    \b
        bonfire-sim bench manifest
    """
    from bonfire_sim.sim.bench import time_manifest_updates

    _table(f"{'chunks in run':>14} {'log append (ms)':>16} {'full rewrite (ms)':>18}",
           [f"{row.chunks:14,} {row.append_ms:16.3f} {row.rewrite_ms:18.3f}"
            for row in time_manifest_updates()])
    click.echo("the runner appends one log line per chunk (flat); the full rewrite is "
               "what one update cost before, growing with the run")


@bench.command()
@games_option(400)
@jobs_option("Workers (-1 = every core).")
@click.option("--strategies", "strategies_", default=None, metavar="NAME,...",
              help="The players, one name for every seat or one per seat "
                   "[default: the default population].")
@quiet_option
def forks(games: int, jobs: int, strategies_: str | None, quiet: bool) -> None:
    """Engine forks per second (the task and gnome values) on --games seat-rotated
    4-player games, for the report's fork kinds, for the card table of each measure (receipt,
    the default, and lit) and for the few-task forks reprice --verify plays.

    Example:

    \b
        bonfire-sim bench forks --games 400 --jobs 2 --strategies tuned
    """
    from bonfire_sim.analysis.cards.probes import DEFAULT_KINDS, fork_speed
    from bonfire_sim.analysis.cards.table import MEASURES, card_kinds, task_kinds
    from bonfire_sim.sim.runconfig import RunConfig
    from bonfire_sim.sim.runner import resolve_jobs

    jobs = resolve_jobs(jobs)
    seats = None
    if strategies_:
        names = tuple(x.strip() for x in strategies_.split(",") if x.strip())
        seats = names * 4 if len(names) == 1 else names
        RunConfig(games=4, players=4, strategies=seats)  # refuses a bad name: Error
    _warm(quiet)
    fork_rows: list[tuple[str, tuple[str, ...], tuple[str, ...] | None]] = [
        (",".join(k), k, None)
        for k in (DEFAULT_KINDS, *(card_kinds(m) for m in MEASURES))]
    # What reprice --verify and the survey's top-ups fork for the cards they re-price or
    # top up (3 red tasks here): each measure's task forks.
    fork_rows += [(f"{','.join(task_kinds(m))} of 3 tasks", task_kinds(m), ("R3", "R8", "R9"))
                  for m in MEASURES]
    rows = []
    for label, kinds, tasks in fork_rows:
        m = fork_speed(games=games, players=4, jobs=jobs, kinds=kinds, strategies=seats,
                       tasks=tasks)
        rows.append(f"{label:>28} {m['forks']:8,.0f} {m['seconds']:8.1f} "
                    f"{m['forks_per_s']:8,.0f} {m['games_per_s']:8.1f}")
    _table(f"{'fork kinds':>28} {'forks':>8} {'seconds':>8} {'forks/s':>8} {'games/s':>8}",
           rows)
    who = "the default mix" if seats is None else ", ".join(seats)
    click.echo(f"4 players, {who}, seat-rotated, {jobs} worker(s), compile excluded")


@bench.command("card-table")
@jobs_option("Workers (-1 = every core).")
@measure_option
@quiet_option
def card_table(jobs: int, measure: str, quiet: bool) -> None:
    """The whole card table (66 tasks, 65 at 2 players, and 33 gnomes at 2, 3 and 4
    players) to +-1 point with `values`' defaults, the default population: seconds and
    rows measured per player count, then the forks of each kind the --measure uses
    (receipt: take forks, with the lit value's light and forced ones beside; lit: light
    and forced; gnomes: recruit forks) per second of wall time and per CPU second.

    Example:

    \b
        bonfire-sim bench card-table --jobs 2
        bonfire-sim bench card-table --measure lit --jobs 2
    """
    from bonfire_sim.sim.runner import resolve_jobs

    _bench_card_table(resolve_jobs(jobs), quiet, measure)


@bench.command()
@click.option("--games", type=int, callback=count(1, 100_000), default=8, show_default=True,
              help="Games per player count and search player.")
@quiet_option
def search(games: int, quiet: bool) -> None:
    """Games/s of the search player (search, sequential halving) and of search_ref (the
    flat search it replaced) in seat 0 against tuned, 2 and 4 players, on the same deals,
    interleaved, one core.

    Example:

    \b
        bonfire-sim bench search --games 8
    """
    from bonfire_sim.sim.bench import time_search

    _warm(quiet)
    rows = []
    for players in (2, 4):
        st = time_search(players, games)
        rows.append(f"{players:7} {st.games:6} {st.ref_games_per_s:15.3f} "
                    f"{st.new_games_per_s:11.3f} {st.ratio:6.2f}")
    _table(f"{'players':>7} {'games':>6} {'search_ref g/s':>15} {'search g/s':>11} "
           f"{'ratio':>6}", rows)
    click.echo("one core (CPU time), compile excluded; the search player in seat 0, "
               "tuned in the other seats, the same deals for both")


def _bench_card_table(jobs: int, quiet: bool, measure: str) -> None:
    """``bench card-table``: ``values --players 2,3,4 --measure MEASURE`` timed, compile
    excluded: rows measured per count, then the forks of each kind the table rests on
    per second of its wall time and per CPU second of the fork chunks (every worker's),
    the latter barely moved by other work on the machine."""
    import os
    import time

    from bonfire_sim.analysis.cards import probes as CP
    from bonfire_sim.analysis.cards import survey as CS
    from bonfire_sim.analysis.cards.table import card_kinds
    from bonfire_sim.sim.runconfig import RunConfig

    _warm(quiet)
    for n in (2, 3, 4):  # the fork kernels, compiled or loaded before the clock starts
        CP.probe_values(RunConfig(games=n, players=n, seed=5, seat_rotation=True),
                        CP.ProbeSettings(kinds=card_kinds(measure)), jobs=1)
    configs = {n: RunConfig(games=CS.whole_games(CS.FIRST_GAMES, n), players=n, seed=11,
                            seat_rotation=True) for n in (2, 3, 4)}
    load0 = os.getloadavg()[0]
    cpu0 = CP.CPU_SECONDS[0]
    t0 = time.perf_counter()
    survey = CS.survey_cards(configs, games=CS.FIRST_GAMES, max_games=CS.MAX_GAMES, seed=12,
                             jobs=jobs, quiet=quiet, cache=False,
                             note=None if quiet else lambda m: click.echo(m, err=True),
                             measure=measure)
    wall = time.perf_counter() - t0
    cpu = CP.CPU_SECONDS[0] - cpu0
    header = (f"{'players':>7} {'tasks measured':>15} {'gnomes measured':>16} {'forks':>8} "
              f"{'games':>8} {'seconds':>8}")
    click.echo(header)
    click.echo("-" * len(header))
    for n, g in survey.table.groupby("players", sort=True):
        batches = [b for b in survey.batches if b.players == n]
        tasks = g[g["kind"] == "task"]
        gnomes = g[g["kind"] == "gnome"]
        click.echo(f"{n:7} {int((tasks['status'] == 'measured').sum()):>12}/{len(tasks)} "
                   f"{int((gnomes['status'] == 'measured').sum()):>13}/{len(gnomes)} "
                   f"{sum(b.forks for b in batches):8,} {sum(b.games for b in batches):8,} "
                   f"{sum(b.seconds for b in batches):8.1f}")
    kinds = CS.forks_by_kind(survey.table, measure)
    groups = {"take": ("take",), "light/forced": ("light", "forced"), "gnome": ("gnome",)}
    _table(f"{'fork kind':>12} {'forks':>9} {'forks/s':>8} {'per CPU s':>10}",
           [f"{name:>12} {f:9,} {f / wall:8,.0f} {f / max(cpu, 1e-9):10,.0f}"
            for name, ks in groups.items() if (f := sum(kinds[k] for k in ks))])
    forks = sum(kinds.values())
    click.echo(f"total {wall:.1f} s with {jobs} worker(s), {forks / wall:,.0f} forks/s; "
               f"{cpu:.1f} CPU s in the fork chunks ({forks / max(cpu, 1e-9):,.0f} forks "
               f"per CPU s); load {load0:.1f} at the start, {os.getloadavg()[0]:.1f} at the "
               f"end; measure {measure}, the default population, seat-rotated, seeds 11 "
               f"(first stage) and 12+ (top-ups), margin 1 point (top-ups to "
               f"±{CS.TARGET_SHARE:g} of it), at most {CS.MAX_GAMES:,} four-player games "
               f"per card ({CS.games_cap(CS.MAX_GAMES, 2):,} two-player)")
