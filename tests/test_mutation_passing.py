"""Which steps an implementation passes (lab.mutation.passing), through the kill matrix's cached
runs: a re-run checks again only the checks whose reachable code changed, and a step that starts
failing is seen."""

import shutil

from lab import cache
from lab.grading import kill_matrix
from lab.model import checks
from lab.model.course import load_course
from lab.model.mutants import SOLUTIONS_DIR
from lab.model.results import Result
from lab.mutation import passing

RELEASE = "07-release/step.py"
EVERY_STEP = tuple(step.number for step in load_course())


def fake_run(calls, failing=()):
    """A stand-in for lab.running.runner.run: one result per check asked for, failed in `failing` steps."""

    def run(targets, time_limit, budget=None, probe=None):
        (target,) = targets
        calls.append(target.steps)
        calls.checks = target.checks
        return [
            Result(f"{check}", check, target.id, n, [], "failed" if n in failing else "passed", "", 0.0)
            for n in target.steps
            for check in checks.checks_of(n)
            if target.checks is None or check in target.checks
        ]

    return run


class Calls(list):
    checks = None  # the checks the last run was narrowed to (None: every check of its steps)


def steps_of(impl, store, monkeypatch, failing=()):
    calls = Calls()
    monkeypatch.setattr(cache, "ROOT", store)
    monkeypatch.setattr(kill_matrix, "run", fake_run(calls, failing))
    # one part each time: which checks run is the point here (runs in parts: tests/test_kill_matrix.py)
    monkeypatch.setattr(kill_matrix, "SLOW_PER_PART", 10**6)
    return passing.passing_steps(impl, "impl", lambda message: None), calls


def test_only_the_steps_that_reach_an_edited_function_run_again(tmp_path, monkeypatch):
    impl, store = tmp_path / "impl", tmp_path / "cache"
    shutil.copytree(SOLUTIONS_DIR, impl)
    assert steps_of(impl, store, monkeypatch) == (EVERY_STEP, [EVERY_STEP])
    assert steps_of(impl, store, monkeypatch) == (EVERY_STEP, [])

    path = impl / RELEASE
    path.write_text(
        path.read_text().replace(
            "    return cursor.rowcount == 1", "    released = cursor.rowcount == 1\n    return released"
        )
    )
    # release is reached by step 7's checks and by the generated checks of the steps after it, never by 1-6
    found, calls = steps_of(impl, store, monkeypatch, failing=(7,))
    assert (found, calls) == (EVERY_STEP[:6], [EVERY_STEP[6:]])
    later = (name for step in EVERY_STEP[7:] for name, named in checks.checks_of(step).items() if "release" in named)
    assert calls.checks == (*checks.checks_of(7), *later)
    assert "test_step_8_random_calls_from_arbitrary_tables_keep_the_contract" in calls.checks
    # the failure is cached too, and so is every other step's pass; a failed race runs again
    found, calls = steps_of(impl, store, monkeypatch)
    assert (found, calls, calls.checks) == ((1, 2, 3, 4, 5, 6), [(7,)], tuple(checks.race_checks(7)))


def test_a_change_to_module_level_code_checks_every_step_again(tmp_path, monkeypatch):
    impl, store = tmp_path / "impl", tmp_path / "cache"
    shutil.copytree(SOLUTIONS_DIR, impl)
    steps_of(impl, store, monkeypatch)
    path = impl / RELEASE
    path.write_text("TIMEOUT = 5\n" + path.read_text())
    assert steps_of(impl, store, monkeypatch)[1] == [EVERY_STEP]
