"""Big runs in bounded memory: Arrow-backed list columns, the report's pruned load giving
the same numbers as the full one, checksums hashed once per file version (a tampered file
still refused), and the lazy path's peak memory not growing with the games."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pytest

from bonfire_sim.analysis import values as V
from bonfire_sim.errors import DataError
from bonfire_sim.infra import fileio
from bonfire_sim.report import data as RD
from bonfire_sim.report import stats as S
from bonfire_sim.sim import checksums
from bonfire_sim.sim.frames import SCHEMAS
from bonfire_sim.sim.load import load
from bonfire_sim.sim.runconfig import RunConfig
from bonfire_sim.sim.runner import run

LISTS = [f.name for f in SCHEMAS["players"] if pa.types.is_list(f.type)]


@pytest.fixture(scope="module")
def ref(tmp_path_factory) -> Path:
    return run(RunConfig(games=60, players=4, seed=5, chunk_size=20),
               tmp_path_factory.mktemp("mem") / "ref")


@pytest.fixture()
def memo(tmp_path, monkeypatch):
    """A private checksum memo that remembers files at once (no racy-second wait)."""
    monkeypatch.setattr(checksums, "memo_dir", lambda: tmp_path / "memo")
    monkeypatch.setattr(checksums, "RACY_SECONDS", 0.0)
    hashed: list[str] = []
    real = fileio.sha256

    def counting(path):
        hashed.append(Path(path).name)
        return real(path)

    monkeypatch.setattr(fileio, "sha256", counting)
    return hashed


def test_list_columns_are_arrow_lists_not_python_objects(ref):
    p = load(ref, turns=False).players
    for c in LISTS:
        assert isinstance(p[c].dtype, pd.ArrowDtype), c
        assert pa.types.is_list(p[c].dtype.pyarrow_dtype), c
    assert "object" not in set(map(str, p.dtypes))  # no Python-object column at all


def test_long_tables_match_the_lists_item_for_item(ref):
    data = load(ref, turns=False)
    p = data.players
    expected = [(g, s, x) for g, s, xs in zip(p["game_id"], p["seat"], p["gnome_ids"].tolist(),
                                               strict=True) for x in xs]
    got = data.player_gnomes
    assert list(zip(got["game_id"], got["seat"], got["gnome"], strict=True)) == expected
    assert got["turn"].dtype == "int64" and got["gnome"].map(type).eq(str).all()
    lazy = load(ref, turns=False, lazy=True)
    assert lazy.player_tasks.collect().height == len(data.player_tasks)


def _objects(frame: pd.DataFrame) -> pd.DataFrame:
    """The frame as the loader used to give it: list columns as Python lists."""
    out = frame.copy()
    for c in LISTS:
        if c in out:
            out[c] = pd.Series(out[c].tolist(), index=out.index, dtype=object)
    return out


def test_the_reports_pruned_arrow_load_gives_the_same_numbers_as_the_full_one(ref):
    pruned = RD.load_runs([ref])
    full = load(ref, turns=False, categorical=False)
    assert list(pruned[0][1].players.columns) == list(RD.PLAYER_COLUMNS)
    old = [(pruned[0][0], type(full)(full.games, _objects(full.players), None, full.manifest,
                                     full.path))]
    g_new, p_new = S.combine(pruned)
    g_old, p_old = S.combine(old)
    pd.testing.assert_frame_equal(g_new, g_old)
    for f in (S.score_summary, S.seat_advantage, S.end_reasons):
        pd.testing.assert_frame_equal(f(p_new) if f is not S.end_reasons else f(g_new),
                                      f(p_old) if f is not S.end_reasons else f(g_old))
    pd.testing.assert_frame_equal(S.task_values(p_new), S.task_values(p_old))
    pd.testing.assert_frame_equal(S.gnome_strength(p_new), S.gnome_strength(p_old))
    for col, ids in (("bonfire_task_ids", S.TASK_IDS), ("gnome_ids", S.GNOME_IDS)):
        assert (V._item_counts(p_new[col], ids) == V._item_counts(p_old[col], ids)).all()


def test_checksums_are_hashed_once_and_a_tampered_file_is_still_refused(ref, tmp_path, memo):
    out = tmp_path / "run"
    shutil.copytree(ref, out)
    load(out, turns=False)
    assert sorted(memo) == ["games.parquet", "players.parquet"]  # hashed on the first load
    memo.clear()
    load(out, turns=False)
    load(out, turns=False, lazy=True)
    assert memo == []  # remembered: nothing hashed again
    victim = out / "players.parquet"
    st = victim.stat()
    raw = bytearray(victim.read_bytes())
    raw[len(raw) // 2] ^= 0x10
    victim.write_bytes(bytes(raw))  # same size, and the old mtime put back
    os.utime(victim, ns=(st.st_atime_ns, st.st_mtime_ns))
    with pytest.raises(DataError, match="players.parquet does not match"):
        load(out, turns=False, lazy=True)
    assert memo == ["players.parquet"]  # its ctime moved: hashed again, and refused


def test_a_file_changed_within_the_racy_window_is_not_remembered(ref, tmp_path, monkeypatch):
    monkeypatch.setattr(checksums, "memo_dir", lambda: tmp_path / "memo")
    f = tmp_path / "fresh.bin"
    f.write_bytes(b"x" * 100)
    m = checksums.Memo(tmp_path)
    m.sha256(f)
    assert not m.changed  # written just now: its next change could share the timestamp
    monkeypatch.setattr(checksums, "RACY_SECONDS", 0.0)
    m.sha256(f)
    m.save()
    assert checksums.Memo(tmp_path).known  # remembered once old enough


PROBE = textwrap.dedent("""
    import json, resource, sys
    import polars as pl, pyarrow, pyarrow.parquet, pandas
    from bonfire_sim.sim.load import load
    base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    data = load(sys.argv[1], turns=False, lazy=True)
    agg = (data.players.group_by("seat")
           .agg(pl.col("won").mean(), pl.col("score").mean(),
                pl.col("gnome_ids").list.len().mean()).sort("seat").collect(engine="streaming"))
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(json.dumps({"kb": peak - base, "rows": agg.height}))
""")


REPORT_PROBE = textwrap.dedent("""
    import json, resource, sys
    import polars, pyarrow, pyarrow.parquet, pandas
    from bonfire_sim.report import build, stats
    base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    games, players = stats.combine(build.load_runs([sys.argv[1]]))
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(json.dumps({"kb": peak - base, "rows": len(players)}))
""")


def _probe(run_dir: Path, code: str = PROBE) -> int:
    env = {**os.environ, "POLARS_MAX_THREADS": "1"}
    got = subprocess.run([sys.executable, "-c", code, str(run_dir)], capture_output=True,
                         text=True, env=env, check=True)
    return int(json.loads(got.stdout.strip().splitlines()[-1])["kb"])


@pytest.mark.slow
def test_peak_memory_of_the_lazy_path_is_flat_and_the_reports_load_is_small(tmp_path):
    """Peak RSS above the imports at 500 and at 8x as many games: the lazy aggregate's
    growth must stay within 24 MB (tolerance for allocator noise; measured +11 MB from 10k
    to 200k games), where the eager path would add ~4.8 KB of peak per game (~17 MB here,
    ~38 MB before Arrow lists)."""
    small = run(RunConfig(games=500, players=4, seed=1), tmp_path / "small")
    big = run(RunConfig(games=4000, players=4, seed=1), tmp_path / "big")
    a, b = _probe(small), _probe(big)
    assert b - a < 24 * 1024, (a, b)
    # The report's pandas load does grow, but by its pruned Arrow-backed columns only:
    # under 6 KB per extra game (it was ~11 KB with every column as Python objects;
    # measured ~1.7 KB at 200k games, docs/findings/2026-11-26-million-games.md)
    a, b = _probe(small, REPORT_PROBE), _probe(big, REPORT_PROBE)
    assert b - a < 3500 * 6, (a, b)
