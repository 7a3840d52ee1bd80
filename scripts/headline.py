"""Print the headline balance findings of finished runs (the numbers the README quotes).

    python scripts/headline.py --probes 1000 --jobs 2 runs/h4 runs/h3 runs/h2 runs/solo_*

End reasons and stalls, start-player win shares with the seat compensation, the tasks
whose fair price lies furthest from their printed points, the strongest and weakest
gnomes, and each player's win rate and handicap against Tom.  Task and gnome values come
from engine forks (``bonfire_sim.analysis``, the functions the HTML report uses), on the
first ``--probes`` games of each multiplayer run; all intervals are 95%.
"""

from __future__ import annotations

import argparse

import pandas as pd

import bonfire_sim
from bonfire_sim.analysis import gnome_values, seat_advantage, task_values, tom_difficulty
from bonfire_sim.report import stats


def _show(title: str, frame: pd.DataFrame, cols: list[str], digits: int = 2) -> None:
    print(f"\n{title}")
    print(frame[cols].round(digits).to_string(index=False))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("runs", nargs="+")
    ap.add_argument("--probes", type=int, default=1000, help="games forked per run")
    ap.add_argument("--jobs", type=int, default=1)
    args = ap.parse_args()
    runs = [(d, bonfire_sim.load(d, turns=False)) for d in args.runs]
    multi_dirs = [d for d, r in runs if r.manifest["config"]["players"] > 1]
    solo_dirs = [d for d, r in runs if r.manifest["config"]["players"] == 1]
    games, _ = stats.combine(runs)
    print(f"games: {len(games):,}")
    print(stats.end_reasons(games).to_string(index=False))
    if multi_dirs:
        seats = seat_advantage(multi_dirs)
        _show("start player (seat 0) and compensation (starting points for fair shares):",
              seats, ["players", "seat", "value", "lo", "hi", "n", "compensation", "c_lo",
                      "c_hi"], 3)
        print("whole-point seat_points per player count:", seats.attrs.get("seat_points"))
        tv = task_values(multi_dirs, probes=args.probes, jobs=args.jobs)
        tv = tv.dropna(subset=["surplus"])
        cols = ["task", "players", "printed", "surplus", "s_lo", "s_hi", "proposed", "value",
                "n", "status", "lit_rate", "flag", "who"]
        for n, t in tv.groupby("players"):
            _show(f"{n} players: tasks worth most beyond their colour (print them lower)",
                  t.sort_values("surplus", ascending=False).head(5), cols)
            _show(f"{n} players: tasks worth least (print them higher)",
                  t.sort_values("surplus").head(5), cols)
            print(f"flagged: {', '.join(t.loc[t['flag'] != '', 'task']) or 'none'}")
        gv = gnome_values(multi_dirs, probes=args.probes, jobs=args.jobs).dropna(
            subset=["relative"])
        gcols = ["gnome", "players", "relative", "rel_lo", "rel_hi", "n", "status", "flag"]
        for n, g in gv.groupby("players"):
            ranked = g.sort_values("relative")
            _show(f"{n} players: strongest gnomes (points against the average gnome)",
                  ranked.tail(5)[::-1], gcols)
            _show(f"{n} players: weakest gnomes", ranked.head(5), gcols)
    if solo_dirs:
        _show("against Tom:", tom_difficulty(solo_dirs).sort_values("value", ascending=False),
              ["strategy", "value", "lo", "hi", "n", "score", "tom", "handicap", "h_lo",
               "h_hi"], 3)


if __name__ == "__main__":
    main()
