"""A first run on a fresh machine: the compile is announced at once and shown as it goes,
kept in a cache every install of the same sources shares, and ``warm`` does it ahead;
``run`` ends with a headline; Ctrl-C is exit 130; ``bench``'s old flags name their
subcommand."""

from __future__ import annotations

import dataclasses
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner

from bonfire_sim.analysis import headline as H
from bonfire_sim.cli.main import main
from bonfire_sim.errors import BonfireError
from bonfire_sim.sim import warm
from bonfire_sim.sim.runconfig import RunConfig

PKG = Path(warm.__file__).resolve().parents[1]


@pytest.fixture
def cold(tmp_path, monkeypatch):
    """A cold cache in tmp_path whose 'compile' records the progress it reports."""
    steps: list[tuple[int, int]] = []

    def fake_compile(step=None):
        for done in (0, 40, 100):
            if step:
                step(done, 100)
            steps.append((done, 100))

    monkeypatch.setattr(warm, "cache_dir", lambda: tmp_path / "cache")
    monkeypatch.setattr(warm, "jit_disabled", lambda: False)
    monkeypatch.setattr(warm, "compile_kernels", fake_compile)
    return steps


def test_warm_compiles_once_says_so_first_and_check_tells_cold_from_warm(cold):
    res = CliRunner().invoke(main, ["warm", "--check"])
    assert res.exit_code == 1 and "not compiled" in res.output
    res = CliRunner().invoke(main, ["warm"])
    assert res.exit_code == 0, res.output
    assert res.output.splitlines()[0].startswith("compiling the engine for this version")
    assert "compiled the engine in" in res.output and cold[-1] == (100, 100)
    res = CliRunner().invoke(main, ["warm"])
    assert "already compiled" in res.output and len(cold) == 3  # not compiled again
    assert CliRunner().invoke(main, ["warm", "--check"]).exit_code == 0


def test_the_compile_progress_reaches_its_total(cold):
    seen: list[tuple[int, int]] = []
    warm.ensure_warm(None, lambda done, total: seen.append((done, total)))
    assert seen == [(0, 100), (40, 100), (100, 100)]


def test_the_compile_parts_cover_every_share():
    assert sum(share for _, share in warm.STAGES) == 100


