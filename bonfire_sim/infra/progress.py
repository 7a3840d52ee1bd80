"""The one progress display every long command uses.

On a terminal it is a tqdm bar on stderr; when stderr is not a terminal (a log file, CI,
a pipe) it prints one plain line every ``every`` seconds instead, so a long run in a log
still shows that it is alive; ``quiet=True`` silences both.  stdout is never touched, so
a command's own output can still be piped.
"""

from __future__ import annotations

import math
import sys
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from types import TracebackType
from typing import TextIO, TypeVar

T = TypeVar("T")

LOG_EVERY = 5.0  # seconds between log lines when stderr is not a terminal


class Progress:
    """A counter towards ``total`` (or open-ended) shown as a bar or as log lines.

    Use as a context manager; ``update(n)`` adds finished units.  With ``heartbeat=True``
    a background thread keeps a log alive between updates (a line at least every
    ``every`` seconds even while one long unit runs) and keeps a bar's clock ticking.
    """

    def __init__(
        self,
        total: int | None = None,
        desc: str = "",
        unit: str = "it",
        *,
        quiet: bool = False,
        every: float | None = None,
        stream: TextIO | None = None,
        heartbeat: bool = False,
    ) -> None:
        self.total = total
        self.desc = desc
        self.unit = unit
        self.n = 0
        self._stream = stream if stream is not None else sys.stderr
        self._every = LOG_EVERY if every is None else every
        self._quiet = quiet
        self._start = time.monotonic()
        self._last_log = self._start
        self._logged = False  # a periodic log line was printed (then a final one follows)
        self._bar = None
        if not quiet and _is_tty(self._stream):
            from tqdm import tqdm

            self._bar = tqdm(
                total=total, desc=desc, unit=unit, file=self._stream, smoothing=0.1,
                dynamic_ncols=True,
            )
        self._lock = threading.Lock()  # the heartbeat thread and update() both print
        self._stop = threading.Event()
        self._beat: threading.Thread | None = None
        if heartbeat and not quiet and 0 < self._every < math.inf:
            self._beat = threading.Thread(target=self._heartbeat, daemon=True)
            self._beat.start()

    def update(self, n: int = 1) -> None:
        """Count ``n`` more finished units."""
        self.n += n
        if self._bar is not None:
            self._bar.update(n)
        elif not self._quiet:
            self._maybe_log()

    def _maybe_log(self, slack: float = 0.0) -> None:
        with self._lock:
            now = time.monotonic()
            if not self._quiet and now - self._last_log >= self._every - slack:
                self._last_log = now
                self._logged = True
                self._log(now)

    def _heartbeat(self) -> None:
        # Wakes often and logs one wake early, so lines are never more than ``every`` apart.
        wake = min(self._every / 10, 0.25)
        while not self._stop.wait(wake):
            bar = self._bar
            if bar is not None:
                bar.refresh()  # tqdm redraws its elapsed time only when asked
            else:
                self._maybe_log(slack=wake)

    def set_total(self, total: int) -> None:
        """Change the target (e.g. once the number of chunks is known)."""
        self.total = total
        if self._bar is not None:
            self._bar.total = total
            self._bar.refresh()

    def write(self, message: str) -> None:
        """A status line that does not break the bar (e.g. "compiling ...")."""
        if self._quiet:
            return
        if self._bar is not None:
            self._bar.write(message, file=self._stream)
        else:
            print(message, file=self._stream, flush=True)

    def note(self, text: str) -> None:
        """Show ``text`` beside the bar on a terminal (e.g. the current step); nothing in
        log mode, where ``Heartbeat`` prints steps."""
        if self._bar is not None:
            self._bar.set_postfix_str(text, refresh=True)

    def close(self) -> None:
        """Finish the display; in log mode a final line with the total time follows the
        periodic ones (a job shorter than one log interval prints nothing at all)."""
        self._stop.set()
        if self._beat is not None:
            self._beat.join()
            self._beat = None
        if self._bar is not None:
            self._bar.close()
            self._bar = None
        elif not self._quiet and self._logged:
            self._log(time.monotonic(), final=True)
        self._quiet = True  # a second close prints nothing

    def _log(self, now: float, final: bool = False) -> None:
        elapsed = now - self._start
        rate = self.n / elapsed if elapsed > 0 else 0.0
        of = f"/{self.total}" if self.total is not None else ""
        pct = f" ({100 * self.n / self.total:.0f}%)" if self.total else ""
        tail = "done" if final else _eta(self.n, self.total, rate)
        print(
            f"{self.desc or 'progress'}: {self.n}{of} {self.unit}{pct}, "
            f"{rate:.1f} {self.unit}/s, {elapsed:.0f} s elapsed, {tail}",
            file=self._stream,
            flush=True,
        )

    def __enter__(self) -> Progress:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()


