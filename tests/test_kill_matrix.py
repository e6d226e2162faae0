"""The lab guards itself: the reference passes, the stubs fail, every mutant is caught as declared."""

from collections import defaultdict

from lab.course import LANGUAGES, all_clauses, load_course
from lab.status import ExitStatus


def test_the_reference_passes_every_check_of_every_step(reference_run):
    failing = [(r.nodeid, r.status, r.message) for r in reference_run.results if r.status != "passed"]
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
    assert all("not implemented yet" in r.message for r in stub_run.results)
