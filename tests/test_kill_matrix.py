"""The lab guards itself: the reference passes, the stubs fail, every mutant is caught as declared;
and the kill matrix is computed once, cached on what decides it."""

import os
import shutil
import subprocess
import sys
from collections import defaultdict
from dataclasses import asdict, replace

import pytest

from lab import cache
from lab.grading import credit, kill_matrix
from lab.grading.check import every_step
from lab.grading.checker_digest import checker_files
from lab.model import checks
from lab.model.course import LAB_ROOT, all_clauses, load_course
from lab.model.implementation import read
from lab.model.mutants import load_mutants
from lab.model.pristine import stub_text
from lab.model.results import Result
from lab.model.starter import swapped
from lab.model.status import ExitStatus
from lab.model.targets import PLAN_VARIABLE, Plan, Target
from lab.mutation import matrix
from lab.running import probe
from lab.running.probe import find_problems
from lab.running.runner import run
from lab.text.language import LANGUAGES


def test_the_reference_passes_every_check_of_every_step(reference_run):
    failing = [(r.nodeid, r.status, r.said("en")) for r in reference_run.results if r.status != "passed"]
    assert not failing
    assert {r.step for r in reference_run.results} == {s.number for s in load_course()}
    assert reference_run.exit_status == ExitStatus.ALL_PASS


def test_every_contract_clause_has_a_check(reference_run):
    checked = {clause for r in reference_run.results for clause in r.clauses}
    for lang in LANGUAGES:
        assert set(all_clauses(lang)) - checked == set()
    assert checked - set(all_clauses("en")) == set(), "a check names a clause that no contract has"


def test_every_mutant_is_caught_by_its_declared_checks(reference_run):
    for verdict in reference_run.verdicts:
        missed = set(verdict.mutant.caught_by) - set(verdict.killed_by)
        assert not missed, f"{verdict.mutant.id} is not caught by {missed}"


def test_every_mutant_still_passes_a_check_of_its_step(reference_run):
    """The worksheet's point: a broken version can pass the happy paths."""
    for verdict in reference_run.verdicts:
        assert verdict.passed_by, f"{verdict.mutant.id} fails every check of step {verdict.mutant.step}"


def test_every_check_catches_at_least_one_mutant(reference_run):
    catches = defaultdict(list)
    for verdict in reference_run.verdicts:
        for check in verdict.killed_by:
            catches[check].append(verdict.mutant.id)
    idle = sorted({r.check for r in reference_run.results} - set(catches))
    assert not idle, f"these checks catch no mutant: {idle}"


def test_every_stub_fails_its_steps_checks_as_not_implemented_yet(stub_run):
    for step in load_course():
        statuses = {r.status for r in stub_run.step_results(step.number)}
        assert statuses == {"not_implemented"}, (step.dir, statuses)
    assert all("not implemented yet" in r.said("en") for r in stub_run.results)


def test_the_credit_of_every_stub_is_not_implemented_yet_for_every_check(stubs):
    """What lets a class take a stub's credit from the course run (lab/grading/credit.py): with the
    reference standing in for every other step, every check of a stub's step still says "not
    implemented yet", and the stubs are what that rule takes for them."""
    implementation = read(stubs, label="ada")
    assert credit.settled_by_the_course_run([], implementation, every_step()) == set()
    found = credit.split(run(credit.targets("ada", stubs, implementation, every_step())), "ada")[1]
    for step in load_course():
        ran = found[step.number]
        statuses = {r.status for r in ran}
        assert statuses == {"not_implemented"}, (step.dir, statuses)
        assert {r.check for r in ran} == set(checks.checks_of(step.number))
        assert credit.settled_by_the_course_run(ran, implementation, [step.number]) == {step.number}
        assert swapped(stub_text(step)) != stub_text(step)  # led by Japanese, as `make language ja` writes it
        swapped_stub = implementation.with_text(step.number, swapped(stub_text(step)), "ada")
        assert credit.settled_by_the_course_run(ran, swapped_stub, [step.number]) == {step.number}
        begun = implementation.with_text(step.number, stub_text(step) + "\n_begun = True\n", "ada")
        assert credit.settled_by_the_course_run(ran, begun, [step.number]) == set()


