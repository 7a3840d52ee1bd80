"""Rule coverage of self-play: how often each task was ignited and each ability acted.

Specialist effects are counted by the engine at the moment an ability changes an outcome
(``P_ABIL``); specialist 18 acts only at final scoring, so it is counted from the results
(an owner of S18 with guardians next to bonfires).  Elders are counted as recruited.

Only the human seats count: Tom, the solo automaton, takes and lights tasks of his own,
and a coverage figure says what the players did.  A task the rules take out at a player
count (``components.tasks_dealt``) is marked as not dealt rather than as never taken.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from bonfire_sim.rules import components as C
from bonfire_sim.sim.frames import TASK_IDS
from bonfire_sim.strategies import TOM


def task_coverage(players: pd.DataFrame, n_players: int | None = None) -> pd.DataFrame:
    """Per task: games in which a human seat took it and in which one ignited it (Tom's
    tasks left out), and ``dealt``: whether the rules put it in the game at ``n_players``
    (None: every task is dealt)."""
    human = players[players["strategy"] != TOM]
    lit = human["bonfire_task_ids"].explode().value_counts()
    unlit = human["unlit_task_ids"].explode().value_counts()
    out = pd.DataFrame({"task": list(TASK_IDS)})
    out["ignited"] = out["task"].map(lit).fillna(0).astype(int)
    out["taken"] = out["ignited"] + out["task"].map(unlit).fillna(0).astype(int)
    dealt = set(C.tasks_dealt(n_players)) if n_players is not None else set(TASK_IDS)
    out["dealt"] = out["task"].isin(dealt)
    return out


def ability_coverage(players: pd.DataFrame) -> pd.DataFrame:
    """Per specialist ability 1..27 (and elders): owners and effects counted."""
    human = players[players["strategy"] != TOM]
    eff = np.array(human["ability_effects"].tolist(), dtype=np.int64).reshape(-1, 27)
    effects = eff.sum(axis=0)
    s18 = human["gnome_ids"].map(lambda g: "S18" in list(g))
    effects[17] = int((s18 & (human["score_guardians"] > 0)).sum())
    owned = human["gnome_ids"].explode().value_counts()
    rows = [{"gnome": f"S{a}", "text": C.SPECIALIST_TEXT[a], "owned": int(owned.get(f"S{a}", 0)),
             "effects": int(effects[a - 1])} for a in range(1, 28)]
    rows += [{"gnome": f"E{e + 1}", "text": C.ELDER_TEXT[e],
              "owned": int(owned.get(f"E{e + 1}", 0)), "effects": int(owned.get(f"E{e + 1}", 0))}
             for e in range(C.N_ELDERS)]
    return pd.DataFrame(rows)
