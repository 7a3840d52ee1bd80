#!/usr/bin/env python3
"""Wall time, disk and peak memory of every process of `bonfire-sim run` and `report`.

Usage: scripts/bench_memory.py --games 50000 --out runs/mem-50k [--jobs 2] [--keep]

Runs ``bonfire-sim run`` (4 players, the default mix) and then ``bonfire-sim report`` with
the default probes, each as a child process, and prints one JSON line per command: wall
seconds, the run folder's size on disk and the peak resident memory of the client and of
each worker.  Peaks are the kernel's own high-water marks (``VmHWM`` in
``/proc/PID/status``, Linux), read for the whole process tree every 0.2 s, so a worker's
peak is exact up to its last 0.2 s; ``largest_peak_mb`` (``RUSAGE_CHILDREN`` after the
command is waited for) is exact and bounds them all.  The run folder is deleted afterwards
unless ``--keep``.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import time
from pathlib import Path

BIN = Path(sys.executable).parent / "bonfire-sim"


def _children(pid: int) -> list[int]:
    """Every descendant of ``pid`` (from /proc/*/stat, no extra library)."""
    parent: dict[int, int] = {}
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                with open(f"/proc/{d}/stat") as f:
                    stat = f.read()
                parent[int(d)] = int(stat.rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        kids = [c for c, pp in parent.items() if pp == p]
        out += kids
        todo += kids
    return out


def _hwm_mb(pid: int) -> tuple[str, float] | None:
    try:
        with open(f"/proc/{pid}/status") as f:
            fields = dict(line.split(":", 1) for line in f if ":" in line)
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            cmd = f.read().replace(b"\0", b" ").decode(errors="replace")[:80]
        return cmd, int(fields["VmHWM"].split()[0]) / 1024
    except (OSError, KeyError, ValueError):
        return None


def measure(cmd: list[str]) -> dict[str, object]:
    """Run ``cmd``; wall time, exit code and peak RSS (MB) of it and each descendant."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    peaks: dict[int, tuple[str, float]] = {}
    while proc.poll() is None:
        for pid in [proc.pid, *_children(proc.pid)]:
            got = _hwm_mb(pid)
            if got is not None:
                peaks[pid] = got
        time.sleep(0.2)
    wall = time.perf_counter() - t0
    err = proc.stderr.read().decode(errors="replace") if proc.stderr else ""
    after = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    # ru_maxrss of the children is the largest of any waited-for descendant (client or
    # worker): exact, whatever the sampling missed, so it bounds every process's peak
    largest = after / 1024 if after > before else None
    client = peaks.pop(proc.pid, ("", 0.0))[1]
    workers = sorted((round(mb, 1) for pid, (c, mb) in peaks.items()
                      if "python" in c or "bonfire" in c), reverse=True)
    return {"cmd": " ".join(cmd[1:4]), "rc": proc.returncode, "wall_s": round(wall, 1),
            "client_peak_mb": round(client, 1), "worker_peaks_mb": workers[:8],
            "largest_peak_mb": round(largest, 1) if largest else None,
            "stderr_tail": err.strip().splitlines()[-2:]}


def disk_mb(path: Path) -> float:
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file()) / 2**20


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", type=int, required=True)
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--keep", action="store_true", help="keep the run folder")
    ap.add_argument("--skip-run", action="store_true", help="report an existing run only")
    ap.add_argument("--skip-report", action="store_true", help="measure the run only")
    ap.add_argument("--report-out", type=Path, default=None)
    a = ap.parse_args()
    results = []
    if not a.skip_run:
        r = measure([str(BIN), "run", "--games", str(a.games), "--players", "4",
                     "--seed", str(a.seed), "--jobs", str(a.jobs), "--quiet", "--out",
                     str(a.out)])
        r["disk_mb"] = round(disk_mb(a.out), 1)
        results.append(r)
        print(json.dumps({"games": a.games, **r}), flush=True)
    if a.skip_report:
        return 0
    report = a.report_out or a.out.with_suffix(".html")
    r = measure([str(BIN), "report", str(a.out), "--out", str(report), "--jobs",
                 str(a.jobs), "--quiet"])
    r["disk_mb"] = round(disk_mb(a.out), 1)
    print(json.dumps({"games": a.games, **r}), flush=True)
    if not a.keep:
        shutil.rmtree(a.out, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
