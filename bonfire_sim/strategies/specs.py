"""Player specs: the one way a seat's player is named, in every command and API.

========================  ====================================================
spec                      player
========================  ====================================================
``portal``                a built-in strategy with its default weight row
``portal@my.toml``        a built-in style with weights loaded from a TOML/JSON file
                          (``strategies.load_weights``; names not in the file keep
                          the style's defaults)
``search`` / ``search:N`` the search player with at most N rollouts per decision
                          (default ``search.DEFAULT_BUDGET``)
``search_ref:N``          the flat search it replaced (every candidate on every
                          sample; default ``search.REF_BUDGET``), kept as a yardstick
``search_expert:N``       the search with ``expert`` rollouts instead of ``tuned``
``search:N:phases=a+b``   the search at the named phases only (``search.PHASE_NAMES``:
                          swap, main, post, ship, council; ``all``, ``none``), its
                          rollout policy elsewhere: the per-phase ablation; add
                          ``:turns=A-B`` to search game turns A..B-1 only (``A-``: on)
``pkg.module:Class``      a pure-Python plug-in (``bonfire_sim.strategies.plugin``), played on the
                          slower Python loop (``bonfire_sim.sim.pyloop``)
========================  ====================================================

``parse_player`` resolves a spec to a :class:`Player`: its compiled strategy id and weight
row (or the plug-in path), and ``record()`` - what a run manifest stores so the run can
be repeated exactly: the spec, the kind, the full named weight row, and for a weight file
its path and SHA-256.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from bonfire_sim.errors import ConfigError
from bonfire_sim.strategies import (
    BUILTIN,
    EXPERT,
    RANDOM_ID,
    SEARCH_ID,
    SEARCH_POLICY,
    W,
    load_weights,
    strategy_id,
    weights_for,
)
from bonfire_sim.strategies import search as SE
from bonfire_sim.strategies.weights import WEIGHT_NAMES

KINDS = ("builtin", "weights", "search", "plugin")
MAX_BUDGET = 100_000


@dataclass(frozen=True)
class Player:
    """A resolved seat player.  ``spec`` is also its label in result tables."""

    spec: str
    kind: str
    sid: int  # compiled strategy id; -1 for a plug-in
    row: tuple[float, ...] = ()
    weights_file: str | None = None
    weights_sha256: str | None = None
    budget: int | None = None
    plugin_path: str | None = None

    @property
    def compiled(self) -> bool:
        """True when the compiled game loop can play this seat."""
        return self.sid >= 0

    def weight_row(self) -> np.ndarray:
        """The float64 weight row (length ``W``; zeros for a plug-in)."""
        out = np.zeros(W, np.float64)
        out[:len(self.row)] = self.row
        return out

    def load(self) -> Any:
        """The plug-in object (plug-ins only)."""
        from bonfire_sim.strategies.plugin import load_plugin

        if self.plugin_path is None:
            raise ConfigError(f"{self.spec!r} is not a plug-in")
        return load_plugin(self.plugin_path)

    def record(self) -> dict[str, Any]:
        """What a manifest stores about this player (enough to repeat the run)."""
        rec: dict[str, Any] = {"spec": self.spec, "kind": self.kind}
        if self.kind == "plugin":
            rec["plugin"] = self.plugin_path
            return rec
        rec["strategy_id"] = self.sid
        names = WEIGHT_NAMES if self.sid != RANDOM_ID else ()
        rec["weights"] = {k: float(self.row[i]) for i, k in enumerate(names)}
        if self.kind == "search":
            rec["budget"] = self.budget
            rec["width"] = int(self.row[SE.R_WIDTH])
            rec["mode"] = "flat" if self.row[SE.R_MODE] == SE.MODE_FLAT else "halving"
            rec["rollout_policy"] = rollout_policy(self.spec)
            rec["phases"] = phase_names(int(self.row[SE.R_PHASES]))
            rec["turns"] = [int(self.row[SE.R_FROM]), int(self.row[SE.R_UNTIL])]
        if self.weights_file is not None:
            rec["weights_file"] = self.weights_file
            rec["weights_sha256"] = self.weights_sha256
        return rec


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def parse_player(spec: str) -> Player:
    """Resolve one player spec (see the module table); ``ConfigError`` if it is invalid."""
    if not isinstance(spec, str) or not spec.strip():
        raise ConfigError(f"empty player spec {spec!r}")
    spec = spec.strip()
    if _is_search(spec):
        return _search(spec)
    if "@" in spec:
        name, _, file = spec.partition("@")
        return _weights_file(spec, name.strip(), file.strip())
    if ":" in spec:
        from bonfire_sim.strategies.plugin import load_plugin

        load_plugin(spec)  # fail early on a bad path
        return Player(spec=spec, kind="plugin", sid=-1, plugin_path=spec)
    return _builtin(spec)


def _builtin(spec: str) -> Player:
    try:
        sid = strategy_id(spec)
    except ValueError as error:
        raise ConfigError(f"{error}; or name@weights.toml, search:N, package.module:Class") \
            from None
    return Player(spec=spec, kind="builtin", sid=sid, row=tuple(weights_for(spec)))


def stored_player(spec: str, records: Mapping[str, Any]) -> Player:
    """The player ``spec`` (a style with a weights file) as a run's manifest recorded it:
    its weights come from the record, never from the file the spec names, whose path
    belongs to the machine that made the run (``SECURITY.md``)."""
    rec = records.get(spec) if isinstance(records, Mapping) else None
    style = spec.partition("@")[0].strip()
    _style_of(spec, style)  # a known style, or ConfigError
    if not isinstance(rec, Mapping) or not isinstance(rec.get("weights"), Mapping):
        raise ConfigError(f"the run does not record the weights of {spec!r}, and the file "
                          f"its manifest names is not opened; re-run it with this version")
    weights = rec["weights"]
    if set(weights) != set(WEIGHT_NAMES):
        raise ConfigError(f"the run's record of {spec!r} does not hold this version's "
                          f"{len(WEIGHT_NAMES)} weights")
    row = []
    for name in WEIGHT_NAMES:
        v = weights[name]
        if isinstance(v, bool) or not isinstance(v, int | float) or not math.isfinite(v):
            raise ConfigError(f"the run's record of {spec!r} has a bad weight {name}={v!r}")
        row.append(float(v))
    return Player(spec=spec, kind="weights", sid=strategy_id(style), row=tuple(row),
                  weights_file=rec.get("weights_file"),
                  weights_sha256=rec.get("weights_sha256"))


def check_stored_spec(spec: str) -> str:
    """Check a spec read from data (a run manifest) by its text alone: a built-in name, a
    search budget, a style with a weights file, or a plug-in path - never importing the
    plug-in nor opening the weights file, whose path belongs to the machine that made the
    run (``SECURITY.md``: only the user names code to import)."""
    if not isinstance(spec, str) or not spec.strip():
        raise ConfigError(f"empty player spec {spec!r}")
    spec = spec.strip()
    if _is_search(spec):
        _search(spec)
    elif "@" in spec:
        _style_of(spec, spec.partition("@")[0].strip())
    elif ":" in spec:
        from bonfire_sim.strategies.plugin import check_plugin_path

        check_plugin_path(spec)
    else:
        _builtin(spec)
    return spec


def _is_search(spec: str) -> bool:
    """True if ``spec`` names the search player or its flat reference (``search_ref``)."""
    name = spec.split(":", 1)[0]
    return name in (SE.NAME, SE.REF_NAME, SE.EXPERT_NAME)


def rollout_policy(spec: str) -> str:
    """The style whose row plays a search spec's rollouts (``search_expert``: ``expert``)."""
    return EXPERT if spec.split(":", 1)[0].strip() == SE.EXPERT_NAME else SEARCH_POLICY


