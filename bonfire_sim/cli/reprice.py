"""``bonfire-sim reprice``: whole-point printed task values, written as experiment
overrides and (``--verify``) checked on fresh deals."""

from __future__ import annotations

import math

import click

from bonfire_sim.cli.options import (
    DIR,
    FILE,
    Budget,
    backend_options,
    estimate_top_up_options,
    measure_option,
    quiet_option,
)
from bonfire_sim.config import MAX_GAMES


def _fmt(v: float, digits: int = 1) -> str:
    return "-" if v is None or not math.isfinite(float(v)) else f"{float(v):+.{digits}f}"


def _after(res, rnd) -> list[int]:
    """The values the cards a round moved went to (the next round's prices, or the final
    proposal after the last round)."""
    i = res.rounds.index(rnd)
    nxt = res.rounds[i + 1].prices if i + 1 < len(res.rounds) else res.printed | res.proposal
    return [nxt[c] for c in rnd.flagged]


def _print_estimate(res, margin: float) -> None:  # noqa: ANN001
    """The estimate's top-ups per count and the detection floor they reached: the
    |surplus| a lone task needs to be flagged, so "not flagged" reads "not off by more"."""
    from bonfire_sim.analysis.cards.survey import TARGET_SHARE, detection_floors

    if res.table is None:
        return
    for n, (med, lo, hi) in detection_floors(res.table).items():
        done = [b for b in res.batches if b.players == n]
        extra = (f"{len(done)} top-up round(s) (seeds {done[0].seed}-{done[-1].seed}, "
                 f"{sum(b.games for b in done):,} games) to ±{TARGET_SHARE * margin:g}"
                 if done else "no top-up")
        click.echo(f"  {n} players: {extra}; a task is flagged alone from |surplus| >= "
                   f"{med:.1f} point(s) (median detection floor; {lo:.1f}-{hi:.1f})")


@click.command()
@click.argument("run_dirs", type=DIR, nargs=-1, required=True, metavar="RUN_DIR...")
@click.option("--out", "out", type=FILE, required=True, metavar="FILE.toml",
              help="Experiment file to write ([run] like the runs, [overrides] task_points).")
@click.option("--verify", is_flag=True,
              help="Play fresh deals under the proposal, re-measure, and re-price the cards "
                   "still off until a fixed point or --rounds are spent.")
@click.option("--margin", type=float, default=1.0, show_default=True,
              help="Points a card's surplus must be shown to exceed to be re-priced.")
@click.option("--probe-games", type=Budget(1, MAX_GAMES), default=None,
              help="Games forked per run for the estimate [default: all].")
@click.option("--verify-games", type=Budget(1, MAX_GAMES), default=1000, show_default=True,
              help="Fresh games per player count and verification round.")
@click.option("--focus-games", type=Budget(1, MAX_GAMES), default=None,
              help="Fresh games per player count and round on which the re-priced cards "
                   "alone are forked (their own intervals) [default: 4x --verify-games].")
@estimate_top_up_options
@click.option("--rounds", type=click.IntRange(min=1, max=20), default=3, show_default=True,
              help="Iteration rounds at most (each on new deals), then one check round.")
@click.option("--jobs", type=click.IntRange(min=1), default=1, show_default=True,
              help="Worker processes for the forks (on dask: tasks in flight).")
@click.option("--seed", type=int, default=None,
              help="First seed of the fresh deals [default: one above the runs' largest].")
