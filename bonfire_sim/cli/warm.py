"""``bonfire-sim warm``: compile the engine once, e.g. while building a container image."""

from __future__ import annotations

import click

from bonfire_sim.cli.options import quiet_option, warm_engine


@click.command()
@click.option("--check", is_flag=True,
              help="Compile nothing: exit 0 if this version's engine is compiled, 1 if not.")
@quiet_option
def warm(check: bool, quiet: bool) -> None:
    """Compile the engine for this version into the cache, so later commands start at once.

    The compiled kernels are kept in the cache directory (BONFIRE_SIM_CACHE_DIR, default
    ~/.cache/bonfire_sim), keyed by the engine's sources: every install of the same
    version on the machine (other venvs, worktrees, containers mounting the directory)
    reuses them.  Run it once in a container build or a dask worker image.  A release
    wheel carries the engine compiled already: then this only copies it into the cache.

    Example:

    \b
        bonfire-sim warm
        BONFIRE_SIM_CACHE_DIR=/opt/bonfire-cache bonfire-sim warm --quiet
    """
    from bonfire_sim.sim import warm as W

    if check:
        if W.jit_disabled() or W.marked():
            click.echo(f"compiled: {W.cache_dir()}")
            raise SystemExit(0)
        from bonfire_sim.infra import shipped_cache

        why = shipped_cache.check(W.cache_dir())
        if why is None:  # copied in by the first command, nothing compiles
            click.echo(f"compiled in this install (copied into {W.cache_dir()} at first use)")
            raise SystemExit(0)
        click.echo(f"not compiled: {W.cache_dir()} ({why})")
        raise SystemExit(1)
    seconds = warm_engine(quiet)
    if seconds:
        click.echo(f"compiled the engine in {seconds:.0f} s into {W.cache_dir()}")
    else:
        click.echo(f"already compiled: {W.cache_dir()}")
