"""``bonfire-sim bench``: games/s and decisions/s for fixed, documented scenarios."""

from __future__ import annotations

import os

import click

from bonfire_sim.cli.options import quiet_option


@click.command()
@click.option("--games", type=int, default=3000, show_default=True,
              help="Games per scenario and measurement.")
@click.option("--jobs", type=int, default=2, show_default=True,
              help="Workers for the end-to-end runner measurement.")
@click.option("--quick", is_flag=True, help="Only the in-process figures (no runner).")
@click.option("--per-strategy", is_flag=True,
              help="Instead: each built-in strategy in 4-player self-play on one core "
                   "(games/s, share of stalled games, mean winning score).")
@click.option("--versus-catanatron", is_flag=True,
              help="Instead: the default mix and random players in 4-player games against "
                   "Catanatron's 4-player random games, one core, in this run (needs "
                   "pip install 'bonfire-sim[bench]').")
@click.option("--catanatron-games", type=int, default=200, show_default=True,
              help="Catanatron games to time with --versus-catanatron.")
@click.option("--manifest", "manifest_", is_flag=True,
              help="Time one manifest update per chunk at 100, 1,000 and 20,000 chunks "
                   "(the append-only chunk log against a full rewrite).")
@click.option("--forks", "forks_", is_flag=True,
              help="Instead: engine forks per second (the task and gnome values) on --games "
                   "seat-rotated 4-player games of the default mix with --jobs workers, for "
                   "the report's fork kinds and for the card values' (reprice).")
@click.option("--card-table", "card_table", is_flag=True,
              help="Instead: the whole card table (66 tasks, 65 at 2 players, and 33 "
                   "gnomes at 2, 3 and 4 players) to +-1 point with `values`' defaults, "
                   "--jobs workers, the default population: seconds and rows measured per "
                   "player count.")
@click.option("--search", "search_", is_flag=True,
              help="Instead: games/s of the search player (search, sequential halving) and "
                   "of search_ref (the flat search it replaced) in seat 0 against tuned, 2 "
                   "and 4 players, on the same --search-games deals, interleaved, one core.")
@click.option("--search-games", type=int, default=8, show_default=True,
              help="Games per player count and search player with --search.")
@click.option("--strategies", "strategies", default=None, metavar="NAME,...",
              help="--forks: the players, one name for every seat or one per seat "
                   "[default: the default population].")
@click.option("--rounds", type=int, default=5, show_default=True,
              help="--versus-catanatron: interleave the three measurements in this many "
                   "rounds (a slice of each per round), so a change of machine speed "
                   "during the run affects both engines alike.")