@pytest.fixture
def fake_matrix(tmp_path, monkeypatch):
    """An empty cache store in tmp_path and a stand-in for the runner, under which every check
    fails (or, for the checks in ran.timing_out, times out); returns the targets run."""
    ran = Ran()

    def run(targets, time_limit, budget=None, probe=None):
        ran.extend(targets)
        return [
            Result(
                f"{t.id}::{check}", check, t.id, step, [], "timeout" if check in ran.timing_out else "failed", "", 0.0
            )
            for t in targets
            for step in t.steps
            for check in checks.checks_of(step)
            if t.checks is None or check in t.checks
        ]

    monkeypatch.setattr(cache, "ROOT", tmp_path / "cache")
    monkeypatch.setattr(kill_matrix, "run", run)
    return ran


class Ran(list):
    timing_out = ()


def test_an_edit_the_checks_cannot_reach_recomputes_no_mutant(fake_matrix):
    (job,) = kill_matrix.prebuilt([m for m in load_mutants() if m.id == "m4-expired-counts-as-live"])
    kill_matrix.results([job])
    # step 4's checks never call claim_many: its body is not part of the key
    edited = replace(job, text=job.text.replace("results in input order.", "results in the owners' order."))
    assert edited.text != job.text and kill_matrix.results([edited]) == kill_matrix.results([job])[:1] + (0,)
    # the time limit is: a check may pass under one and time out under another
    assert kill_matrix.results([job], time_limit=3)[1] == 1 and fake_matrix == [job.target] * 2


RENEW_MESSAGE = "ttl must be positive"


def edited_renew(job):
    """The job with one word of renew's body changed: what a learner's one-function edit does."""
    before, after = job.text.split("def renew(", 1)
    return replace(job, text=before + "def renew(" + after.replace(RENEW_MESSAGE, "ttl must be above 0", 1))


def step_6_mutant():
    (job,) = kill_matrix.prebuilt([next(m for m in load_mutants() if m.step == 6)])
    return job


def test_an_edit_to_one_function_re_runs_only_the_checks_that_can_call_it(fake_matrix):
    job = step_6_mutant()
    first, _ = kill_matrix.results([job])
    again, ran = kill_matrix.results([edited_renew(job)])
    # of step 6's checks, only the generated one calls renew: it alone runs again
    generated = "test_step_6_random_calls_from_arbitrary_tables_keep_the_contract"
    assert ran == 1 and fake_matrix[-1].checks == (generated,) and fake_matrix[-1].steps == (6,)
    assert again == first and [r.check for r in again] == list(checks.checks_of(6))
    assert kill_matrix.results([edited_renew(job)]) == (first, 0)


def test_a_partial_run_that_loses_a_check_runs_every_check_and_is_kept_whole(fake_matrix):
    job = step_6_mutant()
    kill_matrix.results([job])
    fake_matrix.timing_out = ("test_step_6_random_calls_from_arbitrary_tables_keep_the_contract",)
    found, ran = kill_matrix.results([edited_renew(job)])
    # a check that hangs may stop the rest of its step in a full run: the partial run is replaced by one
    assert [t.checks for t in fake_matrix[1:]] == [
        ("test_step_6_random_calls_from_arbitrary_tables_keep_the_contract",),
        None,
    ]
    assert ran == 1 and [r.check for r in found] == list(checks.checks_of(6))
    assert kill_matrix.results([edited_renew(job)]) == (found, 0) and len(fake_matrix) == 3


def test_the_mutation_report_reuses_the_pre_built_mutants_of_make_check(fake_matrix):
    mutants = [m for m in load_mutants() if m.step == 2]
    kill_matrix.results(kill_matrix.prebuilt(mutants), time_limit=10)  # make check-step 2
    found = matrix.kill_matrix([matrix.prebuilt_job(m.id, (m.step,)) for m in mutants])
    assert sorted(found) == sorted(m.id for m in mutants) and len(fake_matrix) == len(mutants)
    assert all(r.reused for results in found.values() for r in results)


