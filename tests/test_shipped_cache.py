"""The compiled engine a release wheel carries (``infra.shipped_cache``): used when its
stamp matches this install (sources, numba, Python, CPU target), ignored otherwise (the
command compiles and says so), never copied over a compile of the cache's own or through
a link, and loaded by numba from another path without compiling.

The real compiled engine exists only in release wheels (``make wheel``, minutes of
compiling): these tests plant small ones, a fake one for the CLI's decisions and a one-kernel
numba cache for the load itself."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from click.testing import CliRunner

from bonfire_sim.cli.main import main
from bonfire_sim.infra import _jitcache, shipped_cache
from bonfire_sim.sim import warm

PKG = Path(warm.__file__).resolve().parents[1]
FILES = {"rules/moves.legal_moves-10.py311.nbi": b"index bytes",
         "rules/moves.legal_moves-10.py311.1.nbc": b"compiled bytes"}


def _plant(folder: Path, files: dict[str, bytes], **stamp_changes: object) -> None:
    for name, data in files.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_bytes(data)
    stamp = {**shipped_cache.stamp_for(files), **stamp_changes}
    (folder / shipped_cache.STAMP).write_text(json.dumps(stamp))


@pytest.fixture
def cold(tmp_path, monkeypatch):
    """A cold cache in tmp_path, an install carrying tmp_path/shipped, and a 'compile'
    that only records that it ran."""
    calls: list[str] = []
    monkeypatch.setattr(warm, "cache_dir", lambda: tmp_path / "cache")
    monkeypatch.setattr(warm, "jit_disabled", lambda: False)
    monkeypatch.setattr(warm, "compile_kernels", lambda step=None: calls.append("compile"))
    monkeypatch.setattr(shipped_cache, "SHIPPED", tmp_path / "shipped")
    for var in ("NUMBA_CPU_NAME", "NUMBA_CPU_FEATURES"):
        monkeypatch.delenv(var, raising=False)
    return calls


def test_a_matching_shipped_engine_is_copied_in_and_nothing_compiles(cold, tmp_path):
    _plant(tmp_path / "shipped", FILES)
    check = CliRunner().invoke(main, ["warm", "--check"])
    assert check.exit_code == 0 and "compiled in this install" in check.output
    assert not (tmp_path / "cache").exists()  # --check copies nothing
    res = CliRunner().invoke(main, ["run", "--games", "0", "--out", "x"])
    assert res.output.splitlines()[0].startswith("this install came with its engine compiled")
    assert "not compiled" not in res.output
    res = CliRunner().invoke(main, ["warm"])  # what run does before its games
    assert "already compiled" in res.output and cold == []
    for name, data in FILES.items():
        assert (tmp_path / "cache" / name).read_bytes() == data
    assert warm.marked() and CliRunner().invoke(main, ["warm", "--check"]).exit_code == 0
    res = CliRunner().invoke(main, ["run", "--games", "0", "--out", "x"])
    assert "this install came" not in res.output  # said once, when copied


@pytest.mark.parametrize("change", [{"numba": "0.0.1"}, {"cpu": "znver4"},
                                    {"sources": "0123456789abcdef"}, {"format": 99}])
def test_a_shipped_engine_for_another_version_or_cpu_is_ignored(cold, tmp_path, change):
    _plant(tmp_path / "shipped", FILES, **change)
    check = CliRunner().invoke(main, ["warm", "--check"])
    assert check.exit_code == 1 and "not compiled" in check.output
    res = CliRunner().invoke(main, ["run", "--games", "0", "--out", "x"])
    assert res.output.splitlines()[0].startswith("this version's engine is not compiled")
    res = CliRunner().invoke(main, ["warm"])
    assert res.output.splitlines()[0].startswith("compiling the engine for this version")
    assert cold == ["compile"]
    assert not any((tmp_path / "cache").glob("*/*.nb[ic]"))  # nothing copied


def test_a_changed_shipped_file_is_not_copied(cold, tmp_path):
    _plant(tmp_path / "shipped", FILES)
    (tmp_path / "shipped" / next(iter(FILES))).write_bytes(b"tampered")
    assert "differs from its stamp" in str(shipped_cache.check(tmp_path / "cache"))
    assert not warm.is_warm()
    assert not (tmp_path / "cache").exists() or not any((tmp_path / "cache").rglob("*.nb?"))


def test_a_cache_with_a_compile_of_its_own_is_left_alone(cold, tmp_path):
    _plant(tmp_path / "shipped", FILES)
    own = tmp_path / "cache" / "rules" / "moves.legal_moves-10.py311.nbi"
    own.parent.mkdir(parents=True)
    own.write_bytes(b"this machine's compile")
    assert not warm.is_warm()
    assert own.read_bytes() == b"this machine's compile"
    assert not (tmp_path / "cache" / "rules" / "moves.legal_moves-10.py311.1.nbc").exists()


def test_nothing_is_copied_through_a_planted_link(cold, tmp_path):
    _plant(tmp_path / "shipped", FILES)
    outside = tmp_path / "outside"
    outside.mkdir()
    (tmp_path / "cache").mkdir()
    (tmp_path / "cache" / "rules").symlink_to(outside)
    assert not warm.is_warm()
    assert list(outside.iterdir()) == []


def test_a_first_game_in_python_copies_the_shipped_engine_in(cold, tmp_path, monkeypatch):
    from bonfire_sim.sim.play import play

    _plant(tmp_path / "shipped", FILES)
    monkeypatch.setattr(warm, "_USED", [])
    looked: list[bool] = []
    real = warm.is_warm
    monkeypatch.setattr(warm, "is_warm", lambda: looked.append(True) or real())
    play(1, 2, "random")
    play(2, 2, "random")
    assert looked == [True] and warm.marked()  # once per process, before the first game
    assert (tmp_path / "cache" / next(iter(FILES))).read_bytes() == next(iter(FILES.values()))


def test_an_unwritable_cache_is_no_error_before_the_compile(cold, tmp_path, monkeypatch):
    _plant(tmp_path / "shipped", FILES)
    (tmp_path / "blocker").write_text("a file where the cache's parent folder would be")
    monkeypatch.setattr(warm, "cache_dir", lambda: tmp_path / "blocker" / "cache")
    assert not warm.is_warm()  # says no, and the compile reports the problem in one line


def test_a_warm_up_for_another_target_is_not_warm(cold, monkeypatch):
    warm.ensure_warm()
    assert cold == ["compile"] and warm.marked()
    monkeypatch.setenv("NUMBA_CPU_NAME", "znver4")  # numba would key every kernel anew
    assert not warm.marked() and not warm.is_warm()


def test_the_default_target_is_the_generic_cpu(monkeypatch):
    monkeypatch.delenv("NUMBA_CPU_NAME", raising=False)
    monkeypatch.delenv("NUMBA_CPU_FEATURES", raising=False)
    assert _jitcache.target()["cpu"] == "generic" and _jitcache.target()["features"] == ""
    monkeypatch.setenv("NUMBA_CPU_NAME", "znver4")
    assert _jitcache.target()["cpu"] == "znver4" and _jitcache.target()["features"] == "host"


PROBE_KERNEL = textwrap.dedent("""
    from numba import njit

    @njit(cache=True)
    def twice(x):
        return 2 * x
