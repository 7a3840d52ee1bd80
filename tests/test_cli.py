"""The bonfire-sim command line: every command works, is documented and fails cleanly."""

from __future__ import annotations

import csv
import io
import json
import re
import shlex
import subprocess
import sys
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

import bonfire_sim
from bonfire_sim.cli.commands import COMMANDS
from bonfire_sim.cli.main import load_command, main
from bonfire_sim.errors import BonfireError, ConfigError, DataError, IllegalMoveError
from bonfire_sim.strategies import STRATEGY_IDS

README = Path(__file__).resolve().parents[1] / "README.md"
KINDS = ("tasks", "gnomes", "council")
FORMATS = ("table", "csv", "json")


def run(*args: str):
    return CliRunner().invoke(main, list(args))


def cards_json(kind: str) -> list[dict]:
    result = run("cards", "--kind", kind, "--format", "json")
    assert result.exit_code == 0, result.output
    return json.loads(result.output)


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("fmt", FORMATS)
def test_cards_prints_every_kind_in_every_format(kind, fmt):
    result = run("cards", "--kind", kind, "--format", fmt)
    assert result.exit_code == 0, result.output
    assert result.output.strip()


def test_cards_defaults_to_a_table_of_tasks():
    lines = run("cards").output.splitlines()
    assert lines[0].split() == ["id", "colour", "points", "condition", "provenance",
                                "prov_tier", "prov_condition", "prov_depicted", "prov_points"]
    assert set(lines[1]) <= {"-", " "}
    assert len(lines) == 2 + 66


def test_there_are_66_tasks_22_of_each_colour():
    rows = cards_json("tasks")
    assert len(rows) == 66
    assert len({r["id"] for r in rows}) == 66
    for colour in ("blue", "red", "yellow"):
        assert sum(r["colour"] == colour for r in rows) == 22


def test_there_are_33_gnomes_27_specialists_and_6_elders():
    rows = cards_json("gnomes")
    assert len(rows) == 33
    ids = [f"S{i}" for i in range(1, 28)] + [f"E{i}" for i in range(1, 7)]
    assert [r["id"] for r in rows] == ids
    assert sum(r["kind"] == "specialist" for r in rows) == 27
    assert sum(r["kind"] == "elder" for r in rows) == 6
    assert {r["resource"] for r in rows} <= {"blossom", "fruit", "herb", "shell", "root", "gold"}


def test_council_lists_8_spaces_and_5_common_tasks():
    rows = cards_json("council")
    assert [r["space"] for r in rows if r["kind"] == "council"] == list(range(1, 9))
    assert sum(r["kind"] == "common" for r in rows) == 5
    assert len(rows) == 13


def test_csv_output_parses_back_to_the_json_rows():
    text = run("cards", "--kind", "gnomes", "--format", "csv").output
    rows = list(csv.DictReader(io.StringIO(text)))
    assert len(rows) == 33
    assert rows[0].keys() == cards_json("gnomes")[0].keys()


def test_every_row_has_a_known_provenance():
    for kind in KINDS:
        assert {r["provenance"] for r in cards_json(kind)} <= {"text", "inferred", "assumed"}


@pytest.mark.parametrize("args", [
    ("cards", "--kind", "dragons"), ("cards", "--format", "xml"),
    ("cards", "--kind", "tom", "--variant", "tom_deck=elf"),
    ("replay", "--variant", "deck=gnome"), ("run", "--variant", "fate_area"),
    ("sensitivity", "--variant", "tom_deck=task1"),
])
def test_a_bad_value_gives_one_error_line_and_exit_code_2(args):
    result = run(*args)
    assert result.exit_code == 2
    assert result.output.strip().count("\n") == 0
    assert result.output.startswith("Error: ")
    assert "Traceback" not in result.output


@pytest.mark.parametrize(
    "error", [BonfireError, ConfigError, DataError, IllegalMoveError, ValueError]
)
def test_domain_errors_become_one_clean_line(error):
    @click.command()
    def boom() -> None:
        raise error("something\nwent wrong")

    main.add_command(boom, "boom-test")
    try:
        result = run("boom-test")
    finally:
        main.commands.pop("boom-test")
    assert result.exit_code == 2
    assert result.output == "Error: something went wrong\n"


