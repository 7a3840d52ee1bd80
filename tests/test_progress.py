"""The shared progress display: log lines off a terminal, silence with quiet."""

from __future__ import annotations

import io

from bonfire_sim.infra.progress import Progress, track


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


def test_a_heartbeat_logs_while_one_long_unit_runs():
    import time

    out = io.StringIO()
    with Progress(total=2, desc="point 1/2: forks", unit="game", every=0.05, stream=out,
                  heartbeat=True):
        time.sleep(0.3)  # no update at all: only the heartbeat can print
    lines = out.getvalue().splitlines()
    assert len(lines) >= 3 and lines[0].startswith("point 1/2: forks: 0/2 game (0%)")
    assert lines[-1].endswith("done")


def test_steps_show_one_step_at_a_time_and_name_each():
    from bonfire_sim.infra.progress import Steps

    out = io.StringIO()
    with Steps(every=0.0, stream=out) as steps:
        steps.start("point 1/2: games", 4, "game").update(4)
        steps.start("point 2/2: games", 4, "game").update(4)
    text = out.getvalue()
    assert text.index("point 1/2: games ...") < text.index("point 1/2: games: 4/4")
    assert text.index("point 1/2: games: 4/4") < text.index("point 2/2: games ...")
    quiet = io.StringIO()
    with Steps(quiet=True, stream=quiet) as steps:
        steps.start("games", 1).update(1)
    assert quiet.getvalue() == ""


def test_heartbeat_lines_keep_to_the_interval():
    import time

    out = io.StringIO()
    with Progress(total=1, desc="forks", every=0.2, stream=out, heartbeat=True):
        time.sleep(1.1)
    lines = [ln for ln in out.getvalue().splitlines() if ln.startswith("forks: 0/1")]
    assert len(lines) >= 4  # 1.1 s at one line per 0.2 s (a loaded machine may lose one)


def test_the_heartbeat_names_the_current_step_until_the_next_one():
    import io
    import time

    from bonfire_sim.infra.progress import Heartbeat

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