class Steps:
    """One display at a time for a job made of steps (a sweep: each point's games, then its
    forks, then the figures): ``start(desc, total, unit)`` closes the previous step's
    display, names the new step in a status line and returns its ``Progress`` (with a
    heartbeat, so a log shows the job alive even inside one long unit).  The status line
    is a log line: a log set never to print (``every`` = inf) prints none."""

    def __init__(self, *, quiet: bool = False, every: float | None = None,
                 stream: TextIO | None = None) -> None:
        self._quiet = quiet
        self._every = every
        self._stream = stream
        self.current: Progress | None = None

    def start(self, desc: str, total: int | None = None, unit: str = "it") -> Progress:
        """Close the running step and begin ``desc``."""
        self.close()
        every = LOG_EVERY if self._every is None else self._every
        if math.isfinite(every):
            self.write(f"{desc} ...")
        self.current = Progress(total, desc, unit, quiet=self._quiet, every=self._every,
                                stream=self._stream, heartbeat=True)
        return self.current

    def write(self, message: str) -> None:
        """A status line (through the running bar, if any)."""
        if self.current is not None:
            self.current.write(message)
        elif not self._quiet:
            print(message, file=self._stream or sys.stderr, flush=True)

    def close(self) -> None:
        if self.current is not None:
            self.current.close()
            self.current = None

    def __enter__(self) -> Steps:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()


def step_of(progress: Callable[[str, int, int], None] | None,
            what: str) -> Callable[[int, int], None] | None:
    """A ``progress(done, total)`` for one step ``what`` of ``progress(step, done,
    total)`` (a job of several named steps: each draws its own bar)."""
    if progress is None:
        return None
    return lambda done, total: progress(what, done, total)


def part_of(progress: Callable[[int, int], None] | None, start: int,
            total: int) -> Callable[[int, int], None] | None:
    """``progress(done, total)`` for one part of a larger job: the part's ``done`` counts
    from ``start`` of the job's ``total`` (a step made of several runs draws one bar
    that keeps rising, not one that restarts at each run)."""
    if progress is None:
        return None
    return lambda done, _part_total: progress(start + done, total)


def track(
    items: Iterable[T],
    total: int | None = None,
    desc: str = "",
    unit: str = "it",
    *,
    quiet: bool = False,
) -> Iterator[T]:
    """Iterate ``items`` while showing progress (one unit per item)."""
    if total is None and hasattr(items, "__len__"):
        total = len(items)  # type: ignore[arg-type]
    with Progress(total, desc, unit, quiet=quiet) as bar:
        for item in items:
            yield item
            bar.update(1)


def status(message: str, *, quiet: bool = False) -> None:
    """One line on stderr (e.g. "compiling the engine, about 2 minutes ...")."""
    if not quiet:
        print(message, file=sys.stderr, flush=True)


def _eta(n: int, total: int | None, rate: float) -> str:
    if not total or rate <= 0:
        return "running"
    left = max(total - n, 0) / rate
    return f"about {left:.0f} s left"


def _is_tty(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


class Heartbeat:
    """The current step of a long command, repeated every ``every`` seconds while it runs,
    so a log shows which step a silent stretch (a fork batch, a big table) belongs to.

    In log mode (stderr not a terminal) the step lines (``desc: text``) are held back
    until the command has run ``every`` seconds, as ``Progress`` does: a short command, or
    one refused at once with an ``Error:`` line, prints nothing else.  From then on each
    step is printed when it starts and a background thread prints ``desc: text, N s in
    this step, M s elapsed`` every ``every`` seconds.  On a terminal ``note(text)`` is
    called instead (e.g. ``Progress.note``: the step beside the bar).  ``quiet=True``
    silences both.  Use as a context manager.
    """

    def __init__(self, desc: str = "", *, quiet: bool = False, every: float | None = None,
                 stream: TextIO | None = None, write: Callable[[str], None] | None = None,
                 note: Callable[[str], None] | None = None) -> None:
        import threading

        self.desc = desc
        self.text = "starting"
        self._stream = stream if stream is not None else sys.stderr
        self._every = LOG_EVERY if every is None else every
        self._quiet = quiet
        self._write = write
        self._note = note
        self._start = self._since = time.monotonic()
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._pending: list[str] = []  # step lines held back until the first beat
        self._live = False
        self._thread = None
        self._log = not quiet and not _is_tty(self._stream)
        if self._log and 0 < self._every < math.inf:  # every=inf (tests): no beats at all
            self._thread = threading.Thread(target=self._beat, daemon=True,
                                            name="bonfire-heartbeat")
            self._thread.start()

    def step(self, text: str) -> None:
        """A new step starts: name it (and in every heartbeat until the next one)."""
        line = f"{self.desc}: {text}" if self.desc else text
        with self._lock:
            self.text = text
            self._since = time.monotonic()
            if self._log and not self._live:
                self._pending.append(line)
                return
        if self._log:
            self._emit(line)
        elif not self._quiet and self._note is not None:
            self._note(text)

    def _emit(self, line: str) -> None:
        if self._write is not None:
            self._write(line)
        else:
            print(line, file=self._stream, flush=True)

    def _beat(self) -> None:
        while not self._stop.wait(self._every):
            now = time.monotonic()
            with self._lock:
                text, since = self.text, self._since
                pending, self._pending, self._live = self._pending, [], True
            for line in pending:
                self._emit(line)
            self._emit(f"{self.desc or 'progress'}: {text}, {now - since:.0f} s in this step, "
                       f"{now - self._start:.0f} s elapsed")

    def close(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
            self._thread = None

    def __enter__(self) -> Heartbeat:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()
