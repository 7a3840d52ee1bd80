"""Print the headline balance findings of finished runs (the numbers a closing note quotes).

    python scripts/headline.py runs/h4 runs/h3 runs/h2 runs/solo_*

Start-player win rates per player count (seat-rotated runs), the five most over- and
under-valued tasks (relative to the average bonfire surplus), the strongest and weakest
gnomes, and each strategy's win rate against Tom, all with 95% intervals, computed by the
report's own statistics (``bonfire_sim.report.stats``).
"""

from __future__ import annotations

import sys

import bonfire_sim
from bonfire_sim.report import stats


def main(dirs: list[str]) -> None:
    runs = [(d, bonfire_sim.load(d)) for d in dirs]
    games, players = stats.combine(runs)
    multi = stats.multiplayer(players)
    print(f"games: {len(games):,} ({multi['game_id'].count():,} multiplayer player rows)")
    print(stats.end_reasons(games).to_string(index=False))
    seats = stats.seat_advantage(multi[multi["rotated"]])
    cols = ["n_players", "seat", "games", "win_rate", "lo", "hi", "score"]
    print("\nstart-player advantage (seat 0 starts):")
    print(seats[cols].round(4).to_string(index=False))
    print(stats.seat_test(multi[multi["rotated"]]).round(5).to_string(index=False))
    tasks = stats.task_values(multi).dropna(subset=["value"])
    tcols = ["id", "printed", "taken", "lit_rate", "value", "value_lo", "value_hi",
             "relative", "relative_flag"]
    ranked = tasks.sort_values("relative")
    print(f"\ntasks: mean surplus over printed points {tasks.attrs['mean_surplus']:.2f}")
    print("most under-valued (value above par):")
    print(ranked.tail(5)[::-1][tcols].round(2).to_string(index=False))
    print("most over-valued (value below par):")
    print(ranked.head(5)[tcols].round(2).to_string(index=False))
    gn = stats.gnome_strength(multi).dropna(subset=["effect"]).sort_values("effect")
    gcols = ["id", "text", "owned", "effect", "lo", "hi", "win_effect"]
    print("\nstrongest gnomes:")
    print(gn.tail(5)[::-1][gcols].round(3).to_string(index=False))
    print("weakest gnomes:")
    print(gn.head(5)[gcols].round(3).to_string(index=False))
    solo = stats.solo_games(players)
    if len(solo):
        print("\nagainst Tom:")
        print(stats.tom_difficulty(solo).round(3).to_string(index=False))


if __name__ == "__main__":
    main(sys.argv[1:])
