"""Option decorators shared by several commands, and the one way rows are printed."""

from __future__ import annotations

import csv
import functools
import io
import os
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

import click

from bonfire_sim.errors import ConfigError
from bonfire_sim.infra import BACKENDS

F = TypeVar("F", bound=Callable[..., Any])

FORMATS = ("table", "csv", "json")


def format_option(fn: F) -> F:
    """``--format table|csv|json`` (parameter ``fmt``), default ``table``."""
    return click.option(
        "--format",
        "fmt",
        type=click.Choice(FORMATS),
        default="table",
        show_default=True,
        help="Output format: aligned table, CSV or a JSON list of objects.",
    )(fn)


class PathName(click.Path):
    """A file or folder option: help and shell completion say which, nothing is checked.

    click's own ``Path`` checks what it is given with ``os.stat``, which follows a symbolic
    link: a planted link would be judged (and named) by its target before bonfire_sim's
    checks see it.  Those checks (``infra.safepaths``, ``infra.fileio``, ``infra.readers``:
    no link followed, no special file read, one ``Error:`` line) stay the only ones, made
    where each path is opened; this type returns the name exactly as typed.
    """

    def convert(self, value: Any, param: click.Parameter | None,
                ctx: click.Context | None) -> Any:
        return os.fsdecode(value) if isinstance(value, bytes | os.PathLike) else value


FILE = PathName(dir_okay=False)  # a file to read or write
DIR = PathName(file_okay=False)  # a folder: a run, a study, an output folder
FILE_OR_DASH = PathName(dir_okay=False, allow_dash=True)  # a file, or - for stdout


def seed_option(fn: F) -> F:
    """``--seed N`` (parameter ``seed``), the master seed of a run."""
    return click.option(
        "--seed", type=int, default=1, show_default=True, help="Master random seed."
    )(fn)


def players_option(fn: F) -> F:
    """``--players 1..4`` (parameter ``players``)."""
    return click.option(
        "--players",
        type=click.IntRange(1, 4),
        default=4,
        show_default=True,
        help="Number of players (1 = solo against Tom).",
    )(fn)


class FiniteFloat(click.ParamType):
    """A real-valued option: finite and within ``lo``..``hi`` (``lo`` excluded with
    ``lo_open``), checked by ``config.check_float`` like every other number the program
    takes; NaN, infinity or text is one ``Error:`` line and exit code 2."""

    name = "number"

    def __init__(self, lo: float | None = None, hi: float | None = None,
                 lo_open: bool = False) -> None:
        self.lo, self.hi, self.lo_open = lo, hi, lo_open

    def convert(self, value: Any, param: click.Parameter | None,
                ctx: click.Context | None) -> float:
        from bonfire_sim.config import check_float

        number = value
        if isinstance(value, str):
            try:
                number = float(value)
            except ValueError:
                number = value  # check_float names it as given
        try:
            return check_float("", number, self.lo, self.hi, lo_open=self.lo_open)
        except ConfigError as e:
            self.fail(str(e), param, ctx)

    def __repr__(self) -> str:
        return f"FiniteFloat({self.lo}, {self.hi})"


class Budget(click.ParamType):
    """A count of games (or generations, candidates) with a ceiling: a budget typed by
    mistake is one ``Error:`` line saying what it would cost, never years of work
    started (``infra.budget``).  ``per_unit``: games one unit costs, for that estimate."""

    name = "integer"

    def __init__(self, lo: int, hi: int, unit: str = "games", per_unit: float = 1.0) -> None:
        self.lo, self.hi, self.unit, self.per_unit = lo, hi, unit, per_unit

    def convert(self, value: Any, param: click.Parameter | None,
                ctx: click.Context | None) -> int:
        from bonfire_sim.infra import budget

        if isinstance(value, int) and not isinstance(value, bool):
            number = value
        else:
            try:
                number = int(str(value).strip().replace("_", ""))
            except ValueError:
                self.fail(f"{value!r} is not a whole number", param, ctx)
        if self.lo <= number <= self.hi:
            return number
        cost = ""
        if number > self.hi:
            years = budget.duration(budget.seconds_for(number * self.per_unit))
            cost = f" ({number:,} {self.unit} would take about {years} on one core)"
        self.fail(f"must be {self.lo:,}..{self.hi:,} {self.unit}, got {number:,}{cost}; "
                  f"for more, split the work into several runs", param, ctx)

    def __repr__(self) -> str:
        return f"Budget({self.lo}, {self.hi})"


def _cell(value: Any) -> str:
    return "" if value is None else str(value)


