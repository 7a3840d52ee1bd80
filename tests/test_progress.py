"""The shared progress display: log lines off a terminal, silence with quiet."""

from __future__ import annotations

import io

from bonfire_sim.progress import Progress, track


def test_progress_logs_plain_lines_when_not_a_terminal():
    out = io.StringIO()
    with Progress(total=10, desc="games", unit="game", every=0.0, stream=out) as bar:
        bar.update(4)
        bar.update(6)
    lines = out.getvalue().splitlines()
    assert lines[0].startswith("games: 4/10 game (40%)")
    assert lines[-1].startswith("games: 10/10 game (100%)") and lines[-1].endswith("done")


def test_a_job_shorter_than_one_log_interval_prints_nothing():
    out = io.StringIO()
    with Progress(total=10, desc="games", every=60.0, stream=out) as bar:
        bar.update(10)
    assert out.getvalue() == ""


def test_progress_is_silent_when_quiet():
    out = io.StringIO()
    with Progress(total=3, desc="games", every=0.0, stream=out, quiet=True) as bar:
        bar.update(3)
        bar.write("compiling")
    assert out.getvalue() == ""


def test_track_yields_every_item_in_order():
    assert list(track(range(5), desc="x", quiet=True)) == [0, 1, 2, 3, 4]


def test_the_heartbeat_names_the_current_step_until_the_next_one():
    import io
    import time

    from bonfire_sim.progress import Heartbeat

    stream = io.StringIO()
    with Heartbeat("report", every=0.05, stream=stream) as beat:
        beat.step("section tasks: forks in 8 games")
        time.sleep(0.3)
        beat.step("writing r.html")
        time.sleep(0.2)
    lines = stream.getvalue().splitlines()
    assert lines[0] == "report: section tasks: forks in 8 games"
    beats = [line for line in lines if "s in this step" in line]
    assert sum("section tasks" in line for line in beats) >= 2
    assert "writing r.html" in beats[-1]
    short = io.StringIO()  # a command that ends (or is refused) within one interval
    with Heartbeat("report", every=5.0, stream=short) as beat:
        beat.step("loading run a")
    assert short.getvalue() == ""
    quiet = io.StringIO()
    with Heartbeat("report", every=0.05, stream=quiet, quiet=True) as beat:
        beat.step("x")
        time.sleep(0.15)
    assert quiet.getvalue() == ""
