"""The Python batch API: ``bonfire_sim.run(...) -> RunData`` and ``bonfire_sim.sweep(...)``.

The same runner as ``bonfire-sim run`` (same seeds, same tables), for notebooks and
scripts.  Without ``out`` the games are played in a temporary directory that is removed
once the tables are in memory.  ``sweep`` plays one run per point of the overrides'
list values and returns the tables with one column per swept setting.
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bonfire_sim.config import expand_sweep, point_label
from bonfire_sim.sim.load import RunData, load
from bonfire_sim.sim.runconfig import RunConfig
from bonfire_sim.sim.runner import run as run_games


def run(games: int = 1000, players: int = 4, strategies: Sequence[str] | str = (), *,
        seat_rotation: bool = False, seed: int = 0, turn_log: str = "none",
        chunk_size: int = 500, overrides: Mapping[str, Any] | None = None,
        out: str | Path | None = None, jobs: int = 1, resume: bool = False,
        engine: str = "pandas", progress: Callable[[int, int], None] | None = None,
        move_timeout: float | None = None, backend: str | None = None,
        scheduler: str | None = None) -> RunData:
    """Play a seeded batch and return its tables (see ``bonfire-sim run`` for the options).

    ``out=None`` plays in a temporary directory (the result's ``path`` is then None);
    with ``out`` the run stays on disk and an existing run of the same configuration is
    reused (``resume=True`` completes an interrupted one).  ``move_timeout``: seconds a
    plug-in seat may take per move (default: no limit).  ``backend="dask"`` with
    ``scheduler="tcp://HOST:8786"`` plays the chunks on a dask cluster (identical tables;
    ``jobs`` is then the number of chunks in flight), see ``workers.using``.
    """
    names = (strategies,) if isinstance(strategies, str) else tuple(strategies)
    config = RunConfig(games=games, players=players, strategies=names,
                       seat_rotation=seat_rotation, seed=seed, turn_log=turn_log,
                       chunk_size=chunk_size, overrides=dict(overrides or {}))
    if out is not None:
        path = run_games(config, out, jobs=jobs, resume=resume, progress=progress,
                         move_timeout=move_timeout, backend=backend, scheduler=scheduler)
        return load(path, engine=engine)
    with tempfile.TemporaryDirectory(prefix="bonfire-run-") as tmp:
        path = run_games(config, Path(tmp) / "run", jobs=jobs, progress=progress,
                         move_timeout=move_timeout, backend=backend, scheduler=scheduler)
        data = load(path, engine=engine, lazy=False)  # the directory goes away
    return RunData(data.games, data.players, data.turns, data.manifest, None)


@dataclass(frozen=True, repr=False)
class SweepData:
    """The runs of a sweep: ``points`` (one row per point: the swept settings and the
    run directory) and ``games``/``players`` of every run with a ``point`` column and one
    column per swept setting (tidy: ``players.groupby("task_points.Y14")``)."""

    points: Any
    runs: tuple[RunData, ...]

    @property
    def games(self) -> Any:
        return self._stack("games")

    @property
    def players(self) -> Any:
        return self._stack("players")

    def _stack(self, table: str) -> Any:
        import pandas as pd

        frames = []
        for i, data in enumerate(self.runs):
            frame = getattr(data, table).copy()
            for col in self.points.columns:
                if col != "run":
                    frame[col] = self.points.loc[i, col]
            frame.insert(0, "point", i)
            frames.append(frame)
        out = pd.concat(frames, ignore_index=True)
        for col in out.columns:  # categories differ between runs: unify them
            if isinstance(frames[0][col].dtype, pd.CategoricalDtype):
                out[col] = out[col].astype("category")
        return out

    def __repr__(self) -> str:
        axes = [c for c in self.points.columns if c != "run"]
        return f"SweepData({len(self.runs)} runs over {', '.join(axes) or 'no setting'})"

    def _repr_html_(self) -> str:
        return self.points._repr_html_()


def sweep(overrides: Mapping[str, Any], *, out: str | Path | None = None,
          **run_options: Any) -> SweepData:
    """One run per point of ``overrides``' list values, e.g.
    ``sweep({"task_points": {"Y14": [3, 4, 5]}}, games=400, players=2)``.

    ``run_options`` are ``run``'s; with ``out`` each point's run is kept under
    ``out/<point label>`` (and reused when present).  ``backend``/``scheduler`` (see
    ``run``) hold one cluster connection for every point.
    """
    import pandas as pd

    from bonfire_sim.infra.workers import using

    points = expand_sweep(overrides)
    runs, rows = [], []
    with using(run_options.pop("backend", None), run_options.pop("scheduler", None)):
        for point, concrete in points:
            where = None if out is None else Path(out) / point_label(point)
            runs.append(run(overrides=concrete, out=where, **run_options))
            rows.append({**{k: (tuple(v) if isinstance(v, list) else v)
                            for k, v in point.items()},
                         "run": str(where) if where else None})
    frame = pd.DataFrame(rows)
    frame.index.name = "point"
    return SweepData(frame, tuple(runs))
