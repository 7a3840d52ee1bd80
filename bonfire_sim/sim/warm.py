"""Compile the engine once, in one process, and know whether that has happened.

numba compiles every kernel the first time it runs after an install or a source change
(about 1-3 minutes on one core; ``_jitcache`` keys the on-disk cache by the kernels'
sources).  Two things follow:

* batch commands compile in the parent *before* starting workers (``ensure_warm``), so
  the workers load the cache instead of each compiling the same kernels side by side,
  and say once that they are compiling and roughly how long it takes;
* a single narrated game needs no compiling at all: as plain Python it takes about a
  second (``disable_jit``), so ``replay`` starts at once on a cold cache and leaves the
  compiling to a background process (``warm_in_background``).

A marker file in the cache directory records a finished warm-up and what it compiled for
(numba, Python, CPU target: ``_jitcache.target``), so a cache of another numba or
``NUMBA_CPU_NAME`` counts as cold; an exclusive lock on ``warm.lock`` makes a second
process wait for a compile in progress instead of starting its own.  A release wheel
carries the engine compiled for the generic CPU: when it matches, the first command copies
it into the cache (``infra.shipped_cache``) instead of compiling.  This module imports no
kernels at top level (importing them is what compiles).
"""

from __future__ import annotations

import contextlib
import logging
import os
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

log = logging.getLogger(__name__)

MARKER = "warm.ok"
LOCK = "warm.lock"
# Measured (issue 38): about 3 minutes of CPU for the whole compile, on one core.
ESTIMATE = "about 2-3 minutes on a quiet core, longer on a busy machine"


def cache_dir() -> Path:
    """The numba cache directory of the current kernel sources."""
    from bonfire_sim.infra import _jitcache

    return Path(_jitcache.cache_dir())


def jit_disabled() -> bool:
    """True when kernels run as plain Python (``NUMBA_DISABLE_JIT=1``)."""
    numba = sys.modules.get("numba")
    if numba is not None:
        return bool(numba.config.DISABLE_JIT)
    return os.environ.get("NUMBA_DISABLE_JIT", "0") not in ("", "0")


def _marker_text() -> str:
    """What the marker of a finished warm-up holds: the target it compiled for."""
    from bonfire_sim.infra import _jitcache, fileio

    return fileio.dumps_json(_jitcache.target(), sort_keys=True) + "\n"


def marked() -> bool:
    """The cache holds a finished warm-up for this process's target (numba, Python, CPU)."""
    from bonfire_sim.errors import BonfireError
    from bonfire_sim.infra import readers

    path = cache_dir() / MARKER
    try:
        return path.is_file() and readers.read_text(path, "warm-up marker") == _marker_text()
    except (OSError, UnicodeDecodeError, BonfireError):  # unreadable: compile (again)
        return False


def mark() -> None:
    """Record a finished warm-up for this process's target (``marked``)."""
    from bonfire_sim.infra import fileio

    fileio.write_text(cache_dir() / MARKER, _marker_text())


def seed_shipped() -> bool:
    """Copy the compiled engine this install carries into the cache when it matches this
    version and target and the cache holds no compile of its own; True when it did.

    Never waits: while another process holds the compile lock it leaves the cache alone."""
    from bonfire_sim.errors import BonfireError
    from bonfire_sim.infra import shipped_cache

    if not shipped_cache.available():
        return False
    try:
        with _locked(cache_dir() / LOCK, None) as free:
            if not free:
                return False
            if marked():  # another process finished while we looked
                return True
            why = shipped_cache.seed(cache_dir())
            if why is None:
                mark()
    except (OSError, BonfireError) as e:  # an unwritable cache: numba compiles as without
        why = str(e)
    if why:
        log.info("not using the compiled engine of this install: %s", why)
        return False
    log.info("copied the compiled engine of this install into %s", cache_dir())
    return True


_USED: list[bool] = []  # use_shipped ran in this process


def use_shipped() -> None:
    """Once per process, before a kernel first runs without a warm-up (``play``): copy the
    compiled engine this install carries into the cache if it lacks a warm-up.  numba reads
    its cache at a kernel's first call, not at import, so this is early enough."""
    if not _USED:
        _USED.append(True)
        is_warm()


def is_warm() -> bool:
    """The compiled kernels are in the cache (or nothing needs compiling); a compiled
    engine this install carries is copied in first when it matches (``seed_shipped``)."""
    return jit_disabled() or marked() or seed_shipped()