def format_table(rows: Sequence[dict]) -> str:
    """Rows as aligned columns under a header; numeric columns are right-aligned."""
    if not rows:
        return ""
    columns = list(rows[0])
    cells = [[_cell(r[c]) for c in columns] for r in rows]
    widths = [max(len(c), *(len(line[i]) for line in cells)) for i, c in enumerate(columns)]
    numeric = [all(isinstance(r[c], int | float) or r[c] is None for r in rows) for c in columns]

    def line(values: Sequence[str]) -> str:
        parts = [
            v.rjust(w) if num else v.ljust(w)
            for v, w, num in zip(values, widths, numeric, strict=True)
        ]
        return "  ".join(parts).rstrip()

    out = [line(columns), line(["-" * w for w in widths])]
    out += [line(c) for c in cells]
    return "\n".join(out)


def format_csv(rows: Sequence[dict]) -> str:
    """Rows as CSV with a header line."""
    if not rows:
        return ""
    buf = io.StringIO()
    writer = csv.DictWriter(buf, fieldnames=list(rows[0]), lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    return buf.getvalue().rstrip("\n")


def format_json(rows: Sequence[dict]) -> str:
    """Rows as a JSON list of objects."""
    from bonfire_sim.infra.fileio import dumps_json

    return dumps_json(list(rows), "JSON rows", indent=2)


FORMATTERS: dict[str, Callable[[Sequence[dict]], str]] = {
    "table": format_table,
    "csv": format_csv,
    "json": format_json,
}


def emit_rows(rows: Sequence[dict], fmt: str) -> None:
    """Print ``rows`` to stdout in format ``fmt``; ValueError for an unknown format."""
    try:
        formatter = FORMATTERS[fmt]
    except KeyError:
        raise ConfigError(
            f"unknown format {fmt!r}; expected one of {', '.join(FORMATTERS)}"
        ) from None
    text = formatter(rows)
    if text:
        click.echo(text)


def quiet_option(fn: F) -> F:
    """``--quiet`` (parameter ``quiet``): no progress bar or progress log lines."""
    return click.option(
        "--quiet", "-q", is_flag=True, default=False,
        help="Show no progress (a bar on a terminal, a log line every few seconds otherwise).",
    )(fn)


class Interrupted(click.ClickException):
    """Ctrl-C: one line saying what was kept, exit code 130 (128 + SIGINT) as shells expect."""

    exit_code = 130


def interrupted(what: str) -> Interrupted:
    """The error to raise on KeyboardInterrupt, saying ``what`` was kept and how to go on."""
    return Interrupted(f"interrupted; {what}")


def announce_compile(quiet: bool) -> None:
    """Say at once, before a command's heavy imports, that the engine will compile first
    (nothing when it is compiled or ``quiet``)."""
    from bonfire_sim.sim import warm

    line = None if quiet else warm.cold_notice()
    if line:
        click.echo(line, err=True)


def plays_search(players: int, strategies: str | None, run_dir: str | None) -> bool:
    """Whether the one game ``replay`` or ``view`` is asked for has a search player in a
    seat (the recommended solo player is one): such a game waits for the compiled engine,
    since as plain Python it would take minutes, not seconds.  Read without importing the
    engine (the choice comes before it); a run's players from its manifest's text."""
    from bonfire_sim.lineup import default_seats, is_search_name

    if run_dir is not None:
        from pathlib import Path

        from bonfire_sim.infra import readers

        try:
            doc = readers.parse_json(readers.read_text(Path(run_dir) / "manifest.json"),
                                     run_dir)
            names = [str(n) for n in doc["config"]["strategies"]]
        except Exception:  # noqa: BLE001 - the replay itself reports a bad run in one line
            return False
    elif strategies:
        names = strategies.split(",")
    else:
        names = list(default_seats(players))
    return any(is_search_name(n) for n in names)


def warm_engine(quiet: bool) -> float:
    """Compile the engine first if this version's cache lacks it: one line at once saying
    so and about how long, then a progress display of the compile's parts, so that the
    command's own progress (and its games per second) counts games only.  Returns the
    seconds spent compiling (0.0 when the cache is warm)."""
    from bonfire_sim.sim import warm

    if warm.is_warm():
        return 0.0
    from bonfire_sim.infra.progress import Progress

    with Progress(100, "compiling the engine", "%", quiet=quiet, heartbeat=True) as bar:
        return warm.ensure_warm(None if quiet else bar.write, progress_callback(bar))


def _parse_variants(ctx: click.Context, param: click.Parameter,
                    value: tuple[str, ...]) -> dict[str, str]:
    from bonfire_sim.rules.components import parse_variant

    out: dict[str, str] = {}
    for text in value:  # a ValueError becomes the group's one-line "Error: ..." (exit 2)
        fact, name = parse_variant(text)
        out[fact] = name
    return out


def variant_option(fn: F) -> F:
    """``--variant FACT=NAME`` (repeatable; parameter ``variants``, a dict): readings of
    uncertain component facts (``bonfire-sim cards --kind variants`` lists them)."""
    return click.option(
        "--variant", "variants", multiple=True, metavar="FACT=NAME",
        callback=_parse_variants,
        help="Use a named variant of an uncertain fact, e.g. tom_deck=gnome or "
             "fate_area=4x6 (repeatable; `bonfire-sim cards --kind variants` lists them).",
    )(fn)
def progress_callback(bar: Any) -> Callable[[int, int], None]:
    """A library ``progress(done, total)`` callback that drives a ``progress.Progress``."""

    def update(done: int, total: int) -> None:
        if bar.total != total:
            bar.set_total(total)
        if done > bar.n:
            bar.update(done - bar.n)

    return update


def backend_options(fn: F) -> F:
    """``--backend loky|dask`` and ``--scheduler ADDR``: the command's body runs inside
    ``workers.using(backend, scheduler)``, so every worker pool it starts (forks, chunks,
    candidates) is on that backend; ``--scheduler`` without ``--backend dask`` is refused.
    """

    @functools.wraps(fn)
    def wrapper(*args: Any, backend: str, scheduler: str | None, **kwargs: Any) -> Any:
        from bonfire_sim.infra.workers import using

        with using(backend, scheduler):
            return fn(*args, **kwargs)

    wrapper = click.option(
        "--scheduler", default=None, metavar="ADDR",
        help="dask scheduler address, e.g. tcp://10.0.0.5:8786; needs --backend dask "
             "(which, without an address, starts a local cluster).")(wrapper)
    wrapper = click.option(
        "--backend", type=click.Choice(BACKENDS), default="loky", show_default=True,
        help="Where worker processes run: loky (this machine) or dask (a cluster; --jobs "
             "is then the number of tasks in flight).")(wrapper)
    return wrapper  # type: ignore[return-value]


def parse_set(items: Sequence[str]) -> dict[str, Any]:
    """``KEY=VALUE`` overrides (``task_points.Y14=5``, ``seat_points=[0, 1, 1, 2]``,
    ``portal_points=3``) as the [overrides] table of an experiment file, checked by
    ``config.check_overrides``; a value is read as TOML, so lists and numbers keep their
    types."""
    import tomllib

    from bonfire_sim.config import check_overrides

    table: dict[str, Any] = {}
    for text in items:
        key, sep, raw = text.partition("=")
        key = key.strip()
        if not sep or not key or not raw.strip():
            raise ConfigError(f"an override is written KEY=VALUE (e.g. task_points.Y14=5), "
                              f"got {text!r}")
        try:
            value = tomllib.loads(f"v = {raw.strip()}")["v"]
        except tomllib.TOMLDecodeError:
            raise ConfigError(f"override {key}: {raw.strip()!r} is not a number or a list "
                              f"of numbers") from None
        head, _, sub = key.partition(".")
        if sub:
            inner = table.setdefault(head, {})
            if not isinstance(inner, dict):
                raise ConfigError(f"override {head} is given both whole and as {key}")
            inner[sub] = value
        else:
            table[head] = value
    return check_overrides(table)


def set_option(fn: F) -> F:
    """``--set KEY=VALUE`` (repeatable; parameter ``overrides``, a checked dict): designer
    overrides as an experiment file's [overrides] table takes them."""

    def _parse(ctx: click.Context, param: click.Parameter, value: tuple[str, ...]) -> dict:
        return parse_set(value)

    return click.option(
        "--set", "overrides", multiple=True, metavar="KEY=VALUE", callback=_parse,
        help="Change a number of the game as an experiment file's [overrides] does, e.g. "
             "task_points.Y14=5 or seat_points=[0,1,1,2] (repeatable).",
    )(fn)


# The card measures of ``analysis.cards.table.MEASURES`` (written out so the CLI loads
# without the engine; tests/test_card_values.py checks they agree), the default first.
CARD_MEASURES = ("receipt", "lit")


def measure_option(fn: F) -> F:
    """``--measure receipt|lit`` (parameter ``measure``): what a task's card value is."""
    return click.option(
        "--measure", type=click.Choice(CARD_MEASURES), default=CARD_MEASURES[0],
        show_default=True,
        help="A task's value: 'receipt' (receiving it against the best other move: "
             "includes how hard its condition is; see docs/explanation/values.md) or "
             "'lit' (igniting it at a moment its owner could, against never; a printed "
             "point moves it by one, the difficulty of its condition left out).",
    )(fn)


def estimate_top_up_options(fn: F) -> F:
    """``--max-games`` and ``--top-ups`` (parameters ``max_games``, ``top_ups``): the
    survey's top-ups of an estimate from runs (``reprice``'s, the errata sheet's), one
    spelling and one help for both."""
    from bonfire_sim.config import MAX_GAMES

    fn = click.option(
        "--top-ups", type=click.IntRange(min=0, max=20), default=4, show_default=True,
        help="Top-up rounds of the estimate at most (each on fresh deals; 0: the "
             "runs' forks alone).")(fn)
    return click.option(
        "--max-games", type=Budget(1, MAX_GAMES), default=32_000, show_default=True,
        help="The estimate's top-ups, as in 'values': four-player games per card at "
             "most, the runs' games included (as many seat-games at the other counts: "
             "twice the games at 2 players).")(fn)
