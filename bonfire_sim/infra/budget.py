"""How long and how much disk a number of games will take, said before starting.

A budget typed by mistake (``--max-games 1000000000000``) must not start a job that runs
for years: each game budget option has a ceiling (``cli.options.Budget``), and a budget
below it that still takes long is announced with an estimate before the first game, so
the user can stop it at once.  The rates are deliberately round and on the slow side of
``docs/explanation/performance.md`` (600-800 four-player games/s on one core of the
reference machine), since an estimate that is too short is the one that hurts.
"""

from __future__ import annotations

from collections.abc import Callable

GAMES_PER_CORE_SECOND = 300.0  # four-player games of the default mix, one core
FORK_GAMES_PER_CORE_SECOND = 40.0  # forked (probe) games: replays from a decision
# games + players tables and their chunks, no turn log: 334 MB per million 4-player
# games (docs/findings/2026-11-26-million-games.md).  That is the peak, while the merge
# writes the tables beside the chunks; a finished run keeps one copy, about half
# (162 bytes a game at 64,000 games, issue 38).
RUN_BYTES_PER_GAME = 350
# a turn log ("all") adds about 760 bytes per 4-player game (400 games, seed 3, measured
# on 2026-11-27: 487 kB with it, 183 kB without)
TURN_LOG_BYTES_PER_GAME = 800
ANNOUNCE_SECONDS = 600.0  # say what a job costs when it takes longer than this


def duration(seconds: float) -> str:
    """``seconds`` as a short human duration (``"40 s"``, ``"3.2 h"``, ``"63 years"``)."""
    for unit, size in (("years", 365.25 * 86400), ("days", 86400.0), ("h", 3600.0),
                       ("min", 60.0)):
        if seconds >= size:
            return f"{seconds / size:,.1f} {unit}"
    return f"{seconds:.0f} s"


def size(n_bytes: float) -> str:
    """A byte count as ``"1.2 GB"``."""
    for unit, scale in (("TB", 1e12), ("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if n_bytes >= scale:
            return f"{n_bytes / scale:,.1f} {unit}"
    return f"{n_bytes:.0f} B"


def seconds_for(games: float, cores: int = 1, rate: float = GAMES_PER_CORE_SECOND) -> float:
    """Rough wall time of ``games`` games on ``cores`` cores at ``rate`` games/s each."""
    return games / (rate * max(1, cores))


def announce(games: float, cores: int, say: Callable[[str], None], *, what: str = "games",
             rate: float = GAMES_PER_CORE_SECOND, disk: float = 0.0) -> str | None:
    """Tell ``say`` what ``games`` will cost when it is long (> ``ANNOUNCE_SECONDS``):
    rough time on ``cores`` workers and the disk it fills; returns the line (or None)."""
    seconds = seconds_for(games, cores, rate)
    if seconds <= ANNOUNCE_SECONDS:
        return None
    space = f" and about {size(disk)} of disk" if disk else ""
    line = (f"this takes about {games:,.0f} {what}: roughly {duration(seconds)} on "
            f"{cores} worker(s) at ~{rate:,.0f} games/s each{space} (a rough estimate; "
            f"Ctrl-C stops it)")
    say(line)
    return line