def kernels_loaded() -> bool:
    """The kernel modules are imported already (as compiled or as plain functions)."""
    return "bonfire_sim.rules.moves" in sys.modules


def disable_jit() -> bool:
    """Run the kernels as plain Python in this process; False if too late for that.

    numba decides at decoration time, so this works only before the kernel modules are
    imported.  Child processes are not affected (the environment is left alone).
    """
    if kernels_loaded():
        return False
    import numba

    setattr(numba.config, "DISABLE_JIT", True)  # noqa: B010 (set at run time by numba)
    return True


@contextlib.contextmanager
def _locked(path: Path, on_wait: Callable[[], None] | None) -> Iterator[bool]:
    """Hold an exclusive lock on ``path``; yields False if another process held it first
    (``on_wait()`` is called before waiting for it; without ``on_wait``, nothing waits:
    False is yielded at once, without the lock)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        import fcntl
    except ImportError:  # no advisory locks (Windows): at worst two processes compile
        yield True
        return
    from bonfire_sim.infra import fileio

    fd = fileio.open_lock(path)  # never through a link, like every lock bonfire_sim takes
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            free = True
        except OSError:
            free = False
            if on_wait is None:
                yield False
                return
            on_wait()
            fcntl.flock(fd, fcntl.LOCK_EX)
        try:
            yield free
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)


# The compile in parts, each with its share of the whole (measured: numba 0.68, the
# engine of issue 38), so progress can say how far it is and about how long is left.
# Each part compiles its kernels and what they call that the earlier parts did not.
STAGES = (("the rules: setting up a game", 5), ("the rules: legal moves", 22),
          ("the rules: playing a move", 23), ("the players: choosing a move", 35),
          ("a batch of games", 10), ("solo games, the turn log and replays", 5))


def compile_part(index: int) -> None:
    """Run the entry points of compile part ``index`` (``STAGES``) once on tiny inputs,
    which compiles them (or loads them and what they call from the cache)."""
    import numpy as np

    from bonfire_sim.rules import tables as T
    from bonfire_sim.rules.moves import apply_move, legal_moves
    from bonfire_sim.rules.setup import new_game
    from bonfire_sim.sim.chunk import ChunkJob, run_one
    from bonfire_sim.sim.loop import choose_in, new_buffer, new_scratch, no_weights, play_out
    from bonfire_sim.sim.runconfig import RunConfig

    p = T.DEFAULT_PARAMS
    moves = new_buffer()
    weights = no_weights()

    def one_chunk(players: int) -> None:
        run_one(ChunkJob(RunConfig(games=1, players=players, turn_log="all", chunk_size=1), 0))

    def dealt() -> np.ndarray:
        state = new_game(1, 2, p)
        legal_moves(state, p, moves)
        return state

    def chooser() -> None:
        state = new_game(1, 2, p)
        choose_in(state, p, moves, legal_moves(state, p, moves), 0, weights[0],
                  *new_scratch(p))  # one seat's row

    def solo() -> None:
        one_chunk(1)  # Tom's kernels
        play_out(new_game(1, 2, p), p, np.zeros(len(weights), np.int64), weights, moves)

    parts = (lambda: new_game(1, 2, p), dealt,
             lambda: apply_move(dealt().copy(), p, moves[0]),
             chooser, lambda: one_chunk(2), solo)
    if not 0 <= index < len(parts):
        raise ValueError(f"no compile part {index} (0..{len(STAGES) - 1})")
    parts[index]()


def _compile_part_apart(index: int) -> None:
    """Compile part ``index`` in a child process (the same package and cache directory).

    numba keeps every module it compiled in memory until the process ends, so compiling
    the whole engine in one process peaked at 1.5-1.6 GB (issue 38); a child per part holds
    only its own part (the earlier parts it calls are loaded from the cache), and the
    command that waits loads the finished kernels from the cache, which takes far less:
    1.10 GB at the peak, in the players' part.  That part is the evaluator, one kernel
    with its pricing inlined (1.06 GB compiled alone), so a lower peak needs that kernel
    split, not more processes (docs/explanation/performance.md)."""
    import bonfire_sim

    root = str(Path(bonfire_sim.__file__).resolve().parent.parent)
    env = {**os.environ,
           "PYTHONPATH": os.pathsep.join([root, *filter(None, [os.environ.get("PYTHONPATH")])])}
    res = subprocess.run([sys.executable, "-m", "bonfire_sim.sim.warm", "--part", str(index)],
                         env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                         stderr=subprocess.PIPE, check=False)
    if res.returncode != 0:
        from bonfire_sim.errors import BonfireError

        lines = res.stderr.decode(errors="replace").strip().splitlines()
        why = lines[-1] if lines else f"exit status {res.returncode}"
        if res.returncode < 0:
            why = f"killed by signal {-res.returncode} (out of memory?)"
        what = STAGES[index][0] if 0 <= index < len(STAGES) else f"part {index}"
        raise BonfireError(f"compiling the engine ({what}) failed: {why}; "
                           f"run `bonfire-sim warm` to try again")


def compile_kernels(step: Callable[[int, int], None] | None = None,
                    apart: bool | None = None) -> None:
    """Compile (or load) every compiled entry point, part by part (``STAGES``).

    ``apart``: each part in its own child process, which keeps the compile's peak memory
    to one part's (default: yes, unless the kernels run as plain Python).  ``step(done,
    total)`` hears the share of the compile done before each part and at the end
    (total 100)."""
    if apart is None:
        apart = not jit_disabled()
    total = sum(share for _, share in STAGES)
    done = 0
    for index, (label, share) in enumerate(STAGES):
        if step:
            step(done, total)
        t0 = time.perf_counter()
        if apart:
            _compile_part_apart(index)
        else:
            compile_part(index)
        log.info("compiled %s in %.1f s", label, time.perf_counter() - t0)
        done += share
    if step:
        step(total, total)


def cold_notice() -> str | None:
    """The line a command prints first, before its own imports, when it will have to
    compile the engine, or copy the compiled engine this install carries into the cache
    (``seed_shipped``, when the command warms up; None when the cache holds it already).
    Cheap: it reads the shipped engine's stamp, not its files."""
    if jit_disabled() or marked():
        return None
    from bonfire_sim.infra import shipped_cache

    if shipped_cache.available() and not shipped_cache.has_compiled(cache_dir()):
        return (f"this install came with its engine compiled: copying it into "
                f"{cache_dir()} (nothing to compile) ...")
    return (f"this version's engine is not compiled on this machine yet: it compiles once "
            f"before the games start ({ESTIMATE}) ...")


