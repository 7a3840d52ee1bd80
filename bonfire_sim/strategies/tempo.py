"""tempo: cheap blue tasks, ignite early, push the countdown (rulebook p.6 tip)."""

NAME = "tempo"
DESCRIPTION = "cheap blue tasks, ignite as soon as possible, push the countdown"
PLAN = """Hold at most 2 unlit tasks, strongly prefer blue (2-3 point) tasks that are one or
two actions away, ignite and take bonus actions at once; investments (paths, portals,
specialists) count for little and fade early."""
DEFAULTS = {
    "task_blue": 1.8, "task_red": 1.0, "task_yellow": 0.6,
    "max_open": 2.0, "ignite": 9.0, "bonus": 8.0, "path": 1.0, "portal": 1.0,
    "guard": 1.0, "spec": 0.6, "elder_wait": 1.0, "horizon": 6.0,
}
