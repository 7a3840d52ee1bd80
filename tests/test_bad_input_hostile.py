"""The bad-input matrix, grown by the hostile colleague's families (issue 34).

Same contract as ``test_bad_input.py`` (one ``Error:`` line, exit code 2, nothing in the
sandbox written or destroyed), for files a colleague could plant in a shared folder:

* special files (FIFOs, devices) where a reader expects a file: refused at once, never
  waited on (a case that blocks is unblocked by the test and fails);
* JSON and TOML nested absurdly deep;
* paths in files that a lower layer would expand (``~``, ``$VAR``, URIs, globs, depth);
* absurd game budgets;
* edited chunk logs and tables transplanted with their checksums edited;
* locks and chunk logs that are links.

``HOSTILE`` lists the cases; ``test_the_hostile_families_are_counted`` prints the count.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import stat
import threading
from pathlib import Path

import pytest
from click.testing import CliRunner
from helpers_runs import interrupted_run

from bonfire_sim.cli.main import main
from bonfire_sim.infra import ownership
from bonfire_sim.sim.runconfig import RunConfig
from bonfire_sim.sim.runner import run

E12 = str(10**12)
RUN4 = ["run", "--games", "4", "--players", "2", "--seed", "1", "--chunk-size", "2"]
TUNE = ["tune", "--deals2", "1", "--games4", "0", "--popsize", "2", "--generations", "2",
        "--quiet"]
DEEP = 100_000

# (id, argv, fragment of the one line): {names} are paths in the sandbox.
HOSTILE: list[tuple[str, list[str], str]] = [
    # --- special files where a file is read ---
    ("fifo-run-config", ["run", "--config", "fifo.toml"], "is a FIFO"),
    ("fifo-experiment", ["experiment", "fifo.toml"], "is a FIFO"),
    ("fifo-check", ["check", "fifo.toml"], "is a FIFO"),
    ("fifo-sequential", ["sequential", "exp_ok.toml", "fifo.toml"], "is a FIFO"),
    ("fifo-sensitivity", ["sensitivity", "--config", "fifo.toml"], "is a FIFO"),
    ("fifo-manifest-report", ["report", "fifo_manifest"], "is a FIFO"),
    ("fifo-manifest-resume", [*RUN4, "--out", "fifo_manifest", "--resume"], "is a FIFO"),
    ("fifo-chunk-log-resume", [*RUN4, "--out", "fifo_log", "--resume"], "is a FIFO"),
    ("fifo-study-resume", [*TUNE, "--out", "fifo_study", "--resume"], "is a FIFO"),
    ("fifo-weights", ["run", "--games", "4", "--players", "2", "--strategies",
                      "portal@fifo.toml"], "weights file 'fifo.toml' not found"),
    ("fifo-tune-start", ["tune", "--start", "fifo.toml"], "is a FIFO"),
    ("device-tune-start", ["tune", "--start", "/dev/zero"], "is a character device"),
    ("fifo-ladder-baseline", ["ladder", "--skill-depth", "--baseline", "fifo.json"],
     "is a FIFO"),
    ("fifo-report-sensitivity", ["report", "run", "--sensitivity", "fifo.json"], "is a FIFO"),
    ("device-run-config", ["run", "--config", "/dev/zero"], "is a character device"),
    ("device-experiment", ["experiment", "/dev/zero"], "is a character device"),
    # --- nesting ---
    ("deep-experiment-toml", ["experiment", "deep.toml"], "more than 64 levels"),
    ("deep-check-toml", ["check", "deep.toml"], "more than 64 levels"),
    ("deep-weights-json", ["run", "--games", "4", "--players", "2", "--strategies",
                           "portal@deep.json"], "more than 64 levels"),
    ("deep-manifest", ["report", "deep_manifest"], "more than 64 levels"),
    ("deep-chunk-log", [*RUN4, "--out", "deep_log", "--resume"], "more than 64 levels"),
    ("deep-study", [*TUNE, "--out", "deep_study", "--resume"], "more than 64 levels"),
    ("deep-report-sensitivity", ["report", "run", "--sensitivity", "deep.json"],
     "more than 64 levels"),
    # --- paths a lower layer would expand ---
    ("path-out-home", ["experiment", "out_home.toml"], "leads outside"),
    ("path-out-var", ["experiment", "out_var.toml"], "leads outside"),
    ("path-out-braced-var", ["experiment", "out_braced.toml"], "leads outside"),
    ("path-out-file-uri", ["experiment", "out_uri.toml"], "leads outside"),
    ("path-out-s3", ["experiment", "out_s3.toml"], "leads outside"),
    ("path-out-glob", ["experiment", "out_glob.toml"], "leads outside"),
    ("path-out-2000-levels", ["experiment", "out_deep.toml"], "leads outside"),
    ("path-report-out-home", ["experiment", "report_home.toml"], "leads outside"),
    ("path-report-runs-var", ["experiment", "runs_var.toml"], "leads outside"),
    ("path-run-config-out-home", ["run", "--config", "out_home.toml"], "leads outside"),
    ("path-sensitivity-work-home", ["sensitivity", "--config", "sens_home.toml"],
     "leads outside"),
    ("path-sensitivity-csv-var", ["sensitivity", "--config", "sens_var.toml"],
     "leads outside"),
    ("path-check-weights-home", ["check", "check_home.toml"], "leads outside"),
    ("path-strength-out-home", ["strength", "strength_home.toml"], "leads outside"),
    ("path-strength-report-var", ["strength", "strength_var.toml"], "leads outside"),
    # --- budgets ---
    ("budget-values-max-games", ["values", "--max-games", E12], "would take about"),
    ("budget-values-games", ["values", "--games", E12], "must be 1..10,000,000 games"),
    ("budget-tune-popsize", ["tune", "--popsize", str(10**6)], "must be 0..1,000"),
    ("budget-tune-generations", ["tune", "--generations", E12], "must be 1..100,000"),
    ("budget-tune-deals2", ["tune", "--deals2", E12], "must be 0..10,000,000"),
    ("budget-tune-games4", ["tune", "--games4", E12], "must be 0..10,000,000"),
    ("budget-reprice-verify", ["reprice", "run", "--out", "x.toml", "--verify-games", E12],
     "must be 1..10,000,000"),
    ("budget-reprice-probe", ["reprice", "run", "--out", "x.toml", "--probe-games", E12],
     "must be 1..10,000,000"),
    ("budget-reprice-focus", ["reprice", "run", "--out", "x.toml", "--focus-games", E12],
     "must be 1..10,000,000"),
    ("budget-reprice-max-games", ["reprice", "run", "--out", "x.toml", "--max-games", E12],
     "must be 1..10,000,000"),
    ("budget-report-probe", ["report", "run", "--probe-games", E12], "must be 1..10,000,000"),
    ("budget-compare-probe", ["compare", "run", "run_b", "--probe-games", E12],
     "must be 1..10,000,000"),
    ("budget-sequential", ["sequential", "exp_ok.toml", "exp_ok.toml", "--budget", E12],
     "must be 2..10,000,000"),
    ("budget-ladder-tom", ["ladder", "--tom-games", E12], "must be 0..10,000,000"),
    ("budget-ladder-search", ["ladder", "--skill-depth", "--search-games", E12],
     "must be 1..10,000,000"),
    ("budget-text", ["values", "--max-games", "lots"], "is not a whole number"),
    # a large allowed budget whose command is refused says only the refusal
    ("budget-run-large-refused", ["run", "--games", str(10**7), "--players", "2", "--out",
                                  "victim.txt"], "it is a file"),
    ("budget-tune-large-refused", ["tune", "--generations", str(10**5), "--out", "run"],
     "inside the run directory run"),
    # --- edited chunk logs and transplanted tables ---
    ("manifest-relabelled", ["report", "manifest_relabelled"],
     "chunk '1' is listed with index 0"),
    ("log-renamed-file", [*RUN4, "--out", "log_renamed", "--resume"],
     "lists games file 'chunks/games-00000.parquet'"),
    ("log-out-of-range", [*RUN4, "--out", "log_range", "--resume"], "out of range"),
    ("log-copied-chunk", [*RUN4, "--out", "log_copied", "--resume"],
     "holds games 0..1, but chunk 1 is games 2..3"),
    ("log-other-seed-chunk", [*RUN4, "--out", "log_seed", "--resume"],
     "played with seed 2, not 1"),
    ("transplant-checksum-edited", ["report", "transplant"], "played with seed 2, not 1"),
    ("transplant-players-edited", ["report", "transplant_players"],
     "played with seed 2, not 1"),
    # --- links where a writer takes its lock or appends ---
    ("lock-symlink-resume", [*RUN4, "--out", "lock_symlink", "--resume"],
     "symbolic link (bonfire.lock)"),
    ("lock-hardlink-resume", [*RUN4, "--out", "lock_hardlink", "--resume"],
     "lock file bonfire.lock has 4 hard links"),
    ("lock-hardlink-replace-stale", [*RUN4, "--out", "lock_stale", "--replace-stale"],
     "lock file bonfire.lock has 4 hard links"),
    ("lock-fifo-resume", [*RUN4, "--out", "lock_fifo", "--resume"], "not a regular file"),
    ("lock-symlink-tune", [*TUNE, "--out", "study_symlink", "--resume"],
     "lock file bonfire.lock is a symbolic link"),
    ("lock-hardlink-tune", [*TUNE, "--out", "study_hardlink", "--resume"],
     "lock file bonfire.lock has 4 hard links"),
    ("chunk-log-hardlink", [*RUN4, "--out", "log_hardlink", "--resume"],
     "chunks.jsonl has 2 hard links"),
]


# ---- the world ----------------------------------------------------------------------------
RUN_CFG = RunConfig(games=4, players=2, seed=1, chunk_size=2)  # the world's "run"


def _unfinished(dst: Path, last_chunk_pending: bool = True) -> Path:
    """The world's run as an interrupted one: no final tables, its chunks in the chunk log
    (the last one not yet played)."""
    return interrupted_run(RUN_CFG, dst, 1 if last_chunk_pending else 2)


def _log(run_dir: Path) -> list[dict]:
    return [json.loads(x) for x in (run_dir / "chunks.jsonl").read_text().splitlines()]


def _write_log(run_dir: Path, lines: list[dict]) -> None:
    (run_dir / "chunks.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines))


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _build(root: Path) -> None:
    """The regular files of the world (copied per case; special files come later)."""
    run(RUN_CFG, root / "run")
    run(RunConfig(games=4, players=2, seed=2, chunk_size=2), root / "run_b")
    ok = '[run]\ngames = 4\nplayers = 2\nseed = 1\nchunk_size = 2\nout = "runs/ok"\n'
    (root / "exp_ok.toml").write_text(ok)
    nested = "[" * DEEP + "]" * DEEP
    (root / "deep.toml").write_text(f"[run]\ngames = 4\nx = {nested}\n")
    (root / "deep.json").write_text(nested)
    for name, text in {
        "out_home": ok.replace("runs/ok", "~/bonfire-x"),
        "out_var": ok.replace("runs/ok", "$HOME/bonfire-x"),
        "out_braced": ok.replace("runs/ok", "${HOME}/bonfire-x"),
        "out_uri": ok.replace("runs/ok", "file:///tmp/bonfire-x"),
        "out_s3": ok.replace("runs/ok", "s3://bucket/bonfire-x"),
        "out_glob": ok.replace("runs/ok", "run*/x"),
        "out_deep": ok.replace("runs/ok", "/".join(["a"] * 2000)),
        "report_home": ok + '[report]\nout = "~/bonfire-page.html"\n',
        "runs_var": ok + '[report]\nruns = ["$HOME/bonfire-r"]\n',
        "strength_home": '[strength]\nplayers = [2]\nout = "~/bonfire-x"\n',
        "strength_var": '[strength]\nplayers = [2]\n[report]\nout = "$HOME/bonfire-page.html"\n',
        "sens_home": '[sensitivity]\ngames = 4\nwork = "~/bonfire-w"\n',
        "sens_var": '[sensitivity]\ngames = 4\ncsv = "$HOME/bonfire-s.csv"\n',
        "check_home": '[[assert]]\nmeasure = "seat_win"\nplayers = 2\nseat = 0\nmin = 0.1\n'
                      'strategies = ["portal@~/bonfire-w.toml", "greedy"]\n',
    }.items():
        (root / f"{name}.toml").write_text(text)
    # run directories whose manifest or log is hostile
    shutil.copytree(root / "run", root / "fifo_manifest")
    (root / "fifo_manifest" / "manifest.json").unlink()
    _unfinished(root / "fifo_log")
    (root / "fifo_log" / "chunks.jsonl").unlink()
    shutil.copytree(root / "run", root / "deep_manifest")
    (root / "deep_manifest" / "manifest.json").write_text(nested)
    _unfinished(root / "deep_log")
    (root / "deep_log" / "chunks.jsonl").write_text(nested + "\n")
    # edited chunk logs (two chunks: 0 and 1; the log lists both)
    _unfinished(root / "log_hardlink")
    for name in ("log_renamed", "log_range", "log_copied", "log_seed",
                 ):
        _unfinished(root / name, last_chunk_pending=False)
    # a finished run whose manifest lists chunk 0's entry again as chunk 1
    shutil.copytree(root / "run", root / "manifest_relabelled")
    m = json.loads((root / "manifest_relabelled" / "manifest.json").read_text())
    m["chunks"]["1"] = m["chunks"]["0"]
    (root / "manifest_relabelled" / "manifest.json").write_text(json.dumps(m))
    lines = _log(root / "log_renamed")
    _write_log(root / "log_renamed", [lines[0], {**lines[0], "index": 1}])
    lines = _log(root / "log_range")
    _write_log(root / "log_range", [lines[0], {**lines[1], "index": 99}])
    # chunk 0's files copied over chunk 1's, the log line edited to their checksums
    d = root / "log_copied"
    lines = _log(d)
    for part in ("games", "players"):
        shutil.copy(d / f"chunks/{part}-00000.parquet", d / f"chunks/{part}-00001.parquet")
        lines[1][part]["sha256"] = _sha(d / f"chunks/{part}-00001.parquet")
    _write_log(d, lines)
    # chunk 1 of another seed's run, the log line edited to its checksums
    d = root / "log_seed"
    other = interrupted_run(RunConfig(games=4, players=2, seed=2, chunk_size=2),
                            root / "run_b_chunks", 2)
    lines = _log(d)
    for part in ("games", "players"):
        shutil.copy(other / f"chunks/{part}-00001.parquet",
                    d / f"chunks/{part}-00001.parquet")
        lines[1][part]["sha256"] = _sha(d / f"chunks/{part}-00001.parquet")
    _write_log(d, lines)
    # a finished run with another seed's tables, the manifest's checksums edited to match
    for name, table in (("transplant", "games"), ("transplant_players", "players")):
        shutil.copytree(root / "run", root / name)
        shutil.copy(root / f"run_b/{table}.parquet", root / f"{name}/{table}.parquet")
        m = json.loads((root / name / "manifest.json").read_text())
        m[table]["sha256"] = _sha(root / f"{name}/{table}.parquet")
        (root / name / "manifest.json").write_text(json.dumps(m))
    for name in ("lock_symlink", "lock_hardlink", "lock_fifo", "lock_stale"):
        _unfinished(root / name)
    m = json.loads((root / "lock_stale" / "manifest.json").read_text())
    m["fingerprint"]["source_hash"] = "0000000000000000"
    (root / "lock_stale" / "manifest.json").write_text(json.dumps(m))
    res = CliRunner().invoke(main, [*TUNE[:-3], "--generations", "1", "--quiet",
                                    "--out", str(root / "study")])
    assert res.exit_code == 0, res.output
    for name in ("study_symlink", "study_hardlink", "fifo_study", "deep_study"):
        shutil.copytree(root / "study", root / name)
    (root / "fifo_study" / ownership.STUDY).unlink()
    (root / "deep_study" / ownership.STUDY).write_text(nested)
    (root / "victim.txt").write_text("a colleague's file\n")


def _plant_specials(box: Path) -> list[Path]:
    """FIFOs and links that cannot be copied; returns the FIFOs (to unblock a hang)."""
    fifos = [box / "fifo.toml", box / "fifo.json", box / "fifo_manifest" / "manifest.json",
             box / "fifo_log" / "chunks.jsonl", box / "fifo_study" / ownership.STUDY,
             box / "lock_fifo" / ownership.LOCK]
    for f in fifos:
        os.mkfifo(f)
    victim = box / "victim.txt"
    (box / "lock_symlink" / ownership.LOCK).symlink_to(victim)
    (box / "study_symlink" / ownership.LOCK).symlink_to(victim)
    for name in ("lock_hardlink", "lock_stale", "study_hardlink"):
        os.link(victim, box / name / ownership.LOCK)
    log = box / "log_hardlink" / "chunks.jsonl"  # a valid log, with a second name outside
    shutil.copy(log, box / "log_victim.jsonl")
    log.unlink()
    os.link(box / "log_victim.jsonl", log)
    return fifos


@pytest.fixture(scope="module")
def world(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("hostile")
    _build(root)
    return root


def _snapshot(root: Path) -> dict[str, str]:
    """Every path -> its bytes' digest (regular files), or its kind; never opens a FIFO."""
    out = {}
    for p in sorted(root.rglob("*")):
        st = p.lstat()
        if stat.S_ISREG(st.st_mode):
            out[p.relative_to(root).as_posix()] = hashlib.sha256(p.read_bytes()).hexdigest()
        else:
            out[p.relative_to(root).as_posix()] = oct(stat.S_IFMT(st.st_mode))
    return out


