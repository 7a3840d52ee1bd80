"""Choices and paths on the command line: click types where they fit, our checks kept.

Choices (`--format`, `--kind`, `--backend`) are ``click.Choice``: refused before any work,
one ``Error:`` line listing the choices (the bad-input matrix checks the lines).  Files and
folders are ``options.PathName`` (a ``click.Path`` for help and shell completion) that
checks nothing itself, so that no ``os.stat`` follows a planted link before the package's
own path checks (``safepaths``, ``fileio``) see it.
"""

from __future__ import annotations

import click
import pytest
from click.testing import CliRunner

from bonfire_sim.cli.main import main
from bonfire_sim.cli.options import DIR, FILE, FILE_OR_DASH, PathName

# parameters that name a file or folder (by their name in the command's function)
PATH_PARAMS = {"out", "run_dir", "run_dirs", "run_a", "run_b", "config_file", "file",
               "check_file", "ladder_file", "config_a", "config_b", "targets_file", "work",
               "csv_path", "csv_out", "json_out", "html_out", "trace_out", "path_csv",
               "sensitivity", "skill_depth", "errata", "baseline", "weights_out", "start"}
NOT_PATHS = {("expert", "start"), ("ladder", "skill_depth")}  # a player spec; a flag


def _commands() -> list[tuple[str, click.Command]]:
    ctx = click.Context(main)
    found = []
    for name in main.list_commands(ctx):
        cmd = main.get_command(ctx, name)
        assert cmd is not None
        subs = (cmd.commands.items() if isinstance(cmd, click.Group) else [(None, cmd)])
        found += [(name if sub is None else f"{name} {sub}", c) for sub, c in subs]
    return found


def test_every_file_or_folder_parameter_is_a_path_name_that_checks_nothing_itself():
    seen = set()
    for name, cmd in _commands():
        for p in cmd.params:
            if isinstance(p.type, click.Path):  # never click's own, which stats through links
                assert isinstance(p.type, PathName), (name, p.name)
            if p.name in PATH_PARAMS and (name, p.name) not in NOT_PATHS:
                assert isinstance(p.type, PathName), (name, p.name)
                seen.add(p.name)
    assert seen == PATH_PARAMS  # every listed name is in use (tune --start is a file)


@pytest.mark.parametrize("kind", [FILE, DIR, FILE_OR_DASH])
def test_a_path_name_judges_no_link_by_its_target(kind, tmp_path):
    (tmp_path / "folder").mkdir()
    (tmp_path / "file").write_text("x")
    # a link to what the option does not name: click.Path would stat through it and refuse
    link = tmp_path / "link"
    link.symlink_to(tmp_path / ("file" if kind is DIR else "folder"))
    assert kind.convert(str(link), None, None) == str(link)
    assert kind.convert(link, None, None) == str(link)  # a Path comes back as text


def test_shell_completion_offers_files_or_folders():
    assert FILE.shell_complete(click.Context(main), None, "x")[0].type == "file"
    assert DIR.shell_complete(click.Context(main), None, "x")[0].type == "dir"


@pytest.mark.parametrize("argv, shown", [
    (["cards", "--help"], "--kind [tasks|gnomes|council|tom|variants]"),
    (["cards", "--help"], "--format [table|csv|json]"),
    (["run", "--help"], "--backend [loky|dask]"),
    (["run", "--help"], "--out DIRECTORY"),
])
def test_the_help_shows_the_choices_and_what_a_path_names(argv, shown):
    res = CliRunner().invoke(main, argv)
    assert res.exit_code == 0
    assert shown in " ".join(res.output.split())