@measure_option
@backend_options
@quiet_option
def reprice(run_dirs: tuple[str, ...], out: str, verify: bool, margin: float,
            probe_games: int | None, verify_games: int, focus_games: int | None,
            max_games: int, top_ups: int, rounds: int, jobs: int, seed: int | None,
            measure: str, quiet: bool) -> None:
    """Propose whole-point printed task values for the cards whose price is off.

    A task's surplus is its value minus the mean of the tasks of its colour at that
    player count: by default its receipt value (engine forks: receive it now against
    the best other move, so how hard its condition is counts too), with --measure lit
    its lit value (ignite it at a moment its owner could, against never; a printed
    point moves it by one).  The fair value is printed - surplus / slope (the surplus a printed
    point buys), one for all player counts, and its window the surplus interval read
    the same way; a flagged card moves to the window's whole value nearest its print,
    or stays where the window holds the print (each count's residual is shown); where
    the slope is below 0.1 no price fixes the card and it says so (change its
    condition).  The estimate is the survey 'values' makes of the runs:
    every task row still wider than 0.6 x the margin is forked alone on fresh deals of
    its game until it is that narrow (at most --max-games), so that a 2-point change at
    one count is flagged; the detection floor per count is printed.  --verify moves
    the re-priced cards by secant steps on fresh deals until none moves, then checks the
    result on new deals that moved nothing: a row is within the margin only when it is
    measured and its whole interval lies inside; rows the check cannot resolve get more
    forks.  Runs of one player count must play the
    same game (players, variants, overrides); each count is measured on its own.  See
    docs/howto/reprice.md.

    Example:

    \b
        bonfire-sim reprice runs/four --out experiments/reprice.toml --verify --jobs 2
        bonfire-sim reprice runs/two runs/four --out reprice.toml --probe-games 500
        bonfire-sim reprice runs/three --out r.toml --verify --measure lit
        bonfire-sim reprice runs/four --out r.toml --verify --backend dask \
            --scheduler tcp://10.0.0.5:8786 --jobs 64
    """
    from bonfire_sim.analysis.cards.price import overrides_toml
    from bonfire_sim.analysis.cards.price import reprice as run_reprice
    from bonfire_sim.analysis.runs import as_runs
    from bonfire_sim.config import check_seed
    from bonfire_sim.errors import ConfigError
    from bonfire_sim.infra.fileio import check_output_file, write_text

    if not math.isfinite(margin) or margin <= 0:
        raise ConfigError(f"--margin must be a positive number of points, got {margin}")
    if seed is not None:
        check_seed(seed, "--seed")
    path = check_output_file(out)
    runs = as_runs(list(run_dirs))

    def note(msg: str) -> None:
        if not quiet:
            click.echo(msg, err=True)

    res = run_reprice(runs, margin=margin, probe_games=probe_games, verify=verify,
                      verify_games=verify_games, focus_games=focus_games,
                      max_games=max_games, top_ups=top_ups, rounds=rounds,
                      seed=seed, jobs=jobs, measure=measure,
                      quiet=quiet, note=note)
    write_text(path, overrides_toml(res, runs, margin))
    est = res.estimate
    counts = sorted(int(c.split("_")[1]) for c in est.columns if c.startswith("surplus_"))
    flagged = est[est["flagged"]]
    holds = int((flagged["holds"] & ~flagged["no_price"]).sum()) if len(flagged) else 0
    click.echo(f"{len(flagged)} of {len(est)} tasks off by more than {margin:g} point(s) at "
               f"some player count; {len(res.proposal)} re-priced"
               + (f"; {holds} flagged, window holds the print" if holds else ""))
    if len(flagged):
        head = (f"{'task':>5} {'printed':>7} {'proposed':>8} {'fair window':>11} "
                f"{'slope':>5} " + " ".join(f"{'surplus ' + str(n) + 'p':>10} {'resid':>6}"
                                            for n in counts))
        click.echo(head)
        for _, r in flagged.iterrows():
            prop = res.proposal.get(r["card"], r["printed"])
            # each count's residual at the value shown (the loop may have moved the card
            # from the first proposal): its surplus moved by its slope x the change
            own = " ".join(
                f"{_fmt(r[f'surplus_{n}']):>10} "
                f"{_fmt(r[f'surplus_{n}'] + r[f'slope_{n}'] * (prop - r['printed'])):>6}"
                if math.isfinite(r[f"surplus_{n}"]) else f"{'-':>10} {'-':>6}"
                for n in counts)
            # the printed values the estimate's interval admits as fair (window.py): a
            # flagged card moves to the whole value in it nearest its print
            window = (f"{r['fair_lo']:.1f}..{r['fair_hi']:.1f}"
                      if math.isfinite(r["fair_lo"]) else "-")
            click.echo(f"{r['card']:>5} {r['printed']:>7} {prop:>8} {window:>11} "
                       f"{r['slope']:>5.2f} {own}")
        # why a flagged card stays (no price fixes it, its window holds the print) and
        # the evidence for a value below its colour's lowest printing
        for _, r in flagged[flagged["note"] != ""].iterrows():
            click.echo(f"{r['card']}: {r['note']}")
    # a task the rules leave out at a count (Y2 at 2 players) has no status there
    unmeasured = {n: int((est[f"status_{n}"].notna() & (est[f"status_{n}"] != "measured"))
                         .sum()) for n in counts}
    click.echo("not measured (interval wider than the margin): "
               + ", ".join(f"{k} tasks at {n} players" for n, k in unmeasured.items()))
    _print_estimate(res, margin)
    if res.verified is not None:
        v = res.verified
        for r in res.rounds:
            moves = ", ".join(f"{c} {r.prices.get(c, res.printed[c])}->{v2}"
                              for c, v2 in zip(r.flagged, _after(res, r), strict=True))
            # where the print fair at every count replaced the secant's rounding
            mm = ", ".join(f"{c} {b} (the pooled zero rounds to {a})"
                           for c, (a, b) in sorted(r.minimax.items()))
            click.echo(f"round seed {r.seed}: {moves or 'no card moved (fixed point)'}"
                       + (f"; fair at every count: {mm}" if mm else ""))
        check = res.check
        assert check is not None  # a verified proposal always ends with its check round
        click.echo(f"check on new deals (seed {check.seed}; "
                   f"{'after a fixed point' if res.fixed_point else 'rounds spent first'}"
                   f"), figures that moved nothing:")
        click.echo(f"{'task':>5} {'players':>7} {'was':>4} {'now':>4} {'surplus':>8} "
                   f"{'95% interval':>16} {'forks':>6} {'pt/pt':>5} {'fair printed':>13}"
                   f"  status")
        for _, r in v.iterrows():
            click.echo(f"{r['card']:>5} {int(r['players']):>7} {int(r['original']):>4} "
                       f"{int(r['printed']):>4} {_fmt(r['surplus']):>8} "
                       f"{_fmt(r['s_lo']):>7} .. {_fmt(r['s_hi']):>6} {int(r['n']):>6} "
                       f"{r['response']:>5.2f} {r['fair_lo']:>5.1f} .. {r['fair_hi']:>4.1f}  "
                       f"{r['verdict']}, {r['status']}; price {r['price_verdict']}"
                       + ("; back at its start value" if r["back"] else ""))
        if len(v):
            open_ = int((v["verdict"] == "unresolved").sum())
            # every card the loop steered is checked, also one that ended where it began
            click.echo(f"checked: every card the loop moved or flagged in some round "
                       f"({v.loc[v['back'], 'card'].nunique()} back at their start value)")
            click.echo(f"{int(v['within'].sum())} of {len(v)} checked rows within "
                       f"±{margin:g} point(s) (measured, whole interval inside)"
                       + (f"; {open_} unresolved: the check cannot tell at these forks"
                          if open_ else ""))
            # pt/pt: surplus per printed point over the loop's prices; the fair printed
            # values are those the surplus interval admits at that rate
            click.echo(f"{int((v['price_verdict'] == 'within').sum())} of {len(v)} priced "
                       f"within ±{margin:g} printed point(s) (the fair printed window inside)")
    click.echo(f"wrote {path}")