def test_the_checker_digest_covers_what_runs_the_checks_and_nothing_else():
    names = {str(p.relative_to(LAB_ROOT)) for p in checker_files()}
    assert {
        "course.toml",
        "checks/conftest.py",
        "checks/pytest.ini",
        "lab/running/runner.py",
        "lab/running/child.py",
        "lab/running/recorder.py",
        "lab/sandbox/learner/server.py",
        "lab/sandbox/learner/stand_in.py",
    } <= names
    assert (
        not {
            "lab/reporters/terminal.py",
            "lab/commands/check.py",
            "lab/settings.py",
            "lab/grading/classroom.py",
            "lab/grading/kill_matrix.py",
            "lab/grading/checker_digest.py",
            "lab/cache.py",
            "lab/running/prediction_plugin.py",
        }
        & names
    )
    assert LAB_ROOT / "lab" / "running" / "prediction_plugin.py" in checker_files("lab.grading.predictions")


def test_killed_by_names_each_failing_check_once_in_the_order_they_ran():
    statuses = [("b", "failed"), ("a", "passed"), ("c", "timeout"), ("b", "failed")]
    results = [Result(f"n{i}", check, "m", 1, [], status, "", 0.0) for i, (check, status) in enumerate(statuses)]
    assert kill_matrix.killed_by(results) == ["b", "c"]


def test_the_cache_store_keeps_json_values_by_namespace_and_key(tmp_path, monkeypatch):
    monkeypatch.setattr(cache, "ROOT", tmp_path)
    key = cache.key("some", "inputs")
    assert cache.get("kill-matrix", key) is None and cache.get("kill-matrix", key, []) == []
    cache.set("kill-matrix", key, {"checks": ["a", "b"]})
    assert cache.get("kill-matrix", key) == {"checks": ["a", "b"]} and cache.get("predictions", key) is None
    assert [p.name for p in (tmp_path / "kill-matrix").iterdir()] == [f"{key}.json"]  # no temporary file left
    assert cache.key("some", "inputs") == key != cache.key("someinputs") != cache.key("some", "input", "s")
    with pytest.raises(ValueError):
        cache.get("kill-matrix", "../../elsewhere")


def test_a_target_narrowed_to_some_checks_runs_those_checks_and_no_other():
    mutant = next(m for m in load_mutants() if m.step == 6)
    wanted = (
        "test_complete_of_a_missing_job_is_false",
        "test_step_6_random_calls_from_arbitrary_tables_keep_the_contract",
    )
    found = run([Target(mutant.id, (6,), mutant=mutant.id, checks=wanted)])
    assert sorted(r.check for r in found) == sorted(wanted) and {r.target for r in found} == {mutant.id}


def test_a_plan_carries_the_checks_a_target_is_narrowed_to_into_the_child(tmp_path, monkeypatch):
    path = tmp_path / "plan.json"
    Plan([asdict(Target("m", (6,), mutant="m", checks=("a", "b"))), asdict(Target("n", (6,), mutant="n"))]).dump(path)
    monkeypatch.setenv(PLAN_VARIABLE, str(path))
    assert [t.checks for t in Plan.from_environment().targets] == [("a", "b"), None]


def _named(target):
    return [
        (step, check)
        for step in target.steps
        for check in checks.checks_of(step)
        if target.checks is None or check in target.checks
    ]


def _weighs(part):
    return sum(checks.weight(step, check) for step, check in _named(part))


