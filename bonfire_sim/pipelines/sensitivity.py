"""How much each headline figure depends on the guessed component facts.

For every named variant (``components.VARIANTS``) the study plays the same deals as the
default game: identical run configurations and seeds, only the variant differs, so game
``i`` of a variant run and game ``i`` of the default run share their deal (the seeds are
checked).  Each figure is then compared game by game (or player-row by player-row): the
table gives the default's value, the variant's value and the paired difference with a
95% Student t interval over the per-game differences.  Adjusted task and gnome effects
are regression estimates on each arm; their difference gets the independent-samples
interval sqrt(se_a^2 + se_b^2) (conservative: it ignores the pairing).

A variant whose parameters differ from the default only in Tom's deck cannot change a
multiplayer game; its multiplayer games are not replayed and its differences there are
exactly 0.
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from bonfire_sim.analysis.intervals import Z95, se_from_interval
from bonfire_sim.config import check_count
from bonfire_sim.errors import ConfigError
from bonfire_sim.infra import fileio, ownership, safepaths
from bonfire_sim.infra.numtext import number
from bonfire_sim.lineup import RECOMMENDED_SOLO
from bonfire_sim.report import stats as ST
from bonfire_sim.rules import components as C
from bonfire_sim.rules import tables as T
from bonfire_sim.sim.runconfig import RunConfig
from bonfire_sim.sim.runner import run

# The fast solo styles, the strongest against Tom first (steady), then tuned (the strongest
# in multiplayer).  The recommended solo player (lineup.RECOMMENDED_SOLO, a search budget)
# is left out on purpose: it plays about 10 solo games a second per core, so 1,000 games
# per style and variant would make the sweep an hour; a variant's effect on Tom is checked
# with it by `bonfire-sim solo --variant FACT=NAME` (docs/howto/tom.md).
SOLO_STYLES = tuple(s for s in ("steady", "tuned", "portal", "planner", "greedy", "guardian",
                                "gnome_engine", "tempo") if s != RECOMMENDED_SOLO)
DEFAULT_ARM = "default"
Arm = tuple[str, str]  # (fact, variant name); the default arm is ("", "default")


def all_variants() -> tuple[Arm, ...]:
    """Every non-default variant of every fact."""
    return tuple((fact, v.name) for fact, vs in C.VARIANTS.items() for v in vs[1:])


@dataclass(frozen=True)
class SensitivityPlan:
    """What to play: games per player count (2-4, seat-rotated) and per solo style."""

    games: int = 2000
    solo_games: int = 1000
    players: tuple[int, ...] = (1, 2, 3, 4)
    seed: int = 2026
    variants: tuple[Arm, ...] = field(default_factory=all_variants)
    styles: tuple[str, ...] = SOLO_STYLES

    def __post_init__(self) -> None:
        from bonfire_sim.config import check_count, check_seed

        check_count("games", self.games)
        check_count("solo games", self.solo_games)
        check_seed(self.seed)
        if not self.players or not set(self.players) <= {1, 2, 3, 4}:
            raise ConfigError(f"players must be among 1..4, got {self.players}")
        if not self.variants:
            raise ConfigError("no variant to compare with the default")
        for fact, name in self.variants:
            try:
                C.variant(fact, name)
            except ValueError as e:
                raise ConfigError(str(e)) from None
            if name == C.default_variants()[fact]:
                raise ConfigError(f"{fact}={name} is the default; name a non-default variant")
        object.__setattr__(self, "players", tuple(sorted(set(self.players))))

    def configs(self, arm: Arm, chunk: int) -> list[tuple[str, RunConfig]]:
        """(run name, configuration) of every run of one arm."""
        chosen = {arm[0]: arm[1]} if arm[0] else {}
        out = []
        for n in self.players:
            if n == 1:
                for style in self.styles:
                    out.append((f"solo-{style}", RunConfig(
                        games=self.solo_games, players=1, strategies=(style,),
                        seed=self.seed + 1, chunk_size=chunk, variants=chosen)))
            else:
                games = self.games + (-self.games) % n  # whole seat rotations
                out.append((f"p{n}", RunConfig(games=games, players=n, seat_rotation=True,
                                               seed=self.seed + n, chunk_size=chunk,
                                               variants=chosen)))
        return out


def arm_label(arm: Arm) -> str:
    return f"{arm[0]}={arm[1]}" if arm[0] else DEFAULT_ARM


def multiplayer_free(arm: Arm) -> bool:
    """True if the arm's parameters differ from the default only in Tom's deck."""
    if not arm[0]:
        return False
    diff = np.flatnonzero(T.build_params(variants={arm[0]: arm[1]}) != T.DEFAULT_PARAMS)
    tom = set(range(T.TOM_CARD, T.TOM_CARD + C.TOM_DECK_SIZE)) | set(
        range(T.TOM_REVEAL, T.TOM_REVEAL + C.TOM_DECK_SIZE))
    return set(diff.tolist()) <= tom


# ---- playing ------------------------------------------------------------------------------
def play_arms(plan: SensitivityPlan, work: str | Path, jobs: int = 1,
              progress: Callable[[int], None] | None = None,
              ) -> dict[str, dict[str, Path]]:
    """Run (or reuse finished) runs of every arm under ``work``; {arm: {run name: dir}}.

    ``progress(n)`` is called with the number of newly finished games.
    """
    work = Path(work)
    ownership.check_may_write(work)  # the arms' runs go under it: never inside a run
    # 8 chunks per run keep 2-4 workers busy; the chunk size must not depend on --jobs,
    # or a rerun with other --jobs could not reuse the finished runs
    chunk = max(50, math.ceil(max(plan.games, plan.solo_games) / 8))
    arms = [("", DEFAULT_ARM), *plan.variants]
    out: dict[str, dict[str, Path]] = {}
    for arm in arms:
        label = arm_label(arm)
        out[label] = {}
        for name, config in plan.configs(arm, chunk):
            if not name.startswith("solo") and multiplayer_free(arm):
                out[label][name] = out[DEFAULT_ARM][name]  # identical games
                continue
            seen = [0]

            def tick(done: int, total: int, seen: list[int] = seen) -> None:
                if progress and done > seen[0]:
                    progress(done - seen[0])
                seen[0] = done

            d = work / label.replace("=", "-") / name
            out[label][name] = run(config, d, jobs=jobs, resume=True, progress=tick)
    return out


def total_games(plan: SensitivityPlan) -> int:
    """Games the plan plays (multiplayer games of Tom-only variants are not replayed)."""
    n = 0
    for arm in [("", DEFAULT_ARM), *plan.variants]:
        for name, config in plan.configs(arm, 500):
            if name.startswith("solo") or not multiplayer_free(arm):
                n += config.games
    return n


# ---- figures ------------------------------------------------------------------------------
def _load(path: Path) -> tuple[pd.DataFrame, pd.DataFrame]:
    from bonfire_sim.sim.load import load

    data = load(path, turns=False, lazy=False)
    return ST.combine([(str(path), data)])


def _paired(a: pd.Series, b: pd.Series) -> tuple[float, float, float, float, float, int]:
    """(mean a, mean b, mean of b - a, lo, hi, pairs) over aligned pairs."""
    d = (b.astype(float) - a.astype(float)).to_numpy()
    m, lo, hi = ST.mean_ci(d)
    if len(d) > 1 and np.all(d == d[0]):
        lo = hi = m  # identical games: no spread
    return float(a.mean()), float(b.mean()), m, lo, hi, len(d)


def _check_pairing(ga: pd.DataFrame, gb: pd.DataFrame) -> None:
    a = ga.set_index("game_id")["seed"]
    b = gb.set_index("game_id")["seed"]
    if not a.index.equals(b.index) or not (a == b).all():
        raise ConfigError("the variant and default runs do not share their deals")


def _row(figure: str, unit: str, arm: str, vals: tuple, note: str = "") -> dict[str, Any]:
    a, b, d, lo, hi, n = vals
    return {"figure": figure, "unit": unit, "variant": arm, "pairs": n, "default": a,
            "value": b, "diff": d, "lo": lo, "hi": hi, "note": note}


def multiplayer_rows(arm: str, n: int, base: tuple[pd.DataFrame, pd.DataFrame],
                     var: tuple[pd.DataFrame, pd.DataFrame]) -> list[dict[str, Any]]:
    """Start-player share, stalled share and the best style's win rate at n players."""
    (ga, pa), (gb, pb) = base, var
    _check_pairing(ga, gb)
    rows = []
    s0a = pa[pa["seat"] == 0].set_index("game_id")["win_share"].sort_index()
    s0b = pb[pb["seat"] == 0].set_index("game_id")["win_share"].sort_index()
    rows.append(_row(f"start player wins, {n}p", "rate", arm, _paired(s0a, s0b),
                     f"fair share {1 / n:.3f}"))
    sa = (ga.set_index("game_id")["end_reason"] == "stalled").sort_index()
    sb = (gb.set_index("game_id")["end_reason"] == "stalled").sort_index()
    rows.append(_row(f"games stalled, {n}p", "rate", arm, _paired(sa, sb)))
    best = pa.groupby("strategy")["win_share"].mean().idxmax()
    best_b = pb.groupby("strategy")["win_share"].mean().idxmax()
    key = ["game_id", "seat"]
    wa = pa[pa["strategy"] == best].set_index(key)["win_share"].sort_index()
    wb = pb.set_index(key)["win_share"].reindex(wa.index)
    note = f"best style: {best}" + ("" if best_b == best else f"; under the variant {best_b}")
    rows.append(_row(f"best style's win rate, {n}p", "rate", arm, _paired(wa, wb), note))
    return rows


