"""Worker processes that die with the process that started them.

Every parallel command (``run``, ``report``, ``tune``, ``ladder``, ``sequential``,
``sensitivity``, ``experiment``, ``solo``, ``compare``) starts its workers through
:func:`pool`, whose loky initializer (:func:`guard`) arms two safeguards in each worker
before it does anything else:

* Linux ``prctl(PR_SET_PDEATHSIG, SIGKILL)``: the kernel kills the worker the moment its
  parent dies, even while the worker is deep in a compiled kernel that holds the GIL;
* a daemon thread that polls ``getppid()`` (every other platform, and a second line on
  Linux): once the parent is gone the worker exits.

Without them a SIGKILLed command leaves loky's workers alive until loky's idle timeout
(300 s), holding memory and the caller's pipes.  loky starts its workers from the process
that runs ``Parallel`` (there is no manager process in between), so "the parent" is the
command's own process (the dask backend runs on its own cluster and is not covered).

The backend is chosen once per command, not per call: ``with using("dask", ADDR):``
(the CLI's ``--backend dask --scheduler ADDR``, ``options.backend_options``) makes every
``pool`` inside it, however deep, a ``cluster.DaskPool`` on that scheduler, with the same
results in the same order; ``n_jobs`` is then the number of tasks in flight.  Code that
skips the pool for one job asks :func:`local` first, so ``--jobs 1`` on dask still runs on
the cluster.

``PR_SET_PDEATHSIG`` fires when the *thread* that started the worker exits, not only the
process.  loky starts workers from the thread that submits work, so the signal is armed
only when the work was dispatched from the parent's main thread (always so for the CLI);
a notebook that runs a pool from a short-lived thread keeps its workers and relies on the
polling thread alone.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import re
import signal
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from joblib import Parallel
from joblib.externals.loky.process_executor import TerminatedWorkerError

from bonfire_sim.errors import ConfigError, WorkerError
from bonfire_sim.infra import BACKENDS

PARENT_POLL_S = 0.5
PR_SET_PDEATHSIG = 1  # linux/prctl.h
EXIT_ORPHANED = 3  # a worker's exit status after its parent vanished


_GUARDED: list[int] = []  # the parent pid this worker process guards against, once armed
_SESSIONS: list[Any] = []  # the dask sessions entered by ``using`` (None: loky), innermost last


@dataclass(frozen=True)
class Parent:
    """The dispatching process, as a worker sees it."""

    pid: int
    main_thread: bool  # dispatched from the parent's main thread (pdeathsig is safe)


def this_process() -> Parent:
    """The current process as the parent of workers it is about to start."""
    return Parent(os.getpid(), threading.current_thread() is threading.main_thread())


def _arm_pdeathsig() -> bool:
    """Ask the kernel to SIGKILL this process when its parent dies (Linux only)."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(None, use_errno=True)  # the running program, libc included
        return libc.prctl(PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0) == 0
    except (OSError, AttributeError):  # no libc or no prctl: the polling thread remains
        return False


def guard(parent: Parent) -> None:
    """In a worker process that ``parent`` started: exit as soon as ``parent`` is gone.

    Idempotent and a no-op in the parent itself.  A worker already reparented (its parent
    died while it was starting) exits at once.
    """
    if _GUARDED or os.getpid() == parent.pid:
        return
    _GUARDED.append(parent.pid)
    if parent.main_thread:
        _arm_pdeathsig()
    if os.getppid() != parent.pid:  # the parent died before the signal was armed
        os._exit(EXIT_ORPHANED)

    def watch() -> None:
        while os.getppid() == parent.pid:
            time.sleep(PARENT_POLL_S)
        os._exit(EXIT_ORPHANED)

    threading.Thread(target=watch, name="bonfire-parent-watch", daemon=True).start()


def check_backend(backend: str | None, scheduler: str | None) -> None:
    """Refuse an unknown backend, and a scheduler address without the dask backend."""
    if backend is not None and backend not in BACKENDS:
        raise ConfigError(f"backend must be one of {', '.join(BACKENDS)}, got {backend!r}")
    if scheduler is not None and backend != "dask":
        raise ConfigError(f"a scheduler address ({scheduler}) needs the dask backend: "
                          f"--backend dask (Python: backend='dask')")


