"""tuned: the evaluator with a weight row found by CMA-ES self-play tuning.

Placeholder row (portal's) until the tuning run below replaces it.
"""

NAME = "tuned"
DESCRIPTION = "weights tuned by CMA-ES self-play against the field (strongest style)"
PLAN = """Every weight of the shared evaluator, optimised together by `bonfire-sim tune`."""
DEFAULTS = {
    "portal": 2.2, "tv_fire": 1.3, "common": 1.0, "fire_points": 1.0, "bonus": 7.0,
    "guard": 1.8,
}