def test_the_error_classes_share_one_base():
    for cls in (ConfigError, DataError, IllegalMoveError):
        assert issubclass(cls, BonfireError)


def test_every_registered_command_loads():
    for name, target in COMMANDS.items():
        assert isinstance(load_command(target), click.Command), name


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_every_command_has_an_example_in_its_help(name):
    result = run(name, "--help")
    assert result.exit_code == 0, result.output
    assert "Example:" in result.output
    assert f"bonfire-sim {name}" in result.output


def _examples(help_text: str) -> list[str]:
    """The ``bonfire-sim ...`` lines after ``Example:`` in a help text."""
    tail = help_text.split("Example:", 1)[1]
    return [line.strip() for line in tail.splitlines() if line.strip().startswith("bonfire-sim")]


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_every_help_example_is_its_own_line_and_parses(name):
    command = load_command(COMMANDS[name])
    written = _examples(command.help or "")
    assert written, f"{name}: no example line in the docstring"
    shown = run(name, "--help").output
    shown_lines = {line.strip() for line in shown.splitlines()}
    for example in written:
        # click would reflow an example outside a \b paragraph into its neighbours
        assert example in shown_lines, f"{name}: example not on its own line: {example}"
        args = shlex.split(example)
        assert args[:2] == ["bonfire-sim", name], example
        ctx = command.make_context(name, args[2:])  # raises on a bad option or value
        assert ctx.command is command
    assert _examples(shown) == written


def test_the_group_help_lists_every_command_and_has_an_example():
    result = run("--help")
    assert result.exit_code == 0
    assert "Example:" in result.output
    for name in COMMANDS:
        assert re.search(rf"^\s+{name}\s", result.output, re.M), name


def test_every_command_is_in_the_readme_cli_table():
    readme = README.read_text(encoding="utf-8")
    for name in COMMANDS:
        assert f"`{name}`" in readme, f"README lacks a row for {name}"


def test_version_prints_the_package_version():
    result = run("--version")
    assert result.exit_code == 0
    assert result.output.strip() == f"bonfire-sim, version {bonfire_sim.__version__}"
    assert re.fullmatch(r"\d+\.\d+\.\d+.*", bonfire_sim.__version__)


