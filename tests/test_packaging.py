"""What ``pip install`` puts into a user's environment: ``bonfire_sim`` and nothing else at
the top level (a generic name such as ``strategies`` would clash with users' own code),
typed (``py.typed``), with numba bounded to the range whose internals ``_jitcache`` uses."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation",
                    "-q", "-w", str(out), str(ROOT)], check=True, capture_output=True)
    return next(out.glob("bonfire_sim-*.whl"))


def test_the_wheel_installs_no_top_level_package_but_bonfire_sim(wheel):
    names = zipfile.ZipFile(wheel).namelist()
    top = {n.split("/")[0] for n in names if not n.split("/")[0].endswith(".dist-info")}
    assert top == {"bonfire_sim"}
    assert "bonfire_sim/strategies/evaluate.py" in names
    assert "bonfire_sim/py.typed" in names
    assert "bonfire_sim/report/templates/report.html.j2" in names


def test_numba_is_bounded_to_the_tested_range(wheel):
    meta = next(n for n in zipfile.ZipFile(wheel).namelist() if n.endswith("METADATA"))
    text = zipfile.ZipFile(wheel).read(meta).decode()
    line = next(ln for ln in text.splitlines() if ln.startswith("Requires-Dist: numba"))
    assert "<0.69" in line and ">=0.59" in line
