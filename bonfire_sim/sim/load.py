"""Load a finished run directory as pandas or polars frames."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from bonfire_sim.errors import DataError
from bonfire_sim.sim.frames import GAMES_SCHEMA, PLAYERS_SCHEMA, TURNS_SCHEMA
from bonfire_sim.sim.runner import TURNS, read_manifest

ENGINES = ("pandas", "polars")


@dataclass(frozen=True)
class RunData:
    """A run's tables (``turns`` is None when the run kept no turn log)."""

    games: Any
    players: Any
    turns: Any | None
    manifest: dict[str, Any]


def _read(path: Path, schema: pa.Schema) -> pa.Table:
    try:
        table = pq.read_table(path)
    except FileNotFoundError:
        raise DataError(f"{path} is missing") from None
    except (pa.ArrowInvalid, OSError) as e:
        raise DataError(f"{path} is not a readable Parquet file ({e})") from None
    missing = [n for n in schema.names if n not in table.schema.names]
    if missing:
        raise DataError(f"{path} is not a bonfire_sim table: missing columns {missing[:5]}")
    return table


def load(run_dir: str | Path, engine: str = "pandas", turns: bool = True) -> RunData:
    """Read ``games``, ``players`` (and ``turns``) of a finished run.

    Raises ``DataError`` naming the file if the run is unfinished, foreign or corrupt.
    """
    if engine not in ENGINES:
        raise ValueError(f"engine must be one of {', '.join(ENGINES)}, got {engine!r}")
    out = Path(run_dir)
    manifest = read_manifest(out)
    if not manifest.get("complete"):
        raise DataError(f"{out} is an unfinished run; complete it with `bonfire-sim run "
                        f"--resume --out {out}` and the same options")
    tables = {"games": _read(out / "games.parquet", GAMES_SCHEMA),
              "players": _read(out / "players.parquet", PLAYERS_SCHEMA)}
    tparts = sorted((out / TURNS).glob("*.parquet")) if turns else []
    tt = pa.concat_tables([_read(f, TURNS_SCHEMA) for f in tparts]) if tparts else None
    if engine == "polars":
        import polars as pl

        conv = pl.from_arrow
    else:
        def conv(t: pa.Table) -> Any:
            return t.to_pandas()
    return RunData(conv(tables["games"]), conv(tables["players"]),
                   conv(tt) if tt is not None else None, manifest)
