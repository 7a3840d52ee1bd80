"""Every parallel command's work on a dask cluster (``--backend dask --scheduler ADDR``).

``workers.using("dask", ADDR)`` opens a :class:`Session` (one ``distributed.Client`` for
the whole command) and ``workers.pool`` then hands out a :class:`DaskPool` instead of loky
workers.  The pool takes the same ``delayed(f)(...)`` iterables as ``joblib.Parallel`` and
returns the same results in the same order (``return_as`` ``list``, ``generator`` or
``generator_unordered``), so a command gives identical tables on either backend: every
task carries its own seeds and never depends on where it runs.

What a plain ``joblib`` dask backend does not give, and why this module exists:

* ``n_jobs`` is the number of tasks in flight (submitted, not finished), so ``--jobs``
  bounds the client's memory for results and keeps the order of a huge run's chunks;
* every worker reports its engine fingerprint (``fingerprint.engine_fingerprint``): the
  workers connected at the start are checked at once, and every task checks its worker
  again before it runs (a worker that joins later, running other code, is refused too);
  results of another engine are never used;
* a task's arguments travel as one ``cloudpickle`` payload that the worker opens inside
  :func:`_task`, so a plug-in module missing on a worker is one ``Error:`` line naming
  the module and the worker, not the scheduler's deserialisation tracebacks (and every
  ``BonfireError`` a task raises names its worker);
* with every worker gone the client prints a heartbeat line every ``HEARTBEAT_S`` and
  gives up after ``LOST_TIMEOUT_S`` with a ``WorkerError``, instead of waiting silently.
"""

from __future__ import annotations

import contextlib
import json
import logging
import re
import socket
import time
from collections.abc import Iterable, Iterator
from typing import Any

from bonfire_sim.errors import (
    BonfireError,
    ConfigError,
    EngineMismatchError,
    PluginError,
    WorkerError,
)
from bonfire_sim.infra.fingerprint import describe_difference, engine_fingerprint

CONNECT_TIMEOUT_S = 5
HEARTBEAT_S = 30.0  # a line on stderr this often while no worker is connected
LOST_TIMEOUT_S = 300.0  # then give up: every worker gone this long
RETURN_AS = ("list", "generator", "generator_unordered")

_FP: list[str] = []  # this process's fingerprint as JSON, computed once (worker side)


def check_scheduler(address: str) -> None:
    """Refuse a dask scheduler address that is malformed or does not answer."""
    m = re.fullmatch(r"(?:tcp|tls)://\[?([^\]/]+?)\]?:(\d{1,5})/?", address.strip())
    if not m:
        raise ConfigError(f"dask scheduler address must look like tcp://HOST:PORT, "
                          f"got {address!r}")
    try:
        socket.create_connection((m[1], int(m[2])), timeout=CONNECT_TIMEOUT_S).close()
    except (OSError, ValueError) as e:
        reason = getattr(e, "strerror", None) or str(e) or type(e).__name__
        raise ConfigError(f"cannot reach the dask scheduler {address}: {reason}") from None


def worker_fingerprint() -> str:
    """The engine fingerprint of this process, as sorted JSON (cached: it hashes sources)."""
    if not _FP:
        _FP.append(json.dumps(engine_fingerprint(), sort_keys=True))
    return _FP[0]


def _where() -> str:
    try:
        from distributed import get_worker

        return f"dask worker {get_worker().address}"
    except (ImportError, ValueError):
        return "a dask worker"


def _mismatch(where: str, theirs: str, ours: str) -> EngineMismatchError:
    diff = describe_difference(json.loads(theirs), json.loads(ours))
    return EngineMismatchError(
        f"{where} runs another engine than this client (worker -> client: {diff}); "
        f"install the same bonfire_sim, numpy, numba and pyarrow on every worker")


def _task(expected: str, payload: bytes) -> Any:
    """Run on a worker: refuse another engine, open the payload, run it."""
    import cloudpickle

    mine = worker_fingerprint()
    if mine != expected:
        raise _mismatch(_where(), mine, expected)
    try:
        fn, args, kwargs = cloudpickle.loads(payload)
    except ImportError as e:  # a plug-in (or a dependency of one) not installed here
        name = getattr(e, "name", None) or str(e)
        raise PluginError(f"{_where()} cannot import {name!r} (a plug-in module?): install "
                          f"it on every worker, see docs/howto/cluster.md") from None
    try:
        return fn(*args, **kwargs)
    except BonfireError as e:  # say where: a plug-in or file missing on one machine
        raise type(e)(f"{_where()}: {e}") from None


class Session:
    """One client connection for the duration of a command."""

    def __init__(self, client: Any, address: str) -> None:
        self.client = client
        self.address = address
        self.fingerprint = worker_fingerprint()

    def check_workers(self) -> None:
        """Refuse at once if a connected worker runs another engine."""
        try:
            seen = self.client.run(worker_fingerprint)
        except Exception as e:  # noqa: BLE001 - a worker without bonfire_sim at all
            raise ConfigError(f"the workers of {self.address} cannot run bonfire_sim: "
                              f"{type(e).__name__}: {e}") from None
        for addr, fp in sorted(seen.items()):
            if fp != self.fingerprint:
                raise _mismatch(f"dask worker {addr}", fp, self.fingerprint)

    def n_workers(self) -> int:
        try:
            return len(self.client.scheduler_info().get("workers", {}))
        except (OSError, TimeoutError) as e:
            raise WorkerError(f"lost the dask scheduler {self.address}: {e}") from None

    def pool(self, n_jobs: int, return_as: str = "list", **_loky_only: Any) -> DaskPool:
        return DaskPool(self, n_jobs, return_as)