def phase_names(mask: int) -> list[str]:
    """The names (``search.PHASE_NAMES``) of the phases a search row's mask searches."""
    return [name for name, ph in SE.PHASE_NAMES.items() if (mask >> ph) & 1]


def _phase_mask(spec: str, value: str) -> int:
    """The phase mask of a spec's ``phases=a+b`` (``all``, ``none`` or phase names)."""
    names = [v.strip() for v in value.split("+")]
    known = ", ".join([*SE.PHASE_NAMES, "all", "none"])
    if not all(names):
        raise ConfigError(f"{spec!r}: phases=a+b names phases (of {known})")
    if names in (["all"], ["none"]):
        return SE.SEARCH_PHASES if names == ["all"] else 0
    unknown = [n for n in names if n not in SE.PHASE_NAMES]
    if unknown:
        raise ConfigError(f"{spec!r}: unknown phase {unknown[0]!r}; choose from {known}")
    return sum({1 << SE.PHASE_NAMES[n] for n in names})


def _turns(spec: str, value: str) -> tuple[int, int]:
    """A spec's ``turns=A-B``: game turns A (inclusive) to B (exclusive; ``A-`` to the end)."""
    lo, dash, hi = value.partition("-")
    try:
        a, b = int(lo), int(hi) if hi.strip() else 0
    except ValueError:
        a, b = -1, -1
    if not dash or a < 0 or b < 0 or (b and b <= a):
        raise ConfigError(f"{spec!r}: turns=A-B needs whole turns 0 <= A < B (or A- for "
                          f"A to the end)")
    return a, b


