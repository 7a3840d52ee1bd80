"""What ``pip install`` puts into a user's environment: ``bonfire_sim`` and nothing else at
the top level (a generic name such as ``strategies`` would clash with users' own code),
typed (``py.typed``), with numba bounded to the range whose internals ``_jitcache`` uses."""

from __future__ import annotations

import shutil
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
    assert not any("/_compiled/" in n for n in names)  # only `make wheel` ships a compile


def test_a_release_build_packs_the_compiled_engine_as_package_data(tmp_path):
    # what scripts/build_wheel.py puts into bonfire_sim/_compiled/ (a small planted copy)
    # must reach the wheel: numba's index and data files in their subfolders and the stamp
    src = tmp_path / "src"
    src.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, src / name)
    shutil.copytree(ROOT / "bonfire_sim", src / "bonfire_sim",
                    ignore=shutil.ignore_patterns("__pycache__", "*.pyc", "_compiled"))
    planted = {"_compiled/stamp.json", "_compiled/rules/moves.legal_moves-10.py311.nbi",
               "_compiled/rules/moves.legal_moves-10.py311.1.nbc",
               "_compiled/strategies/evaluate.evaluate-40.py311.nbi"}
    for name in planted:
        (src / "bonfire_sim" / name).parent.mkdir(parents=True, exist_ok=True)
        (src / "bonfire_sim" / name).write_bytes(b"x")
    out = tmp_path / "wheel"
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation",
                    "-q", "-w", str(out), str(src)], check=True, capture_output=True)
    names = zipfile.ZipFile(next(out.glob("bonfire_sim-*.whl"))).namelist()
    assert {n.removeprefix("bonfire_sim/") for n in names if "/_compiled/" in n} == planted


def test_numba_is_bounded_to_the_tested_range(wheel):
    meta = next(n for n in zipfile.ZipFile(wheel).namelist() if n.endswith("METADATA"))
    text = zipfile.ZipFile(wheel).read(meta).decode()
    line = next(ln for ln in text.splitlines() if ln.startswith("Requires-Dist: numba"))
    assert "<0.69" in line and ">=0.59" in line


def _requires(wheel: Path) -> list[str]:
    meta = next(n for n in zipfile.ZipFile(wheel).namelist() if n.endswith("METADATA"))
    return [ln.split(":", 1)[1].strip() for ln in
            zipfile.ZipFile(wheel).read(meta).decode().splitlines()
            if ln.startswith("Requires-Dist:")]


def test_seaborn_and_cma_are_extras_that_the_test_extra_still_pulls(wheel):
    reqs = _requires(wheel)
    core = [r for r in reqs if "extra ==" not in r]
    assert not any(r.startswith(("seaborn", "cma")) for r in core), core
    for extra, module in (("report", "seaborn"), ("tune", "cma"), ("test", "seaborn"),
                          ("test", "cma")):
        assert any(r.startswith(module) and f'extra == "{extra}"' in r for r in reqs), extra
    assert not any(r.startswith("hypothesis") for r in reqs)  # no test imports it


def test_the_core_imports_neither_seaborn_nor_cma():
    code = ("import sys, bonfire_sim.sim.load, bonfire_sim.analysis, bonfire_sim.report.build,"
            " bonfire_sim.studies.tune, bonfire_sim.cli.main; "
            "print(sorted(m for m in ('seaborn', 'cma') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    assert out.strip() == "[]"


@pytest.mark.parametrize("args, extra", [
    (["tune", "--generations", "1", "--out", "{tmp}/study"], "tune"),
    (["report", "{tmp}/no-run", "--out", "{tmp}/page.html"], "report"),
])
def test_a_missing_extra_is_one_error_line_naming_the_pip_install(tmp_path, args, extra):
    # a None entry in sys.modules makes the import fail as if the package were absent
    module = {"tune": "cma", "report": "seaborn"}[extra]
    code = (f"import sys; sys.modules[{module!r}] = None; from bonfire_sim.cli.main import main;"
            f" main({[a.format(tmp=tmp_path) for a in args]!r})")
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    lines = (res.stdout + res.stderr).strip().splitlines()
    assert res.returncode == 2 and len(lines) == 1, res.stdout + res.stderr
    assert lines[0].startswith("Error: ") and f"pip install 'bonfire-sim[{extra}]'" in lines[0]
    assert not (tmp_path / "study").exists()  # refused before any work


def test_the_metadata_names_license_authors_and_urls(wheel):
    meta = next(n for n in zipfile.ZipFile(wheel).namelist() if n.endswith("METADATA"))
    text = zipfile.ZipFile(wheel).read(meta).decode()
    assert "License: " in text or "License-Expression: " in text
    assert "Author: bonfire_sim maintainers" in text
    assert sum(ln.startswith("Project-URL: ") for ln in text.splitlines()) >= 2


def test_the_sdist_leaves_out_the_tests_that_need_a_checkout(tmp_path):
    import tarfile

    code = ("import sys; from setuptools import build_meta as b; "
            "print(b.build_sdist(sys.argv[1]))")
    subprocess.run([sys.executable, "-c", code, str(tmp_path)], check=True,
                   capture_output=True, cwd=ROOT)
    names = tarfile.open(next(tmp_path.glob("*.tar.gz"))).getnames()
    top = {n.split("/")[1] for n in names if n.count("/") >= 1}
    assert "bonfire_sim" in top and "pyproject.toml" in top
    assert "tests" not in top, sorted(top)
