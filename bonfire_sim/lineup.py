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
# The human seat in solo games whenever no player is named: the fast player that wins most
# often against Tom under the default deck (docs/findings/2026-11-27-strength-ladder.md:
# 3,000 solo games on shared deals, steady 17.4% (16.1-18.8%), tuned_guardian 15.6%,
# tuned_planner 14.3%, paired differences +1.8 and +3.2 points of share; tuned_portal, the
# first style of the default mix, 2.2% and portal 6.2% of 1,000).
RECOMMENDED_SOLO = "steady"


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


def who_played(specs: Sequence[str], players: int) -> str:
    """Who played, in words, for a figure's caption: ``steady against Tom`` (solo) or the
    seats' players cycled over the seats (``tuned_portal, tuned_planner at 2 players``)."""
    if players == 1:
        return f"{specs[0]} against Tom"
    return f"{', '.join(specs[i % len(specs)] for i in range(players))} at {players} players"
