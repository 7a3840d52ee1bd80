"""Planted links beside every output the CLI writes (issue 34).

A colleague's shared folder may hold a link where a command is about to write: at a
temporary name (the ``NAME.tmp`` an older bonfire_sim used, or the very name the writer
will try first, which the test predicts by making ``fileio._temp_name`` deterministic)
or at a writer's lock (``bonfire.lock``).  For **every command** of the CLI (taken from
the click group, so a new command that writes files fails
``test_every_command_and_output_option_is_covered`` until it has a row in ``WRITES``),
each kind of link is planted beside each of its outputs: a symbolic link to a file
outside, a hard link to it, a dangling link and a link to a folder.  The command must
then either refuse in one ``Error:`` line (exit 2) or write its outputs as regular files,
and in both cases leave what the links lead to byte for byte as it was.

To stay fast, the temporary names get two kinds per run of a command (one at each name);
a lock is one name, so each kind there is its own run (they are refused before any game).
Games are few: the point is where bytes go, not what they say.
"""

from __future__ import annotations

import hashlib
import os
import shutil
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from bonfire_sim.cli.main import main
from bonfire_sim.infra import ownership
from bonfire_sim.sim.runconfig import RunConfig
from bonfire_sim.sim.runner import run

LOCK = ownership.LOCK
RUN_FILES = ("manifest.json", "games.parquet", "players.parquet")
EXPERIMENT = ('[run]\ngames = 4\nplayers = 2\nseed = 3\nchunk_size = 2\nout = "out/exp"\n'
              '[report]\nout = "out/exp.html"\nprobe_games = 2\n')
ERRATA = ["errata", "rot", "--out", "out/errata", "--probe-games", "0", "--games", "4",
          "--fork-games", "0", "--focus-games", "0", "--rounds", "1", "--tom-games", "0",
          "--seed", "900", "--quiet"]
ERRATA_FILES = ("errata.html", "errata.md", "errata.json", "edition.toml")
ERRATA_FRESH = ("seed900-2p", "seed901-2p")  # the loop's round and its check, at --seed 900
SENSITIVITY = ('[sensitivity]\ngames = 4\nsolo_games = 4\nplayers = [2]\n'
               'variants = ["tom_deck=gnome"]\n')
TUNE = ["tune", "--deals2", "1", "--games4", "0", "--popsize", "2", "--generations", "1",
        "--quiet"]

# One row per way a command writes: (command, argv, output files, locked folders).
# Paths are relative to the sandbox (the working directory); an output's folder is
# created first so that links can be planted beside it.
WRITES: list[tuple[str, list[str], list[str], list[str]]] = [
    ("replay", ["replay", "--seed", "1", "--players", "2", "--json", "out/game.json"],
     ["out/game.json"], []),
    ("view", ["view", "--seed", "1", "--players", "2", "--out", "out/view.html"],
     ["out/view.html"], []),
    ("ladder", ["ladder", "--games", "1", "--players", "2", "--strategies", "greedy,tempo",
                "--csv", "out/ladder.csv", "--quiet"], ["out/ladder.csv"], []),
    ("run", ["run", "--games", "4", "--players", "2", "--chunk-size", "2", "--out", "out/r",
             "--quiet"], [f"out/r/{f}" for f in RUN_FILES], ["out/r"]),
    ("run", ["run", "--games", "4", "--players", "2", "--seed", "1", "--chunk-size", "2",
             "--out", "half", "--resume", "--quiet"], [f"half/{f}" for f in RUN_FILES],
     ["half"]),
    ("solo", ["solo", "--games", "4", "--path-csv", "out/path.csv"], ["out/path.csv"], []),
    ("report", ["report", "run", "--probe-games", "2", "--out", "out/page.html", "--quiet"],
     ["out/page.html"], []),
    ("compare", ["compare", "run", "run_b", "--probe-games", "2", "--out", "out/cmp.html",
                 "--quiet"], ["out/cmp.html"], []),
    ("experiment", ["experiment", "exp.toml", "--quiet"],
     ["out/exp.html", *(f"out/exp/{f}" for f in RUN_FILES)], ["out/exp"]),
    ("sequential", ["sequential", "seq_a.toml", "seq_b.toml", "--budget", "200",
                    "--trace", "out/trace.csv", "--quiet"], ["out/trace.csv"], []),
    ("sensitivity", ["sensitivity", "--config", "sens.toml", "--work", "out/sens",
                     "--csv", "out/s.csv", "--json", "out/s.json", "--html", "out/s.html",
                     "--quiet"], ["out/s.csv", "out/s.json", "out/s.html"], []),
    ("tune", [*TUNE, "--out", "out/study", "--weights-out", "out/w.toml"],
     ["out/study/study.json", "out/w.toml"], ["out/study"]),
    ("tune", [*TUNE, "--out", "study", "--resume", "--generations", "2"],
     ["study/study.json"], ["study"]),
    ("reprice", ["reprice", "rot", "--out", "out/p.toml", "--probe-games", "4", "--rounds",
                 "1", "--top-ups", "0", "--quiet"], ["out/p.toml"], []),
    # the sheet (links beside its four files only, so that it is written) and, apart,
    # the fresh runs it plays (links in a run directory are refused like every run's)
    ("errata", ERRATA, [f"out/errata/{f}" for f in ERRATA_FILES], []),
    ("errata", ERRATA, [f"out/errata/fresh/{d}/{f}" for d in ERRATA_FRESH for f in RUN_FILES],
     [f"out/errata/fresh/{d}" for d in ERRATA_FRESH]),
    ("values", ["values", "rot", "--games", "2", "--max-games", "2", "--rounds", "0",
                "--out", "out/v.csv", "--quiet"], ["out/v.csv"], []),
]
# Commands that write no file at all (they print).
NO_FILES = {"bench": "prints timings", "cards": "prints the card table",
            "check": "prints the verdicts (--json to stdout)",
            "coverage": "prints the coverage table", "strategies": "prints the list"}