def _copy_package(dest: Path) -> Path:
    shutil.copytree(PKG, dest / "bonfire_sim",
                    ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    kernel = dest / "bonfire_sim" / "rules" / "zz_cache_probe.py"
    kernel.write_text(textwrap.dedent("""
        from numba import njit

        @njit(cache=True)
        def twice(x):
            return 2 * x
    """))
    return dest


PROBE = ("import sys; sys.path.insert(0, sys.argv[1]); import bonfire_sim; "
         "from bonfire_sim.infra import _jitcache; _jitcache.install_import_hook(); "
         "import numba; from bonfire_sim.rules.zz_cache_probe import twice; "
         "assert bonfire_sim.__file__.startswith(sys.argv[1]); twice(21); "
         "print(sum(twice.stats.cache_hits.values()), sum(twice.stats.cache_misses.values()))")


def test_two_installs_of_the_same_sources_share_one_compile(tmp_path):
    a, b = (_copy_package(tmp_path / name) for name in ("venv-a", "venv-b"))
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_DISABLE_JIT"}
    env["BONFIRE_SIM_CACHE_DIR"] = str(tmp_path / "cache")
    out = [subprocess.run([sys.executable, "-c", PROBE, str(d)], env=env, cwd=tmp_path,
                          capture_output=True, text=True, check=True).stdout.split()
           for d in (a, b)]
    assert out[0] == ["0", "1"]  # the first install compiles
    assert out[1] == ["1", "0"]  # the second, elsewhere, loads that compile


def _players(path: Path, rows: list[tuple[int, int, int, int]]) -> None:
    cols = list(zip(*rows, strict=True))
    pq.write_table(pa.table({"game_id": pa.array(cols[0], pa.int64()),
                             "seat": pa.array(cols[1], pa.int64()),
                             "score": pa.array(cols[2], pa.int64()),
                             "won": pa.array([bool(w) for w in cols[3]], pa.bool_())}),
                   path / "players.parquet", row_group_size=3)


def test_the_headline_counts_games_winners_and_split_wins(tmp_path, monkeypatch):
    monkeypatch.setattr(H, "BATCH_ROWS", 3)  # games cut across batches
    # game 0: seat 0 wins alone (80); game 1: seats 0 and 1 tie (70, 70); game 2: seat 1
    _players(tmp_path, [(0, 0, 80, 1), (0, 1, 60, 0), (1, 0, 70, 1), (1, 1, 70, 1),
                        (2, 0, 50, 0), (2, 1, 90, 1)])
    h = H.headline(tmp_path, RunConfig(games=3, players=2, strategies=("tuned",)))
    assert h.games == 3 and h.win_score == pytest.approx((80 + 70 + 70 + 90) / 4)
    assert h.start_share == pytest.approx((1 + 0.5 + 0) / 3)
    assert 0.0 <= h.start_lo <= h.start_share <= h.start_hi <= 1.0
    assert "3 games of 2 players (tuned, tuned)" in h.text() and "50.0%" in h.text()


def test_the_headline_clusters_the_rotations_of_a_deal(tmp_path):
    rng = np.random.default_rng(3)
    rows = []
    for deal in range(40):  # the deal decides: every rotation's start player wins or not
        won = int(rng.random() < 0.5)
        for r in range(2):
            rows += [(2 * deal + r, 0, 70, won), (2 * deal + r, 1, 60, 1 - won)]
    _players(tmp_path, rows)
    cfg = RunConfig(games=80, players=2, strategies=("tuned",), seat_rotation=True)
    rotated = H.headline(tmp_path, cfg)
    plain = H.headline(tmp_path, RunConfig(games=80, players=2, strategies=("tuned",)))
    assert rotated.start_hi - rotated.start_lo > 1.3 * (plain.start_hi - plain.start_lo)


def test_the_headline_says_when_the_rotations_replayed_one_game(tmp_path, monkeypatch):
    monkeypatch.setattr(H, "BATCH_ROWS", 5)  # deals cut across batches
    cfg = RunConfig(games=8, players=2, strategies=("tuned",), seat_rotation=True)
    same = [(2 * d + r, s, 60 + 7 * d + 5 * s, int(s == d % 2))
            for d in range(4) for r in range(2) for s in range(2)]
    _players(tmp_path, same)
    h = H.headline(tmp_path, cfg)
    assert h.replayed and h.deals == 4
    assert "4 distinct games, not 8" in h.replay_note() and "--seat-rotation" in h.replay_note()
    assert "(every seat plays tuned)" in h.replay_note()
    # two names that played alike (search:16:phases=none is tuned): not "every seat plays"
    alike = dataclasses.replace(h, strategies=("search:16:phases=none", "tuned"))
    assert "(search:16:phases=none and tuned made the same moves in every deal)" in (
        alike.replay_note()), alike.replay_note()
    assert "every seat plays" not in alike.replay_note()
    # one rotation of one deal differs (a player with chance, or distinct players): no note
    other = [(g, s, sc + (1 if (g, s) == (5, 1) else 0), w) for g, s, sc, w in same]
    _players(tmp_path, other)
    assert not H.headline(tmp_path, cfg).replayed and H.headline(tmp_path, cfg).replay_note() == ""
    # without rotation there is nothing to replay
    plain = RunConfig(games=8, players=2, strategies=("tuned",))
    _players(tmp_path, same)
    assert not H.headline(tmp_path, plain).replayed


def test_a_rotated_run_of_one_player_says_its_deals_were_replayed(tmp_path):
    """The engine itself: tuned in both seats, rotated, replays each deal (the note is
    printed); two different players rotated do not."""
    res = CliRunner().invoke(main, ["run", "--games", "8", "--players", "2", "--strategies",
                                    "tuned", "--seat-rotation", "--seed", "3", "--quiet",
                                    "--out", str(tmp_path / "a")])
    assert res.exit_code == 0, res.output
    assert "4 distinct games, not 8" in res.output
    res = CliRunner().invoke(main, ["run", "--games", "8", "--players", "2", "--strategies",
                                    "tuned,portal", "--seat-rotation", "--seed", "3",
                                    "--quiet", "--out", str(tmp_path / "b")])
    assert res.exit_code == 0, res.output
    assert "distinct games" not in res.output


def test_ctrl_c_exits_130_and_says_what_was_kept(tmp_path, monkeypatch):
    from bonfire_sim.sim import runner

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(warm, "is_warm", lambda: True)
    monkeypatch.setattr(runner, "run", interrupted)
    res = CliRunner().invoke(main, ["run", "--games", "4", "--players", "2",
                                    "--out", str(tmp_path / "r")])
    assert res.exit_code == 130
    assert "interrupted" in res.output and "--resume" in res.output


def test_ctrl_c_in_any_command_is_exit_130():
    code = ("import sys; from bonfire_sim.cli import main as M; "
            "M.LazyGroup.invoke = lambda self, ctx: (_ for _ in ()).throw(KeyboardInterrupt()); "
            "M.main(['cards'])")
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert res.returncode == 130 and "interrupted" in res.stderr, res.stderr


@pytest.mark.parametrize("old, new", [
    (["--forks", "--games", "40"], "bench forks"),
    (["--per-strategy"], "bench strategies"),
    (["--games", "3000", "--jobs", "2"], "bench engine"),
    (["--search", "--search-games", "2"], "bench search"),
])
def test_bench_old_flags_name_their_subcommand(old, new):
    res = subprocess.run([sys.executable, "-m", "bonfire_sim.cli.main", "bench", *old],
                         capture_output=True, text=True)
    assert res.returncode == 2 and len(res.stderr.strip().splitlines()) == 1, res.stderr
    assert new in res.stderr and old[0] in res.stderr


def _plain_python(code: str) -> str:
    """``code`` run in a fresh interpreter without the JIT; its stdout (fails on an error)."""
    env = {**os.environ, "NUMBA_DISABLE_JIT": "1"}
    res = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                         text=True, timeout=900)
    assert res.returncode == 0, res.stderr[-2000:]
    return res.stdout.strip()


