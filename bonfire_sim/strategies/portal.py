"""portal: the Great Bonfire and its portals, chasing the common tasks."""

NAME = "portal"
DESCRIPTION = "Great Bonfire and portals that fit, chasing the common tasks"
PLAN = """Use the Great Bonfire often for portals that fit the next notch (plus a tile or
2 points), value the common tasks (7 portals, 7 paths, 5 guardians, 6 gnomes) highly and
take their bonus actions at once."""
DEFAULTS = {
    "portal": 2.2, "tv_fire": 1.3, "common": 1.0, "fire_points": 1.0, "bonus": 7.0,
    "guard": 1.8,
}
