"""The same code is shown the same words on every run: Hypothesis's search and shrinking are
bounded by numbers of calls, never by the clock, so a loaded machine changes how long a report
takes, not what it says."""

import os
import subprocess
import sys
from contextlib import contextmanager

import pytest

from lab.model.course import LAB_ROOT

WRONG = LAB_ROOT / "tests" / "fixtures" / "independent" / "wrong"
# The quiet run may take all the time it wants; beside the hogs the default time limit holds (a
# check that the clock bounded would stop shrinking at a quarter of it, and show other words).
QUIET_LIMIT, LOADED_LIMIT = 120, 10


def lab(*arguments):
    return subprocess.run([sys.executable, "-m", "lab", *arguments], cwd=LAB_ROOT, capture_output=True, timeout=1200)


@contextmanager
def cpu_hogs(count):
    """`count` processes that spin on the CPU for as long as the block runs."""
    hogs = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(count)]
    try:
        yield
    finally:
        for hog in hogs:
            hog.kill()
            hog.wait()


@pytest.mark.e2e
def test_a_failing_implementation_gets_a_byte_identical_report_beside_cpu_hogs():
    # claim by an upsert: the generated checks of steps 4-7 find it (and shrink it).
    # --fresh: both run every check (else the second would reuse what the first found, and say so).
    arguments = (
        "check",
        "7",
        "--impl",
        str(WRONG / "wrong_s4_upsert_claim.py"),
        "--no-mutants",
        "--fresh",
        "--time-limit",
    )
    quiet = lab(*arguments, str(QUIET_LIMIT))
    with cpu_hogs(2 * (os.cpu_count() or 1)):
        loaded = lab(*arguments, str(LOADED_LIMIT))
    assert quiet.returncode == loaded.returncode == 1, quiet.stdout.decode()[-2000:]
    assert b"test_step_7_random_calls_from_arbitrary_tables_keep_the_contract" in quiet.stdout
    assert quiet.stdout.count(b"called:   the table:") == 4  # the failing sequences of steps 4-7
    assert loaded.stdout == quiet.stdout
