"""The ``bonfire-sim`` command line: thin click commands over the library.

Entry point: ``bonfire_sim.cli.main:main``.  Commands are registered by name in
``bonfire_sim.cli.commands.COMMANDS`` and imported only when used.
"""
