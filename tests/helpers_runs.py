"""Run directories as a crash leaves them, made by the runner itself (not by editing a
finished run: a finished run no longer holds its chunks' games)."""

from __future__ import annotations

from pathlib import Path

import pytest

from bonfire_sim.sim import runner
from bonfire_sim.sim.runconfig import RunConfig


class Interrupted(Exception):
    """Stands for a crash (or Ctrl-C) at a chosen point of a run."""


def interrupted_run(config: RunConfig, out: Path, chunks: int) -> Path:
    """Run ``config`` into ``out`` and stop it once ``chunks`` chunks are written and
    logged (all of them: stopped just before the merge)."""
    calls: list[int] = []

    def stop(done: int, total: int) -> None:
        calls.append(done)
        if len(calls) > chunks:  # the first call reports the games already done
            raise Interrupted

    with pytest.raises(Interrupted):
        runner.run(config, out, progress=stop)
    return out


def played_chunks(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The chunk indices the runner plays from now on (in-process runs, ``jobs=1``)."""
    played: list[int] = []
    real = runner.run_one

    def spy(job: runner.ChunkJob) -> runner.ChunkData:
        played.append(job.index)
        return real(job)

    monkeypatch.setattr(runner, "run_one", spy)
    return played