""")
# compile (or load) the probe kernel in the given install; print numba's cache hits and
# misses and the CPU the kernels were compiled for
PROBE = ("import sys; sys.path.insert(0, sys.argv[1]); import bonfire_sim; "
         "from bonfire_sim.sim import warm; seeded = warm.is_warm(); "
         "import numba; from numba.core.registry import cpu_target; "
         "from bonfire_sim.rules.zz_cache_probe import twice; "
         "assert bonfire_sim.__file__.startswith(sys.argv[1]); twice(21); "
         "print(sum(twice.stats.cache_hits.values()), sum(twice.stats.cache_misses.values()), "
         "cpu_target.target_context.codegen().magic_tuple()[1], seeded)")


def _install(dest: Path) -> Path:
    shutil.copytree(PKG, dest / "bonfire_sim",
                    ignore=shutil.ignore_patterns("__pycache__", "*.pyc", "_compiled"))
    (dest / "bonfire_sim" / "rules" / "zz_cache_probe.py").write_text(PROBE_KERNEL)
    return dest


def _probe(install: Path, cache: Path) -> list[str]:
    env = {k: v for k, v in os.environ.items()
           if k not in ("NUMBA_DISABLE_JIT", "NUMBA_CPU_NAME", "NUMBA_CPU_FEATURES")}
    env["BONFIRE_SIM_CACHE_DIR"] = str(cache)
    return subprocess.run([sys.executable, "-c", PROBE, str(install)], env=env,
                          cwd=install, capture_output=True, text=True,
                          check=True).stdout.split()


def _ship(build_cache: Path, install: Path, **stamp_changes: object) -> None:
    """Put the compile in ``build_cache`` into ``install`` as its shipped engine (the
    stamp computed by that install, as scripts/build_wheel.py does)."""
    (folder,) = build_cache.glob("numba-*")
    files = {str(p.relative_to(folder)): p.read_bytes() for p in folder.glob("*/*.nb[ic]")}
    target = install / "bonfire_sim" / "_compiled"
    env = {k: v for k, v in os.environ.items() if k not in ("NUMBA_CPU_NAME",)}
    code = ("import sys, json; sys.path.insert(0, sys.argv[1]); "
            "from bonfire_sim.infra import shipped_cache as S; "
            "print(json.dumps(S.stamp_for({n: b'' for n in json.loads(sys.argv[2])})))")
    stamp = json.loads(subprocess.run([sys.executable, "-c", code, str(install),
                                       json.dumps(sorted(files))], env=env, check=True,
                                      capture_output=True, text=True).stdout)
    stamp["files"] = shipped_cache.stamp_for(files)["files"]
    stamp.update(stamp_changes)
    for name, data in files.items():
        (target / name).parent.mkdir(parents=True, exist_ok=True)
        (target / name).write_bytes(data)
    (target / shipped_cache.STAMP).write_text(json.dumps(stamp))


def test_a_shipped_generic_compile_loads_in_another_install_without_compiling(tmp_path):
    builder = _install(tmp_path / "builder")
    assert _probe(builder, tmp_path / "build-cache")[:3] == ["0", "1", "generic"]
    user = _install(tmp_path / "user")  # same sources, another path, a fresh cache
    _ship(tmp_path / "build-cache", user)
    hits, misses, cpu, seeded = _probe(user, tmp_path / "user-cache")
    assert (hits, misses, cpu, seeded) == ("1", "0", "generic", "True")
    other = _install(tmp_path / "other")  # the same, stamped for another numba
    _ship(tmp_path / "build-cache", other, numba="0.0.1")
    hits, misses, cpu, seeded = _probe(other, tmp_path / "other-cache")
    assert (hits, misses, seeded) == ("0", "1", "False")  # compiled, not loaded
