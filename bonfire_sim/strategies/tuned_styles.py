"""The issue-27 population: each plan (portal, guardian, planner, gnome_engine, tempo) on
``tuned``'s judgement, tuned by CMA-ES while keeping its plan.

How a row was found: its start is ``tuned``'s row with the plan's leans laid over it
(``scripts/style_starts.py``: weight k = tuned[k] x style[k] / BASE[k] for the weights the
hand-weighted style sets), then ``bonfire-sim tune`` with the plan's weights kept within a
factor 1.5 of that start (``--keep-signature 1.5``), the yellow joker priced at least at
the tile it stands for (``--bound yellow_floor=1:1.5``) and the field ``tuned`` plus the
hand-weighted style itself.  The exact command, the study and its mean row are under
``experiments/tuning/styles/``; each row file here says which.  After tuning, the coverage
weights (``set_take``, ``set_keep``, ``spec_flat``) were set by hand so that the population
takes and lights every task and recruits every gnome (docs/explanation/players.md).

The rows live in ``rows/<name>.toml`` (data beside the code).  They still reach the
compiled kernels (``sim.loop.DEFAULT_ROWS`` freezes every built-in row), so they count in
the kernel cache's key (``_jitcache.source_hash``) like a kernel's source.  The hand-weighted styles
keep their names (``portal``, ...): the weaker population that produced the earlier
figures.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from pathlib import Path

ROWS = Path(__file__).resolve().parent / "rows"


@dataclass(frozen=True)
class Style:
    """A built-in style as ``strategies`` reads it (the attributes a style module has)."""

    NAME: str
    DESCRIPTION: str
    PLAN: str
    DEFAULTS: dict[str, float] = field(default_factory=dict)


def _load(name: str, description: str, plan: str) -> Style:
    doc = tomllib.loads((ROWS / f"{name}.toml").read_text())
    return Style(name, description, plan, {k: float(v) for k, v in doc["weights"].items()})


tuned_portal = _load(
    "tuned_portal", "portal's plan on tuned's judgement: Great Bonfire, portals, common tasks",
    "The Great Bonfire for portals that fit and the common tasks, with tuned's timing.")
tuned_guardian = _load(
    "tuned_guardian", "guardian's plan on tuned's judgement: paths, guardians onto bonfires",
    "Paths with matching crystals, guardians walked onto high bonfires, with tuned's timing.")
tuned_planner = _load(
    "tuned_planner", "planner's plan on tuned's judgement: tasks that share their needs",
    "New tasks chosen by how much their needs overlap the held tasks' needs.")
tuned_gnome_engine = _load(
    "tuned_gnome_engine", "gnome_engine's plan on tuned's judgement: specialists, then elders",
    "Specialists early for their abilities, elders late for their points.")
tuned_tempo = _load(
    "tuned_tempo", "tempo's plan on tuned's judgement: cheap blue tasks, ignite at once",
    "Cheap blue tasks lit as soon as they are fulfilled; pushes the countdown.")
STYLES = (tuned_portal, tuned_guardian, tuned_planner, tuned_gnome_engine, tuned_tempo)
# expert (issue 35): the evaluator's row fitted to the search's judgement by expert
# iteration (``bonfire-sim expert``, ``studies/expert.py``); its row file says how.
expert = _load(
    "expert", "the evaluator fitted to the search's judgement by expert iteration "
    "(bonfire-sim expert)",
    "Every weight fitted so that the evaluator's own choice loses as little as possible "
    "against the search's rollouts on positions of strong games.")
