"""planner: a set of mutually compatible tasks, worked towards with the NEED features."""

NAME = "planner"
DESCRIPTION = "picks tasks that share needs with the ones held and works towards them"
PLAN = """Score a new task by how much its needs overlap the needs of the tasks already
held (synergy), penalise distance hard, and value every action by the needs it serves."""
DEFAULTS = {
    "synergy": 0.6, "max_open": 3.0, "need": 1.5, "task_pts": 1.2,
}
