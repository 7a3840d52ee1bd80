"""Balance analysis above the engine: fork-based (interventional) task and gnome values,
start-player compensation, FDR-controlled flags and paired run comparisons.

``task_values(runs)``, ``gnome_values(runs)``, ``seat_advantage(runs)`` and
``tom_difficulty(runs)`` take run directories or loaded runs and return one row per item
and player count; ``cards`` is the card values' one room (``cards.measure`` gives every
task's and gnome's worth against its tier's typical card, measured or marked;
``cards.reprice`` turns it into printed values in a closed loop);
``probe_values(config)`` plays the engine forks they rest on.
``decided`` (``leader_wins``, ``decided_rounds``, ``trajectories``, ``summary``) says
when games are decided, from a run's turn log.
"""

from bonfire_sim.analysis import cards, decided
from bonfire_sim.analysis.cards import (
    ProbeSettings,
    card_values,
    gnome_values,
    probe_values,
    task_values,
)
from bonfire_sim.analysis.values import seat_advantage, tom_difficulty

__all__ = ["ProbeSettings", "card_values", "cards", "decided", "gnome_values",
           "probe_values", "seat_advantage", "task_values", "tom_difficulty"]
