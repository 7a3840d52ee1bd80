"""``python -m bonfire_sim`` runs the ``bonfire-sim`` command line."""

import os
import sys
from pathlib import Path

# ``python -m`` puts the current folder first on sys.path, so a plug-in name in an
# experiment file would import any ``.py`` file that happens to lie there.  Plug-ins come
# only from installed packages or PYTHONPATH (as under the ``bonfire-sim`` script):
# replace that entry by the folder this package lives in, which the CLI still needs.
if sys.path and os.path.realpath(sys.path[0] or ".") == os.path.realpath(os.getcwd()):
    sys.path[0] = str(Path(__file__).resolve().parents[1])

from bonfire_sim.cli.main import main  # noqa: E402  (after the sys.path fix, on purpose)

main(prog_name="bonfire-sim")