def solo_rows(arm: str, base: Mapping[str, tuple[pd.DataFrame, pd.DataFrame]],
              var: Mapping[str, tuple[pd.DataFrame, pd.DataFrame]]) -> list[dict[str, Any]]:
    """Tom's mean score over every style's games and each style's win rate against Tom."""
    rows = []
    toms_a, toms_b = [], []
    for style in base:
        (ga, pa), (gb, pb) = base[style], var[style]
        _check_pairing(ga, gb)
        sa = ST.solo_games(pa).set_index("game_id").sort_index()
        sb = ST.solo_games(pb).set_index("game_id").sort_index()
        toms_a.append(sa["tom"])
        toms_b.append(sb["tom"])
        rows.append(_row(f"solo win rate, {style}", "rate", arm,
                         _paired(sa["won"], sb["won"])))
    tom = _row("Tom's mean score (all styles)", "points", arm,
               _paired(pd.concat(toms_a, ignore_index=True), pd.concat(toms_b, ignore_index=True)))
    return [tom, *rows]


MIN_SHARE = 0.01  # an item ranks only if at least 1% of player rows have it (lit/owned)


def _extreme_rows(arm: str, kind: str, est_a: pd.DataFrame, est_b: pd.DataFrame,
                  col: str, count: str, n_rows: int, same: bool) -> list[dict[str, Any]]:
    """The strongest and weakest item of the default arm, its estimate in both arms
    (``same``: both arms are the very same games, so the difference is exactly 0).  Items
    that fewer than MIN_SHARE of the players had do not rank: their wide intervals would
    make the extremes noise."""
    rows = []
    floor = MIN_SHARE * n_rows
    a = est_a[est_a[count] >= floor].dropna(subset=[col]).set_index("id")
    b = est_b[est_b[count] >= floor].dropna(subset=[col]).set_index("id")
    b_all = est_b.dropna(subset=[col]).set_index("id")
    for which, pick in (("strongest", "idxmax"), ("weakest", "idxmin")):
        what = "surplus over printed points" if kind == "task" else "score effect"
        if a.empty:  # every item below the regression's minimum count
            rows.append(_row(f"{which} {kind} ({what})", "points", arm,
                             (math.nan,) * 5 + (n_rows,), "too few games for an estimate"))
            continue
        item = getattr(a[col], pick)()
        item_b = getattr(b[col], pick)() if len(b) else "-"
        va = float(a.loc[item, col])
        se_a = float(a.loc[item, "se"])
        vb = float(b_all.loc[item, col]) if item in b_all.index else math.nan
        se_b = float(b_all.loc[item, "se"]) if item in b_all.index else math.nan
        d = vb - va
        half = 0.0 if same else Z95 * math.sqrt(se_a ** 2 + se_b ** 2)
        note = f"{item}" + ("" if item_b == item else f"; under the variant {item_b}")
        rows.append(_row(f"{which} {kind} ({what})", "points", arm,
                         (va, vb, d, d - half, d + half, n_rows), note))
    return rows


