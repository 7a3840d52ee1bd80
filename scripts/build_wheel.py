#!/usr/bin/env python
"""Build a release wheel that carries the engine compiled for numba's generic CPU.

A fresh install then loads the compiled kernels on its first command instead of compiling
them (minutes of CPU and about 1 GB at the peak; issue 38).  ``make wheel`` runs it:

    .venv/bin/python scripts/build_wheel.py                    # compile, build dist/*.whl
    .venv/bin/python scripts/build_wheel.py --cache /tmp/bc    # reuse a generic compile

Steps: compile the warm-up (``python -m bonfire_sim.sim.warm``, every kernel in its own
part) for ``NUMBA_CPU_NAME=generic`` into a cache directory of its own; copy numba's cache
files and a stamp (sources, numba, llvmlite, Python, platform, CPU, each file's SHA-256;
``infra.shipped_cache``) into ``bonfire_sim/_compiled/``; build the wheel; remove
``_compiled/`` and ``build/`` again so that no other build picks them up.  The wheel is
tagged for this Python version (``cp311-none-any``): the kernels are numba's for this
Python.  An install that does not match the stamp (another numba, Python, architecture
or ``NUMBA_CPU_NAME``) compiles on its first command as a plain wheel would.  One command
from a clean checkout builds it; the stamp says exactly what the compiled files are for.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
COMPILED = ROOT / "bonfire_sim" / "_compiled"


def compile_generic(cache: Path) -> None:
    """Compile the warm-up for the generic CPU into ``cache`` (loads it if done before)."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("NUMBA_DISABLE_JIT", "NUMBA_CPU_FEATURES")}
    env.update(BONFIRE_SIM_CACHE_DIR=str(cache), NUMBA_CPU_NAME="generic",
               PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")])))
    print(f"compiling the engine for the generic CPU into {cache} (minutes) ...", flush=True)
    subprocess.run([sys.executable, "-m", "bonfire_sim.sim.warm"], env=env, check=True)


def collect(cache: Path) -> dict[str, bytes]:
    """numba's cache files of the current sources in ``cache``, by relative name."""
    from bonfire_sim.infra import _jitcache
    from bonfire_sim.sim import warm

    folder = Path(_jitcache.cache_dir())
    if not warm.marked():
        sys.exit(f"no finished generic compile in {folder}")
    files = {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.glob("*/*.nb[ic]"))}
    if not files:
        sys.exit(f"no compiled files in {folder}")
    return files


def build(out: Path, files: dict[str, bytes]) -> Path:
    """Build the wheel with ``files`` as ``bonfire_sim/_compiled``; returns its path."""
    from bonfire_sim.infra import fileio, shipped_cache

    if COMPILED.exists():
        sys.exit(f"{COMPILED} exists (an interrupted build?): remove it and run again")
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        try:
            for name, data in files.items():
                fileio.write_bytes(COMPILED / name, data)
            fileio.write_json(COMPILED / shipped_cache.STAMP, shipped_cache.stamp_for(files))
            shutil.rmtree(ROOT / "build", ignore_errors=True)  # no stale copy of _compiled
            subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps",
                            "--no-build-isolation", "-q", "-w", tmp, str(ROOT)], check=True)
        finally:
            shutil.rmtree(COMPILED, ignore_errors=True)
            shutil.rmtree(ROOT / "build", ignore_errors=True)
        plain = next(Path(tmp).glob("bonfire_sim-*.whl"))
        tag = f"cp{sys.version_info[0]}{sys.version_info[1]}"
        subprocess.run([sys.executable, "-m", "wheel", "tags", "--remove", "--python-tag", tag,
                        str(plain)], check=True, capture_output=True)
        wheel = next(Path(tmp).glob(f"bonfire_sim-*-{tag}-*.whl"))
        dest = out / wheel.name
        shutil.move(wheel, dest)
    return dest


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", type=Path, default=ROOT / "dist", help="folder for the wheel")
    ap.add_argument("--cache", type=Path, default=None,
                    help="cache directory of the generic compile (kept; default: a temporary)")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        cache = (args.cache or Path(tmp)).resolve()
        compile_generic(cache)
        # this process reads the same cache and target as the compile did
        os.environ.update(BONFIRE_SIM_CACHE_DIR=str(cache), NUMBA_CPU_NAME="generic")
        os.environ.pop("NUMBA_CPU_FEATURES", None)
        files = collect(cache)
        wheel = build(args.out, files)
    size = sum(len(d) for d in files.values()) / 1e6
    print(f"{wheel} ({len(files)} compiled files, {size:.0f} MB before compression)")


if __name__ == "__main__":
    main()