def test_every_compile_part_runs_on_real_inputs():
    # as plain Python (nothing compiles): each part calls its kernels with the argument
    # types the game loop uses, so a wrong one fails here, not minutes into a compile
    out = _plain_python("from bonfire_sim.sim import warm; seen = []; "
                        "warm.compile_kernels(lambda d, t: seen.append(d)); print(seen)")
    assert out == "[0, 5, 27, 50, 85, 95, 100]"


def test_each_compile_part_runs_in_its_own_process():
    # the command that waits holds none of the compile (numba keeps what it compiled
    # until the process ends): it never imports a kernel; plain Python keeps this fast
    out = _plain_python("import sys; from bonfire_sim.sim import warm; seen = []; "
                        "warm.compile_kernels(lambda d, t: seen.append(d), apart=True); "
                        "print(seen, 'bonfire_sim.rules.moves' in sys.modules)")
    assert out == "[0, 5, 27, 50, 85, 95, 100] False"


def test_a_failed_compile_part_is_one_line_naming_it():
    with pytest.raises(BonfireError, match=r"compiling the engine .* failed: .*no compile "
                                           r"part 6.*bonfire-sim warm"):
        warm._compile_part_apart(6)


def test_run_says_it_will_compile_before_anything_else(cold):
    # the notice comes before run's own imports and checks: a bad option still follows it
    res = CliRunner().invoke(main, ["run", "--games", "0", "--out", "x"])
    assert res.output.splitlines()[0].startswith("this version's engine is not compiled")
    res = CliRunner().invoke(main, ["run", "--games", "0", "--out", "x", "--quiet"])
    assert "not compiled" not in res.output


def test_coverage_names_no_temporary_directory_it_deleted(tmp_path, monkeypatch):
    from bonfire_sim.pipelines.coverage import coverage

    monkeypatch.setenv("TMPDIR", str(tmp_path))
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    result = coverage(None, games=4, players=2, strategies=("random",), search_games=0)
    assert "played here, not kept" in result.lines[0]
    assert str(tmp_path) not in "\n".join(result.lines)
