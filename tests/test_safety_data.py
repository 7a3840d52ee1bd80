"""Safe to open what others share: no code runs from data, no path leads out of its folder.

Each case is what a crafted (or careless) shared folder can do: a pickled tuning state that
runs a command, a manifest that names files elsewhere, links that send a resume's writes
out of the run, a manifest or an experiment that names a module to import.
"""

from __future__ import annotations

import json
import os
import pickle
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from bonfire_sim.cli.main import main
from bonfire_sim.errors import DataError
from bonfire_sim.infra import signed
from bonfire_sim.sim.load import load
from bonfire_sim.sim.runconfig import RunConfig
from bonfire_sim.sim.runner import MANIFEST, run
from bonfire_sim.studies.tune import OPTIMISER, STUDY, Study, TuneConfig

ROOT = Path(__file__).resolve().parents[1]
CFG = RunConfig(games=4, players=2, seed=3, chunk_size=2, turn_log="all")
RUN_ARGS = ("run", "--games", "4", "--players", "2", "--seed", "3", "--chunk-size", "2",
            "--turn-log", "all")


@pytest.fixture(scope="module")
def ref(tmp_path_factory) -> Path:
    return run(CFG, tmp_path_factory.mktemp("safety-data") / "ref")


@pytest.fixture(autouse=True)
def _own_key(tmp_path, monkeypatch):
    """Every test signs with a key of its own, never the machine user's."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))


def _one_error_line(res) -> str:
    assert res.exit_code == 2, res.output
    lines = res.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: "), res.output
    assert "Traceback" not in res.output
    return lines[0]


def _cli(*args: str):
    return CliRunner().invoke(main, [str(a) for a in args])


# ---- the tuning state is code: only this user's own is unpickled --------------------------
class _Payload:
    """Unpickling this creates ``marker``: what a crafted cma.pkl can do (any command)."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self):
        return (exec, (f"open({str(self.marker)!r}, 'w').close()",))


TUNE_OPTS = ("--deals2", "2", "--games4", "1", "--popsize", "4", "--seed", "5")


def _study(folder: Path, optimiser: bytes) -> Path:
    config = TuneConfig(generations=1, deals2=2, games4=1, popsize=4, seed=5)
    folder.mkdir(parents=True)
    (folder / STUDY).write_text(json.dumps(Study(config, generation=1).to_json()))
    (folder / OPTIMISER).write_bytes(optimiser)
    return folder


def test_a_crafted_cma_pkl_is_refused_before_it_is_unpickled(tmp_path):
    marker = tmp_path / "pwned"
    crafted = pickle.dumps(_Payload(marker))
    assert not marker.exists()
    for name, blob in (("plain", crafted),
                       ("fake-signature", signed.MAGIC + b"\0" * 32 + crafted)):
        out = _study(tmp_path / name, blob)
        res = _cli("tune", *TUNE_OPTS, "--generations", "2", "--out", out, "--resume")
        line = _one_error_line(res)
        assert "not written by your bonfire-sim" in line and "--start" in line
        assert not marker.exists(), f"{name}: the crafted state ran"
    pickle.loads(crafted)  # the payload is live: unpickled, it does create the marker
    assert marker.exists()


def test_a_state_signed_with_another_users_key_is_refused(tmp_path, monkeypatch):
    marker = tmp_path / "pwned"
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "other-user"))
    blob = signed.sign(pickle.dumps(_Payload(marker)))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "me"))
    out = _study(tmp_path / "s", blob)
    _one_error_line(_cli("tune", *TUNE_OPTS, "--generations", "2", "--out", out, "--resume"))
    assert not marker.exists()
    key = signed.key_path()
    assert key.is_file() and key.stat().st_mode & 0o777 == 0o600


def test_a_link_in_a_study_folder_stops_a_resume_before_it_writes(tmp_path):
    from bonfire_sim.studies.tune import _new_optimiser

    config = TuneConfig(generations=1, deals2=2, games4=1, popsize=4, seed=5)
    out = _study(tmp_path / "s", signed.sign(pickle.dumps((_new_optimiser(config),
                                                           np.random.get_state()))))
    victim = tmp_path / "victim.txt"
    victim.write_text("keep me\n")
    (out / "study.json.tmp").symlink_to(victim)  # the next save would write through it
    res = _cli("tune", *TUNE_OPTS, "--generations", "2", "--out", out, "--resume")
    assert "symbolic link" in _one_error_line(res)
    assert victim.read_text() == "keep me\n"
    assert json.loads((out / STUDY).read_text())["generation"] == 1