def item_rows(arm: str, players_a: pd.DataFrame, players_b: pd.DataFrame, same: bool = False
              ) -> list[dict[str, Any]]:
    """Strongest/weakest task (adjusted effect minus printed points) and gnome."""
    out = []
    ta, tb = (ST.task_lit_regression(p) for p in (players_a, players_b))
    for t in (ta, tb):
        t["surplus"] = t["value"] - t["printed"]
        t["se"] = se_from_interval(t["value_lo"], t["value_hi"])
    out += _extreme_rows(arm, "task", ta, tb, "surplus", "lit", len(players_a), same)
    na, nb = (ST.gnome_owned_regression(p) for p in (players_a, players_b))
    for g in (na, nb):
        g["se"] = se_from_interval(g["lo"], g["hi"])
    out += _extreme_rows(arm, "gnome", na, nb, "effect", "owned", len(players_a), same)
    return out


def sensitivity_table(plan: SensitivityPlan, dirs: Mapping[str, Mapping[str, Path]]
                      ) -> pd.DataFrame:
    """The long table: one row per (figure, variant)."""
    cache: dict[Path, tuple[pd.DataFrame, pd.DataFrame]] = {}

    def get(path: Path) -> tuple[pd.DataFrame, pd.DataFrame]:
        if path not in cache:
            cache[path] = _load(path)
        return cache[path]

    base = dirs[DEFAULT_ARM]
    multi = [n for n in plan.players if n > 1]
    rows: list[dict[str, Any]] = []
    for arm in plan.variants:
        label = arm_label(arm)
        var = dirs[label]
        for n in multi:
            rows += multiplayer_rows(label, n, get(base[f"p{n}"]), get(var[f"p{n}"]))
        if 1 in plan.players:
            rows += solo_rows(label, {s: get(base[f"solo-{s}"]) for s in plan.styles},
                              {s: get(var[f"solo-{s}"]) for s in plan.styles})
        if multi:
            pa = pd.concat([ST.multiplayer(get(base[f"p{n}"])[1]).assign(run=f"p{n}")
                            for n in multi], ignore_index=True)
            pb = pd.concat([ST.multiplayer(get(var[f"p{n}"])[1]).assign(run=f"p{n}")
                            for n in multi], ignore_index=True)
            same = all(var[f"p{n}"] == base[f"p{n}"] for n in multi)
            rows += item_rows(label, pa, pb, same)
    return pd.DataFrame(rows)


