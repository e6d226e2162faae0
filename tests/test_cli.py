"""The commands a learner types: clear usage errors, the report, the artifact, IMPL as a file."""

import shutil
import subprocess
import sys

import pytest
from hang import HANGS_AFTER

from lab.commands.steps import checked_steps as parse_steps
from lab.model.course import LAB_ROOT, load_course
from lab.model.implementation import UsageError
from lab.model.status import ExitStatus


def lab(*arguments, cwd=LAB_ROOT):
    return subprocess.run(
        [sys.executable, "-m", "lab", *arguments], cwd=cwd, capture_output=True, text=True, timeout=HANGS_AFTER
    )


@pytest.mark.parametrize(
    "typed, checked, mutated", [("4", (1, 2, 3, 4), (4,)), ("04", (1, 2, 3, 4), (4,)), ("1", (1,), (1,))]
)
def test_a_step_number_selects_steps_one_to_n_and_the_mutants_of_n(typed, checked, mutated):
    assert parse_steps(typed) == (checked, mutated)


@pytest.mark.parametrize("typed", ["", "0", str(len(load_course()) + 1), "abc", "-1", "4.5"])
def test_a_mistyped_step_gets_a_one_line_usage_message_and_exit_status_2(typed):
    with pytest.raises(UsageError):
        parse_steps(typed)
    done = lab("check", typed)
    assert done.returncode == ExitStatus.USAGE
    assert done.stderr.count("\n") == 1 and "make check-step N" in done.stderr
    assert "Traceback" not in done.stdout + done.stderr


def test_a_missing_impl_path_is_a_usage_error():
    done = lab("check", "1", "--impl", "no/such/folder")
    assert done.returncode == ExitStatus.USAGE and "no such folder" in done.stderr and "Traceback" not in done.stderr


def test_the_stubs_report_says_not_implemented_plainly_without_a_traceback(stubs):
    done = lab("check", "1", "--no-mutants", "--impl", str(stubs))
    assert done.returncode == ExitStatus.SOME_FAIL
    assert f"not implemented yet: {stubs}/01-init-db/step.py" in done.stdout
    assert "Traceback" not in done.stdout + done.stderr
    assert "`make hint 1`" in done.stdout  # the command that asks the step's questions one at a time


def test_the_report_is_in_japanese_on_request(stubs):
    done = lab("check", "1", "--no-mutants", "--lang", "ja", "--impl", str(stubs))
    assert "まだ実装されていません" in done.stdout and "ステップ 1" in done.stdout


def test_the_report_names_the_checks_that_catch_each_mutant():
    done = lab("check", "4", "--impl", "solutions")
    assert done.returncode == ExitStatus.ALL_PASS
    assert "caught  4-c · m4-expired-counts-as-live  (the broken change to review)" in done.stdout
    assert "caught by: test_claim_wins_at_the_moment_the_lease_expires" in done.stdout
    assert "SURVIVED" not in done.stdout


def test_the_artifact_is_one_importable_module_that_passes_every_check(tmp_path):
    out = tmp_path / "lease.py"
    assert lab("artifact", "--impl", "solutions", "--out", str(out)).returncode == 0
    done = lab("check", "8", "--impl", str(out), "--no-mutants")
    assert done.returncode == ExitStatus.ALL_PASS, done.stdout
    compiled = subprocess.run(
        [
            sys.executable,
            "-c",
            f"import runpy; m = runpy.run_path({str(out)!r}); print(sorted(k for k in m if not k.startswith('_')))",
        ],
        capture_output=True,
        text=True,
    )
    assert "claim_many" in compiled.stdout and "init_db" in compiled.stdout


def test_another_checkout_is_checked_with_these_checks_and_left_unchanged(tmp_path):
    learner = tmp_path / "learner"
    shutil.copytree(LAB_ROOT / "solutions", learner)
    before = {p: p.read_bytes() for p in learner.rglob("*") if p.is_file()}
    assert lab("check", "3", "--impl", str(learner), "--no-mutants").returncode == ExitStatus.ALL_PASS
    assert {p: p.read_bytes() for p in learner.rglob("*") if p.is_file()} == before


RACY_CLAIM = '''import sqlite3
from contextlib import closing


def claim(path, job_id, owner, now, ttl):
    """Reads, closes the connection, then updates: the race step 4 forbids."""
    if ttl <= 0:
        raise ValueError(ttl)
    with closing(sqlite3.connect(path)) as conn:
        row = conn.execute("SELECT until, done, fence FROM jobs WHERE id=?", (job_id,)).fetchone()
    if row is None or row[1] or row[0] > now:
        return None
    with closing(sqlite3.connect(path)) as conn, conn:
        conn.execute("UPDATE jobs SET owner=?, until=?, fence=? WHERE id=?", (owner, now + ttl, row[2] + 1, job_id))
    return row[2] + 1
'''


def test_a_claim_that_reads_outside_the_write_lock_is_caught_by_the_race_checks(tmp_path):
    learner = tmp_path / "learner"
    shutil.copytree(LAB_ROOT / "solutions", learner)
    (learner / "04-claim" / "step.py").write_text(RACY_CLAIM)
    done = lab("check", "8", "--impl", str(learner), "--no-mutants")
    assert done.returncode == ExitStatus.SOME_FAIL
    assert "✘ C4.6  test_racing_claims_have_exactly_one_winner" in done.stdout
    assert "✘ C8.1 C8.2  test_claim_many_has_one_winner_and_stores_one_of_its_owners" in done.stdout
