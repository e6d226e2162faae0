"""The checks against implementations written by others from README.md and the CONTRACT.md files
alone, without reading checks/ or solutions/ (tests/fixtures/independent/).

Every correct one, whatever its style, passes every step, and its races three times in a row; every
wrong one fails first at the step it breaks, and a failing check there names the clause it breaks
(the first lines of each wrong file say which: ``breaks: C4.6``).
"""

import re
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from lab.grading.check import every_step
from lab.model.checks import checks_of, race_checks
from lab.model.targets import Target
from lab.running.runner import run

FIXTURES = Path(__file__).parent / "fixtures" / "independent"
CORRECT = sorted((FIXTURES / "correct").glob("*.py"))
WRONG = sorted((FIXTURES / "wrong").glob("*.py"))
RUNS = 3
# Children at once: a check run keeps about 0.6 of a core busy and waits the rest (on its learner
# processes, pauses, races), so three share two cores better than two (alone: 91 s against 114 s).
SHARES = 3


def breaks(path):
    return re.search(r"breaks: (C(\d+)\.\d+)", path.read_text(encoding="utf-8")).group(1, 2)


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


@pytest.fixture(scope="module")
def results():
    """Every fixture against every check, a correct one's races twice more, in SHARES children at once;
    target id -> its results."""
    targets = [Target(f"{p.stem}#1", every_step(), impl=str(p)) for p in CORRECT]
    targets += [
        Target(f"{p.stem}#{n}", every_step(), impl=str(p), checks=racing_checks())
        for p in CORRECT
        for n in range(2, RUNS + 1)
    ]
    # A wrong one runs the checks of the steps up to its own: the later ones cannot change its verdict.
    targets += [Target(p.stem, tuple(range(1, int(breaks(p)[1]) + 1)), impl=str(p)) for p in WRONG]
    with ThreadPoolExecutor(SHARES) as pool:
        found = [r for share in pool.map(run, (targets[n::SHARES] for n in range(SHARES))) for r in share]
    by_target = {}
    for result in found:
        by_target.setdefault(result.target, []).append(result)
    return by_target


def test_there_are_five_correct_styles_and_twenty_wrong_implementations():
    assert len(CORRECT) >= 5 and len(WRONG) >= 20
    assert {int(breaks(p)[1]) for p in WRONG} == set(every_step())


def test_the_races_are_claim_manys_checks_and_those_that_race_claims_or_hold_a_call_between_statements():
    every_check = {name for step in every_step() for name in checks_of(step)}
    named_as_races = {name for name in every_check if "racing" in name or "between_any_two_statements" in name}
    races = set(racing_checks())
    assert named_as_races and named_as_races | set(checks_of(every_step()[-1])) <= races
    # one function at a time on derandomized inputs: the generated checks of steps 1-7, for one
    assert not {name for name in races - set(checks_of(every_step()[-1])) if "_random_" in name}


@pytest.mark.parametrize("path", CORRECT, ids=lambda p: p.stem)
def test_a_correct_implementation_passes_every_check_and_every_race_three_times_in_a_row(results, path):
    races = racing_checks()
    for run_number in range(1, RUNS + 1):
        own = results[f"{path.stem}#{run_number}"]
        failing = [(r.check, r.said("en")) for r in own if r.status != "passed"]
        assert own and not failing, (run_number, failing)
        if run_number > 1:  # the repeats run every race, and nothing else
            assert sorted(r.check for r in own) == sorted(races), run_number


@pytest.mark.parametrize("path", WRONG, ids=lambda p: p.stem)
def test_a_wrong_implementation_fails_first_at_its_step_naming_its_clause(results, path):
    clause, step = breaks(path)
    failing = [r for r in results[path.stem] if r.status != "passed"]
    assert failing, "passes every check"
    first = min(r.step for r in failing)
    assert first == int(step), [(r.step, r.check) for r in failing]
    assert any(clause in r.clauses for r in failing if r.step == first), [
        (r.clauses, r.check) for r in failing if r.step == first
    ]
