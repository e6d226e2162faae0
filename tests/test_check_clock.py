"""A check's time limit is counted on the check's clock (lab/clock.py), as the TIME_LIMIT row of
docs/reference.md's Options promises: the time the machine kept its processes waiting for a CPU is
not counted, the time they ran or slept is, and no code slows the clock below MIN_PACE of the wall
clock (a check still ends by ten times its limit).

Busy neighbours are CPU hogs pinned, with the code watched, to one CPU, each in a session of its
own (the kernel shares a CPU between sessions, not between processes).
"""

import json
import os
import subprocess
import sys
import time

import pytest
from learner_folders import make_learner

from lab.clock import MIN_PACE, CheckClock
from lab.model.course import LAB_ROOT

CPU = min(os.sched_getaffinity(0))  # the one CPU the hogs and the code watched share
HOGS = 6  # the code watched gets a seventh of its CPU at most (pinned together, the hogs hold one CPU)


@pytest.fixture
def hogs():
    started = [
        subprocess.Popen([sys.executable, "-c", "while True: pass"], preexec_fn=_on_one_cpu, start_new_session=True)
        for _ in range(HOGS)
    ]
    yield
    for hog in started:
        hog.kill()
        hog.wait()


def _on_one_cpu():
    os.sched_setaffinity(0, {CPU})


def _watched(code):
    """A process running `code` on the hogs' CPU, and a clock of it started with it."""
    process = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True, preexec_fn=_on_one_cpu)
    return process, CheckClock(process.pid)


def test_waiting_for_a_cpu_is_not_counted(hogs):
    process, clock = _watched(
        "import sys, time\nwhile time.process_time() < 0.3: pass\nprint('done', flush=True)\nsys.stdin.read()"
    )
    with process:
        assert process.stdout.readline() == "done\n"
        seconds, wall = clock.seconds(), time.monotonic() - clock.began
        process.kill()
    assert wall > 1.0, f"the hogs did not slow the process down ({wall:.2f} s): no test of the clock"
    # 0.3 s of work and Python's start, unless the machine is so busy that the clock's least pace counts
    assert seconds <= max(0.7, wall * MIN_PACE + 0.05), (seconds, wall)
    assert seconds >= 0.25, (seconds, wall)  # the work, less what ran before the clock started


def test_sleeping_is_counted_whole(hogs):
    process, clock = _watched("import time\ntime.sleep(1.0)")
    with process:
        process.wait()
        seconds = clock.seconds()
    assert seconds >= 0.95


def test_threads_standing_ready_cannot_stop_the_clock(hogs):
    process, clock = _watched(
        "import threading, time\n"
        "def spin():\n    while True: pass\n"
        "for _ in range(32): threading.Thread(target=spin, daemon=True).start()\n"
        "time.sleep(60)"
    )
    with process:
        time.sleep(1.5)
        seconds, wall = clock.seconds(), time.monotonic() - clock.began
        process.kill()
    assert seconds >= wall * MIN_PACE - 0.01, (seconds, wall)


def _check(step, impl, folder, limit, pinned, credit=False, budget=None):
    out = folder / "results.json"
    arguments = [str(step), "--impl", str(impl), "--no-mutants", "--fresh", "--time-limit", f"{limit:g}"]
    arguments += ["--credit"] if credit else []
    arguments += ["--budget", f"{budget:g}"] if budget else []
    started = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-m", "lab", "check", *arguments, "--json", str(out)],
        cwd=folder,
        preexec_fn=_on_one_cpu if pinned else None,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert out.exists(), done.stdout + done.stderr
    return json.loads(out.read_text())["checks"], time.monotonic() - started


@pytest.mark.long
def test_an_honest_step_beside_busy_neighbours_passes_within_a_short_limit(hogs, tmp_path):
    """The reference's step 4 needs at most about half a second of CPU per check (its races start
    learner processes): with a limit of one second, on a CPU it gets a seventh of, the wall clock
    times out several of its checks."""
    checks, _ = _check(4, LAB_ROOT / "solutions", tmp_path, limit=1, pinned=True, credit=True)
    not_passed = [(c["check"], c["status"], c["message"]) for c in checks if c["status"] != "passed"]
    assert checks and not not_passed, not_passed


@pytest.mark.long
def test_a_budget_beside_busy_neighbours_leaves_out_the_waits_too(hogs, tmp_path):
    """Step 4's checks need about two seconds of CPU in all: a budget of eight, on a CPU the run
    gets a seventh of, would be used up on the wall clock."""
    checks, seconds = _check(4, LAB_ROOT / "solutions", tmp_path, limit=10, pinned=True, credit=True, budget=8)
    not_passed = [(c["check"], c["status"], c["message"]) for c in checks if c["status"] != "passed"]
    assert checks and not not_passed, (seconds, not_passed)


def test_code_spinning_in_many_threads_still_ends_by_ten_times_the_limit(tmp_path):
    impl = make_learner(tmp_path / "learner", "complete", checkout=False)
    renew = impl / "05-renew" / "step.py"
    renew.write_text(
        renew.read_text()
        + "\n\ndef renew(path, job_id, owner, fence, now, ttl):\n"
        + "    import threading\n"
        + "    def spin():\n        while True:\n            pass\n"
        + "    spinners = [threading.Thread(target=spin) for _ in range(64)]\n"
        + "    for spinner in spinners:\n        spinner.start()\n"
        + "    spinners[0].join()\n",
        encoding="utf-8",
    )
    limit = 0.5
    checks, _ = _check(5, impl, tmp_path, limit=limit, pinned=False, credit=True)
    timed_out = [c for c in checks if c["step"] == 5 and c["status"] == "timeout" and c["duration"] > 0]
    assert timed_out, [(c["check"], c["status"]) for c in checks if c["step"] == 5]
    assert all(c["duration"] <= limit / MIN_PACE + 1.0 for c in timed_out), [c["duration"] for c in timed_out]


def test_a_clock_with_nothing_left_out_says_zero_never_below():
    """grades.csv writes the waits left out as a number: never '-0.0', which a spreadsheet guard
    would turn into text."""
    clock = CheckClock()
    time.sleep(0.05)
    left_out = clock.waits_left_out()
    assert left_out >= 0.0 and not f"{left_out:.1f}".startswith("-")
