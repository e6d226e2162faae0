"""The mutation report's one runner (lab.mutation.kill_runs, lab.mutation.listing): each mutant
against its step's checks, again with the later steps when those do not kill it, its status from
the checks' results; a mutant that no check can call is not run."""

import pytest

from lab.model.course import load_course
from lab.model.implementation import assemble, read
from lab.model.mutants import SOLUTIONS_DIR
from lab.model.results import Result
from lab.mutation import equivalents, kill_runs, listing, matrix
from lab.mutation.places import Places
from lab.mutation.variants import Variant
from lab.text.messages import say

SOURCE = assemble(read(SOLUTIONS_DIR, label="solutions"))
EVERY_STEP = tuple(step.number for step in load_course())
ONE_FILE = Places.one("solutions.py", SOURCE)


def variant(function, number, source=SOURCE):
    """A stand-in mutant of function: its text unchanged but for a comment."""
    start = source.index(f"def {function}(")
    end = source.find("\ndef ", start + 1)
    original = source[start : end if end != -1 else len(source)].rstrip()
    return Variant(
        f"lease.x_{function}__mutmut_{number}", function, number, original, original + f"  # mutant {number}"
    )


class Calls(list):
    failing = frozenset()  # (mutant id, step) whose check fails
    cached = frozenset()  # target ids whose results come from the cache


@pytest.fixture
def matrix_run(monkeypatch):
    """A stand-in for the kill matrix: every job's checks pass, but those in `failing` (by mutant
    id and step) fail. Returns the jobs it was given, call by call."""
    calls = Calls()

    def kill_matrix(jobs):
        calls.append(jobs)
        found = {}
        for job in jobs:
            target_id, steps = job.target.id, job.target.steps
            mutant = target_id.removesuffix(" with later steps")
            found[target_id] = [
                Result(
                    f"check_{s}",
                    f"check_{s}",
                    target_id,
                    s,
                    [],
                    "failed" if (mutant, s) in calls.failing else "passed",
                    "",
                    0.0,
                    reused=target_id in calls.cached,
                )
                for s in steps
            ]
        return found

    monkeypatch.setattr(matrix, "kill_matrix", kill_matrix)
    return calls


@pytest.fixture
def mutants():
    found = [variant("claim", 1), variant("claim", 2), variant("release", 3)]
    return found, listing.mutmut_mutants(found, SOURCE, ONE_FILE, EVERY_STEP, equivalents.Ledger())


def test_a_mutant_its_own_steps_checks_kill_runs_once(matrix_run, mutants, tmp_path):
    found, listed = mutants
    matrix_run.failing = {("lease.x_claim__mutmut_1", 4)}
    results = kill_runs.run(listed, found, SOURCE, EVERY_STEP, tmp_path, lambda message: None)
    claim = next(m for m in listed if m.id == "lease.x_claim__mutmut_1")
    assert claim.status == "killed" and [r.check for r in results[claim.id]] == ["check_4"]
    assert "lease.x_claim__mutmut_1 with later steps" not in [job.target.id for job in matrix_run[-1]]


def test_a_mutant_only_a_later_step_kills_runs_again_with_the_later_steps(matrix_run, mutants, tmp_path):
    found, listed = mutants
    matrix_run.failing = {("lease.x_claim__mutmut_2", 8)}  # claim_many calls claim
    results = kill_runs.run(listed, found, SOURCE, EVERY_STEP, tmp_path, lambda message: None)
    claim = next(m for m in listed if m.id == "lease.x_claim__mutmut_2")
    assert claim.status == "killed"
    assert [(r.step, r.status) for r in results[claim.id]] == [
        (4, "passed"),
        (5, "passed"),
        (6, "passed"),
        (7, "passed"),
        (8, "failed"),
    ]
    assert ("lease.x_claim__mutmut_2 with later steps", (4, 5, 6, 7, 8)) in [
        (job.target.id, job.target.steps) for job in matrix_run[-1]
    ]


def test_a_mutant_no_check_kills_survives_after_the_later_steps_ran_too(matrix_run, mutants, tmp_path):
    found, listed = mutants
    kill_runs.run(listed, found, SOURCE, EVERY_STEP, tmp_path, lambda message: None)
    release = next(m for m in listed if m.id == "lease.x_release__mutmut_3")
    assert release.status == "survived"
    assert ("lease.x_release__mutmut_3 with later steps", (7, 8)) in [
        (job.target.id, job.target.steps) for job in matrix_run[-1]
    ]


def test_the_mutants_that_ran_are_counted_once_each_when_some_run_again_with_the_later_steps(
    matrix_run, mutants, tmp_path
):
    """Announced: 3 mutants; claim_2 and release_3 run again with the later steps. All three ran
    (counting each run: 5 of 3); then, with both runs of release_3 in the cache, 2 ran and 1 came
    from the cache."""
    found, listed = mutants
    matrix_run.failing = {("lease.x_claim__mutmut_1", 4), ("lease.x_claim__mutmut_2", 8)}
    matrix_run.cached = {"lease.x_release__mutmut_3"}
    said = []
    kill_runs.run(listed, found, SOURCE, EVERY_STEP, tmp_path, said.append)
    assert [len(call) for call in matrix_run] == [3, 2]
    assert said == [
        say("mutation.matrix_start", "en", count=3),
        say("mutation.matrix_done", "en", ran=3, cached=0),
    ]
    matrix_run.cached = {"lease.x_release__mutmut_3", "lease.x_release__mutmut_3 with later steps"}
    said.clear()
    listed = listing.mutmut_mutants(found, SOURCE, ONE_FILE, EVERY_STEP, equivalents.Ledger())  # a new report
    kill_runs.run(listed, found, SOURCE, EVERY_STEP, tmp_path, said.append)
    assert said[-1] == say("mutation.matrix_done", "en", ran=2, cached=1)


def test_a_mutant_of_a_step_that_does_not_pass_yet_has_no_tests_and_does_not_run(matrix_run, tmp_path):
    found = [variant("renew", 1), variant("claim", 2)]
    listed = listing.mutmut_mutants(found, SOURCE, ONE_FILE, (1, 2, 3, 4), equivalents.Ledger())
    assert [m.status for m in listed] == ["no tests", "not checked"]
    kill_runs.run(listed, found, SOURCE, (1, 2, 3, 4), tmp_path, lambda message: None)
    assert [job.target.id for call in matrix_run for job in call] == ["lease.x_claim__mutmut_2"]
    assert listed[0].status == "no tests" and not listed[0].scored


def test_a_helper_that_no_check_can_call_has_no_tests():
    source = SOURCE + "\n\ndef _unused(path):\n    return path\n"
    found = [variant("_unused", 1, source)]
    (mutant,) = listing.mutmut_mutants(
        found, source, Places.one("solutions.py", source), EVERY_STEP, equivalents.Ledger()
    )
    assert mutant.status == "no tests"


def test_a_status_is_read_from_the_checks_results():
    def results(*statuses):
        return [Result(f"n{i}", f"c{i}", "m", 1, [], status, "", 0.0) for i, status in enumerate(statuses)]

    assert kill_runs.status(results("passed", "passed")) == "survived"
    assert kill_runs.status(results("passed", "failed", "timeout")) == "killed"
    assert kill_runs.status(results("passed", "timeout")) == "timeout"
    assert kill_runs.status(results("crashed")) == "killed"
    assert kill_runs.status([]) == "not checked"