def _fmt(unit: str, v: float, signed: bool = False) -> str:
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "-"
    if unit == "rate":
        return number(100 * v, "+.1f") if signed else number(100 * v, ".1f") + "%"
    return number(v, "+.2f" if signed else ".2f")


def wide_table(long: pd.DataFrame) -> pd.DataFrame:
    """One row per figure: the default's value, then per variant its own value and, in
    brackets, the paired difference from the default with the 95% interval (rates in
    percent and percentage points, scores in points): ``53.3% (+37.1 [+33.0, +41.2])``."""
    out = []
    for figure, g in long.groupby("figure", sort=False):
        unit = g["unit"].iloc[0]
        row = {"figure": figure, "default": _fmt(unit, g["default"].iloc[0])}
        notes = []
        for r in g.to_dict("records"):
            row[r["variant"]] = (f"{_fmt(unit, r['value'])} ({_fmt(unit, r['diff'], True)} "
                                 f"[{_fmt(unit, r['lo'], True)}, {_fmt(unit, r['hi'], True)}])")
            if "under the variant" in r["note"]:
                notes.append(f"{r['variant']}: {r['note'].split('under the variant ')[1]}")
        first = g["note"].iloc[0].split(";")[0]
        row["note"] = "; ".join(x for x in [first, *notes] if x)
        out.append(row)
    return pd.DataFrame(out)


# ---- outputs ------------------------------------------------------------------------------
def write_atomic(path: str | Path, text: str) -> Path:
    """Write ``text`` to ``path`` atomically (the project's one writer, ``fileio``)."""
    return fileio.write_text(path, text)


def _records(frame: pd.DataFrame) -> list[dict[str, Any]]:
    """Rows as dicts with every missing value (NaN) as None, i.e. JSON null."""
    return frame.astype(object).where(frame.notna(), None).to_dict("records")


def to_json(plan: SensitivityPlan, long: pd.DataFrame, seconds: float) -> str:
    """The study as JSON: plan, variants (with provenance and reasons), long and wide rows."""
    variants = [{"fact": f, "variant": n, "provenance": C.variant(f, n).provenance,
                 "why": C.variant(f, n).why, "default": C.default_variants()[f]}
                for f, n in plan.variants]
    doc = {"format": "bonfire_sim-sensitivity", "games": plan.games,
           "solo_games": plan.solo_games, "players": list(plan.players), "seed": plan.seed,
           "styles": list(plan.styles), "variants": variants, "seconds": round(seconds, 1),
           "created": time.strftime("%Y-%m-%dT%H:%M:%S"),
           "rows": json.loads(long.to_json(orient="records")),
           "wide": _records(wide_table(long))}
    return fileio.dumps_json(doc, "the sensitivity JSON", indent=1)  # missing values: null


