"""The checks against implementations written by others from README.md and the CONTRACT.md files
alone, without reading checks/ or solutions/ (tests/fixtures/independent/).

Every correct one, whatever its style, passes every step three times in a row; every wrong one
fails first at the step it breaks, and a failing check there names the clause it breaks (the
first lines of each wrong file say which: ``breaks: C4.6``).
"""

import re
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from lab.grading.check import every_step
from lab.model.targets import Target
from lab.running.runner import run

FIXTURES = Path(__file__).parent / "fixtures" / "independent"
CORRECT = sorted((FIXTURES / "correct").glob("*.py"))
WRONG = sorted((FIXTURES / "wrong").glob("*.py"))
RUNS = 3


def breaks(path):
    return re.search(r"breaks: (C(\d+)\.\d+)", path.read_text(encoding="utf-8")).group(1, 2)


@pytest.fixture(scope="module")
def results():
    """Every fixture against every check, in two children at once; target id -> its results."""
    targets = [Target(f"{p.stem}#{n}", every_step(), impl=str(p)) for p in CORRECT for n in range(1, RUNS + 1)]
    # A wrong one runs the checks of the steps up to its own: the later ones cannot change its verdict.
    targets += [Target(p.stem, tuple(range(1, int(breaks(p)[1]) + 1)), impl=str(p)) for p in WRONG]
    with ThreadPoolExecutor(2) as pool:
        found = [r for share in pool.map(run, (targets[0::2], targets[1::2])) for r in share]
    by_target = {}
    for result in found:
        by_target.setdefault(result.target, []).append(result)
    return by_target


def test_there_are_five_correct_styles_and_twenty_wrong_implementations():
    assert len(CORRECT) >= 5 and len(WRONG) >= 20
    assert {int(breaks(p)[1]) for p in WRONG} == set(every_step())


@pytest.mark.parametrize("path", CORRECT, ids=lambda p: p.stem)
def test_a_correct_implementation_passes_every_check_three_times_in_a_row(results, path):
    for run_number in range(1, RUNS + 1):
        own = results[f"{path.stem}#{run_number}"]
        failing = [(r.check, r.said("en")) for r in own if r.status != "passed"]
        assert own and not failing, (run_number, failing)


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