def ensure_warm(status: Callable[[str], None] | None = None,
                progress: Callable[[int, int], None] | None = None) -> float:
    """Compile the kernels in this process unless the cache already holds them.

    ``status`` receives one line before compiling (what and roughly how long) and one
    after; nothing is said when the cache is warm.  ``progress(done, total)`` follows the
    compile's parts (``compile_kernels``).  Returns the seconds spent compiling (0.0 when
    warm).
    """
    if is_warm():
        log.debug("engine compiled already: %s", cache_dir())
        return 0.0
    say = status or (lambda _msg: None)

    def waiting() -> None:
        say(f"waiting for the engine compile another bonfire-sim process started "
            f"({ESTIMATE}) ...")

    with _locked(cache_dir() / LOCK, waiting):
        if marked():  # another process finished compiling while we waited
            return 0.0
        say(f"compiling the engine for this version ({ESTIMATE}; cached afterwards "
            f"in {cache_dir()}) ...")
        t0 = time.perf_counter()
        compile_kernels(progress)
        mark()
        seconds = time.perf_counter() - t0
        say(f"compiled in {seconds:.0f} s")
        return seconds


def warm_in_background() -> subprocess.Popen | None:
    """Start ``python -m bonfire_sim.sim.warm`` detached at low priority, unless warm.

    This process may run its kernels as plain Python; the child compiles regardless.
    """
    if marked() or seed_shipped():
        return None
    cmd = [sys.executable, "-m", "bonfire_sim.sim.warm"]
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_DISABLE_JIT"}
    preexec = (lambda: os.nice(10)) if hasattr(os, "nice") else None
    return subprocess.Popen(cmd, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, start_new_session=True,
                            preexec_fn=preexec)


if __name__ == "__main__":
    if sys.argv[1:2] == ["--part"]:  # one part of a compile (``_compile_part_apart``)
        compile_part(int(sys.argv[2]))
    else:
        ensure_warm()
