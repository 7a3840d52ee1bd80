"""Plant known effects and check the analysis recovers them (the figures in the README).

1. Tasks: two runs on identical deals, B with B13 printed +5 and R3 printed -3.  The lit
   value of B13 / R3 must move by +5 / -3 (paired by game), every other task must stay
   unflagged (practical margin 1 point, Benjamini-Hochberg at 5%).
2. Seats: the compensation reported for a run (to 0.01 point; a fraction is a per-deal
   lottery), planted as ``seat_points`` in a run on the same deals, must bring every seat's
   win share within its interval of 1/n.

    python scripts/planted_effects.py --out /tmp/planted --games 2000 --seat-games 8000 --jobs 2
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import pandas as pd

from bonfire_sim.analysis import paired, seat_advantage
from bonfire_sim.analysis.cards.probes import ProbeSettings, probe_values
from bonfire_sim.analysis.runs import as_runs
from bonfire_sim.sim.runconfig import RunConfig
from bonfire_sim.sim.runner import run

PLANT = {"B13": 5, "R3": -3}


def _run(config: RunConfig, out: Path, jobs: int) -> Path:
    run(config, out, jobs=jobs, resume=True)
    return out


def tasks(out: Path, games: int, players: int, jobs: int, kinds: tuple[str, ...]) -> None:
    from bonfire_sim.rules import components as C

    printed = {t.id: t.points for t in C.TASKS}
    base = RunConfig(games=games, players=players, seat_rotation=True, seed=2026,
                     chunk_size=1000)
    plant = RunConfig(games=games, players=players, seat_rotation=True, seed=2026,
                      chunk_size=1000,
                      overrides={"task_points": {k: printed[k] + v for k, v in PLANT.items()}})
    settings = ProbeSettings(kinds=kinds)
    tabs, secs = [], []
    for name, cfg in (("base", base), ("plant", plant)):
        d = _run(cfg, out / f"tasks{players}-{name}", jobs)
        t0 = time.perf_counter()
        tabs.append(probe_values(cfg, settings, run_dir=d, jobs=jobs, quiet=False))
        secs.append(time.perf_counter() - t0)
    # The base run's decisions forked under the planted rules: the direct effect.
    tab_ab = probe_values(base, settings, run_dir=out / f"tasks{players}-base", jobs=jobs,
                          quiet=False, fork_rules=plant)
    print(f"probe time: {secs[0]:.0f} s / {secs[1]:.0f} s for {games} games each "
          f"({1000 * sum(secs) / (2 * games):.0f} s per 1,000 games; 0 = cached)")
    pd.set_option("display.width", 200)
    for kind in kinds:
        diff = paired.decomposed_value_differences(tabs[0], tab_ab, tabs[1], kind)
        diff["planted"] = diff["item"].map(PLANT).fillna(0).astype(int)
        show = diff[diff["planted"] != 0]
        others = diff[diff["planted"] == 0]
        print(f"\n{players} players, {games} games per run, {kind} value B - A, paired by "
              f"game: direct (A's decisions under B's rules) + situations = total")
        cols = ["item", "planted"] + [f"{p}_{c}" for p in ("direct", "situations", "total")
                                      for c in ("diff", "lo", "hi")] + ["total_n", "total_flag"]
        print(show[cols].round(2).to_string(index=False))
        for part in ("direct", "total"):
            inside = (others[f"{part}_lo"] <= 0) & (others[f"{part}_hi"] >= 0)
            print(f"others ({part}): {len(others)} items, flagged "
                  f"{int((others[f'{part}_flag'] != '').sum())}, intervals containing 0: "
                  f"{int(inside.sum())}, largest |diff| {others[f'{part}_diff'].abs().max():.2f}")


def seats(out: Path, games: int, players: int, jobs: int) -> None:
    base = RunConfig(games=games, players=players, seat_rotation=True, seed=2030,
                     chunk_size=2000)
    a = _run(base, out / f"seats{players}-base", jobs)
    sa = seat_advantage(a)
    pts = sa.attrs["seat_points_exact"][players]
    print(f"\n{players} players, {games} games: win share and compensation per seat "
          f"(whole points: {sa.attrs['seat_points'][players]})")
    print(sa[["seat", "value", "lo", "hi", "compensation", "c_lo", "c_hi"]]
          .to_string(index=False))
    planted = RunConfig(games=games, players=players, seat_rotation=True, seed=2030,
                        chunk_size=2000, overrides={"seat_points": pts})
    b = _run(planted, out / f"seats{players}-plant", jobs)
    sb = seat_advantage(b)
    print(f"planted seat_points = {pts}: win share per seat (fair {1 / players:.3f})")
    sb["fair_inside"] = (sb["lo"] <= 1 / players) & (sb["hi"] >= 1 / players)
    print(sb[["seat", "value", "lo", "hi", "fair_inside", "compensation", "c_lo", "c_hi"]]
          .to_string(index=False))
    d = paired.seat_differences(*as_runs([a, b]))
    print(d[["seat", "win_a", "win_b", "diff", "lo", "hi", "paired"]].to_string(index=False))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", type=Path, default=Path("/tmp/planted"))
    ap.add_argument("--games", type=int, default=4000)
    ap.add_argument("--seat-games", type=int, default=8000)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--kinds", default="light", help="fork kinds, comma-separated")
    ap.add_argument("--skip-seats", action="store_true")
    args = ap.parse_args()
    t0 = time.perf_counter()
    if not args.skip_seats:
        seats(args.out, args.seat_games, 2, args.jobs)
        seats(args.out, args.seat_games, 4, args.jobs)
    tasks(args.out, args.games, 2, args.jobs, tuple(args.kinds.split(",")))
    print(f"\ntotal {time.perf_counter() - t0:.0f} s")


if __name__ == "__main__":
    main()
