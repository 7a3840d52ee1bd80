"""The bad-input matrix: every command, fed wrong types, out-of-range values, bad paths,
corrupt and foreign files, runs of another engine and a full disk, must answer with exit
code 2 and exactly one line, and must write or destroy nothing.

Each case runs in a fresh sandbox (a copy of a small world of runs and files) as the
working directory; the whole sandbox is compared byte for byte before and after.  The
full-disk cases mount a tiny tmpfs filled to the brim when the platform allows it (root
and mount permitted) and otherwise simulate ENOSPC in ``bonfire_sim.infra.fileio``; the mode is
part of each full-disk case's id, so neither is skipped silently.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import json
import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner
from helpers_runs import interrupted_run

from bonfire_sim.cli.main import main
from bonfire_sim.infra import fileio
from bonfire_sim.sim.runconfig import RunConfig
from bonfire_sim.sim.runner import run

BIG = str(10**30)
SEED_TOO_BIG = str(2**64)
# the options of the world's "run" directory
SAME = ["run", "--games", "4", "--players", "2", "--seed", "1", "--chunk-size", "2",
        "--turn-log", "all"]
GOOD_EXP = '[run]\ngames = 4\nplayers = 2\nseed = 1\nchunk_size = 2\nout = "runs/exp"\n'

# (id, argv); placeholders in {braces} are paths in the sandbox.
CASES: list[tuple[str, list[str]]] = [
    # --- the group ---
    ("unknown-command", ["nocommand"]),
    ("unknown-global-option", ["--bogus"]),
    # --- cards ---
    ("cards-kind", ["cards", "--kind", "dragons"]),
    ("cards-format", ["cards", "--format", "xml"]),
    ("cards-unknown-option", ["cards", "--bogus"]),
    ("cards-extra-arg", ["cards", "extra"]),
    # --- strategies ---
    ("strategies-format", ["strategies", "--format", "xml"]),
    ("values-format", ["values", "--format", "xml"]),
    ("strategies-extra-arg", ["strategies", "extra"]),
    # --- replay ---
    ("replay-seed-negative", ["replay", "--seed", "-1"]),
    ("replay-seed-2**64", ["replay", "--seed", SEED_TOO_BIG]),
    ("replay-seed-text", ["replay", "--seed", "x"]),
    ("replay-seed-float", ["replay", "--seed", "1.5"]),
    ("replay-players-5", ["replay", "--players", "5"]),
    ("replay-players-0", ["replay", "--players", "0"]),
    ("replay-strategy", ["replay", "--strategies", "nope"]),
    ("replay-json-dir", ["replay", "--json", "{dir}"]),
    ("replay-json-under-file", ["replay", "--json", "{file}/game.json"]),
    # --- ladder ---
    ("ladder-players", ["ladder", "--players", "5"]),
    ("ladder-games-0", ["ladder", "--games", "0"]),
    ("ladder-games-huge", ["ladder", "--games", BIG]),
    ("ladder-seed-negative", ["ladder", "--seed", "-1"]),
    ("ladder-seed-2**64", ["ladder", "--seed", SEED_TOO_BIG]),
    ("ladder-strategy", ["ladder", "--strategies", "nope,greedy"]),
    ("ladder-one-strategy", ["ladder", "--strategies", "greedy"]),
    ("ladder-csv-dir", ["ladder", "--games", "1", "--csv", "{dir}"]),
    ("ladder-csv-under-file", ["ladder", "--games", "1", "--csv", "{file}/x.csv"]),
    # --- run: types and ranges ---
    ("run-games-0", ["run", "--games", "0"]),
    ("run-games-10**12", ["run", "--games", str(10**12)]),
    ("run-games-10**30", ["run", "--games", BIG]),
    ("run-games-float", ["run", "--games", "40.7"]),
    ("run-seed-2**64", ["run", "--seed", SEED_TOO_BIG]),
    ("run-seed-negative", ["run", "--seed", "-1"]),
    ("run-players-5", ["run", "--players", "5"]),
    ("run-jobs-0", ["run", "--games", "4", "--jobs", "0"]),
    ("run-jobs--2", ["run", "--games", "4", "--jobs", "-2"]),
    ("run-chunk-0", ["run", "--chunk-size", "0"]),
    ("run-chunk-huge", ["run", "--chunk-size", BIG]),
    ("run-turn-log", ["run", "--turn-log", "some"]),
    ("run-turn-log-fraction", ["run", "--turn-log", "sample:2"]),
    ("run-strategy", ["run", "--strategies", "nope"]),
    ("run-strategy-count", ["run", "--players", "3", "--strategies", "greedy,tempo"]),
    ("run-rotation-games", ["run", "--seat-rotation", "--games", "7"]),
    ("run-backend", ["run", "--backend", "spark"]),
    ("run-dask-unreachable", ["run", "--games", "4", "--players", "2", "--backend", "dask",
                              "--scheduler", "tcp://127.0.0.1:1"]),
    ("run-dask-malformed", ["run", "--games", "4", "--backend", "dask", "--scheduler", "x"]),
    # --- run: paths and existing directories ---
    ("run-out-file", ["run", "--games", "4", "--players", "2", "--out", "{file}"]),
    ("run-out-under-file", ["run", "--games", "4", "--players", "2", "--out", "{file}/r"]),
    ("run-out-foreign", ["run", "--games", "4", "--players", "2", "--out", "{foreign}"]),
    ("run-out-other-config", ["run", "--games", "4", "--players", "2", "--seed", "9",
                              "--chunk-size", "2", "--out", "{run}"]),
    ("run-resume-other-engine", [*SAME, "--resume", "--out", "{old}"]),
    ("run-unfinished-no-resume", [*SAME, "--out", "{unfinished}"]),
    ("run-resume-stray-file", [*SAME, "--resume", "--out", "{stray}"]),
    ("run-resume-foreign-dir-in-run", [*SAME, "--resume", "--out", "{stray_dir}"]),
    # --- run --config ---
    ("run-config-missing", ["run", "--config", "missing.toml"]),
    ("run-config-dir", ["run", "--config", "{dir}"]),
    ("run-config-bool-string", ["run", "--config", "{exp_bool}"]),
    ("run-config-float", ["run", "--config", "{exp_float}"]),
    ("run-config-unknown-table", ["run", "--config", "{exp_table}"]),
    ("run-config-unknown-key", ["run", "--config", "{exp_key}"]),
    ("run-config-out-int", ["run", "--config", "{exp_out5}"]),
    ("run-config-overrides-int", ["run", "--config", "{exp_over5}"]),
    ("run-config-overflow", ["run", "--config", "{exp_overflow}"]),
    ("run-config-negative-points", ["run", "--config", "{exp_negative}"]),
    ("run-config-unknown-task", ["run", "--config", "{exp_task}"]),
    ("run-config-seed-2**64", ["run", "--config", "{exp_seed}"]),
    ("run-config-not-toml", ["run", "--config", "{exp_broken}"]),
    ("run-config-binary", ["run", "--config", "{binary}"]),
    ("run-config-sweep", ["run", "--config", "{exp_sweep}"]),
    ("run-config-sweep-bad-point", ["run", "--config", "{exp_sweep_bad}"]),
    # --- bench ---
    ("bench-jobs-0", ["bench", "engine", "--jobs", "0"]),
    ("bench-games-small", ["bench", "engine", "--games", "5"]),
    ("bench-games-text", ["bench", "engine", "--games", "x"]),
    ("bench-games-huge", ["bench", "engine", "--games", BIG]),
    # --- solo ---
    ("solo-handicap-huge", ["solo", "--handicap", BIG]),
    ("solo-games-0", ["solo", "--games", "0"]),
    ("solo-jobs-0", ["solo", "--games", "4", "--jobs", "0"]),
    ("solo-seed-2**64", ["solo", "--games", "4", "--seed", SEED_TOO_BIG]),
    ("solo-strategy", ["solo", "--games", "4", "--strategy", "nope"]),
    ("solo-path-csv-dir", ["solo", "--games", "4", "--path-csv", "{dir}"]),
    # --- coverage ---
    ("coverage-jobs-0", ["coverage", "--games", "4", "--jobs", "0"]),
    ("coverage-games-0", ["coverage", "--games", "0"]),
    ("coverage-players", ["coverage", "--players", "9"]),
    ("coverage-corrupt-run", ["coverage", "{corrupt}"]),
    ("coverage-missing-run", ["coverage", "missing_run"]),
    ("coverage-foreign-dir", ["coverage", "{foreign}"]),
    # --- report ---
    ("report-no-run", ["report"]),
    ("report-same-run-twice", ["report", "{run}", "{run}"]),
    ("report-same-run-two-spellings", ["report", "{run}", "{run}/."]),
    ("report-out-dir", ["report", "{run}", "--out", "{dir}"]),
    ("report-out-under-file", ["report", "{run}", "--out", "{file}/r.html"]),
    ("report-corrupt-run", ["report", "{corrupt}"]),
    ("report-bitflip-run", ["report", "{flipped}"]),
    ("report-foreign-table", ["report", "{transplant}"]),
    ("report-missing-run", ["report", "missing_run"]),
    ("report-foreign-dir", ["report", "{foreign}"]),
    ("report-foreign-manifest", ["report", "{foreign_manifest}"]),
    ("report-unfinished-run", ["report", "{unfinished}"]),
    ("report-stray-file", ["report", "{stray}"]),
    ("report-file-as-run", ["report", "{file}"]),
    ("report-deleted-chunk", ["report", "{no_turns}"]),
    # --- experiment ---
    ("experiment-missing", ["experiment", "missing.toml"]),
    ("experiment-bool-string", ["experiment", "{exp_bool}"]),
    ("experiment-unknown-key", ["experiment", "{exp_key}"]),
    ("experiment-unknown-table", ["experiment", "{exp_table}"]),
    ("experiment-report-out-dir", ["experiment", "{exp_report_dir}"]),
    ("experiment-report-key", ["experiment", "{exp_report_key}"]),
    ("experiment-other-engine", ["experiment", "{exp_old}"]),
    ("experiment-jobs-0-file", ["experiment", "{exp_jobs0}"]),
    ("experiment-jobs-0-option", ["experiment", "{exp_good}", "--jobs", "0"]),
    ("experiment-overflow", ["experiment", "{exp_overflow}"]),
    ("experiment-empty-sweep", ["experiment", "{exp_empty_sweep}"]),
    ("experiment-sweep-later-point-foreign", ["experiment", "{exp_sweep_foreign}"]),
    # --- compare ---
    ("compare-player-counts", ["compare", "{run}", "{run4}"]),
    ("compare-same-run", ["compare", "{run}", "{run}"]),
    ("compare-corrupt", ["compare", "{run}", "{corrupt}"]),
    ("compare-out-dir", ["compare", "{run}", "{run_b}", "--out", "{dir}"]),
    ("compare-missing-arg", ["compare", "{run}"]),
]
CASES += [
    # --- sensitivity (every check happens before any game is played) ---
    ("sensitivity-variant-unknown", ["sensitivity", "--variant", "tom_deck=nope"]),
    ("sensitivity-variant-fact", ["sensitivity", "--variant", "bogus"]),
    ("sensitivity-variant-default", ["sensitivity", "--variant", "tom_deck=task1"]),
    ("sensitivity-games-0", ["sensitivity", "--games", "0"]),
    ("sensitivity-seed-negative", ["sensitivity", "--seed", "-1"]),
    ("sensitivity-jobs-0", ["sensitivity", "--jobs", "0"]),
    ("sensitivity-players", ["sensitivity", "--players", "7"]),
    ("sensitivity-csv-dir", ["sensitivity", "--csv", "{dir}"]),
    ("sensitivity-config-missing", ["sensitivity", "--config", "{dir}/nope.toml"]),
    # --- tune (every check happens before any game is played) ---
    ("tune-style", ["tune", "--style", "nope"]),
    ("tune-field", ["tune", "--field", "nope"]),
    ("tune-generations-0", ["tune", "--generations", "0"]),
    ("tune-seed-negative", ["tune", "--seed", "-1"]),
    ("tune-jobs-0", ["tune", "--jobs", "0"]),
    ("tune-out-foreign", ["tune", "--out", "{dir}"]),
    # --- sequential (every check happens before any game is played) ---
    ("sequential-other-deals", ["sequential", "{exp_good}", "{exp_full}"]),
    ("sequential-missing", ["sequential", "{exp_good}", "missing.toml"]),
    ("sequential-metric", ["sequential", "{exp_good}", "{exp_good}", "--metric", "rank"]),
    ("sequential-h1-is-h0", ["sequential", "{exp_good}", "{exp_good}", "--h1", "0"]),
    ("sequential-alpha", ["sequential", "{exp_good}", "{exp_good}", "--alpha", "0.9"]),
    ("sequential-seat", ["sequential", "{exp_good}", "{exp_good}", "--seat", "3"]),
    ("sequential-strategy", ["sequential", "{exp_good}", "{exp_good}", "--strategy", "nope"]),
    ("sequential-budget-1", ["sequential", "{exp_good}", "{exp_good}", "--budget", "1"]),
    ("sequential-seat-points-negative", ["sequential", "{exp_good}", "{exp_seat_neg}"]),
    ("sequential-seat-points-nan", ["sequential", "{exp_good}", "{exp_seat_nan}"]),
]
# Not-a-number and infinity, wherever the program takes a real number: one check
# (config.check_float), one line, before any work.
CASES += [
    ("run-weights-file-nan", ["run", "--games", "4", "--players", "2",
                              "--strategies", "portal@{w_nan}"]),
    ("run-weights-json-infinity", ["run", "--games", "4", "--players", "2",
                                   "--strategies", "portal@w_inf.json"]),
    ("ladder-weights-file-nan", ["ladder", "--games", "1",
                                 "--strategies", "portal@{w_nan},greedy"]),
    ("tune-start-weights-nan", ["tune", "--start", "{w_nan}"]),
    ("tune-sigma-nan", ["tune", "--sigma", "nan"]),
    ("tune-sigma-0", ["tune", "--sigma", "0"]),
    ("tune-w-score-inf", ["tune", "--w-score", "inf"]),
    ("tune-w-stalled-overflow", ["tune", "--w-stalled", "1e400"]),
    ("tune-bonfires-min-nan", ["tune", "--bonfires-min", "nan"]),
    ("tune-w-short-text", ["tune", "--w-short", "lots"]),
    ("tune-weights-out-dir", ["tune", "--weights-out", "{dir}"]),
    ("experiment-seat-points-inf", ["experiment", "{exp_seat_inf}"]),
    ("run-config-seat-points-inf", ["run", "--config", "{exp_seat_inf}"]),
    ("compare-margin-nan", ["compare", "{run}", "{run_b}", "--margin", "nan"]),
    ("compare-margin-inf", ["compare", "{run}", "{run_b}", "--margin", "inf"]),
    ("report-margin-nan", ["report", "{run}", "--margin", "nan"]),
    ("sensitivity-config-games-nan", ["sensitivity", "--config", "{sens_games_nan}"]),
    ("sensitivity-config-players-nan", ["sensitivity", "--config", "{sens_players_nan}"]),
]
# The balance check and the game viewer.
CASES += [
    ("check-missing", ["check", "{dir}/nope.toml"]),
    ("check-bad-players", ["check", "{check_bad_players}"]),
    ("view-players-7", ["view", "--seed", "1", "--players", "7", "--out", "{dir}/v.html"]),
    ("view-game-missing", ["view", "--run", "{run}", "--game", "99999",
                           "--out", "{dir}/v.html"]),
    ("view-out-dir", ["view", "--seed", "1", "--players", "2", "--out", "{dir}"]),
    ("reprice-not-a-run", ["reprice", "{dir}/nope", "--out", "{dir}/x.toml"]),
    ("reprice-margin-nan", ["reprice", "{run}", "--out", "{dir}/x.toml", "--margin", "nan"]),
    ("values-players-1", ["values", "--players", "1"]),
    ("values-out-suffix", ["values", "--out", "{dir}/v.txt"]),
    ("values-not-a-run", ["values", "{dir}/nope"]),
    ("values-corrupt-run", ["values", "{corrupt}"]),
    ("values-seed-negative", ["values", "--seed", "-1"]),
    ("errata-not-a-run", ["errata", "{dir}/nope", "--out", "{dir}/e"]),
    ("errata-corrupt-run", ["errata", "{corrupt}", "--out", "{dir}/e"]),
    ("errata-out-file", ["errata", "{run}", "--out", "{file}"]),
    ("errata-games-1", ["errata", "{run}", "--out", "{dir}/e", "--games", "1"]),
    ("errata-seed-negative", ["errata", "{run}", "--out", "{dir}/e", "--seed", "-1"]),
    ("errata-targets-missing", ["errata", "{run}", "--out", "{dir}/e", "--targets",
                                "{dir}/nope.toml"]),
    # commands added since (the hostile families: tests/test_bad_input_hostile.py)
    ("warm-extra-arg", ["warm", "extra"]),
    ("expert-rounds-0", ["expert", "--rounds", "0"]),
    ("strength-missing", ["strength", "missing.toml"]),
]

FULL_DISK_CASES: list[tuple[str, list[str]]] = [
    ("run", ["run", "--games", "4", "--players", "2", "--out", "{full}/newrun"]),
    ("run-nested", ["run", "--games", "4", "--players", "2", "--out", "{full}/a/b/newrun"]),
    ("report-keeps-old-page", ["report", "{run}", "--out", "{full}/page.html"]),
    ("replay-json", ["replay", "--seed", "1", "--players", "2", "--json", "{full}/g.json"]),
    ("ladder-csv", ["ladder", "--games", "1", "--strategies", "greedy,tempo",
                    "--csv", "{full}/l.csv"]),
    ("compare-keeps-old-page", ["compare", "{run}", "{run_b}", "--out", "{full}/page.html"]),
    ("solo-path-csv", ["solo", "--games", "4", "--path-csv", "{full}/path.csv"]),
    ("experiment-report", ["experiment", "{exp_full}"]),
]


# A fragment of the one line each case must print (it names the right problem).
EXPECT = {
    "sensitivity-variant-unknown": "unknown tom_deck variant 'nope'",
    "sensitivity-variant-fact": "unknown variant 'bogus'",
    "sensitivity-variant-default": "is the default",
    "sensitivity-games-0": "games must be 1..", "sensitivity-seed-negative": "seed must be 0..",
    "sensitivity-jobs-0": "jobs must be", "sensitivity-players": "players must be among 1..4",
    "sensitivity-csv-dir": "is a directory", "sensitivity-config-missing": "not found",
    "tune-style": "unknown strategy 'nope'", "tune-field": "unknown strategy 'nope'",
    "tune-generations-0": "--generations", "tune-seed-negative": "--seed",
    "tune-jobs-0": "--jobs", "tune-out-foreign": "holds no study",
    "sequential-other-deals": "differ in seed", "sequential-missing": "not found",
    "sequential-metric": "--metric", "sequential-h1-is-h0": "h1 must differ from h0",
    "sequential-alpha": "alpha and beta", "sequential-seat": "seat must be 0..1",
    "sequential-strategy": "'nope' does not play", "sequential-budget-1": "--budget",
    "sequential-seat-points-negative": "seat_points[1] must be 0..",
    "sequential-seat-points-nan": "seat_points[1] must be a finite number",
    "run-weights-file-nan": "w_nan.toml: horizon must be a finite number",
    "run-weights-json-infinity": "w_inf.json: horizon must be a finite number",
    "ladder-weights-file-nan": "horizon must be a finite number",
    "tune-start-weights-nan": "horizon must be a finite number",
    "tune-sigma-nan": "'--sigma': must be a finite number > 0",
    "tune-sigma-0": "'--sigma': must be > 0 and <= 100, got 0.0",
    "tune-w-score-inf": "'--w-score': must be a finite number",
    "tune-w-stalled-overflow": "'--w-stalled': must be a finite number",
    "tune-bonfires-min-nan": "'--bonfires-min': must be a finite number",
    "tune-w-short-text": "must be a finite number 0..1000, got 'lots'",
    "tune-weights-out-dir": "is a directory",
    "experiment-seat-points-inf": "seat_points[1] must be a finite number 0..1000, got inf",
    "run-config-seat-points-inf": "seat_points[1] must be a finite number",
    "compare-margin-nan": "'--margin': must be a finite number 0..1000, got nan",
    "compare-margin-inf": "'--margin': must be a finite number",
    "report-margin-nan": "'--margin': must be a finite number",
    "sensitivity-config-games-nan": "games must be an integer, got nan",
    "sensitivity-config-players-nan": "players must be an integer, got nan",
    "check-missing": "not found", "check-bad-players": "seat_win needs players among",
    "view-players-7": "players must be 1..4", "view-game-missing": "game 99999 is not in",
    "view-out-dir": "is a directory", "reprice-not-a-run": "is not a directory",
    "reprice-margin-nan": "--margin must be a positive number of points, got nan",
    "values-players-1": "counts among 2, 3 and 4", "values-out-suffix": ".csv, .parquet, .json",
    "values-not-a-run": "is not a directory", "values-corrupt-run": "checksum",
    "values-seed-negative": "--seed",
    "errata-not-a-run": "is not a directory", "errata-corrupt-run": "checksum",
    "errata-out-file": "is not a directory", "errata-games-1": "'--games'",
    "errata-seed-negative": "--seed", "errata-targets-missing": "not found",
    "warm-extra-arg": "unexpected extra argument", "expert-rounds-0": "'--rounds'",
    "strength-missing": "strength-ladder file missing.toml not found",
    "unknown-command": "No such command", "unknown-global-option": "No such option",
    "cards-kind": "'dragons' is not one of 'tasks'",
    "values-format": "'xml' is not one of 'table', 'csv', 'json'",
    "cards-format": "'xml' is not one of 'table', 'csv', 'json'",
    "cards-unknown-option": "No such option", "cards-extra-arg": "unexpected extra argument",
    "strategies-format": "'xml' is not one of 'table'", "strategies-extra-arg": "unexpected extra",
    "replay-seed-negative": "seed must be 0..", "replay-seed-2**64": "seed must be 0..",
    "replay-seed-text": "not a valid integer", "replay-seed-float": "not a valid integer",
    "replay-players-5": "players must be 1..4", "replay-players-0": "players must be 1..4",
    "replay-strategy": "unknown strategy 'nope'", "replay-json-dir": "is a directory",
    "replay-json-under-file": "is not a directory", "ladder-players": "--players",
    "ladder-games-0": "--games", "ladder-games-huge": "games must be 1..",
    "ladder-seed-negative": "seed must be 0..", "ladder-seed-2**64": "seed must be 0..",
    "ladder-strategy": "unknown strategy", "ladder-one-strategy": "at least 2",
    "ladder-csv-dir": "is a directory", "ladder-csv-under-file": "is not a directory",
    "run-games-0": "games must be 1..", "run-games-10**12": "games must be 1..",
    "run-games-10**30": "games must be 1..", "run-games-float": "not a valid integer",
    "run-seed-2**64": "seed must be 0..", "run-seed-negative": "seed must be 0..",
    "run-players-5": "players must be 1..4", "run-jobs-0": "jobs must be 1..256 or -1",
    "run-jobs--2": "jobs must be", "run-chunk-0": "chunk_size must be",
    "run-chunk-huge": "chunk_size must be", "run-turn-log": "turn_log must be",
    "run-turn-log-fraction": "turn_log must be", "run-strategy": "unknown strategy",
    "run-strategy-count": "2 strategies for 3 seats", "run-rotation-games": "multiple of 4",
    "run-backend": "'spark' is not one of 'loky', 'dask'",
    "run-dask-unreachable": "cannot reach the dask",
    "run-dask-malformed": "tcp://HOST:PORT", "run-out-file": "it is a file",
    "run-out-under-file": "is not a directory", "run-out-foreign": "not a bonfire_sim run",
    "run-out-other-config": "different configuration",
    "run-resume-other-engine": "different engine (source_hash 0000000000000000",
    "run-unfinished-no-resume": "add --resume", "run-resume-stray-file": "chunk-00000 copy",
    "run-resume-foreign-dir-in-run": "chunks/backup", "run-config-missing": "not found",
    "run-config-dir": "is a directory", "run-config-bool-string": "must be true or false",
    "run-config-float": "games must be an integer", "run-config-unknown-table": "[overide]",
    "run-config-unknown-key": "'gmaes'; valid: games", "run-config-out-int": "must be a path",
    "run-config-overrides-int": "must be a table", "run-config-overflow": "must be 0..1000",
    "run-config-negative-points": "B1 must be 0..1000", "run-config-unknown-task": "'Q99'",
    "run-config-seed-2**64": "seed must be 0..", "run-config-not-toml": "not valid TOML",
    "run-config-binary": "cannot read", "run-config-sweep": "sweeps 2 override points",
    "run-config-sweep-bad-point": "portal_points must be 0..1000, got 2000",
    "bench-jobs-0": "jobs must be", "bench-games-small": "--games must be 10..",
    "bench-games-text": "not a valid integer", "bench-games-huge": "--games must be 10..",
    "solo-handicap-huge": "--handicap", "solo-games-0": "--games must be 1..",
    "solo-jobs-0": "jobs must be", "solo-seed-2**64": "--seed must be 0..",
    "solo-strategy": "unknown strategy", "solo-path-csv-dir": "is a directory",
    "coverage-jobs-0": "'--jobs': 0 is not in the range x>=1",
    "coverage-games-0": "games must be 1..",
    "coverage-players": "players must be 1..4", "coverage-corrupt-run": "checksum",
    "coverage-missing-run": "is not a directory", "coverage-foreign-dir": "not a bonfire_sim",
    "report-no-run": "Missing argument", "report-same-run-twice": "given twice",
    "report-same-run-two-spellings": "given twice", "report-out-dir": "is a directory",
    "report-out-under-file": "is not a directory", "report-corrupt-run": "checksum",
    "report-bitflip-run": "players.parquet does not match its checksum",
    "report-foreign-table": "games.parquet does not match its checksum",
    "report-missing-run": "is not a directory", "report-foreign-dir": "not a bonfire_sim",
    "report-foreign-manifest": "not a bonfire_sim run manifest",
    "report-unfinished-run": "unfinished run", "report-stray-file": "chunk-00000 copy",
    "report-file-as-run": "is not a directory", "report-deleted-chunk": "is missing",
    "experiment-missing": "not found", "experiment-bool-string": "must be true or false",
    "experiment-unknown-key": "'gmaes'", "experiment-unknown-table": "[overide]",
    "experiment-report-out-dir": "is a directory", "experiment-report-key": "'titel'",
    "experiment-other-engine": "different engine", "experiment-jobs-0-file": "jobs must be",
    "experiment-jobs-0-option": "jobs must be", "experiment-overflow": "must be 0..1000",
    "experiment-empty-sweep": "a sweep needs at least one value",
    "experiment-sweep-later-point-foreign": "portal_points=2 is not empty",
    "compare-player-counts": "2-player run", "compare-same-run": "given twice",
    "compare-corrupt": "checksum", "compare-out-dir": "is a directory",
    "compare-missing-arg": "Missing argument",
}


# ---- the world every case starts from ------------------------------------------------------
def _toml(root: Path, name: str, text: str) -> str:
    (root / f"{name}.toml").write_text(text)
    return f"{name}.toml"


@pytest.fixture(scope="module")
def world(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("world")
    cfg = RunConfig(games=4, players=2, seed=1, chunk_size=2, turn_log="all")
    run(cfg, root / "run")
    run(RunConfig(games=4, players=2, seed=2, chunk_size=2), root / "run_b")
    run(RunConfig(games=4, players=4, seed=1, chunk_size=2), root / "run4")
    for name in ("old", "corrupt", "flipped", "transplant", "stray", "stray_dir", "no_turns"):
        shutil.copytree(root / "run", root / name)
    m = json.loads((root / "old" / "manifest.json").read_text())
    m["fingerprint"]["source_hash"] = "0000000000000000"
    (root / "old" / "manifest.json").write_text(json.dumps(m))
    g = root / "corrupt" / "games.parquet"
    g.write_bytes(g.read_bytes()[:100])
    f = root / "flipped" / "players.parquet"
    data = bytearray(f.read_bytes())
    data[len(data) // 2] ^= 4
    f.write_bytes(bytes(data))
    shutil.copy(root / "run_b" / "games.parquet", root / "transplant" / "games.parquet")
    (root / "stray" / "turns" / "chunk-00000 copy.parquet").write_bytes(b"x")
    (root / "stray_dir" / "chunks" / "backup").mkdir()
    (root / "no_turns" / "turns" / "chunk-00001.parquet").unlink()
    interrupted_run(cfg, root / "unfinished", 1)
    (root / "foreign").mkdir()
    (root / "foreign" / "notes.txt").write_text("mine")
    (root / "foreign_manifest").mkdir()
    (root / "foreign_manifest" / "manifest.json").write_text('{"format": "other"}')
    (root / "dir").mkdir()
    (root / "dir" / "keep.txt").write_text("keep")
    (root / "file").write_text("a file")
    (root / "binary").write_bytes(bytes(range(256)))
    base = '[run]\ngames = 4\nplayers = 2\nchunk_size = 2\n'
    _toml(root, "exp_bool", base + 'seat_rotation = "false"\n')
    _toml(root, "exp_float", '[run]\ngames = 40.7\n')
    _toml(root, "exp_table", base + '[overide]\nportal_points = 2\n')
    _toml(root, "exp_key", base + 'gmaes = 4\n')
    _toml(root, "exp_out5", base + 'out = 5\n')
    _toml(root, "exp_over5", 'overrides = 5\n' + base)
    _toml(root, "exp_overflow", base + f'[overrides]\nportal_points = {2**63 - 1}\n')
    _toml(root, "exp_negative", base + '[overrides]\ntask_points = { B1 = -3 }\n')
    _toml(root, "exp_task", base + '[overrides]\ntask_points = { Q99 = 3 }\n')
    _toml(root, "exp_seed", base + f'seed = {2**64}\n')
    _toml(root, "exp_broken", '[run\ngames = 4\n')
    _toml(root, "exp_sweep", base + '[overrides]\nportal_points = [1, 2]\n')
    _toml(root, "exp_sweep_bad", base + '[overrides]\nportal_points = [1, 2000]\n')
    _toml(root, "exp_report_dir", GOOD_EXP + '[report]\nout = "dir"\n')
    _toml(root, "exp_report_key", GOOD_EXP + '[report]\ntitel = "x"\n')
    _toml(root, "exp_old", '[run]\ngames = 4\nplayers = 2\nseed = 1\nchunk_size = 2\n'
                           'turn_log = "all"\nout = "old"\n')
    _toml(root, "exp_jobs0", GOOD_EXP + 'jobs = 0\n')
    _toml(root, "exp_seat_neg", GOOD_EXP + '[overrides]\nseat_points = [0, -0.5]\n')
    _toml(root, "exp_seat_nan", GOOD_EXP + '[overrides]\nseat_points = [0, nan]\n')
    _toml(root, "exp_seat_inf", GOOD_EXP + '[overrides]\nseat_points = [0, inf]\n')
    _toml(root, "w_nan", "[weights]\nhorizon = nan\n")
    (root / "w_inf.json").write_text('{"horizon": Infinity}')
    _toml(root, "sens_games_nan", "[sensitivity]\ngames = nan\n")
    _toml(root, "sens_players_nan", "[sensitivity]\nplayers = [2, nan]\n")
    _toml(root, "exp_good", GOOD_EXP)
    _toml(root, "check_bad_players", '[[assert]]\nmeasure = "seat_win"\nplayers = 9\n')
    _toml(root, "exp_full", '[run]\ngames = 4\nplayers = 2\nseed = 2\nchunk_size = 2\n'
                            'out = "run_b"\n[report]\nout = "full/page.html"\n')
    _toml(root, "exp_empty_sweep", GOOD_EXP + '[overrides]\nportal_points = []\n')
    _toml(root, "exp_sweep_foreign", '[run]\ngames = 4\nplayers = 2\nchunk_size = 2\n'
                                      'out = "sweep"\n[overrides]\nportal_points = [1, 2]\n')
    (root / "sweep" / "portal_points=2").mkdir(parents=True)
    (root / "sweep" / "portal_points=2" / "mine.txt").write_text("mine")
    (root / "full").mkdir()
    return root


def _snapshot(root: Path) -> dict[str, str]:
    """Every path under ``root`` -> a digest of its bytes ("dir" for directories).

    Nothing is exempt: the fork tables a report computes are cached in the user cache
    directory, never in a run (``_check_case`` points that cache outside the sandbox).
    """
    return {p.relative_to(root).as_posix():
            "dir" if p.is_dir() else hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(root.rglob("*"))}


def _fill(args: list[str], sandbox: Path) -> list[str]:
    names = {p.name: str(p) for p in sandbox.iterdir()}
    names.update({p.stem: p.name for p in sandbox.glob("*.toml")})
    return [a.format(**names) for a in args]


def _check_case(args: list[str], sandbox: Path, monkeypatch, expect: str) -> None:
    monkeypatch.chdir(sandbox)
    monkeypatch.delenv("BONFIRE_SIM_TRACEBACK", raising=False)
    # Progress log lines (every few seconds off a terminal) are not part of an error's
    # output; on a cold numba cache a command may run long enough to print one first.
    monkeypatch.setattr("bonfire_sim.infra.progress.LOG_EVERY", float("inf"))
    monkeypatch.setattr("bonfire_sim.analysis.cards.probes.fork_cache_dir",
                        lambda: sandbox.parent / "fork-cache")
    before = _snapshot(sandbox)
    result = CliRunner().invoke(main, _fill(args, sandbox))
    lines = result.output.splitlines()
    assert result.exit_code == 2, (result.exit_code, result.output, result.exception)
    assert len(lines) == 1, result.output
    assert lines[0].startswith("Error: ") and "Traceback" not in lines[0], lines[0]
    assert expect in lines[0], (expect, lines[0])
    assert _snapshot(sandbox) == before, "the command wrote or destroyed something"


@pytest.fixture
def sandbox(world, tmp_path) -> Path:
    box = tmp_path / "box"
    shutil.copytree(world, box)
    return box


@pytest.mark.parametrize("case, args", CASES, ids=[c for c, _ in CASES])
def test_bad_input_is_one_line_exit_2_and_harmless(case, args, sandbox, monkeypatch):
    _check_case(args, sandbox, monkeypatch, EXPECT[case])


# ---- a full disk -------------------------------------------------------------------------
def _can_mount() -> bool:
    if os.geteuid() != 0 or not shutil.which("mount"):
        return False
    probe = Path(os.environ.get("TMPDIR", "/tmp")) / f"bonfire-mount-probe-{os.getpid()}"
    probe.mkdir(exist_ok=True)
    try:
        ok = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(probe)],
                            capture_output=True).returncode == 0
        if ok:
            subprocess.run(["umount", str(probe)], check=True)
        return ok
    finally:
        probe.rmdir()


# The simulation always runs; a real full filesystem too wherever it can be mounted.
FULL_DISK_MODES = ["simulated-enospc", *(["tmpfs"] if _can_mount() else [])]


@contextlib.contextmanager
def _full_disk(folder: Path, mode: str, monkeypatch) -> Iterator[None]:
    """Make ``folder`` a full filesystem (tmpfs) or make every write fail with ENOSPC."""
    if mode == "tmpfs":
        subprocess.run(["mount", "-t", "tmpfs", "-o", "size=256k", "tmpfs", str(folder)],
                       check=True)
        try:
            (folder / "page.html").write_text("<html>the good old page</html>")
            with open(folder / "filler", "wb", buffering=0) as f:
                with contextlib.suppress(OSError):
                    while True:
                        f.write(b"\0" * 4096)
                with contextlib.suppress(OSError):
                    while True:  # the last few bytes of the last block
                        f.write(b"\0")
            yield
        finally:
            subprocess.run(["umount", str(folder)], check=True)
        return
    (folder / "page.html").write_text("<html>the good old page</html>")
    real = fileio.atomic_file

    @contextlib.contextmanager
    def enospc(path, mkdir=True):
        with real(path, mkdir) as f:
            yield f
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(fileio, "atomic_file", enospc)
    yield


@pytest.mark.parametrize("mode", FULL_DISK_MODES)
@pytest.mark.parametrize("case, args", FULL_DISK_CASES, ids=[c for c, _ in FULL_DISK_CASES])
def test_a_full_disk_is_one_line_and_keeps_what_was_there(case, args, mode, sandbox,
                                                          monkeypatch):
    with _full_disk(sandbox / "full", mode, monkeypatch):
        _check_case(args, sandbox, monkeypatch, "No space left on device")
        assert (sandbox / "full" / "page.html").read_text() == "<html>the good old page</html>"


def test_the_full_disk_modes_are_reported():
    print(f"full-disk modes: {', '.join(FULL_DISK_MODES)}")
    assert FULL_DISK_MODES[0] == "simulated-enospc"


def test_the_matrix_covers_every_command():
    from bonfire_sim.cli.commands import COMMANDS

    assert set(EXPECT) == {c for c, _ in CASES}
    covered = {args[0] for _, args in CASES + FULL_DISK_CASES}
    assert set(COMMANDS) <= covered
    assert len(CASES) + len(FULL_DISK_CASES) >= 100