@contextlib.contextmanager
def connect(scheduler: str | None) -> Iterator[Session]:
    """A session on ``scheduler`` (or, without one, on a local cluster of processes)."""
    try:
        from distributed import Client, LocalCluster
    except ImportError:
        raise ConfigError("the dask backend needs: pip install 'bonfire-sim[dist]'") from None
    # Worker failures come back as one exception each; distributed would also log them
    # (with tracebacks) on this process's stderr.
    log = logging.getLogger("distributed")
    level = log.level
    log.setLevel(logging.CRITICAL)
    cluster = None
    try:
        if scheduler:
            check_scheduler(scheduler)
            try:
                client = Client(scheduler, timeout=CONNECT_TIMEOUT_S)
            except (OSError, TimeoutError, ValueError) as e:
                raise ConfigError(f"cannot reach the dask scheduler {scheduler}: {e}") from None
        else:
            cluster = LocalCluster(processes=True, threads_per_worker=1,
                                   silence_logs=logging.CRITICAL)
            client = Client(cluster)
        try:
            address = scheduler or (cluster.scheduler_address if cluster else "")
            session = Session(client, address)
            session.check_workers()
            yield session
        finally:
            client.close()
            if cluster is not None:
                cluster.close()
    finally:
        log.setLevel(level)


class DaskPool:
    """``joblib.Parallel``'s calling convention over a dask session (see the module doc)."""

    def __init__(self, session: Session, n_jobs: int, return_as: str = "list") -> None:
        if return_as not in RETURN_AS:
            raise ValueError(f"return_as must be one of {RETURN_AS}, got {return_as!r}")
        self.session = session
        self.n_jobs = max(1, int(n_jobs))
        self.return_as = return_as
        self.peak = 0  # the most tasks ever in flight at once (at most n_jobs)

    def __enter__(self) -> DaskPool:
        return self

    def __exit__(self, *exc: object) -> None:
        return None

    def __call__(self, iterable: Iterable[Any]) -> Any:
        results = self._results(iterable)
        return list(results) if self.return_as == "list" else results

    def _submit(self, item: tuple[Any, tuple, dict]) -> Any:
        import cloudpickle

        payload = cloudpickle.dumps(item)
        return self.session.client.submit(_task, self.session.fingerprint, payload,
                                          pure=False)

    def _results(self, iterable: Iterable[Any]) -> Iterator[Any]:
        ordered = self.return_as != "generator_unordered"
        items = iter(iterable)
        flight: dict[Any, int] = {}  # future -> position in the input
        ready: dict[int, Any] = {}  # finished out of order, waiting for their turn
        count = turn = 0
        try:
            for item in items:
                flight[self._submit(item)] = count
                count += 1
                self.peak = max(self.peak, len(flight))
                if len(flight) >= self.n_jobs:
                    break
            while flight:
                for fut in self._wait(list(flight)):
                    i = flight.pop(fut)
                    ready[i] = _result(fut)
                    for item in items:  # refill: n_jobs tasks in flight
                        flight[self._submit(item)] = count
                        count += 1
                        self.peak = max(self.peak, len(flight))
                        break
                if not ordered:
                    yield from ready.values()
                    ready.clear()
                while turn in ready:
                    yield ready.pop(turn)
                    turn += 1
        finally:
            for fut in flight:  # an error or an abandoned generator: stop the rest
                fut.cancel()

    def _wait(self, futures: list[Any]) -> list[Any]:
        """The futures that finished; heartbeat lines while no worker is connected."""
        from distributed import wait

        from bonfire_sim.infra.progress import status

        lost_since: float | None = None
        while True:
            try:
                done = wait(futures, timeout=HEARTBEAT_S, return_when="FIRST_COMPLETED").done
            except TimeoutError:
                done = set()
            if done:
                return [f for f in futures if f in done]
            if self.session.n_workers():
                lost_since = None
                continue
            now = time.monotonic()
            lost_since = lost_since if lost_since is not None else now
            gone = now - lost_since
            if gone >= LOST_TIMEOUT_S:
                raise WorkerError(
                    f"no dask worker connected to {self.session.address} for {gone:.0f} s "
                    f"with {len(futures)} task(s) unfinished: start workers (dask worker "
                    f"{self.session.address}) and run the command again")
            status(f"dask: no worker connected to {self.session.address}; "
                   f"{len(futures)} task(s) waiting, giving up in "
                   f"{LOST_TIMEOUT_S - gone:.0f} s")


def _result(fut: Any) -> Any:
    """A finished task's value; a worker that kept dying is one ``WorkerError`` line."""
    killed: type[BaseException]
    try:
        from distributed.scheduler import KilledWorker as killed
    except ImportError:  # pragma: no cover - older distributed
        killed = RuntimeError
    try:
        return fut.result()
    except killed:
        raise WorkerError("a task killed every dask worker that tried it (out of memory, or "
                          "a plug-in that exited or crashed its process)") from None