def _search_options(spec: str, text: str) -> tuple[int, tuple[int, int]]:
    """The searched phases and turns of the options after a search spec's budget
    (``phases=main+council``, ``turns=0-20``, each at most once, ``:`` between them)."""
    options: dict[str, str] = {}
    for item in text.split(":"):
        key, eq, value = item.partition("=")
        key = key.strip()
        if key not in ("phases", "turns") or not eq or key in options:
            raise ConfigError(f"{spec!r}: after the budget only phases=a+b and turns=A-B, "
                              f"each once")
        options[key] = value
    mask = _phase_mask(spec, options["phases"]) if "phases" in options else SE.SEARCH_PHASES
    return mask, _turns(spec, options["turns"]) if "turns" in options else (0, 0)


def _search(spec: str) -> Player:
    name, _, rest = spec.partition(":")
    ref = name == SE.REF_NAME
    budget = SE.REF_BUDGET if ref else SE.DEFAULT_BUDGET
    phases, turns = SE.SEARCH_PHASES, (0, 0)
    if rest:
        text, colon, option = rest.partition(":")
        try:
            budget = int(text)
        except ValueError:
            budget = -1
        if not 1 <= budget <= MAX_BUDGET:
            raise ConfigError(f"{spec!r}: the search budget must be an integer 1..{MAX_BUDGET}")
        if colon:
            phases, turns = _search_options(spec, option)
    row = SE.search_row(weights_for(rollout_policy(spec)), budget=budget,
                        mode=SE.MODE_FLAT if ref else SE.MODE_HALVING, phases=phases,
                        turns=turns)
    return Player(spec=spec, kind="search", sid=SEARCH_ID, row=tuple(row), budget=budget)


def _style_of(spec: str, name: str) -> None:
    if name not in BUILTIN or name in ("random", SE.NAME):
        styles = sorted(n for n in BUILTIN if n not in ("random", SE.NAME))
        raise ConfigError(f"{spec!r}: weights apply to a style; choose from {', '.join(styles)}")


def _weights_file(spec: str, name: str, file: str) -> Player:
    _style_of(spec, name)
    path = Path(file)
    if not path.is_file():
        raise ConfigError(f"{spec!r}: weights file {file!r} not found")
    try:
        row = weights_for(name, load_weights(path))
    except ValueError as error:
        raise ConfigError(f"{spec!r}: {error}") from None
    return Player(spec=spec, kind="weights", sid=strategy_id(name), row=tuple(row),
                  weights_file=str(path), weights_sha256=_sha256(path))


def split_specs(text: str | Iterable[str] | None) -> list[str]:
    """Specs from ``"a,b,c"`` (CLI) or a sequence (API, TOML); blanks dropped."""
    if text is None:
        return []
    items = text.split(",") if isinstance(text, str) else list(text)
    return [str(x).strip() for x in items if str(x).strip()]


def parse_players(text: str | Sequence[str] | None) -> list[Player]:
    """Resolve a comma-separated string or a sequence of specs."""
    return [parse_player(s) for s in split_specs(text)]