@contextlib.contextmanager
def using(backend: str | None = None, scheduler: str | None = None) -> Iterator[None]:
    """Run every ``pool`` inside on ``backend``: ``"loky"`` (local processes) or ``"dask"``
    (the cluster at ``scheduler``; without one, a local cluster started for the block).
    ``backend=None`` keeps the enclosing choice (loky at the top), so a library function
    with ``backend=None`` called inside ``using("dask", ...)`` stays on the cluster."""
    check_backend(backend, scheduler)
    if backend is None:
        yield
        return
    with contextlib.ExitStack() as stack:
        session = None
        if backend == "dask":
            from bonfire_sim.infra.cluster import connect

            session = stack.enter_context(connect(scheduler))
        _SESSIONS.append(session)
        try:
            yield
        finally:
            _SESSIONS.pop()


def on_cluster() -> bool:
    """True inside ``using("dask", ...)``."""
    return bool(_SESSIONS) and _SESSIONS[-1] is not None


def local(n_jobs: int) -> bool:
    """True if work for ``n_jobs`` should run in this process, without a pool (one job on
    loky; never on dask, where even one job in flight runs on the cluster)."""
    return n_jobs <= 1 and not on_cluster()


def pool(n_jobs: int, **kwargs: Any) -> Any:
    """``joblib.Parallel(n_jobs, **kwargs)`` on loky whose workers die with this process.

    The one way a command starts worker processes.  Build it in the process (and thread)
    that runs it: loky runs ``guard`` in each new worker before its first task, so a worker
    is covered from its start (while it still imports the engine), not from its first
    result.  The same parent gives the same executor arguments, so loky keeps reusing its
    workers across calls.  A worker that dies (killed, out of memory, a plug-in calling
    ``os._exit``) is a one-line ``WorkerError``, not loky's traceback.  Inside
    ``using("dask", ...)`` a ``cluster.DaskPool`` with ``n_jobs`` tasks in flight instead.
    """
    if on_cluster():
        return _SESSIONS[-1].pool(n_jobs, **kwargs)
    _quiet_resource_tracker()
    return _GuardedParallel(n_jobs=n_jobs, backend="loky", initializer=guard,
                            initargs=(this_process(),), **kwargs)


# loky's resource tracker (a process of its own, started with the first pool) cleans up the
# semaphores of workers stopped mid-task -- as when a command ends on a one-line error while
# the other chunks still run -- and says so on the caller's stderr at exit, after our
# one-line error.  It has already unlinked them, so the lines are noise; the tracker takes
# its warning filters from the environment it inherits, so name exactly its own.
TRACKER_WARNINGS = ("ignore:resource_tracker:UserWarning:"
                    "joblib.externals.loky.backend.resource_tracker")


def _quiet_resource_tracker() -> None:
    current = os.environ.get("PYTHONWARNINGS", "")
    if TRACKER_WARNINGS not in current.split(","):
        os.environ["PYTHONWARNINGS"] = ",".join(filter(None, (current, TRACKER_WARNINGS)))


class _GuardedParallel(Parallel):
    """``Parallel`` that reports a dead worker as a ``WorkerError``."""

    def __call__(self, iterable: Any) -> Any:
        with _worker_deaths():
            out = super().__call__(iterable)
        return _translated(out) if self.return_generator else out


@contextlib.contextmanager
def _worker_deaths() -> Iterator[None]:
    try:
        yield
    except TerminatedWorkerError as error:
        codes = re.search(r"exit codes of the workers are (\{.*?\})", str(error))
        raise WorkerError(
            "a worker process ended unexpectedly"
            + (f" (exit codes {codes[1]})" if codes else "")
            + ": killed, out of memory, or a plug-in that exited or crashed its process; "
              "work already finished is kept") from None


def _translated(results: Iterator[Any]) -> Iterator[Any]:
    with _worker_deaths():
        yield from results
