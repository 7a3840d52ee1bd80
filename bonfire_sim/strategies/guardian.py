"""guardian: paths, portals and processions for the bonfire bonuses."""

NAME = "guardian"
DESCRIPTION = "paths, portals and processions: guardians onto high bonfires, matching crystals"
PLAN = """Put tasks on the high bonfire spaces (6, 5, 4: the first portal notches and the
best guardian points), build all paths with crystals matching the tasks beside them,
collect guardians and portals and walk the guardians onto the lit bonfires."""
DEFAULTS = {
    "path": 2.2, "crystal_match": 2.5, "guard": 2.0, "guard_bonfire": 1.4, "advance": 0.5,
    "portal": 2.2, "task_space": 2.5, "tv_guard": 1.2, "tv_path": 1.2, "proc_res": 1.0,
}
