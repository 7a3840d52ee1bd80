"""tuned: the shared evaluator with every weight optimised together by CMA-ES self-play.

How it was found (2026-11-23, engine at rules commit a3f8b5f "Great Bonfire: spaces 0-5
give their resource, never 2 points"), two stages of ``bonfire-sim tune`` on the 2-core
development machine shared with five other jobs (``nice``, ``--jobs 2``):

1. from ``portal``'s row, 17 generations x 15 candidates, 71,400 games,
   11 min (stopped by hand; ``--generations 17`` repeats it)::

       bonfire-sim tune --style portal --field portal,planner --deals2 60 --games4 40 \\
           --generations 17 --seed 2026 --jobs 2 --out runs/tune-portal

   Its mean row is ``experiments/tuning/stage1.toml``.
2. from that row, with bonfires weighted up in the objective, 60 generations, 252,000
   games, 32 min::

       bonfire-sim tune --style portal --start experiments/tuning/stage1.toml \\
           --field portal,planner --deals2 60 --games4 40 --w-bonfires 0.4 --sigma 0.25 \\
           --generations 60 --seed 2027 --jobs 2 --out runs/tune-stage2

Per candidate and generation: 60 deals x 2 seatings against each of portal and planner
(2-player) and 40 four-player self-play games, all candidates on the same deals.  The row
below is the optimiser's final mean (``study.json`` ``best.mean_weights``), not the luckiest
single candidate.
"""

NAME = "tuned"
DESCRIPTION = "every evaluator weight tuned by CMA-ES self-play (the strongest scripted style)"
PLAN = """Every weight of the shared evaluator, optimised together by `bonfire-sim tune`
against portal and planner on paired deals (see the module docstring)."""
DEFAULTS = {
    "tile": 1.0522, "yellow": 0.7025, "res": 1.0057, "gold": 1.6343, "tv_ship": 1.414,
    "tv_path": 1.2269, "tv_task": 0.8345, "tv_fire": 1.7799, "tv_guard": 0.7383,
    "tv_gnome": 1.3751, "need": 2.1126, "common": 0.6729, "task_pts": 0.6198,
    "task_blue": 1.0895, "task_red": 0.8278, "task_yellow": 1.039, "task_dist": 1.2229,
    "max_open": 2.2016, "task_space": 0.8251, "synergy": -0.057, "ignite": 9.3297,
    "bonus": 7.4544, "path": 3.1302, "crystal_match": 1.4316, "guard": 1.6046,
    "guard_bonfire": 0.4512, "advance": 0.2631, "portal": 4.1575, "spec": 0.9193,
    "elder": 0.8669, "elder_wait": 2.5676, "fate_cost": 1.6877, "fate_low": 0.6994,
    "horizon": 18.9244, "tpn": 8.7896, "future_turn": 1.7262, "council_point": 0.4977,
    "proc_res": 0.5974, "fire_points": 1.1736, "refresh": -0.6385, "ship_follow": 1.2641,
    "discard": 5.1661, "novice": 2.0562, "fire_cap": 10.8665, "fate_geo": 0.1458,
    "stock_press": 0.8239,
}
