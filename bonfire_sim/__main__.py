"""``python -m bonfire_sim`` runs the ``bonfire-sim`` command line."""

from bonfire_sim.cli.main import main

main(prog_name="bonfire-sim")