@quiet_option
def bench(games: int, jobs: int, quick: bool, per_strategy: bool, versus_catanatron: bool,
          catanatron_games: int, rounds: int, manifest_: bool, forks_: bool,
          card_table: bool, search_: bool, search_games: int, strategies: str | None,
          quiet: bool) -> None:
    """Measure engine speed on fixed scenarios (after a warm-up, compile time excluded).

    Scenarios: random and the default strategy mix, 2 and 4 players, turn log off and on.
    Columns: games/s and decisions/s (moves applied, forced ones included) of the engine
    on one core (in-process, tables built, no files), games/s of the full runner with
    --jobs workers (Parquet written, merged), and the latter per core.

    Example:

    \b
        bonfire-sim bench --games 3000 --jobs 2
        bonfire-sim bench --per-strategy --games 2000
        bonfire-sim bench --versus-catanatron --games 2000 --catanatron-games 200
        bonfire-sim bench --manifest
        bonfire-sim bench --forks --games 400 --jobs 2 --strategies tuned
        bonfire-sim bench --card-table --jobs 2
        bonfire-sim bench --search --search-games 8
    """
    import os
    import platform

    from bonfire_sim.config import check_count
    from bonfire_sim.infra.progress import Progress
    from bonfire_sim.sim.bench import (
        Scenario,
        scenarios,
        strategy_scenarios,
        time_in_process,
        time_runner,
        time_self_play,
    )
    from bonfire_sim.sim.runconfig import default_mix
    from bonfire_sim.sim.runner import resolve_jobs
    from bonfire_sim.sim.warm import ensure_warm

    check_count("--games", games, lo=10, hi=1_000_000)
    check_count("--catanatron-games", catanatron_games, lo=1, hi=1_000_000)
    check_count("--rounds", rounds, lo=1, hi=1000)
    check_count("--search-games", search_games, lo=1, hi=100_000)
    jobs = resolve_jobs(jobs)
    if search_:
        from bonfire_sim.sim.bench import time_search

        ensure_warm(None if quiet else lambda m: click.echo(m, err=True))
        header = (f"{'players':>7} {'games':>6} {'search_ref g/s':>15} {'search g/s':>11} "
                  f"{'ratio':>6}")
        click.echo(header)
        click.echo("-" * len(header))
        for players in (2, 4):
            st = time_search(players, search_games)
            click.echo(f"{players:7} {st.games:6} {st.ref_games_per_s:15.3f} "
                       f"{st.new_games_per_s:11.3f} {st.ratio:6.2f}")
        click.echo("one core (CPU time), compile excluded; the search player in seat 0, "
                   "tuned in the other seats, the same deals for both")
        return
    if card_table:
        _bench_card_table(jobs, quiet)
        return
    if forks_:
        from bonfire_sim.analysis.cards.probes import DEFAULT_KINDS, fork_speed
        from bonfire_sim.analysis.cards.table import CARD_KINDS
        from bonfire_sim.sim.runconfig import RunConfig

        ensure_warm(None if quiet else lambda m: click.echo(m, err=True))
        header = f"{'fork kinds':>28} {'forks':>8} {'seconds':>8} {'forks/s':>8} {'games/s':>8}"
        click.echo(header)
        click.echo("-" * len(header))
        seats = None
        if strategies:
            names = tuple(x.strip() for x in strategies.split(",") if x.strip())
            seats = names * 4 if len(names) == 1 else names
            RunConfig(games=4, players=4, strategies=seats)  # refuses a bad name: Error
        fork_rows: list[tuple[str, tuple[str, ...], tuple[str, ...] | None]] = [
            (",".join(k), k, None) for k in (DEFAULT_KINDS, CARD_KINDS)]
        # What reprice --verify and the survey's top-ups fork for the cards they re-price
        # or top up (3 red tasks here): their receipt (take) forks.
        fork_rows.append(("take of 3 tasks", ("take",), ("R3", "R8", "R9")))
        for label, kinds, tasks in fork_rows:
            m = fork_speed(games=games, players=4, jobs=jobs, kinds=kinds, strategies=seats,
                           tasks=tasks)
            click.echo(f"{label:>28} {m['forks']:8,.0f} {m['seconds']:8.1f} "
                       f"{m['forks_per_s']:8,.0f} {m['games_per_s']:8.1f}")
        who = "the default mix" if seats is None else ", ".join(seats)
        click.echo(f"4 players, {who}, seat-rotated, {jobs} worker(s), compile excluded")
        return
    if manifest_:
        from bonfire_sim.sim.bench import time_manifest_updates

        header = f"{'chunks in run':>14} {'log append (ms)':>16} {'full rewrite (ms)':>18}"
        click.echo(header)
        click.echo("-" * len(header))
        for row in time_manifest_updates():
            click.echo(f"{row.chunks:14,} {row.append_ms:16.3f} {row.rewrite_ms:18.3f}")
        click.echo("the runner appends one log line per chunk (flat); the full rewrite is "
                   "what one update cost before, growing with the run")
        return
    if versus_catanatron:
        from bonfire_sim.sim.versus import catanatron_version

        catanatron_version()  # fail before anything is timed
    click.echo(f"machine: {platform.processor() or platform.machine()}, "
               f"{os.cpu_count()} cores, python {platform.python_version()}")
    if versus_catanatron:
        from bonfire_sim.sim.versus import fit_rounds
        from bonfire_sim.sim.versus import versus_catanatron as play_versus

        mix = Scenario("default mix 4p", 4, default_mix(4), "none")
        rnd = Scenario("random 4p", 4, ("random",), "none")
        rounds = fit_rounds(rounds, games, catanatron_games)
        with Progress(3 * rounds, "bench", "slice", quiet=quiet) as bar:
            ensure_warm(bar.write)
            vs = play_versus(mix, rnd, games, catanatron_games, rounds, bar.update)
        click.echo(f"catanatron {catanatron_version()}, {catanatron_games} games; "
                   f"bonfire_sim {games} games per scenario; one core, one process, "
                   f"{rounds} interleaved rounds")
        rows = [("bonfire_sim default mix 4p", vs.mix), ("bonfire_sim random 4p", vs.random),
                ("catanatron random 4p", vs.catanatron)]
        header = f"{'engine / players':28} {'games/s':>9} {'decisions/s':>12}"
        click.echo(header)
        click.echo("-" * len(header))
        for name, sp in rows:
            click.echo(f"{name:28} {sp.games_per_s:9.1f} {sp.decisions_per_s:12.0f}")
        click.echo(f"ratio: default mix games/s = {vs.games_ratio:.1f}x "
                   f"Catanatron's; random decisions/s = {vs.decisions_ratio:.1f}x Catanatron's")
        if rounds > 1:
            g = [a for a, _ in vs.round_ratios]
            d = [b for _, b in vs.round_ratios]
            click.echo(f"per round: default mix games/s {min(g):.1f}x-{max(g):.1f}x, "
                       f"random decisions/s {min(d):.1f}x-{max(d):.1f}x")
        return
    if per_strategy:
        header = f"{'scenario':30} {'1 core g/s':>11} {'stalled':>8} {'mean winning score':>19}"
        todo = strategy_scenarios(4)
        lines = [header, "-" * len(header)]
        with Progress(len(todo), "bench", "scenario", quiet=quiet) as bar:
            ensure_warm(bar.write)
            for sc in todo:
                t = time_self_play(sc, games)
                lines.append(f"{sc.name:30} {t.games_per_s:11.0f} {t.stalled:8.3f} "
                             f"{t.mean_winning_score:19.1f}")
                bar.update()
        click.echo("\n".join(lines))
        return
    header = (f"{'scenario':38} {'1 core g/s':>11} {'1 core dec/s':>13} {'runner g/s':>11} "
              f"{'per core':>9}")
    todo = scenarios()
    lines = [header, "-" * len(header)]
    with Progress(len(todo), "bench", "scenario", quiet=quiet) as bar:
        ensure_warm(bar.write)
        for sc in todo:
            one = time_in_process(sc, games)
            if quick:
                lines.append(f"{sc.name:38} {one.games_per_s:11.0f} {one.decisions_per_s:13.0f} "
                             f"{'-':>11} {'-':>9}")
            else:
                par = time_runner(sc, games, jobs)
                lines.append(f"{sc.name:38} {one.games_per_s:11.0f} {one.decisions_per_s:13.0f} "
                             f"{par:11.0f} {par / jobs:9.0f}")
            bar.update()
    click.echo("\n".join(lines))