def html_sections(doc: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Report sections for a sensitivity JSON document: the wide table and the variants."""
    from bonfire_sim.report import html as H

    wide = pd.DataFrame(doc["wide"])
    cols = {c: (c, "") for c in wide.columns}
    arms = [c for c in wide.columns if c not in ("figure", "default", "note")]
    var = pd.DataFrame(doc["variants"])
    return [
        {"id": "sensitivity", "title": "Sensitivity to the assumed facts", "absent": None,
         "blocks": [
             H.text_block(
                 f"Each variant replays the default's deals (seed {doc['seed']}): "
                 f"{doc['games']:,} seat-rotated games per player count "
                 f"({', '.join(str(n) for n in doc['players'] if n > 1) or 'none'}) and "
                 f"{doc['solo_games']:,} solo games per style. Cells: the variant's own "
                 "value, then in brackets the paired difference variant - default with its "
                 "95% interval (rates in percent and percentage points, scores in points); "
                 "task and gnome rows use independent-samples intervals of regression "
                 "estimates. Columns: " + ", ".join(arms) + "."),
             H.table_block(wide, cols, caption="How each headline figure moves under each "
                                               "variant")]},
        {"id": "sensitivity-variants", "title": "The variants compared", "absent": None,
         "blocks": [H.table_block(var, {"fact": ("fact", ""), "default": ("default", ""),
                                         "variant": ("variant", ""),
                                         "provenance": ("provenance", ""),
                                         "why": ("why it is plausible", "")})]},
    ]


def write_html(path: str | Path, doc: Mapping[str, Any]) -> Path:
    from bonfire_sim import __version__
    from bonfire_sim.report import html as H

    subtitle = (f"bonfire_sim {__version__}, {doc['created']}, {doc['seconds']:.0f} s of play "
                f"and analysis")
    return write_atomic(path, H.render("Bonfire: sensitivity to assumed facts", subtitle,
                                       html_sections(doc)))


def run_sensitivity(plan: SensitivityPlan, work: str | Path, jobs: int = 1,
                    progress: Callable[[int], None] | None = None,
                    ) -> tuple[pd.DataFrame, dict[str, Any]]:
    """Play (or reuse) every arm and compute the table: (long table, JSON document)."""
    t0 = time.perf_counter()
    dirs = play_arms(plan, work, jobs, progress)
    long = sensitivity_table(plan, dirs)
    doc = json.loads(to_json(plan, long, time.perf_counter() - t0))
    return long, doc


def load_plan(path: str | Path) -> tuple[SensitivityPlan, dict[str, Any]]:
    """A plan and its output settings from the ``[sensitivity]`` table of a TOML file."""
    from bonfire_sim.config import read_toml

    path = Path(path)
    doc = read_toml(path, "sensitivity file")
    t = doc.get("sensitivity")
    if not isinstance(t, dict):
        raise ConfigError(f"{path} has no [sensitivity] table")
    plan_keys = {"games", "solo_games", "players", "seed", "variants", "styles"}
    out_keys = {"jobs", "work", "csv", "json", "html"}
    unknown = set(t) - plan_keys - out_keys
    if unknown:
        raise ConfigError(f"{path}: unknown [sensitivity] keys {sorted(unknown)}; allowed: "
                          f"{', '.join(sorted(plan_keys | out_keys))}")
    kw: dict[str, Any] = {k: t[k] for k in ("games", "solo_games", "seed") if k in t}
    if "players" in t:
        if not isinstance(t["players"], list):
            raise ConfigError(f"{path}: players must be a list of counts 1..4")
        kw["players"] = tuple(check_count(f"{path}: players", n, 1, 4) for n in t["players"])
    if "styles" in t:
        kw["styles"] = tuple(str(s) for s in t["styles"])
    if "variants" in t:
        kw["variants"] = parse_arms(t["variants"])
    for key in ("work", "csv", "json", "html"):  # a shared file writes only inside cwd
        if key in t:
            safepaths.within(Path.cwd(), t[key], str(path), f"sensitivity.{key}")
    return SensitivityPlan(**kw), {k: t[k] for k in out_keys if k in t}


def parse_arms(texts: Sequence[str]) -> tuple[Arm, ...]:
    """``["tom_deck=gnome", "fate_area"]`` -> arms; a bare fact means all its variants."""
    arms: list[Arm] = []
    for text in texts:
        text = str(text).strip()
        if "=" in text:
            try:
                arms.append(C.parse_variant(text))
            except ValueError as e:
                raise ConfigError(str(e)) from None
        elif text in C.VARIANTS:
            arms += [(text, v.name) for v in C.VARIANTS[text][1:]]
        else:
            raise ConfigError(f"unknown variant {text!r}: write FACT=NAME or a fact "
                              f"({', '.join(C.FACTS)})")
    return tuple(dict.fromkeys(arms))
