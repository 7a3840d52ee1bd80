"""tuned: the shared evaluator with every weight optimised together by CMA-ES self-play.

How it was found (2026-11-23, on the corrected engine with the payer's-choice decisions),
by ``bonfire-sim tune`` on the 2-core development machine shared with other jobs (``nice``;
the study files are in ``experiments/tuning/``):

1. and 2. (before the payer's-choice fix, from ``portal``'s row, 323,400 games) gave the
   previous ``tuned`` row, ``experiments/tuning/stage2.toml`` (see its study file).  It lit
   3.3 bonfires per player, ended 2.5% of 4-player games without the countdown and stalled
   4.2% of 2-player games: replays showed seats holding no task for a dozen rounds while
   turning the Great Bonfire, and every fulfilled task lit at once.
3. The evaluator gained four weights for task timing (``ignite_hold``, ``task_ignite``,
   ``task_idle``, ``fire_plain``; see ``strategies.evaluate``).  From the stage 2 row with
   a hand-scanned start for them (``experiments/tuning/stage3-start.toml``), 89
   generations x 15 candidates, 400,500 games, 26 min, objective with bonfires weighted 0.4
   and stalls 5 (``experiments/tuning/stage3-study.json``)::

       bonfire-sim tune --style tuned --start experiments/tuning/stage3-start.toml \\
           --field portal,steady --deals2 60 --games4 60 --w-bonfires 0.4 --w-stalled 5 \\
           --sigma 0.2 --generations 89 --seed 2031 --jobs 1 --out runs/tune-stage3

   (stopped by hand after generation 89; ``--generations 89`` repeats it).  The row below
   is that study's final mean (``stage3.toml``), not the luckiest single candidate.

   The stage 3 row held fulfilled tasks until the countdown (``ignite_hold`` 76) and so
   lit 4.1 bonfires per player in 4-player self-play (winning score 82, 0.4% of games
   without the countdown, 2-player stalls 0.8%, 81% against ``portal``).
4. A stage 4 with the stage 2 row in the field (``stage4-study.json``, 79 generations) did
   not change the row.
5. Bonfires (the issue's 4.5 per player) were bought with strength, in four CMA-ES runs
   from the stage 3 row, field ``portal,steady``, stalls weighted 5 (studies
   ``stage5a/b/c-study.json`` and ``stage5-study.json``, 3.34 million games, 67 min, one
   core, ``nice``): a hand scan gave the start ``stage5-start.toml`` (``task_ignite`` 1.5,
   ``task_dist`` 0.6: 4.35 bonfires); 5a (bonfires weighted 1.5, 200 4-player games per
   candidate) drove the mean to 5.1 bonfires but 52% against ``portal`` in 58 generations;
   5b (weight 0.6, from 0.4 of the way there) reached 4.93 bonfires and 64% in 52; 5c
   (weight 0.3) stayed flat for 60.  A scan along the line from the stage 3 row to the 5b
   mean gave the start of the last run, ``stage5d-start.toml`` (0.6 of the way: 4.67
   bonfires, 69% against ``portal``), from which 296 generations x 15 candidates,
   2,220,000 games, 40.5 min, bonfires weighted 0.4::

       bonfire-sim tune --style tuned --start experiments/tuning/stage5d-start.toml \\
           --field portal,steady --deals2 100 --games4 100 --w-bonfires 0.4 \\
           --w-stalled 5 --sigma 0.1 --generations 296 --seed 2063 --jobs 1 \\
           --out runs/tune-stage5 --weights-out experiments/tuning/stage5.toml

   (stopped by hand after generation 296; ``--generations 296`` repeats it).  The row
   below is that study's final mean (``stage5.toml``), not the luckiest candidate.

What the row learned: take tasks for the ignite they lead to (``task_ignite`` 0 -> 1.4),
value tiles and the fate cost more and the Great Bonfire's points less (``fire_cap`` 15 ->
9.6), keep holding fulfilled tasks for the countdown.  On fresh seeds (2,000 games per
self-play figure, 1,000 seat-rotated games per head-to-head; ``scripts/player_targets.py``
and ``bonfire-sim ladder --seed 21``): 4.82 lit bonfires per player (stage 3: 4.08),
winning score 93.6 (81.9), no game without the countdown (0.4%), 2-player stalls 0.1%
(0.8%), 67.8% against ``portal`` (81.4%).  The price is head-to-head strength: 46% of
2-player games against ``steady`` (stage 3: 66%) and 29% against the stage 3 row, which
also wins 32% of seats against its 18% in 4-player games with two seats each.  For the
strongest head-to-head scripted play use ``tuned@experiments/tuning/stage3.toml``.
"""

NAME = "tuned"
DESCRIPTION = ("every evaluator weight tuned by CMA-ES self-play "
               "(the most bonfires and points; holds tasks for the countdown)")
PLAN = """Every weight of the shared evaluator, optimised together by `bonfire-sim tune`
against portal and steady on paired deals (see the module docstring): takes tasks for
the ignites they lead to and holds fulfilled tasks for the countdown unless the game
heads for a stall."""
DEFAULTS = {
    "tile": 2.4624, "yellow": 0.3203, "res": 0.612, "gold": 1.0706, "tv_ship": 1.3749,
    "tv_path": 1.4865, "tv_task": 1.3747, "tv_fire": 1.5035, "tv_guard": 1.355,
    "tv_gnome": 1.2479, "need": 1.1106, "common": 0.5621, "task_pts": 0.547,
    "task_blue": 1.3594, "task_red": 1.1375, "task_yellow": 1.0585, "task_dist": 0.7879,
    "max_open": 3.0358, "task_space": 0.8102, "synergy": -0.0566, "ignite": 2.2465,
    "bonus": 10.3154, "path": 3.2889, "crystal_match": 0.7669, "guard": 4.7294,
    "guard_bonfire": 0.3053, "advance": 0.6351, "portal": 3.4327, "spec": 1.1054,
    "elder": 0.6701, "elder_wait": 3.3536, "fate_cost": 7.1592, "fate_low": 0.2801,
    "horizon": 21.2651, "tpn": 5.5307, "future_turn": 1.7281, "council_point": 0.2161,
    "proc_res": 0.5228, "fire_points": 1.382, "refresh": -0.7234, "ship_follow": 1.1774,
    "discard": 7.809, "novice": 0.815, "fire_cap": 9.5693, "fate_geo": 0.389,
    "stock_press": 0.3998, "task_ignite": 1.4463, "task_idle": 0.3089, "fire_plain": 0.0,
    "ignite_hold": 80.2294,
}
