"""A step whose checks use up time costs that step only (docs/instructor.md, BUDGET): each step's
credit run has a share of the learner's budget of its own, so a `claim` that waits while a lease is
held, which uses up the course run's budget in steps 4 to 8, still leaves steps 5 to 8 their credit
with the reference's `claim` standing in."""

import pytest
from learner_folders import make_learner

import lab.grading.classroom as classroom
from lab import cache
from lab.grading import credit, regrade
from lab.grading.submission import find_submissions
from lab.model.results import CheckStatus, Result, Words
from lab.running import probe
from lab.sandbox.loading import LoadStopped

WAITS_WHILE_HELD = """

_claim_as_written = claim


def claim(path, job_id, owner, now, ttl):
    import sqlite3
    import time

    conn = sqlite3.connect(path)
    try:
        held = conn.execute("SELECT 1 FROM jobs WHERE id = ? AND owner IS NOT NULL AND until > ?", (job_id, now)).fetchone()
    finally:
        conn.close()
    while held:  # waits for a lease that only the test's clock could end
        time.sleep(0.01)
    return _claim_as_written(path, job_id, owner, now, ttl)
"""
TIME_LIMIT, BUDGET = 3, 32  # the course run's waits (three checks of 3 s in each of steps 4-8) outlast 32 s


@pytest.mark.long
def test_a_claim_that_waits_costs_its_own_step_only(tmp_path):
    steps = make_learner(tmp_path / "class" / "waits", "complete", checkout=False)
    claim_file = steps / "04-claim" / "step.py"
    claim_file.write_text(claim_file.read_text() + WAITS_WHILE_HELD, encoding="utf-8")
    outcome = classroom.check_class(tmp_path / "class", time_limit=TIME_LIMIT, budget=BUDGET, mutants=False)
    (learner,) = outcome.submissions
    course_steps = sorted({r.step for r in learner.results})
    credited = [n for n in course_steps if credit.earned(learner.credit.get(n, []))]
    assert learner.budget_used, "the course run should have used up its budget: no test of the shares"
    assert credited == [1, 2, 3, 5, 6, 7, 8], [(n, [r.status for r in learner.credit.get(n, [])]) for n in course_steps]


@pytest.mark.long
def test_a_learner_whose_budget_ran_out_is_kept_and_a_re_grade_checks_nobody(tmp_path, monkeypatch):
    """The verdict a class run gave a learner whose budget ran out is kept while their files are
    unchanged: a re-grade (in another language, say) checks nobody and words the same verdicts;
    --regrade-all (use_cache=False) checks them again."""
    monkeypatch.setattr(cache, "ROOT", tmp_path / "cache")
    steps = make_learner(tmp_path / "class" / "waits", "complete", checkout=False)
    claim_file = steps / "04-claim" / "step.py"
    claim_file.write_text(claim_file.read_text() + WAITS_WHILE_HELD, encoding="utf-8")
    graded = classroom.check_class(tmp_path / "class", time_limit=TIME_LIMIT, budget=BUDGET, mutants=False)
    again = classroom.check_class(tmp_path / "class", time_limit=TIME_LIMIT, budget=BUDGET, mutants=False, lang="ja")
    ((first,), (kept,)) = graded.submissions, again.submissions
    assert first.budget_used and not first.cached and kept.cached and kept.budget_used
    assert (kept.results, kept.credit) == (first.results, first.credit)
    every = [*kept.results, *(r for n in sorted(kept.credit) for r in kept.credit[n])]
    assert not all(r.complete for r in every), "no verdict was cut short: nothing of CUT_SHORT was tested"


def test_a_run_that_lost_a_child_is_never_kept(tmp_path, monkeypatch):
    monkeypatch.setattr(cache, "ROOT", tmp_path / "cache")
    steps = make_learner(tmp_path / "class" / "ada", "complete", checkout=False)
    (submission,) = find_submissions(tmp_path / "class")
    lost = Result("x::test_x", "test_x", "ada", 1, [], CheckStatus.FAILED, Words("lost_run"), 0.0, complete=False)
    submission.impl, submission.results = steps, [lost]
    regrade.keep(submission, "k")
    assert not regrade.load(find_submissions(tmp_path / "class")[0], "k")


LOOPS_AT_IMPORT = "\nwhile True:  # the top level never ends\n    pass\n"


def test_a_file_that_hangs_at_import_costs_its_own_step_only(tmp_path, monkeypatch):
    """Step 2's file never finishes running: steps 3 to 8 are credited, the reference's step 2
    standing in, and the runs after the first know the file without waiting for it again."""
    monkeypatch.setattr(cache, "ROOT", tmp_path / "cache")
    steps = make_learner(tmp_path / "class" / "loops", "complete", checkout=False)
    enqueue_file = steps / "02-enqueue" / "step.py"
    enqueue_file.write_text(enqueue_file.read_text() + LOOPS_AT_IMPORT, encoding="utf-8")
    stops = []
    real_load = probe.load

    def load(process, implementation, known, *rest, **named):
        try:
            return real_load(process, implementation, known, *rest, **named)
        except LoadStopped as stopped:
            stops.append(str(stopped.file.path))
            raise

    monkeypatch.setattr(probe, "load", load)
    outcome = classroom.check_class(tmp_path / "class", time_limit=3, budget=64, mutants=False)
    (learner,) = outcome.submissions
    credited = [n for n in range(1, 9) if credit.earned(learner.credit.get(n, []))]
    assert credited == [1, 3, 4, 5, 6, 7, 8], [
        (n, [r.said("en") for r in learner.credit.get(n, [])][:1]) for n in range(1, 9)
    ]
    assert stops == [str(enqueue_file)]  # waited for once, by the course run's probe: never by a credit run


RAISES_AFTER_ITS_FUNCTION = "\nraise RuntimeError('half-typed line')\n"


def test_a_file_that_raises_after_defining_its_function_costs_its_own_step(tmp_path, monkeypatch):
    """Step 4's file defines a correct claim, then raises: the module does not import, so step 4
    earns no credit (as its course verdict says), and steps 5 to 8 are credited, the reference's
    step 4 standing in for it."""
    monkeypatch.setattr(cache, "ROOT", tmp_path / "cache")
    steps = make_learner(tmp_path / "class" / "raises", "complete", checkout=False)
    claim_file = steps / "04-claim" / "step.py"
    claim_file.write_text(claim_file.read_text() + RAISES_AFTER_ITS_FUNCTION, encoding="utf-8")
    outcome = classroom.check_class(tmp_path / "class", time_limit=10, budget=120, mutants=False)
    (learner,) = outcome.submissions
    credited = [n for n in range(1, 9) if credit.earned(learner.credit.get(n, []))]
    assert credited == [1, 2, 3, 5, 6, 7, 8], [
        (n, [r.said("en") for r in learner.credit.get(n, [])][:1]) for n in range(1, 9)
    ]
    assert "RuntimeError" in learner.credit[4][0].said("en")
