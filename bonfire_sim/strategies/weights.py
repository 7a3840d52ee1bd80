"""The evaluator's weight row: every weight's name, default and meaning.

A style module's ``DEFAULTS`` overrides ``BASE``; the order of ``WEIGHTS`` fixes each
weight's index in a seat's row (``W_*``), so new weights are only ever appended.
"""

from __future__ import annotations

# ---- the weight row --------------------------------------------------------------------
# name: (default, meaning).  The order fixes the index in the seat's weight row.
WEIGHTS: dict[str, tuple[float, str]] = {
    "tile": (0.7, "points per plain action tile held"),
    "yellow": (1.0, "points per yellow action tile"),
    "res": (0.9, "points per plain resource"),
    "gold": (1.1, "points per gold"),
    "tv_ship": (1.0, "multiplier on the value of ship tiles"),
    "tv_path": (1.0, "multiplier on the value of path tiles"),
    "tv_task": (1.1, "multiplier on the value of task tiles"),
    "tv_fire": (1.0, "multiplier on the value of Great Bonfire tiles"),
    "tv_guard": (1.0, "multiplier on the value of guardian tiles"),
    "tv_gnome": (1.0, "multiplier on the value of gnome tiles"),
    "need": (1.5, "scale of the NEED features (what held tasks lack)"),
    "common": (0.6, "weight of the common tasks in the NEED features"),
    "task_pts": (1.3, "multiplier on a new task's printed points"),
    "task_blue": (1.0, "colour multiplier: blue tasks"),
    "task_red": (1.0, "colour multiplier: red tasks"),
    "task_yellow": (1.0, "colour multiplier: yellow tasks"),
    "task_dist": (2.0, "penalty per action a new task still needs"),
    "max_open": (3.0, "take no new task while holding this many unlit ones"),
    "task_space": (1.0, "bonus for a task on a high bonfire space (x space/6)"),
    "synergy": (0.0, "bonus x overlap of a new task's needs with the current needs"),
    "ignite": (6.0, "value of igniting on top of the bonfire's points"),
    "bonus": (5.0, "value of a bonus action (neutral novice to the council)"),
    "path": (1.6, "investment value of a path tile"),
    "crystal_match": (1.5, "a path crystal matching the task beside it"),
    "guard": (1.5, "investment value of a new guardian"),
    "guard_bonfire": (1.0, "multiplier on guardian points when entering a bonfire"),
    "advance": (0.25, "value per path step a guardian advances"),
    "portal": (1.0, "investment value of a portal"),
    "spec": (1.0, "multiplier on specialist ability values"),
    "elder": (1.3, "multiplier on an elder's points"),
    "elder_wait": (3.0, "penalty on elders early in the game (x late)"),
    "fate_cost": (3.0, "cost of using a fate tile (3 points if kept)"),
    "fate_low": (1.0, "bonus for option I when holding at most 1 action tile"),
    "horizon": (10.0, "turns left below which investments lose value"),
    "tpn": (6.0, "turns per remaining council novice (divided by players)"),
    "future_turn": (2.0, "points a further countdown turn is worth (pass rule)"),
    "council_point": (1.0, "value of the council's 1-point alternative"),
    "proc_res": (0.8, "multiplier on resources gained in processions"),
    "fire_points": (0.4, "multiplier on the Great Bonfire's 2 points"),
    "refresh": (-0.5, "value of refreshing a one-colour path display"),
    "ship_follow": (1.0, "multiplier on the best action at the island sailed to"),
    "discard": (2.5, "multiplier on the value of tiles discarded for option I"),
    "novice": (3.0, "value of a novice sent to the council (ignite, bonus, new task) x pressure"),
    "fire_cap": (6.0, "Great Bonfire '2 points' uses after which their value has faded out"),
    "fate_geo": (1.5, "penalty per fate cell left that no tile can cover (room for the column)"),
    "stock_press": (0.7, "how far stall pressure lowers unneeded stock to its leftover value"),
    # appended 2026-11-23 (issue 13): default 0 leaves every older style's play unchanged
    "task_ignite": (0.0, "points a new task promises for its later ignite (x chance to finish)"),
    "task_idle": (0.0, "bonus for a new task while the seat holds no unlit task"),
    "fire_plain": (0.0, "penalty on a paid Great Bonfire turn that brings no portal"),
    "ignite_hold": (0.0, "penalty on igniting before the countdown (x 1 - stall pressure)"),
    # appended 2026-11-26 (issue 27): default 0 leaves every older style's play unchanged
    "yellow_floor": (0.0, "a kept yellow joker is worth at least this share of the dearest "
                          "live tile it stands for (1: never pays yellow while holding the "
                          "tile asked)"),
    "set_take": (0.0, "bonus for taking a task that asks for a set of action tiles held "
                      "(Y15-Y17)"),
    "set_keep": (0.0, "share of such a held task's points laid on the last tile of each type "
                      "it asks for (x 1 / (1 + types missing))"),
    "spec_flat": (0.0, "value of any specialist on top of its ability's (x late): recruits "
                       "the ones whose ability the evaluator prices low"),
    # appended 2026-11-27 (issue 35, expert features): default 0 leaves every older
    # style's play unchanged; they price what the search plays and the row was blind to
    "spec_turns": (0.0, "multiplier on a specialist's ability value x turns left / 10: an "
                        "ability used every turn keeps paying after ``late`` saturates"),
    "spec_guard": (0.0, "value per guardian a guardian specialist (abilities 1, 2, 6, "
                        "10-13, 17, 18, 20) serves (x late)"),
    "elder_many": (0.0, "penalty on an elder per elder already recruited (diminishing "
                        "elders: each one is a gnome slot and a turn)"),
    "guard_lit": (0.0, "share of the best open lit bonfire's guardian points a new "
                       "guardian or a guardian step toward it promises (x late)"),
}
WEIGHT_NAMES = tuple(WEIGHTS)
BASE = {k: v for k, (v, _) in WEIGHTS.items()}
(W_TILE, W_YELLOW, W_RES, W_GOLD, W_TV0, _W_TV1, _W_TV2, _W_TV3, _W_TV4, _W_TV5, W_NEED,
 W_COMMON, W_TASK_PTS, W_TASK_COL0, _W_TASK_COL1, _W_TASK_COL2, W_TASK_DIST, W_MAX_OPEN,
 W_TASK_SPACE, W_SYNERGY, W_IGNITE, W_BONUS, W_PATH, W_CRYSTAL, W_GUARD, W_GUARD_BONFIRE,
 W_ADVANCE, W_PORTAL, W_SPEC, W_ELDER, W_ELDER_WAIT, W_FATE_COST, W_FATE_LOW, W_HORIZON,
 W_TPN, W_FUTURE, W_COUNCIL_POINT, W_PROC_RES, W_FIRE_POINTS, W_REFRESH, W_SHIP_FOLLOW,
 W_DISCARD, W_NOVICE, W_FIRE_CAP, W_FATE_GEO, W_STOCK_PRESS, W_TASK_IGNITE, W_TASK_IDLE,
 W_FIRE_PLAIN, W_IGNITE_HOLD, W_YELLOW_FLOOR, W_SET_TAKE, W_SET_KEEP,
 W_SPEC_FLAT, W_SPEC_TURNS, W_SPEC_GUARD, W_ELDER_MANY, W_GUARD_LIT) = range(len(WEIGHT_NAMES))
