"""Execute the example notebooks and store their outputs in place.

Usage: python scripts/run_notebooks.py [NAME ...]   (default: every examples/*.ipynb)

The notebooks are stored with their outputs so a reader (and the docs, which render them)
sees the answers without running anything; their seeds are fixed, so the outputs are a
function of the code.  ``tests/test_examples.py`` re-executes each notebook and fails
when its stored outputs differ: run this script after a change to the engine or the
players, and commit the notebooks it rewrites.
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

import nbformat
from nbclient import NotebookClient

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def execute(path: Path, timeout: int = 600) -> nbformat.NotebookNode:
    """The notebook at ``path`` executed top to bottom in a scratch directory."""
    nb = nbformat.read(path, as_version=4)
    with tempfile.TemporaryDirectory(prefix="bonfire-nb-") as tmp:
        NotebookClient(nb, timeout=timeout, kernel_name="python3",
                       resources={"metadata": {"path": tmp}}).execute()
    return nb


def main(names: list[str]) -> int:
    paths = [EXAMPLES / f"{n.removesuffix('.ipynb')}.ipynb" for n in names] or sorted(
        EXAMPLES.glob("*.ipynb"))
    for path in paths:
        start = time.perf_counter()
        nb = execute(path)
        for cell in nb.cells:  # execution timestamps would change every notebook on every run
            cell.metadata.pop("execution", None)
        nbformat.write(nb, path)
        print(f"{path.name}: {time.perf_counter() - start:.1f} s", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
