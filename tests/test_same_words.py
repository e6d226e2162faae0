"""The same code is shown the same words on every run: Hypothesis's search and shrinking are
bounded by numbers of calls, never by the clock, so a loaded machine changes how long a report
takes, not what it says."""

import os
import subprocess
import sys
from contextlib import contextmanager

import pytest
from hypothesis import example, given, settings

from lab.model.course import LAB_ROOT, load_course
from lab.model.implementation import load, read
from lab.model.mutants import SOLUTIONS_DIR

sys.path.insert(0, str(LAB_ROOT / "checks"))
import rules
import sequences

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
@pytest.mark.long
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


# ---------------------------------------------------------------------------------------------
# A legal race does not reach the words: claim_many's winner is any of its owners (C8.2), so a
# generated sequence whose later calls or whose words followed the winner would say one thing on
# one run and another on the next (a run in parts once showed another counterexample of step 8).


def _reference(winner_last):
    """The reference, its claim_many's claims made one after the other, the first or the last
    owner's first: each a winner the contract allows."""
    lease = load(read(SOLUTIONS_DIR, label="solutions")).module

    def claim_many(path, job_id, owners, now, ttl):
        order = list(reversed(range(len(owners)))) if winner_last else list(range(len(owners)))
        answers = [None] * len(owners)
        for index in order:
            answers[index] = lease.claim(path, job_id, owners[index], now, ttl)
        return answers

    lease.claim_many = claim_many
    return lease


def _words(lease, path, rows, script):
    sequence = sequences.Sequence(lease, str(path), rows)
    try:
        sequence.run(script)
    except Exception as error:  # noqa: BLE001 - a refusal's words are words too
        return [*map(str, sequence.history), repr(error)]
    return list(map(str, sequence.history))


@settings(max_examples=60, derandomize=True, database=None, deadline=None)
@example(rows=sequences.COVERING_TABLE, script=rules.of("claim_many").COVERING)
@given(
    rows=sequences.TABLES,
    script=sequences.calls([step.function for step in load_course()] + ["update"], "claim_many"),
)
def test_a_generated_sequence_says_the_same_whichever_owner_claim_many_lets_win(tmp_path_factory, rows, script):
    first, last = _reference(winner_last=False), _reference(winner_last=True)
    folder = tmp_path_factory.mktemp("winners")
    first.init_db(str(folder / "first.db"))
    last.init_db(str(folder / "last.db"))
    assert _words(first, folder / "first.db", rows, script) == _words(last, folder / "last.db", rows, script)