def test_a_run_alone_with_slow_checks_enough_is_shared_out_in_parts_that_take_about_as_long():
    whole = Target("steps", tuple(s.number for s in load_course()), impl="steps")
    slow = {name for name in _named(whole) if name[1] in checks.slow_checks(name[0])}
    # the slow ones: every race and every check whose examples Hypothesis draws, and only those
    generated = {(s, c) for s, c in _named(whole) if "_random_" in c}
    races = {(s, c) for s, c in _named(whole) if c in checks.race_checks(s)}
    assert generated | races <= slow and ("test_init_db_creates_the_table_named_exactly_jobs" not in str(slow))
    parts = kill_matrix._parts(whole)
    assert len(parts) == kill_matrix.PARTS
    assert sorted(name for part in parts for name in _named(part)) == sorted(_named(whole))  # each check once
    # whole steps: a part counts a step's timeouts and losses as one run does
    assert not set(parts[0].steps) & set(parts[1].steps)
    assert all(part.checks == tuple(c for s in part.steps for c in checks.checks_of(s)) for part in parts)
    # The heavier part is heavier than the lighter by at most the step it got last, which went to
    # the part that was then the lighter one.
    heavy, light = sorted(parts, key=_weighs, reverse=True)
    step_weights = [sum(checks.weight(step, c) for c in checks.checks_of(step)) for step in heavy.steps]
    assert _weighs(heavy) - _weighs(light) <= max(step_weights)
    # One step's checks are shared out one by one, the heaviest first: a check that weighs more
    # than all the others together (step 8's generated check) has a part of its own.
    last = replace(whole, steps=(whole.steps[-1],))
    dealt = kill_matrix._parts(last)
    assert [part.steps for part in dealt] == [last.steps] * 2 and sorted(c for p in dealt for c in p.checks) == sorted(
        checks.checks_of(last.steps[0])
    )
    weights = {c: checks.weight(last.steps[0], c) for c in checks.checks_of(last.steps[0])}
    heaviest = max(weights, key=weights.get)
    assert weights[heaviest] > sum(weights.values()) - weights[heaviest]
    assert (heaviest,) in [part.checks for part in dealt]
    # too few slow checks for two parts: step 1 alone runs as one
    assert kill_matrix._parts(replace(whole, steps=(1,))) == [replace(whole, steps=(1,))]
    # slow checks enough, but a part lighter than MIN_PART is not worth its child: steps 1 and 8 run as one
    assert len([n for n in _named(replace(whole, steps=(1, 8))) if n in slow]) >= 2 * kill_matrix.SLOW_PER_PART
    assert kill_matrix._parts(replace(whole, steps=(1, 8))) == [replace(whole, steps=(1, 8))]


