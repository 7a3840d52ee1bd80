"""The example notebooks run top to bottom (each in well under a minute)."""

from __future__ import annotations

import time
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
NOTEBOOKS = sorted(EXAMPLES.glob("*.ipynb"))


def test_the_three_questions_have_notebooks():
    assert {p.stem for p in NOTEBOOKS} >= {"start_player_advantage", "s15_strength",
                                           "y14_worth_5"}


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_a_notebook_runs_without_errors(path, tmp_path):
    nb = nbformat.read(path, as_version=4)
    start = time.perf_counter()
    NotebookClient(nb, timeout=300, kernel_name="python3",
                   resources={"metadata": {"path": str(tmp_path)}}).execute()
    seconds = time.perf_counter() - start
    outputs = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs]
    assert not [o for o in outputs if o.output_type == "error"]
    assert outputs, "the notebook printed nothing"
    print(f"{path.name}: {seconds:.1f} s")
