"""The checks against implementations written by others from README.md and the CONTRACT.md files
alone, without reading checks/ or solutions/ (tests/fixtures/independent/, lab/dev/independent.py).

Every correct one, whatever its style, passes every step whose function it defines, and (in the
long tier, `make test-long`) its races twice more; every wrong one fails first at the step it
breaks: a failing check there names the clause it breaks (the first lines of each wrong file say
which: ``breaks: C4.6``), and (in the long tier) every step before it passes. A fixture that lacks
the functions of the steps before is checked with the reference's standing in.
"""

from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from after_reference import runnable

from lab.dev import independent
from lab.grading.check import every_step
from lab.model.checks import checks_of, race_checks
from lab.model.course import load_course
from lab.model.targets import Target
from lab.running.runner import run

FIXTURES = Path(__file__).parent.joinpath(*independent.FOLDER[1:])
CORRECT = sorted((FIXTURES / "correct").glob("*.py"))
WRONG = sorted((FIXTURES / "wrong").glob("*.py"))
RUNS = 3
# Children at once: a check run keeps about 0.6 of a core busy and waits the rest (on its learner
# processes, pauses, races), so three share two cores better than two (alone: 91 s against 114 s).
SHARES = 3


def breaks(path):
    """(the clause the wrong fixture breaks, its step)."""
    return independent.breaks(path.read_text(encoding="utf-8"))


def defined(path):
    return independent.defined(path.read_text(encoding="utf-8"), load_course())


def checked_on(path):
    """The steps a fixture is checked on: a correct one's own, a wrong one's up to the one it breaks."""
    return tuple(range(1, breaks(path)[1] + 1)) if path.parent.name == "wrong" else defined(path)


def before_its_step(path):
    """The steps a wrong fixture must pass: those before the one it breaks."""
    return checked_on(path)[:-1]


def racing_checks():
    """The checks whose calls overlap in threads or processes, the only ones that can answer
    otherwise on another run: those checks/ marks as races (lab.model.checks.race_checks: claims
    racing, writes slowed, a call held between its statements) and every check of claim_many,
    whose claims run at once. The others call one function at a time on derandomized inputs,
    so a second run of them repeats the first answer for answer."""
    found = set()
    for step in every_step():
        found |= race_checks(step) | {name for name, functions in checks_of(step).items() if "claim_many" in functions}
    return tuple(sorted(found))


def races_of(path):
    """The racing checks of the steps a correct fixture is checked on."""
    return tuple(name for name in racing_checks() if any(name in checks_of(n) for n in checked_on(path)))


def results_of(targets):
    """The targets' checks, in SHARES children at once; target id -> its results."""
    with ThreadPoolExecutor(SHARES) as pool:
        found = [r for share in pool.map(run, (targets[n::SHARES] for n in range(SHARES))) for r in share]
    by_target = {}
    for result in found:
        by_target.setdefault(result.target, []).append(result)
    return by_target


@pytest.fixture(scope="module")
def runnable_folder(tmp_path_factory):
    return tmp_path_factory.mktemp("runnable")


@pytest.fixture(scope="module")
def results(runnable_folder):
    """Every correct fixture against the checks of its steps, every wrong one against those of the
    step it breaks, once. (The later steps cannot change a wrong one's verdict; the earlier ones are
    the long tier's, earlier_steps.)"""
    folder = runnable_folder
    targets = [Target(f"{p.stem}#1", checked_on(p), impl=str(runnable(p, checked_on(p), folder))) for p in CORRECT]
    targets += [Target(p.stem, checked_on(p)[-1:], impl=str(runnable(p, checked_on(p), folder))) for p in WRONG]
    return results_of(targets)


@pytest.fixture(scope="module")
def earlier_steps(runnable_folder):
    """Every wrong fixture against the checks of the steps before the one it breaks."""
    folder = runnable_folder
    return results_of(
        [
            Target(p.stem, before_its_step(p), impl=str(runnable(p, checked_on(p), folder)))
            for p in WRONG
            if before_its_step(p)
        ]
    )


@pytest.fixture(scope="module")
def repeated_races(runnable_folder):
    """Each correct fixture's races, run twice more (RUNS in all, with the first run)."""
    folder = runnable_folder
    return results_of(
        [
            Target(f"{p.stem}#{n}", checked_on(p), impl=str(runnable(p, checked_on(p), folder)), checks=races_of(p))
            for p in CORRECT
            if races_of(p)
            for n in range(2, RUNS + 1)
        ]
    )


def test_there_are_five_correct_styles_and_twenty_wrong_implementations():
    assert len(CORRECT) >= 5 and len(WRONG) >= 20
    assert all(breaks(p) for p in WRONG) and all(defined(p) for p in CORRECT)


def test_every_step_has_a_correct_and_a_wrong_independent_implementation():
    """What dev check asks of each step (a new one brings its own), and a correct fixture is
    checked on whole steps: the functions it defines."""
    assert not independent.problems(FIXTURES.parents[2], load_course())
    assert {n for p in WRONG for n in [breaks(p)[1]]} == set(every_step())
    assert {n for p in CORRECT for n in defined(p)} == set(every_step())


def test_the_races_are_claim_manys_checks_and_those_that_race_claims_or_hold_a_call_between_statements():
    every_check = {name for step in every_step() for name in checks_of(step)}
    named_as_races = {name for name in every_check if "racing" in name or "between_any_two_statements" in name}
    races = set(racing_checks())
    assert named_as_races and named_as_races | set(checks_of(every_step()[-1])) <= races
    # one function at a time on derandomized inputs: the generated checks of steps 1-7, for one
    assert not {name for name in races - set(checks_of(every_step()[-1])) if "_random_" in name}


@pytest.mark.parametrize("path", CORRECT, ids=lambda p: p.stem)
def test_a_correct_implementation_passes_every_check_of_its_steps(results, path):
    own = results[f"{path.stem}#1"]
    failing = [(r.check, r.said("en")) for r in own if r.status != "passed"]
    assert own and not failing, failing
    assert {r.step for r in own} == set(checked_on(path))


@pytest.mark.long
@pytest.mark.parametrize("path", [p for p in CORRECT if races_of(p)], ids=lambda p: p.stem)
def test_a_correct_implementation_passes_every_race_three_times_in_a_row(results, repeated_races, path):
    for run_number in range(1, RUNS + 1):
        own = (results if run_number == 1 else repeated_races)[f"{path.stem}#{run_number}"]
        races = [r for r in own if r.check in races_of(path)]
        failing = [(r.check, r.said("en")) for r in races if r.status != "passed"]
        assert sorted(r.check for r in races) == sorted(races_of(path)) and not failing, (run_number, failing)


@pytest.mark.parametrize("path", WRONG, ids=lambda p: p.stem)
def test_a_wrong_implementation_fails_at_its_step_naming_its_clause(results, path):
    clause, step = breaks(path)
    own = results[path.stem]
    failing = [r for r in own if r.status != "passed"]
    assert {r.step for r in own} == {step}
    assert failing, "passes every check"
    assert any(clause in r.clauses for r in failing), [(r.clauses, r.check) for r in failing]


@pytest.mark.long
@pytest.mark.parametrize("path", [p for p in WRONG if before_its_step(p)], ids=lambda p: p.stem)
def test_a_wrong_implementation_passes_every_step_before_its_own(earlier_steps, path):
    """With the test above: it fails first at the step it breaks."""
    own = earlier_steps[path.stem]
    failing = [(r.step, r.check, r.said("en")) for r in own if r.status != "passed"]
    assert {r.step for r in own} == set(before_its_step(path)) and not failing, failing
