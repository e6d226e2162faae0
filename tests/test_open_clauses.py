"""The clauses the contracts once left open, decided (CONTRACT.md of steps 4-7, both languages), and
the magnitudes a caller's clock passes: each change below keeps every clause but one, and the checks
of its step catch it under that clause (checks/sequences.py draws and covers each case;
checks/partitions.py counts that the step's own checks reach it).

- a row with no owner is held by no one: `owner=None` matches no row, and a NULL owner matches no
  owner (two implementations took opposite readings and both passed every check);
- a job whose done is not 0 is finished;
- now at a real clock's magnitude (about 1.7e9, with a fraction) and below zero;
- claim_many's one claim per owner, an owner named twice included.
"""

import pytest

from lab.model.implementation import assemble, read
from lab.model.mutants import SOLUTIONS_DIR
from lab.model.targets import Target
from lab.running.runner import run

REFERENCE = assemble(read(SOLUTIONS_DIR, label="solutions"))
HOLDER = " AND owner=? AND fence=? AND done=0"
CHANGES = {
    # (step, clause, the reference's text, what it becomes)
    "a NULL owner matches any owner": (
        6,
        "C6.3",
        'WHERE id=? AND owner=? AND fence=? AND done=0 AND until>?", (result',
        'WHERE id=? AND (owner=? OR owner IS NULL) AND fence=? AND done=0 AND until>?", (result',
    ),
    "owner None matches a NULL owner": (
        7,
        "C7.3",
        'WHERE id=? AND owner=? AND fence=? AND done=0"',
        'WHERE id=? AND owner IS ? AND fence=? AND done=0"',
    ),
    "a live lease ignored at a real clock's magnitude": (4, "C4.4", "row[0] > now", "row[0] > now and now < 1e6"),
    "a live lease ignored below zero": (4, "C4.4", "row[0] > now", "row[0] > now >= 0"),
    "only done = 1 is finished": (4, "C4.3", "row[1] or", "row[1] == 1 or"),
    # Legal answers (one fence, None for the rest), but one claim for an owner named twice.
    "a repeated owner claims once": (
        8,
        "C8.3",
        "return list(pool.map(lambda owner: claim(path, job_id, owner, now, ttl), owners))",
        "won = dict(zip(dict.fromkeys(owners), pool.map(lambda owner: claim(path, job_id, owner, now, ttl), dict.fromkeys(owners))))\n"
        "        return [won.pop(owner, None) for owner in owners]",
    ),
}


@pytest.fixture(scope="module")
def verdicts(tmp_path_factory):
    folder = tmp_path_factory.mktemp("open-clauses")
    targets = []
    for number, (name, (step, _, find, replace)) in enumerate(CHANGES.items()):
        assert REFERENCE.count(find) == 1, name
        file = folder / f"change-{number}.py"
        file.write_text(REFERENCE.replace(find, replace), encoding="utf-8")
        targets.append(Target(name, tuple(range(1, step + 1)), impl=str(file)))
    found = {}
    for result in run(targets):
        found.setdefault(result.target, []).append(result)
    return found


@pytest.mark.parametrize("name", CHANGES)
def test_a_change_that_breaks_one_decided_clause_fails_its_step_under_that_clause(verdicts, name):
    step, clause, _, _ = CHANGES[name]
    results = verdicts[name]
    assert all(r.passed for r in results if r.step < step), [(r.check, r.message) for r in results if not r.passed]
    failing = [r for r in results if r.step == step and not r.passed]
    assert failing and any(clause in r.clauses for r in failing), [(r.check, r.clauses) for r in failing]
