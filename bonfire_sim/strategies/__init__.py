"""Scripted strategies, registered by name.

A built-in strategy runs inside the compiled game loop (``bonfire_sim.sim.loop.choose``
dispatches on its integer id).  ``random`` is the rule-coverage player; every other
built-in is the shared one-ply evaluator (``strategies.evaluate``) with its own weight row:
``BASE`` overridden by the style module's ``DEFAULTS`` (and by the caller's overrides,
``weights_for``).  ``search`` (``bonfire_sim.strategies.search``) looks ahead with rollouts of the
``tuned`` row; ``learned`` (``bonfire_sim.strategies.learned``) re-ranks the top moves of its row
(``tuned``'s) with a small fitted network.  Pure-Python plug-ins are loaded by dotted path
(``bonfire_sim.strategies.plugin``);
``bonfire_sim.strategies.specs.parse_player`` resolves any seat spec (name, ``name@weights.toml``,
``search:N``, ``module:Class``).
"""

from __future__ import annotations

import json
import tomllib
from collections.abc import Mapping
from pathlib import Path
from types import ModuleType

import numpy as np

from bonfire_sim.config import check_float
from bonfire_sim.errors import ConfigError
from bonfire_sim.lineup import DEFAULT_MIX, OLD_MIX, POPULATIONS, RECOMMENDED_SOLO, TUNED_MIX
from bonfire_sim.strategies import (
    gnome_engine,
    greedy,
    guardian,
    learned,
    planner,
    portal,
    random_player,
    search,
    steady,
    tempo,
    tuned,
    tuned_styles,
)
from bonfire_sim.strategies.weights import BASE, WEIGHT_NAMES, WEIGHTS

W = 64  # weights per seat (= bonfire_sim.sim.loop.W)
MAX_WEIGHT = 1e6  # any weight a file may set: far beyond every tuned row, finite in the engine
RANDOM_ID = 0
# ids follow this order (search takes the next): new styles are only ever appended
STYLES: tuple[ModuleType | tuned_styles.Style, ...] = (
    greedy, tempo, guardian, portal, gnome_engine, planner, tuned, steady,
    *tuned_styles.STYLES, tuned_styles.expert)
BUILTIN = {
    random_player.NAME: (RANDOM_ID, random_player.DESCRIPTION),
    **{m.NAME: (i + 1, m.DESCRIPTION) for i, m in enumerate(STYLES)},
}
SEARCH_ID = len(BUILTIN)
BUILTIN[search.NAME] = (SEARCH_ID, search.DESCRIPTION)
# learned (issue 35): tuned's row with its top moves re-ranked by a small fitted network
# (strategies.learned); its own id, dispatched in the game loop like the search.
LEARNED_ID = len(BUILTIN)
BUILTIN[learned.NAME] = (LEARNED_ID, learned.DESCRIPTION)
# The search's rollout policy: tuned, level with the best tuned style at 4 players (ladder of
# 2026-11-27), and one row rather than a plan.
SEARCH_POLICY = tuned.NAME
# The row fitted to the search by expert iteration (issue 35): search_expert's rollouts.
EXPERT = tuned_styles.expert.NAME
STRATEGY_IDS = {name: sid for name, (sid, _) in BUILTIN.items()}
STYLE_DEFAULTS = {m.NAME: dict(m.DEFAULTS) for m in STYLES}
STYLE_DEFAULTS[learned.NAME] = dict(tuned.DEFAULTS)  # the row it prices moves with
# Who plays when nobody says (the default mix, the populations, the recommended solo
# player): named in bonfire_sim.lineup, checked here against the registry.
for _name in (*DEFAULT_MIX, *TUNED_MIX, *OLD_MIX, RECOMMENDED_SOLO,
              *(n for mix in POPULATIONS.values() for n in mix)):
    # a search budget ("search:16") names the registered search player
    assert _name.partition(":")[0] in STRATEGY_IDS, (
        f"bonfire_sim.lineup names an unknown player {_name!r}")
TOM = "tom"  # the solo automaton's row in players.parquet; not selectable for a seat
assert len(WEIGHT_NAMES) <= W


def strategy_id(name: str) -> int:
    """Integer id of a built-in strategy, with an error that lists the valid names."""
    try:
        return STRATEGY_IDS[name]
    except KeyError:
        raise ConfigError(
            f"unknown strategy {name!r}; choose from {', '.join(sorted(STRATEGY_IDS))}"
        ) from None


def describe() -> list[tuple[str, str]]:
    """(name, one-line description) of every built-in strategy (and ``search_ref``, the
    search's flat yardstick: the search's strategy id with another row)."""
    return sorted([(name, desc) for name, (_, desc) in BUILTIN.items()]
                  + [(search.REF_NAME, search.REF_DESCRIPTION),
                     (search.EXPERT_NAME, search.EXPERT_DESCRIPTION)])


def weight_table(name: str, overrides: Mapping[str, float] | None = None) -> dict[str, float]:
    """The named weights of a built-in strategy: BASE, its DEFAULTS, then ``overrides``."""
    strategy_id(name)
    table = dict(BASE)
    table.update(STYLE_DEFAULTS.get(name, {}))
    for key, value in (overrides or {}).items():
        if key not in WEIGHTS:
            raise ConfigError(
                f"unknown weight {key!r} for {name!r}; known: {', '.join(WEIGHT_NAMES)}"
            )
        table[key] = check_float(f"weight {key!r}", value, -MAX_WEIGHT, MAX_WEIGHT)
    return table


def weights_for(name: str, overrides: Mapping[str, float] | None = None) -> np.ndarray:
    """The float64 weight row (length ``W``) of built-in strategy ``name``."""
    row = np.zeros(W, dtype=np.float64)
    if name == search.NAME:
        if overrides:
            raise ConfigError("search takes no weights (its rollout policy is "
                             f"{SEARCH_POLICY!r}); give a budget as search:N")
        return search.search_row(weights_for(SEARCH_POLICY))
    if name == random_player.NAME:
        strategy_id(name)
        if overrides:
            raise ConfigError("the random strategy takes no weights")
        return row
    table = weight_table(name, overrides)
    for i, key in enumerate(WEIGHT_NAMES):
        row[i] = table[key]
    return row


def load_weights(path: str | Path) -> dict[str, float]:
    """Weights from a TOML or JSON file: a flat table ``name = value`` (or a ``[weights]``
    table).  Names are checked when the row is built (``weights_for``)."""
    from bonfire_sim.infra import readers

    path = Path(path)
    try:
        text = readers.read_text(path, "weights file")
    except (OSError, UnicodeDecodeError) as error:
        raise ConfigError(f"cannot read weights file {path}: {error}") from None
    try:
        data = (readers.parse_json(text, path) if path.suffix == ".json"
                else readers.parse_toml(text, path))
    except (json.JSONDecodeError, tomllib.TOMLDecodeError) as error:
        raise ConfigError(f"weights file {path} is not valid: {error}") from None
    if isinstance(data, dict) and isinstance(data.get("weights"), dict):
        data = data["weights"]
    if not isinstance(data, dict):
        raise ConfigError(f"weights file {path} must hold a table of name = number")
    return {str(k): check_float(f"weights file {path}: {k}", v, -MAX_WEIGHT, MAX_WEIGHT)
            for k, v in data.items()}


def default_rows() -> np.ndarray:
    """Default weight row of every built-in id, as an (ids, W) array."""
    rows = np.zeros((len(BUILTIN), W), dtype=np.float64)
    for name, (sid, _) in BUILTIN.items():
        rows[sid] = weights_for(name)
    return rows
