"""The example notebooks answer their questions with the analysis API, carry their outputs,
and those outputs are what the code produces today (each runs in about a minute or less)."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import Any

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"
NOTEBOOKS = sorted(EXAMPLES.glob("*.ipynb"))
# notebook -> the analysis function that answers its question
ANSWERS = {"start_player_advantage": "seat_advantage", "s15_strength": "gnome_values",
           "y14_worth_5": "task_values", "tom_difficulty": "tom_difficulty"}

sys.path.insert(0, str(ROOT / "scripts"))
from run_notebooks import execute  # noqa: E402


def _code(nb: Any) -> list[Any]:
    return [c for c in nb.cells if c.cell_type == "code"]


def _shown(cell: Any) -> list[str]:
    """What a reader sees of a cell: its printed text and its results, errors marked."""
    out = []
    for o in cell.outputs:
        if o.output_type == "stream" and o.name == "stdout":
            out.append(o.text)
        elif o.output_type in ("execute_result", "display_data"):
            out.append(o.data.get("text/plain", ""))
        elif o.output_type == "error":
            out.append(f"ERROR {o.ename}: {o.evalue}")
    return out


def test_the_four_questions_have_notebooks_that_use_the_analysis_api():
    assert {p.stem for p in NOTEBOOKS} == set(ANSWERS)
    for path in NOTEBOOKS:
        source = "\n".join(c.source for c in _code(nbformat.read(path, as_version=4)))
        assert "from bonfire_sim.analysis import" in source, path.name
        assert f"{ANSWERS[path.stem]}(" in source, path.name


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_a_notebook_is_stored_with_its_outputs(path):
    nb = json.loads(path.read_text(encoding="utf-8"))
    code = [c for c in nb["cells"] if c["cell_type"] == "code"]
    assert all(c["outputs"] for c in code), "a code cell without stored output"
    assert not [o for c in code for o in c["outputs"] if o["output_type"] == "error"]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_a_notebook_runs_and_reproduces_its_stored_outputs(path):
    stored = nbformat.read(path, as_version=4)
    start = time.perf_counter()
    fresh = execute(path, timeout=300)
    print(f"{path.name}: {time.perf_counter() - start:.1f} s")
    for i, (old, new) in enumerate(zip(_code(stored), _code(fresh), strict=True)):
        assert not any(s.startswith("ERROR") for s in _shown(new)), _shown(new)
        assert _shown(new) == _shown(old), (
            f"cell {i} of {path.name} shows something else today: re-run "
            f"`python scripts/run_notebooks.py {path.stem}` and commit the notebook")
