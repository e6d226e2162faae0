"""Broken learner code never breaks the checker: a specific message naming the step and file,
the rest of the report, exit status 1, and the learner's folder exactly as it was.

Every case builds its own folder in a tmp dir and runs ``python -m lab check N`` on it; the runs
go side by side, one per core. Only the code that hangs gets a short time limit (each of its
checks costs the whole limit); the others get the default, which they never use up, so that the
honest checks around the broken one pass however busy the machine is.
"""

import json
import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

import pytest
from hang import HANGS_AFTER
from learner_folders import BROKEN, fingerprint, make_learner

from lab.model.course import LAB_ROOT, load_course
from lab.model.outcomes import LoadFailure
from lab.model.status import ExitStatus
from lab.model.targets import stop_if_blocked

# Code that hangs: every check that calls it runs out its limit. Three seconds is three times
# the slowest honest check of the earlier steps on a quiet machine; the locked database needs
# more than the checks' own 1 s sqlite timeout to show as locked.
HANGS = {
    "endless_loop": 3,
    "endless_loop_at_import": 3,
    "deadlock_in_threads": 3,
    "uninterruptible_hang": 3,
    "database_left_locked": 4,
}
DEFAULT_LIMIT = 10


def _runs(tmp_path_factory, kinds):
    """kind -> (exit status, stdout, results JSON, fingerprint before, fingerprint after)."""

    # Made here, one after the other: mktemp from several threads at once can race.
    folders = {kind: tmp_path_factory.mktemp(kind) for kind in kinds}

    def one(kind):
        folder = folders[kind]
        impl = make_learner(folder / "learner", kind, checkout=kind.endswith(("error", "exit", "loop")))
        before = fingerprint(folder / "learner")
        step, *_ = BROKEN[kind]
        out = folder / "results.json"
        arguments = ["check", str(step), "--impl", str(impl), "--no-mutants", "--json", str(out)]
        arguments += ["--time-limit", str(HANGS.get(kind, DEFAULT_LIMIT))]
        done = subprocess.run(
            [sys.executable, "-m", "lab", *arguments], cwd=folder, capture_output=True, text=True, timeout=HANGS_AFTER
        )
        results = json.loads(out.read_text()) if out.exists() else None
        return kind, (done.returncode, done.stdout + done.stderr, results, before, fingerprint(folder / "learner"))

    with ThreadPoolExecutor(os.cpu_count() or 2) as pool:
        return dict(pool.map(one, kinds))


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """The kinds that end by themselves."""
    return _runs(tmp_path_factory, [kind for kind in BROKEN if kind not in HANGS])


@pytest.fixture(scope="module")
def hanging_runs(tmp_path_factory):
    """The kinds that hang: each of their checks runs out its limit (the long tier, make test-long)."""
    return _runs(tmp_path_factory, list(HANGS))


def ran(request, kind):
    return request.getfixturevalue("hanging_runs" if kind in HANGS else "runs")[kind]


def kinds(chosen=BROKEN):
    """The kinds as parameters, those that hang in the long tier."""
    return [pytest.param(kind, marks=pytest.mark.long) if kind in HANGS else kind for kind in chosen]


@pytest.mark.parametrize("kind", kinds())
def test_broken_code_gets_a_specific_message_and_the_report_goes_on(request, kind):
    status, output, results, _, _ = ran(request, kind)
    step, _, _, words = BROKEN[kind]
    assert "Traceback" not in output, output
    assert results is not None, output
    messages = "\n".join(c["message"] for c in results["checks"] if c["step"] == step)
    for word in words:
        assert word in messages, f"{word!r} not in the messages of step {step}:\n{messages}"
    for word in words:
        assert word in output, f"{word!r} not in the report:\n{output}"
    # The rest of the report still prints: every step checked has its line.
    for number in range(1, step + 1):
        assert f"Step {number} ·" in output
    assert len({c["step"] for c in results["checks"]}) == step
    assert status == (ExitStatus.ALL_PASS if not words else ExitStatus.SOME_FAIL), output


@pytest.mark.parametrize("kind", kinds())
def test_no_learner_file_is_modified_moved_or_deleted(request, kind):
    _, _, _, before, after = ran(request, kind)
    assert after == before


@pytest.mark.parametrize("kind", kinds([k for k, (step, *_) in BROKEN.items() if step > 2]))
def test_the_steps_before_the_broken_one_still_pass(request, kind):
    _, _, results, _, _ = ran(request, kind)
    step = BROKEN[kind][0]
    # Steps that load before the broken file and do not call into it are unaffected.
    earlier = [c for c in results["checks"] if c["step"] < step and c["step"] <= 2]
    assert earlier and all(c["status"] == "passed" for c in earlier), [c for c in earlier if c["status"] != "passed"]


def test_a_flood_of_output_leaves_the_checks_passing(runs):
    _, _, results, _, _ = runs["stdout_flood"]
    assert all(c["status"] == "passed" for c in results["checks"])


def test_the_broken_file_is_named_in_japanese_too(tmp_path):
    impl = make_learner(tmp_path / "learner", "misnamed_function", checkout=False)
    done = subprocess.run(
        [sys.executable, "-m", "lab", "check", "4", "--impl", str(impl), "--no-mutants", "--lang", "ja"],
        cwd=LAB_ROOT,
        capture_output=True,
        text=True,
        timeout=HANGS_AFTER,
    )
    assert done.returncode == ExitStatus.SOME_FAIL
    assert "04-claim/step.py に `claim` が定義されていません" in done.stdout
    assert "ステップ 4 を検査できません" in done.stdout


def test_a_file_that_ends_the_process_at_import_is_run_once_not_once_per_check(runs):
    status, _, results, _, _ = runs["os_exit_at_import"]
    step_7 = [c for c in results["checks"] if c["step"] == 7]
    assert step_7 and all(c["status"] == "error" and "ended the process" in c["message"] for c in step_7)
    assert load_course()[6].function in step_7[0]["message"]


def test_a_check_stops_at_the_first_file_it_needs_that_does_not_load_and_never_at_another():
    problems = {6: "06-complete/step.py: boom", 8: "08-claim-many/step.py: bang"}
    needs = frozenset({"claim", "complete", "release", "claim_many"})
    with pytest.raises(LoadFailure) as own:  # its own step's file first
        stop_if_blocked(8, problems, needs)
    assert str(own.value) == "step 8 cannot be checked: 08-claim-many/step.py: bang (needed: `claim_many`)"
    with pytest.raises(LoadFailure) as earlier:  # then the first earlier one whose function it calls
        stop_if_blocked(7, problems, needs)
    assert str(earlier.value) == "step 7 cannot be checked: 06-complete/step.py: boom (needed: `complete`)"
    stop_if_blocked(7, problems, frozenset({"claim", "release"}))  # it calls nothing of step 6
    stop_if_blocked(5, problems, needs)  # a later step's file never stops an earlier step's check