def test_a_signing_key_others_can_read_is_refused(tmp_path):
    signed.user_key()
    signed.key_path().chmod(0o644)
    res = _cli("tune", *TUNE_OPTS, "--generations", "1", "--out", tmp_path / "s")
    assert "chmod 600" in _one_error_line(res)
    assert not (tmp_path / "s").exists()


# ---- a manifest's paths stay inside the run ------------------------------------------------
def _traversing(ref: Path, tmp_path: Path, how: str) -> tuple[Path, Path]:
    """A copy of ``ref`` whose manifest names ``outside`` (a copy of the run's own games
    table, so its checksum matches) instead of its games table and first turn chunk."""
    out = shutil.copytree(ref, tmp_path / f"run-{how}")
    outside = tmp_path / "elsewhere" / "games.parquet"
    name = str(outside) if how == "absolute" else os.path.relpath(outside, out)
    manifest = json.loads((out / MANIFEST).read_text())
    manifest["games"]["file"] = name
    manifest["chunks"]["0"]["turns"]["file"] = name
    (out / MANIFEST).write_text(json.dumps(manifest))
    return out, outside


def _with_and_without(outside: Path, source: Path, attempt) -> str:
    """The same attempt with the outside file absent and present: the answers must match."""
    if outside.exists():
        outside.unlink()
    first = attempt()
    outside.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(source, outside)
    assert attempt() == first, "the message tells whether an outside file exists"
    return first


@pytest.mark.parametrize("how", ["relative", "absolute"])
def test_a_manifest_naming_files_outside_the_run_is_refused_by_every_reader(ref, tmp_path,
                                                                             how):
    out, outside = _traversing(ref, tmp_path, how)
    source = ref / "games.parquet"

    def load_error() -> str:
        with pytest.raises(DataError) as err:
            load(out)
        return str(err.value)

    assert "leads outside" in _with_and_without(outside, source, load_error)
    commands = {
        "coverage": ("coverage", out),
        "report": ("report", out, "--out", tmp_path / "page.html", "--probe-games", "1"),
        "run --resume": (*RUN_ARGS, "--out", out, "--resume"),
    }
    for name, args in commands.items():
        line = _with_and_without(outside, source, lambda a=args: _one_error_line(_cli(*a)))
        assert "leads outside" in line, name
    assert not (tmp_path / "page.html").exists()


