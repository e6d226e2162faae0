"""claim_many written against the watched checks by someone who read them (tests/fixtures/
claim_many_attacks/): wrong ones that passed step 8 on every run until the meeting's lead was
the second owner and no claim could run alone first, and correct ones the lead must not hold up
(a barrier after each claim, chunks of five), and claim held by another name than the module's
(a default argument, a partial): the checks see its calls all the same."""

from pathlib import Path

import pytest
from after_reference import runnable

from lab.dev import independent
from lab.model.targets import Target
from lab.running.runner import run

FIXTURES = sorted((Path(__file__).parent / "fixtures" / "claim_many_attacks").glob("*.py"))


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    folder = tmp_path_factory.mktemp("runnable")
    found = run([Target(p.stem, (8,), impl=str(runnable(p, (8,), folder))) for p in FIXTURES], time_limit=10)
    return {p.stem: [r for r in found if r.target == p.stem] for p in FIXTURES}


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: p.stem)
def test_a_wrong_claim_many_fails_naming_its_clause_and_a_correct_one_passes(results, path):
    broken = independent.breaks(path.read_text(encoding="utf-8"))
    own = results[path.stem]
    failing = [r for r in own if r.status != "passed"]
    assert own
    if broken is None:
        assert not failing, [(r.check, r.said("en")) for r in failing]
    else:
        assert any(broken[0] in r.clauses for r in failing), [(r.clauses, r.check) for r in failing]
