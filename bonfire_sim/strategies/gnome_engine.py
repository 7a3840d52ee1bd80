"""gnome_engine: specialists early for their abilities, elders late for their points."""

NAME = "gnome_engine"
DESCRIPTION = "specialists early for their abilities, elders late for their points"
PLAN = """Recruit specialists while their abilities still pay off (long horizon), keep
gnome tiles, and wait with the elders until their points (paths, fate tiles, portals,
tasks, guardians, gnomes) have grown."""
DEFAULTS = {
    "spec": 2.2, "elder": 1.3, "elder_wait": 6.0, "tv_gnome": 1.3, "horizon": 14.0,
}