# ---- writes never follow a link out of the run -----------------------------------------------
def _corrupt_copy(src: Path, dst: Path) -> bytes:
    data = bytearray(src.read_bytes())
    data[len(data) // 2] ^= 0xFF  # corrupt: a resume would rewrite it
    dst.write_bytes(bytes(data))
    return bytes(data)


@pytest.mark.parametrize("linked", ["turns", "chunks", "chunks/games-00000.parquet"])
def test_a_linked_folder_or_file_stops_a_resume_before_it_writes(ref, tmp_path, linked):
    out = shutil.copytree(ref, tmp_path / "run")
    elsewhere = tmp_path / "elsewhere"
    target = out / linked
    if target.is_dir():
        shutil.move(target, elsewhere)
    else:  # a finished run holds no chunk games file: the link is planted where one was
        elsewhere.mkdir()
        (elsewhere / target.name).write_bytes((ref / "games.parquet").read_bytes())
    target.symlink_to(elsewhere if linked in ("turns", "chunks") else elsewhere / target.name)
    before = {}
    for f in sorted(elsewhere.iterdir()):
        before[f.name] = _corrupt_copy(f, f)
    res = _cli(*RUN_ARGS, "--out", out, "--resume")
    assert "symbolic link" in _one_error_line(res)
    assert {f.name: f.read_bytes() for f in sorted(elsewhere.iterdir())} == before


def test_a_new_run_into_a_folder_holding_a_linked_chunks_is_refused(tmp_path):
    out = tmp_path / "run"
    out.mkdir()
    (tmp_path / "elsewhere").mkdir()
    (out / "chunks").symlink_to(tmp_path / "elsewhere")
    assert "symbolic link" in _one_error_line(_cli(*RUN_ARGS, "--out", out))
    assert not any((tmp_path / "elsewhere").iterdir())


# ---- data never names code to import -----------------------------------------------------------
PLUGIN_SOURCE = """
from pathlib import Path
Path({marker!r}).touch()  # importing this module is running code

class Bot:
    def choose(self, view, moves):
        return 0
"""


def _restamp(out: Path, manifest: dict) -> None:
    """Write ``manifest`` and make every table's Parquet metadata describe its config
    (with checksums to match): a stand-in for a run really made with other players."""
    import hashlib

    import pyarrow.parquet as pq

    from bonfire_sim.sim.tablecheck import META_KEY

    entries = [manifest["games"], manifest["players"]] + [
        c[k] for c in manifest["chunks"].values() for k in ("games", "players", "turns")
        if k in c]
    for entry in entries:
        table = pq.read_table(out / entry["file"])
        meta = json.loads(table.schema.metadata[META_KEY])
        meta["config"] = manifest["config"]
        table = table.replace_schema_metadata({**table.schema.metadata,
                                               META_KEY: json.dumps(meta).encode()})
        pq.write_table(table, out / entry["file"], compression="zstd")
        entry["sha256"] = hashlib.sha256((out / entry["file"]).read_bytes()).hexdigest()
    (out / MANIFEST).write_text(json.dumps(manifest))


def test_opening_a_run_never_imports_the_plug_in_its_manifest_names(ref, tmp_path,
                                                                     monkeypatch):
    marker = tmp_path / "imported"
    lib = tmp_path / "lib"
    lib.mkdir()
    (lib / "evilplug.py").write_text(PLUGIN_SOURCE.format(marker=str(marker)))
    monkeypatch.syspath_prepend(str(lib))  # importable: only the import decides
    monkeypatch.delitem(sys.modules, "evilplug", raising=False)
    out = shutil.copytree(ref, tmp_path / "run")
    manifest = json.loads((out / MANIFEST).read_text())
    manifest["config"]["strategies"] = ["evilplug:Bot", "evilplug:Bot"]
    manifest["seat_players"] = {"evilplug:Bot": {"spec": "evilplug:Bot", "kind": "plugin",
                                                 "plugin": "evilplug:Bot"}}
    _restamp(out, manifest)  # the tables say so too, as in a real plug-in run

    line = _one_error_line(_cli("replay", "--run", out, "--game", "0"))
    assert "evilplug:Bot" in line and "built-in" in line
    # the report refuses the plug-in's games by their name (no fork values), unimported
    monkeypatch.setattr("bonfire_sim.infra.progress.LOG_EVERY", float("inf"))
    res = _cli("report", out, "--out", tmp_path / "page.html", "--probe-games", "1", "-q")
    assert "evilplug:Bot" in _one_error_line(res) and "plug-in" in res.output
    assert load(out).config["strategies"] == ["evilplug:Bot", "evilplug:Bot"]
    assert not marker.exists() and "evilplug" not in sys.modules


def test_python_m_never_imports_a_module_from_the_current_folder(tmp_path):
    marker = tmp_path / "imported"
    (tmp_path / "evilmod.py").write_text(PLUGIN_SOURCE.format(marker=str(marker)))
    (tmp_path / "evil.toml").write_text(textwrap.dedent("""
        [run]
        games = 2
        players = 2
        strategies = ["evilmod:Bot", "portal"]
        out = "r"
    """))
    env = {**os.environ, "PYTHONPATH": str(ROOT), "XDG_CONFIG_HOME": str(tmp_path / "cfg")}
    res = subprocess.run([sys.executable, "-m", "bonfire_sim", "experiment", "evil.toml",
                          "--no-report"], cwd=tmp_path, env=env, capture_output=True,
                         text=True, timeout=300)
    assert res.returncode == 2, res.stdout + res.stderr
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: ") and "evilmod" in lines[0]
    assert not marker.exists()
    assert not (tmp_path / "r").exists()


# ---- weights files named by a manifest are never opened ---------------------------------
def test_forks_of_a_shared_run_use_the_weights_its_manifest_recorded(tmp_path):
    from bonfire_sim.analysis.cards.probes import ProbeSettings, probe_values
    from bonfire_sim.analysis.runs import run_config
    from bonfire_sim.sim.chunk import resolve_players
    from bonfire_sim.sim.runner import read_manifest

    weights = tmp_path / "w.toml"
    weights.write_text("[weights]\ntile = 0.9\nignite = 7.0\n")
    out = run(RunConfig(games=4, players=2, strategies=(f"portal@{weights}", "greedy"),
                        seed=5, chunk_size=4), tmp_path / "run")
    settings = ProbeSettings(games=4, chunk_size=4)
    before = probe_values(run_config(read_manifest(out)), settings)
    # The file the manifest names now says something else, then is gone: analysing the
    # run must neither read it nor change its answer.
    weights.write_text("[weights]\ntile = 3.0\nignite = 0.0\n")
    config = run_config(read_manifest(out))
    assert resolve_players(config)[f"portal@{weights}"].row[0] == pytest.approx(0.9)
    weights.unlink()
    after = probe_values(run_config(read_manifest(out)), settings)
    assert after.equals(before)


@pytest.mark.parametrize("bad", [float("nan"), "1.0", None])
def test_a_recorded_weight_that_is_not_a_finite_number_is_refused(tmp_path, bad):
    from bonfire_sim.analysis.runs import run_config
    from bonfire_sim.errors import ConfigError
    from bonfire_sim.sim.chunk import resolve_players
    from bonfire_sim.sim.runner import read_manifest

    weights = tmp_path / "w.toml"
    weights.write_text("[weights]\ntile = 0.9\n")
    out = run(RunConfig(games=2, players=2, strategies=(f"portal@{weights}",), seed=5,
                        chunk_size=2), tmp_path / "run")
    manifest = read_manifest(out)
    manifest["seat_players"][f"portal@{weights}"]["weights"]["tile"] = bad
    with pytest.raises(ConfigError, match="bad weight tile"):
        resolve_players(run_config(manifest))


# ---- paths an experiment file names stay inside the folder it is run from -----------------
EXP = '[run]\ngames = 2\nplayers = 2\nchunk_size = 2\n{run}\n[report]\n{report}\n'


@pytest.mark.parametrize("run_extra, report_extra, what", [
    ('out = "{outside}/run"', 'out = "page.html"', "run.out"),
    ('out = "../run"', 'out = "page.html"', "run.out"),
    ('out = "link/run"', 'out = "page.html"', "run.out"),
    ('out = "runs/e"', 'out = "{outside}/page.html"', "report.out"),
    ('out = "runs/e"', 'out = "../../page.html"', "report.out"),
    ('out = "runs/e"', 'out = "page.html"\nruns = ["{outside}"]', "report.runs"),
    ('out = "runs/e"\nstrategies = ["portal@{outside}/w.toml"]', 'out = "page.html"',
     "weights file"),
    ('out = "runs/e"\nstrategies = ["portal@../w.toml"]', 'out = "page.html"',
     "weights file"),
])
def test_an_experiment_file_cannot_name_paths_outside_the_folder_it_is_run_from(
        tmp_path, monkeypatch, run_extra, report_extra, what):
    here = tmp_path / "here"
    here.mkdir()
    outside = tmp_path / "elsewhere"
    (here / "link").symlink_to(outside, target_is_directory=True)
    monkeypatch.chdir(here)
    exp = here / "e.toml"
    exp.write_text(EXP.format(run=run_extra, report=report_extra).replace(
        "{outside}", str(outside)))

    def attempt() -> str:
        res = CliRunner().invoke(main, ["experiment", str(exp), "--quiet"])
        assert res.exit_code == 2, res.output
        return _one_error_line(res)

    # the same line whether or not anything exists outside, and nothing is written there
    absent = attempt()
    outside.mkdir()
    (outside / "w.toml").write_text("[weights]\nignite = 1.0\n")
    (outside / "page.html").write_text("mine")
    present = attempt()
    assert absent == present and what in absent and "leads outside" in absent
    assert sorted(p.name for p in outside.iterdir()) == ["page.html", "w.toml"]
    assert (outside / "page.html").read_text() == "mine"
    assert sorted(p.name for p in here.iterdir()) == ["e.toml", "link"]


@pytest.mark.parametrize("spec", ["portal@../w.toml", "portal@{outside}/w.toml"])
def test_a_check_file_cannot_name_a_weights_file_outside_the_folder_it_is_run_from(
        tmp_path, monkeypatch, spec):
    here, outside = tmp_path / "here", tmp_path / "elsewhere"
    here.mkdir()
    outside.mkdir()
    (outside / "w.toml").write_text("[weights]\nignite = 1.0\n")
    monkeypatch.chdir(here)
    (here / "c.toml").write_text('[[assert]]\nmeasure = "seat_win"\nplayers = 2\n'
                                 f'strategies = ["{spec.replace("{outside}", str(outside))}",'
                                 ' "greedy"]\nseat = 0\nmin = 0.1\n')
    res = CliRunner().invoke(main, ["check", "c.toml", "--quiet"])
    line = _one_error_line(res)
    assert "the weights file of 'portal'" in line and "leads outside" in line