def test_the_parts_are_the_same_in_every_process():
    """Sets and dicts of str iterate in another order in each process (hash randomization): the
    parts must not."""
    code = (
        "from lab.grading.kill_matrix import _parts\n"
        "from lab.model.targets import Target\n"
        "for steps in ((1, 2, 3, 4, 5, 6, 7, 8), (8,), (4, 5, 6, 7, 8)):\n"
        "    print([(p.steps, p.checks) for p in _parts(Target('steps', steps, impl='steps'))])\n"
    )
    seen = {
        subprocess.run(
            [sys.executable, "-c", code],
            env={**os.environ, "PYTHONHASHSEED": seed},
            cwd=LAB_ROOT,
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        for seed in ("1", "2", "3")
    }
    assert len(seen) == 1 and "test_" in next(iter(seen))


def test_the_durations_table_weighs_every_check_and_names_no_other():
    """checks/durations.toml (python -m lab dev durations) lists each check once, with the seconds
    it took against the reference; a check it lacks would weigh only as a typical one of its kind."""
    listed = checks.durations()
    every = {(step.number, check) for step in load_course() for check in checks.checks_of(step.number)}
    assert set(listed) == every
    assert all(isinstance(seconds, float) and 0 < seconds < 10 for seconds in listed.values())


def test_a_check_the_table_does_not_list_weighs_as_a_typical_one_of_its_kind(monkeypatch):
    """As a new step's checks do, until its author runs `dev durations` (tests/test_dev.py's ninth step)."""
    monkeypatch.setattr(checks, "durations", dict)
    step = load_course()[-1].number
    slow = sorted(checks.slow_checks(step))[0]
    fast = next(c for c in checks.checks_of(step) if c not in checks.slow_checks(step))
    assert (checks.weight(step, slow), checks.weight(step, fast)) == (
        checks.UNLISTED_SLOW + checks.SETUP,
        checks.UNLISTED + checks.SETUP,
    )


def test_one_steps_checks_run_in_parts_run_again_as_one_run_when_one_times_out(monkeypatch):
    """Each part would count the step's timeouts on its own: one run stops the step after
    TIMEOUT_LIMIT of them, and its words are the ones reported."""
    step = load_course()[-1].number
    target = Target("steps", (step,), impl="steps")
    ran = []

    def run(targets, time_limit, budget=None, probe=None):
        (part,) = targets
        ran.append(part)
        names = [c for c in checks.checks_of(step) if part.checks is None or c in part.checks]
        return [Result(f"{part.id}::{c}", c, part.id, step, [], "timeout", "", 0.0) for c in names]

    monkeypatch.setattr(kill_matrix, "run", run)
    found = kill_matrix._run_in_parallel([target], 1.0)
    assert len(ran) == kill_matrix.PARTS + 1 and ran[-1] == target  # the parts, then one run
    assert [r.check for r in found[target.id]] == list(checks.checks_of(step))


@pytest.mark.usefixtures("cache_entries_added_only")  # a class run beside it checks its cache
def test_the_parts_of_a_run_share_one_probe_and_both_report_what_it_found(tmp_path, monkeypatch):
    """Step 6's file ends the process at its top level: the probe, run once, finds it, and both
    parts say what it found, for step 6's checks and for the later checks that call complete (a
    part that did not know would run the file, and lose its learner process)."""
    monkeypatch.setattr(cache, "ROOT", tmp_path / "cache")
    folder = shutil.copytree(LAB_ROOT / "solutions", tmp_path / "steps")
    ended = folder / load_course()[5].dir / "step.py"
    ended.write_text(ended.read_text(encoding="utf-8") + "\nimport os\nos._exit(3)\n", encoding="utf-8")
    job = kill_matrix.learner(folder, every_step())
    parts = kill_matrix._parts(job.target)
    assert len(parts) == kill_matrix.PARTS and all(max(part.steps) >= 6 for part in parts)
    probes = []
    monkeypatch.setattr(probe, "find_problems", lambda *a: probes.append(a) or find_problems(*a))
    found, _ = kill_matrix.results([job], use_cache=False)
    assert len(probes) == 1
    assert all(r.passed for r in found if r.step < 6), [(r.check, r.status) for r in found if not r.passed]
    failing = [r for r in found if not r.passed]
    assert {r.step for r in failing} == {6, 7, 8}
    assert all("exit status 3" in r.said("en") and "`complete`" in r.said("en") for r in failing)
    assert all({r.step for r in failing} & set(part.steps) for part in parts), [p.steps for p in parts]


@pytest.mark.usefixtures("cache_entries_added_only")  # a class run beside it checks its cache
def test_a_run_in_parts_at_once_reports_word_for_word_what_a_run_in_one_part_reports(tmp_path, monkeypatch):
    """Whatever the checks of a part share (a child, its learner processes, the limits on losses),
    the parts' results are those one run gives, in one run's order."""
    monkeypatch.setattr(cache, "ROOT", tmp_path / "cache")
    wrong = LAB_ROOT / "tests" / "fixtures" / "independent" / "wrong" / "wrong_s4_upsert_claim.py"
    job = kill_matrix.learner(wrong, (4, 5, 6, 7, 8))
    parts = kill_matrix._parts(job.target)
    probes = []
    monkeypatch.setattr(probe, "find_problems", lambda *a: probes.append(a) or find_problems(*a))
    in_parts, _ = kill_matrix.results([job], use_cache=False)
    assert len(probes) == 1  # the parts check the same files: they are probed once
    monkeypatch.setattr(kill_matrix, "SLOW_PER_PART", 10**6)
    assert kill_matrix._parts(job.target) == [job.target]
    in_one, _ = kill_matrix.results([job], use_cache=False)

    def facts(results):
        return [(r.step, r.check, r.status, r.clauses, r.message) for r in results]

    assert facts(in_parts) == facts(in_one) and [r.check for r in in_one] == [c for _, c in _named(job.target)]
    failing = {r.check for r in in_one if not r.passed}
    assert len(parts) == kill_matrix.PARTS and all(failing & set(part.checks) for part in parts), failing