# Commands whose writes are covered otherwise (with why): each still needs a line here.
ELSEWHERE = {
    "warm": "writes only the user's kernel cache: its marker through fileio.write_text, "
            "its lock through fileio.open_lock (the functions every row above exercises)",
    "expert": "trains by expert iteration (minutes even when tiny); its round files, "
              "expert.json and --weights-out go through fileio.write_text",
    "strength": "plays a ladder with a search rung (minutes even when tiny); its runs go "
                "through sim.runner (the run rows above) and its tables and page through "
                "fileio.write_text; its file's paths: tests/test_bad_input_hostile.py",
}
# Options that name files a command reads (errata --targets, report --errata), or outputs
# covered elsewhere (with why).
NOT_OUTPUTS = {"--config", "--start", "--baseline", "--sensitivity", "--skill-depth", "--run",
               "--targets", "--errata"}
SKIPPED = {("ladder", "--out"): "the skill-depth matrix (minutes of search play); it is "
                                "written by the same fileio.write_text as --csv"}
KINDS = ("symlink", "hardlink", "dangling", "folder-link")
# Temporary names: (kind at the old NAME.tmp, kind at the name tried first) per run.
TMP_PAIRS = (("symlink", "hardlink"), ("dangling", "folder-link"))
FIRST_TRY = "000000000000"


def _commands() -> list[str]:
    return sorted(main.list_commands(click.Context(main)))


def _output_options(name: str) -> set[str]:
    """Options of ``name`` that name a file or folder it writes."""
    cmd = main.get_command(click.Context(main), name)
    assert cmd is not None
    found = set()
    for p in cmd.params:
        if not isinstance(p, click.Option) or p.is_flag:
            continue
        flag = p.opts[0]
        names_path = isinstance(p.type, click.Path) or (
            p.metavar and any(k in p.metavar for k in ("FILE", "DIR", "PATH")))
        if (names_path or flag in ("--out", "--work")) and flag not in NOT_OUTPUTS:
            found.add(flag)
    return found


def test_every_command_and_output_option_is_covered():
    written = {c for c, *_ in WRITES}
    for name in _commands():
        assert name in written or name in NO_FILES or name in ELSEWHERE, (
            f"the command {name!r} is new: add a row to WRITES for each output it writes "
            f"(or to NO_FILES if it writes none)")
        used = {a for c, argv, *_ in WRITES if c == name for a in argv}
        for flag in _output_options(name) if name not in ELSEWHERE else ():
            assert flag in used or (name, flag) in SKIPPED, (name, flag)
    assert not (set(NO_FILES) | set(ELSEWHERE)) & written


