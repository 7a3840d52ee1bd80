"""Which runs play the same game: the report's configuration dimension.

Runs are grouped by everything that makes their games different (player count, the
players, component overrides, the uncertain-fact variants, the engine), read from the
manifests alone, so a mix is sorted out (or refused) before any table is read and long
before any fork is computed.  Runs of one group are pooled (more games of one game);
different groups are never pooled: every report section shows each *setting* (a group
without its player count and, for solo runs, without the solo player) separately, and
within a setting each player count and each solo player gets its own rows.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from bonfire_sim.errors import ConfigError, DataError
from bonfire_sim.rules import components as C
from bonfire_sim.sim.load import finished_manifest
from bonfire_sim.sim.runconfig import default_mix
from bonfire_sim.sim.runner import stored_config

# Only the solo game has Tom: his deck cannot change a multiplayer game.
SOLO_ONLY_FACTS = ("tom_deck",)


@dataclass(frozen=True)
class Group:
    """Runs that play the same game (pooled); ``setting`` is shared with the other player
    counts (and solo players) of the same rules."""

    label: str
    setting: str
    players: int
    player: str  # the solo player, or the mix description of a multiplayer group
    runs: tuple[str, ...]
    games: int

    @property
    def solo(self) -> bool:
        return self.players == 1


def _canon(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(", ", ": "))


def setting_parts(config: Mapping[str, Any], engine: str) -> dict[str, str]:
    """What this run changes from the default game, as ``{name: value}`` text (empty for
    the default game); ``engine`` is kept as a part so runs of two engines never pool."""
    players = int(config.get("players", 0))
    parts: dict[str, str] = {}
    strategies = tuple(config.get("strategies", ()))
    if players >= 2 and strategies and sorted(strategies) != sorted(default_mix(players)):
        parts["players"] = ", ".join(sorted(strategies))
    defaults = C.default_variants()
    for fact, name in sorted(C.resolve_variants(config.get("variants")).items()):
        if name != defaults[fact] and not (players >= 2 and fact in SOLO_ONLY_FACTS):
            parts[fact] = name
    for key, value in sorted(dict(config.get("overrides") or {}).items()):
        parts[key] = _canon(value)
    parts["engine"] = engine
    return parts


def _parse(manifest: Mapping[str, Any]) -> tuple[dict[str, Any], str, dict[str, str]]:
    cfg = stored_config(dict(manifest))
    engine = str((manifest.get("fingerprint") or {}).get("source_hash", "unrecorded"))
    int(cfg.get("players", 0)), int(cfg.get("games", 0))  # noqa: B018 (validates)
    return cfg, engine, setting_parts(cfg, engine)


def _label(parts: Mapping[str, str], show_engine: bool) -> str:
    shown = [f"{k} = {v}" for k, v in parts.items() if k != "engine" or show_engine]
    return "; ".join(shown) or "default game"


def group_manifests(manifests: Sequence[tuple[str, Mapping[str, Any]]]) -> list[Group]:
    """Groups of ``(label, manifest)`` pairs, in the order they first appear.

    Refuses (``ConfigError``) two runs that play the same deals: the same configuration
    and seed, so pooling them would count the same games twice.
    """
    seen: dict[str, str] = {}
    rows = []
    for label, manifest in manifests:
        try:
            cfg, engine, parts = _parse(manifest)
        except (TypeError, ValueError, AttributeError, KeyError) as e:
            raise DataError(f"run {label}: the manifest holds no usable configuration "
                            f"({e})") from None
        same_deals = _canon({k: cfg.get(k) for k in ("players", "strategies", "seat_rotation",
                                                      "seed", "overrides", "variants")}
                            | {"engine": engine})
        if same_deals in seen:
            raise ConfigError(f"runs {seen[same_deals]} and {label} play the same deals (same "
                              f"configuration and seed {cfg.get('seed')}): the report would "
                              f"count those games twice; give one of them")
        seen[same_deals] = label
        rows.append((label, cfg, parts))
    show_engine = len({p["engine"] for _, _, p in rows}) > 1
    groups: dict[tuple[str, int, str], dict[str, Any]] = {}
    for label, cfg, parts in rows:
        players = int(cfg.get("players", 0))
        setting = _label(parts, show_engine)
        player = (str(cfg.get("strategies", ["?"])[0]) if players == 1
                  else parts.get("players", "default mix"))
        key = (setting, players, player)
        g = groups.setdefault(key, {"runs": [], "games": 0})
        g["runs"].append(label)
        g["games"] += int(cfg.get("games", 0))
    out = []
    for (setting, players, player), g in groups.items():
        where = f"solo {player}" if players == 1 else f"{players} players"
        out.append(Group(label=f"{where} · {setting}", setting=setting, players=players,
                         player=player, runs=tuple(g["runs"]), games=g["games"]))
    return out


def group_dirs(run_dirs: Sequence[str | Path], labels: Sequence[str]) -> list[Group]:
    """``group_manifests`` from run directories (manifests only: fast, reads no table)."""
    return group_manifests([(lab, finished_manifest(Path(d)))
                            for lab, d in zip(labels, run_dirs, strict=True)])


def settings(groups: Sequence[Group], solo: bool) -> list[tuple[str, list[Group]]]:
    """The settings of the multiplayer (``solo=False``) or solo groups, in order, each with
    its groups."""
    out: dict[str, list[Group]] = {}
    for g in groups:
        if g.solo == solo:
            out.setdefault(g.setting, []).append(g)
    return list(out.items())


def group_of(groups: Sequence[Group]) -> dict[str, Group]:
    """Run label -> its group."""
    return {run: g for g in groups for run in g.runs}


def groups_table(groups: Sequence[Group]) -> pd.DataFrame:
    """One row per group: label, setting, player count, players, runs, games."""
    return pd.DataFrame([{"group": g.label, "setting": g.setting,
                          "players": g.players, "player": g.player,
                          "runs": ", ".join(g.runs), "games": g.games} for g in groups],
                        columns=["group", "setting", "players", "player", "runs", "games"])
