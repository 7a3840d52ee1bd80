"""Who plays when nobody says: the recommended solo player and the default populations.

The one place these names are chosen.  Every command (``run``, ``coverage``, ``solo``,
``replay``, ``view``, ``play()``), every experiment's ``[run] populations = "default"``
and the strength ladder read them from here, and the help texts are generated from them,
so a stronger player becomes everyone's default by changing one name below.

This module holds names only (no engine, no numba): the command-line help imports it
without compiling anything.  ``bonfire_sim.strategies`` re-exports the names and checks at
import that each one is a registered player.
"""

from __future__ import annotations

from collections.abc import Sequence

# The default seat mix of a batch run (cycled over the seats): four distinct plans, each
# tuned on tuned's judgement (issue 27; docs/explanation/players.md) - strong players who
# still play differently.
DEFAULT_MIX: tuple[str, ...] = ("tuned_portal", "tuned_planner", "tuned_tempo",
                                "tuned_gnome_engine")
# Today's tuned mix, kept as a named population after the default moves on (the strength
# ladder's second rung).  Equal to DEFAULT_MIX until a stronger default lands.
TUNED_MIX: tuple[str, ...] = ("tuned_portal", "tuned_planner", "tuned_tempo",
                              "tuned_gnome_engine")
# The hand-weighted mix behind the earlier headline figures, kept as a weaker population.
OLD_MIX: tuple[str, ...] = ("portal", "planner", "tempo", "gnome_engine")
# The populations every finding is checked across (issue 27), name -> seat specs cycled
# over the seats as a run's strategies.  The report's "holds in every population" marks and
# an experiment's `[run] populations` read them.  "strong" is the default mix.
POPULATIONS: dict[str, tuple[str, ...]] = {"strong": DEFAULT_MIX, "old_mix": OLD_MIX}
# The human seat in solo games whenever no player is named: the search player at budget 16,
# because Tom is one fixed automaton and the answer "how hard is Tom" must describe good
# play, not our fast players' gaps.  Measured 2026-11-27 (1,000 solo games each, seed 1,
# default deck, handicap 0): steady 18.2%, tuned 8.5%, search:4 40.6%, search:8 41.2%,
# search:16 55.6% (52.5-58.7%), search:32 59.6%; search:16 plays about 10 solo games a
# second per core on a quiet machine (5.5 loaded), steady hundreds.  The fastest strong
# alternative for large solo sweeps is steady (docs/explanation/players.md).
RECOMMENDED_SOLO = "search:16"


SEARCH_NAMES = ("search", "search_ref", "search_expert")


def is_search_name(spec: str) -> bool:
    """Whether a player spec names the search player (``search``, ``search:16``, ...), by
    its text alone: such a game is played compiled, never as plain Python."""
    return spec.strip().split(":", 1)[0] in SEARCH_NAMES


def default_seats(players: int) -> tuple[str, ...]:
    """The players of the human seats when none are named: the recommended solo player
    against Tom (1 player), else the default mix cycled over the seats."""
    if players == 1:
        return (RECOMMENDED_SOLO,)
    return tuple(DEFAULT_MIX[i % len(DEFAULT_MIX)] for i in range(players))


def default_help(players: str = "the default mix") -> str:
    """The help text's sentence for an omitted player option (generated from the names
    above, so the help never names a player that is no longer the default)."""
    return (f"Default: {players} ({', '.join(DEFAULT_MIX)} over the seats), or "
            f"{RECOMMENDED_SOLO} against Tom (the recommended solo player).")


def short_who(seat_lists: Sequence[str]) -> str:
    """Seat lists (``"tuned_portal, tuned_planner"``, one per configuration) in words, the
    named mixes by their name and player counts: ``default mix (2, 3 and 4 players); old
    mix (4 players)``.  Anything else is kept as written, once."""
    named: dict[str, list[int]] = {}
    other: list[str] = []
    for text in seat_lists:
        names = [n.strip() for n in str(text).split(",") if n.strip()]
        for label, mix in (("default mix", DEFAULT_MIX), ("old mix", OLD_MIX)):
            if len(names) > 1 and names == [mix[i % len(mix)] for i in range(len(names))]:
                named.setdefault(label, []).append(len(names))
                break
        else:
            if str(text) not in other:
                other.append(str(text))
    parts = []
    for label, counts in named.items():
        c = sorted(set(counts))
        counts_text = (", ".join(map(str, c[:-1])) + " and " + str(c[-1])) if len(c) > 1 \
            else str(c[0])
        parts.append(f"{label} ({counts_text} players)")
    return "; ".join(parts + other)


def who_played(specs: Sequence[str], players: int) -> str:
    """Who played, in words, for a figure's caption: ``search:16 against Tom`` (solo) or the
    seats' players cycled over the seats (``tuned_portal, tuned_planner at 2 players``)."""
    if players == 1:
        return f"{specs[0]} against Tom"
    return f"{', '.join(specs[i % len(specs)] for i in range(players))} at {players} players"