# ---- the world ----------------------------------------------------------------------------
@pytest.fixture(scope="module")
def world(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("linked")
    box = root / "box"
    box.mkdir()
    run(RunConfig(games=4, players=2, seed=1, chunk_size=2), box / "run")
    run(RunConfig(games=4, players=2, seed=2, chunk_size=2), box / "run_b")
    run(RunConfig(games=8, players=2, seed=5, chunk_size=4, seat_rotation=True), box / "rot")
    # an unfinished run to resume (its tables are merged again)
    shutil.copytree(box / "run", box / "half")
    manifest = (box / "half" / "manifest.json")
    text = manifest.read_text().replace('"complete": true', '"complete": false')
    manifest.write_text(text)
    (box / "exp.toml").write_text(EXPERIMENT)
    (box / "sens.toml").write_text(SENSITIVITY)
    seq = "[run]\ngames = 40\nplayers = 2\nseat_rotation = true\nseed = 41\nchunk_size = 20\n"
    (box / "seq_a.toml").write_text(seq + "[overrides]\nseat_points = [4, 0]\n")
    (box / "seq_b.toml").write_text(seq)
    res = CliRunner().invoke(main, [*TUNE, "--out", str(box / "study")])
    assert res.exit_code == 0, res.output
    (root / "victim.txt").write_bytes(b"the colleague's file\n")
    (root / "victim_dir").mkdir()
    (root / "victim_dir" / "keep.txt").write_bytes(b"keep\n")
    return root


def _digest(outside: Path) -> dict[str, str]:
    """What the planted links lead to: the victim file and folder, byte for byte."""
    paths = [outside / "victim.txt", outside / "victim_dir",
             *sorted((outside / "victim_dir").rglob("*"))]
    return {p.relative_to(outside).as_posix():
            "dir" if p.is_dir() else hashlib.sha256(p.read_bytes()).hexdigest()
            for p in paths}


def _plant(at: Path, kind: str, outside: Path) -> None:
    at.parent.mkdir(parents=True, exist_ok=True)
    if at.is_symlink() or at.exists():
        return
    if kind == "symlink":
        at.symlink_to(outside / "victim.txt")
    elif kind == "hardlink":
        os.link(outside / "victim.txt", at)
    elif kind == "dangling":
        at.symlink_to(outside / "nothing-here.txt")
    else:
        at.symlink_to(outside / "victim_dir", target_is_directory=True)


def _cases() -> list[tuple[str, int, str, str]]:
    """(command, WRITES row, where, kinds) for every row and place."""
    rows = []
    for i, (name, _argv, _files, locks) in enumerate(WRITES):
        rows += [(name, i, "tmp", "+".join(pair)) for pair in TMP_PAIRS]
        if locks:
            rows += [(name, i, "lock", kind) for kind in KINDS]
    return rows


@pytest.mark.parametrize("name, row, where, kind", _cases(),
                         ids=[f"{n}{r}-{w}-{k}" for n, r, w, k in _cases()])
def test_a_planted_link_is_never_written_through(name, row, where, kind, world, tmp_path,
                                                 monkeypatch):
    root = tmp_path / "w"
    shutil.copytree(world, root, symlinks=True)
    box, outside = root / "box", root
    _, argv, files, locks = WRITES[row]
    if where == "tmp":
        old_name, first_try = kind.split("+")
        for f in files:
            _plant(box / f"{f}.tmp", old_name, outside)
            _plant(box / f"{f}.{FIRST_TRY}.tmp", first_try, outside)
    else:
        for d in locks:
            _plant(box / d / LOCK, kind, outside)
    monkeypatch.setattr("bonfire_sim.infra.fileio._temp_name",
                        lambda path, attempt: f"{path.name}.{attempt:012x}.tmp")
    before = _digest(outside)
    monkeypatch.chdir(box)
    monkeypatch.delenv("BONFIRE_SIM_TRACEBACK", raising=False)
    monkeypatch.setattr("bonfire_sim.infra.progress.LOG_EVERY", float("inf"))
    monkeypatch.setattr("bonfire_sim.analysis.cards.probes.fork_cache_dir",
                        lambda: tmp_path / "cache")
    result = CliRunner().invoke(main, argv)
    assert _digest(outside) == before, f"{name} wrote through a planted {kind} link"
    assert not (outside / "nothing-here.txt").exists()
    if result.exit_code == 2:
        lines = result.output.splitlines()
        assert len(lines) == 1 and lines[0].startswith("Error: "), result.output
        return
    assert result.exit_code == 0, (result.exit_code, result.output, result.exception)
    for f in files:  # written safely: regular files with one name each
        info = os.lstat(box / f)
        assert not os.path.islink(box / f) and info.st_nlink == 1, f