def _bench_card_table(jobs: int, quiet: bool) -> None:
    """``bench --card-table``: ``values --players 2,3,4`` timed, compile excluded."""
    import time

    from bonfire_sim.analysis.cards import survey as CS
    from bonfire_sim.analysis.cards.probes import ProbeSettings, probe_values
    from bonfire_sim.sim.runconfig import RunConfig
    from bonfire_sim.sim.warm import ensure_warm

    ensure_warm(None if quiet else lambda m: click.echo(m, err=True))
    for n in (2, 3, 4):  # the fork kernels, compiled or loaded before the clock starts
        probe_values(RunConfig(games=n, players=n, seed=5, seat_rotation=True),
                     ProbeSettings(kinds=CS.CARD_KINDS), jobs=1)
    configs = {n: RunConfig(games=CS.whole_games(CS.FIRST_GAMES, n), players=n, seed=11,
                            seat_rotation=True) for n in (2, 3, 4)}
    t0 = time.perf_counter()
    survey = CS.survey_cards(configs, games=CS.FIRST_GAMES, max_games=CS.MAX_GAMES, seed=12,
                             jobs=jobs, quiet=quiet, cache=False,
                             note=None if quiet else lambda m: click.echo(m, err=True))
    wall = time.perf_counter() - t0
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
                   f"{int(g['n'].sum()):8,} {sum(b.games for b in batches):8,} "
                   f"{sum(b.seconds for b in batches):8.1f}")
    forks = int(survey.table["n"].sum() + survey.table["lit_n"].sum())
    click.echo(f"total {wall:.1f} s with {jobs} worker(s), {forks / wall:,.0f} forks/s "
               f"(load {os.getloadavg()[0]:.1f} at the end); the default population, "
               f"seat-rotated, margin 1 point (top-ups to ±{CS.TARGET_SHARE:g}), at most "
               f"{CS.MAX_GAMES:,} four-player games per card "
               f"({CS.games_cap(CS.MAX_GAMES, 2):,} two-player)")