def test_help_and_import_stay_light():
    code = (
        "import sys\n"
        "from click.testing import CliRunner\n"
        "from bonfire_sim.cli.main import main\n"
        "assert CliRunner().invoke(main, ['--help']).exit_code == 0\n"
        "heavy = [m for m in ('numba', 'polars', 'pandas', 'matplotlib') if m in sys.modules]\n"
        "assert not heavy, heavy\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_unknown_package_attributes_raise_attribute_error():
    with pytest.raises(AttributeError):
        bonfire_sim.no_such_name  # noqa: B018
    assert {"play", "load"} <= set(dir(bonfire_sim))


def test_bench_per_strategy_lists_every_builtin_with_speed_and_stall_share():
    result = run("bench", "strategies", "--games", "12")
    assert result.exit_code == 0, result.output
    rows = {line.split(" self-play")[0]: line.split()[-3:]
            for line in result.output.splitlines() if " self-play 4p" in line}
    assert set(rows) == set(STRATEGY_IDS) - {"search"}  # search: thousands of times slower
    for rate, stalled, win_score in rows.values():
        assert float(rate) > 0 and 0.0 <= float(stalled) <= 1.0
        assert float(win_score) > 0
    assert float(rows["random"][1]) == 1.0  # random players never reach a 4p countdown


def test_bench_search_times_the_search_and_its_flat_reference_on_the_same_deals():
    result = run("bench", "search", "--games", "1")
    assert result.exit_code == 0, result.output
    rows = [line.split() for line in result.output.splitlines()
            if line.split() and line.split()[0] in ("2", "4")]
    assert [r[0] for r in rows] == ["2", "4"]
    for _, games, ref, new, ratio in rows:
        assert games == "1" and float(ref) > 0 and float(new) > 0
        assert abs(float(ratio) - float(new) / float(ref)) < 0.01 * float(ratio) + 0.01


def test_bench_versus_catanatron_prints_both_engines_and_the_ratios():
    result = run("bench", "catanatron", "--games", "12", "--catanatron-games", "2",
                 "--quiet")
    assert result.exit_code == 0, result.output
    rows = {line[:28].strip(): line[28:].split() for line in result.stdout.splitlines()
            if line.startswith(("bonfire_sim ", "catanatron random"))}
    assert set(rows) == {"bonfire_sim default mix 4p", "bonfire_sim random 4p",
                         "catanatron random 4p"}
    for games_s, decisions_s in rows.values():
        assert float(games_s) > 0 and float(decisions_s) > float(games_s)
    ratio = re.search(r"default mix games/s = ([\d.]+)x .* random decisions/s = ([\d.]+)x",
                      result.stdout)
    assert ratio and float(ratio[1]) > 0 and float(ratio[2]) > 0


def test_bench_versus_catanatron_without_catanatron_is_one_clean_error(monkeypatch):
    monkeypatch.setitem(sys.modules, "catanatron", None)  # import fails as if missing
    result = run("bench", "catanatron", "--games", "12")
    assert result.exit_code == 2
    assert result.output.strip().splitlines() == [
        "Error: bench catanatron needs Catanatron: pip install 'bonfire-sim[bench]'"]


LONG_COMMANDS = ("run", "experiment", "ladder", "solo", "coverage", "bench", "report",
                 "errata")


@pytest.mark.parametrize("name", LONG_COMMANDS)
def test_every_long_command_takes_quiet(name):
    command = load_command(COMMANDS[name])
    if isinstance(command, click.Group):  # bench: every measurement but the instant one
        for sub, cmd in command.commands.items():
            if sub != "manifest":
                assert "quiet" in {p.name for p in cmd.params}, sub
                assert "--quiet" in run(name, sub, "--help").output
        return
    assert "quiet" in {p.name for p in command.params}
    assert "--quiet" in run(name, "--help").output


def test_ladder_shows_progress_in_a_log_and_not_with_quiet(monkeypatch):
    monkeypatch.setattr("bonfire_sim.infra.progress.LOG_EVERY", 0.0)  # a log line at every update
    args = ["ladder", "--players", "2", "--games", "2", "--strategies", "random,greedy"]
    shown = run(*args)
    assert shown.exit_code == 0, shown.output
    assert re.search(r"ladder games: 4/4 game \(100%\).*done", shown.stderr)
    quiet = run(*args, "--quiet")
    assert quiet.exit_code == 0 and quiet.stderr == ""
    assert quiet.stdout == shown.stdout


@pytest.mark.parametrize("args", [["cards"], ["cards", "--kind", "gnomes", "--format", "json"],
                                  ["strategies"]])
def test_a_closed_pipe_ends_the_command_quietly(args):
    # `bonfire-sim replay ... | head -1`: the reader is gone before the command prints.
    # The read end is closed first, so the very first write fails, whatever the buffer.
    import os

    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        res = subprocess.run([sys.executable, "-m", "bonfire_sim", *args], stdout=write_end,
                             stderr=subprocess.PIPE, text=True, timeout=120)
    finally:
        os.close(write_end)
    assert res.stderr == ""
    assert res.returncode in (0, 141)


def test_cards_give_provenance_per_field_so_the_rulebook_text_stands_apart():
    # Issue 39: 64 of 66 tasks and every gnome read "[assumed]" as a whole, though each
    # task's tier and (Appendix I) condition and each ability's text are rulebook text.
    tasks = cards_json("tasks")
    assert {t["prov_tier"] for t in tasks} == {"text"}
    assert sum(t["prov_condition"] == "text" for t in tasks) == 62  # all but B17, R4-R6
    assert {t["id"] for t in tasks if t["prov_points"] == "text"} == {"Y13", "Y14"}
    y14 = next(t for t in tasks if t["id"] == "Y14")
    assert (y14["provenance"], y14["prov_depicted"]) == ("text", "-")
    b1 = next(t for t in tasks if t["id"] == "B1")  # "a path tile showing <depicted>"
    assert b1["prov_depicted"] == "assumed" and b1["prov_condition"] == "text"
    gnomes = cards_json("gnomes")
    assert {g["prov_text"] for g in gnomes} == {"text"}
    assert {g["prov_amounts"] for g in gnomes} == {"text"}
    assert {g["prov_resource"] for g in gnomes} == {"assumed"}
    assert [g["id"] for g in gnomes if g["prov_depicted"] == "assumed"] == [
        "S10", "S11", "S12", "S13"]