def _invoke(args: list[str], fifos: list[Path]):
    """Run the CLI; if it blocks (a FIFO waited on), unblock it and fail."""
    box: dict = {}
    worker = threading.Thread(target=lambda: box.update(r=CliRunner().invoke(main, args)))
    worker.start()
    worker.join(60)
    if worker.is_alive():
        for f in fifos:  # a writer end lets a blocked open/read return
            try:
                fd = os.open(f, os.O_WRONLY | os.O_NONBLOCK)
                os.close(fd)
            except OSError:
                pass
        worker.join(30)
        pytest.fail(f"{args} blocked on a special file")
    return box["r"]


@pytest.mark.parametrize("case, args, expect", HOSTILE, ids=[c for c, *_ in HOSTILE])
def test_hostile_input_is_one_line_exit_2_and_harmless(case, args, expect, world, tmp_path,
                                                      monkeypatch):
    box = tmp_path / "box"
    shutil.copytree(world, box)
    fifos = _plant_specials(box)
    monkeypatch.chdir(box)
    monkeypatch.delenv("BONFIRE_SIM_TRACEBACK", raising=False)
    monkeypatch.setattr("bonfire_sim.infra.progress.LOG_EVERY", float("inf"))
    monkeypatch.setattr("bonfire_sim.analysis.cards.probes.fork_cache_dir",
                        lambda: tmp_path / "fork-cache")
    before = _snapshot(box)
    result = _invoke(args, fifos)
    lines = result.output.splitlines()
    assert result.exit_code == 2, (result.exit_code, result.output, result.exception)
    assert len(lines) == 1 and lines[0].startswith("Error: "), result.output
    assert expect in lines[0], (expect, lines[0])
    assert _snapshot(box) == before, "the command wrote or destroyed something"
    home = Path.home()  # where '~' and $HOME would lead (not redirected: the kernel cache)
    planted = ("bonfire-x", "bonfire-w", "bonfire-s.csv", "bonfire-page.html")
    assert not any((home / n).exists() for n in planted)
    assert not (box / "~").exists() and not (box / "$HOME").exists()


def test_a_large_run_says_its_time_and_disk_before_the_first_game(tmp_path, monkeypatch):
    calls = []

    def stub(config, out, **kwargs):  # the run itself is not the point: stop it at once
        calls.append(config.games)
        raise KeyboardInterrupt

    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr("bonfire_sim.sim.runner.run", stub)
    result = CliRunner().invoke(main, ["run", "--games", str(10**7), "--players", "2",
                                       "--out", "big"])
    assert "interrupted" in result.output, result.output
    first = result.output.splitlines()[0]
    assert first.startswith("this takes about 10,000,000 games: roughly ") and " h " in first
    assert "GB of disk" in first and calls == [10**7]
    small = CliRunner().invoke(main, ["run", "--games", "400", "--players", "2",
                                      "--out", "small"])
    assert "this takes about" not in small.output


def test_the_hostile_families_are_counted():
    families: dict[str, int] = {}
    for case, *_ in HOSTILE:
        families[case.split("-")[0]] = families.get(case.split("-")[0], 0) + 1
    print(f"{len(HOSTILE)} hostile cases: {families}")
    assert len({c for c, *_ in HOSTILE}) == len(HOSTILE) >= 60
