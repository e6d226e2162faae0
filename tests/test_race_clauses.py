"""A race check's failure names the clause the race breaks: two claims that both win one
generation, or a claim that raises, break C4.6 (exactly one wins, none raises); a claim that
hands back another worker's fence breaks C4.7 (the fence its own transaction stored)."""

from pathlib import Path

import pytest

from lab.model.targets import Target
from lab.running.runner import run

RACED = "test_a_claim_from_another_process_between_any_two_statements_of_a_claim_leaves_each_its_own_fence"
TWO_WINNERS = Path(__file__).parent / "fixtures" / "independent" / "wrong" / "wrong_s4_thread_lock_claim.py"
TARGETS = {
    # A lock of its own around a read and a write in autocommit: both claims take fence 1.
    "two-winners": (Target("two-winners", (4,), impl=str(TWO_WINNERS), checks=(RACED,)), "C4.6"),
    # A deferred transaction meets the other claim's write lock at its UPDATE and raises.
    "raises": (Target("raises", (4,), mutant="m4-deferred-transaction", checks=(RACED,)), "C4.6"),
    # The fence read back after COMMIT is the other worker's.
    "another's-fence": (
        Target("another's-fence", (4,), mutant="m4-fence-read-back-after-commit", checks=(RACED,)),
        "C4.7",
    ),
}


@pytest.fixture(scope="module")
def raced():
    return {r.target: r for r in run([target for target, _ in TARGETS.values()])}


@pytest.mark.parametrize("name", TARGETS)
def test_a_claim_race_failure_names_the_clause_it_breaks(raced, name):
    clause = TARGETS[name][1]
    result = raced[name]
    assert (result.status, result.clauses) == ("failed", [clause]), (result.status, result.clauses, result.message)
