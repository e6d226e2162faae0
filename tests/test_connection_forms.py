"""The race checks see every SQLite connection the learner's code opens, however it opens it
(lab/sandbox/learner/statements.py: observe_connections): each of the lab's race mutants, rewritten to open
its connections in another form, still fails the checks that catch it, under its own clause;
the reference rewritten the same way still passes them.

The forms are those an honest learner writes (``from sqlite3 import connect``) and those a patched
``sqlite3.connect`` never saw: a function bound before the checks armed their watch, the
``dbapi2`` module, the ``Connection`` class and a subclass of it, ``factory=``.
"""

import pytest

from lab.model.checks import race_checks
from lab.model.implementation import assemble, read
from lab.model.mutants import SOLUTIONS_DIR, apply, load_mutants
from lab.model.targets import Target
from lab.running.runner import run

CALL = "sqlite3.connect("
FORMS = {
    "from sqlite3 import connect": ("from sqlite3 import connect\n", "connect("),
    "an alias bound on import": ("import sqlite3\nopen_db = sqlite3.connect\n", "open_db("),
    "sqlite3.dbapi2.connect": ("import sqlite3.dbapi2\n", "sqlite3.dbapi2.connect("),
    "sqlite3.Connection": ("import sqlite3\n", "sqlite3.Connection("),
    "a subclass of Connection": (
        "import sqlite3\n\n\nclass Connection(sqlite3.Connection):\n    pass\n\n\n",
        "Connection(",
    ),
    "factory=": ("import sqlite3\n", "sqlite3.connect(factory=sqlite3.Connection, database="),
}
# The mutants that only a race catches (every check that catches them is a race) and whose race is
# seen through statements; claim_many's are counted by the stand-in for claim (lab/sandbox/meeting.py).
RACE_MUTANTS = [m for m in load_mutants() if m.caught_by and set(m.caught_by) <= race_checks(m.step) and m.step < 8]


def rewritten(text, form):
    heading, call = FORMS[form]
    assert CALL in text
    return heading + text.replace(CALL, call)


@pytest.fixture(scope="module")
def verdicts(tmp_path_factory):
    """(mutant id or "reference", form) -> the results of the mutant's catching checks."""
    folder = tmp_path_factory.mktemp("forms")
    reference = read(SOLUTIONS_DIR, label="solutions")
    targets = []
    for mutant in RACE_MUTANTS:
        for name, text in ((mutant.id, assemble(apply(mutant))), ("reference", assemble(reference))):
            for number, form in enumerate(FORMS):
                file = folder / f"{name}-{mutant.id}-{number}.py"
                file.write_text(rewritten(text, form), encoding="utf-8")
                targets.append(
                    Target(f"{name}|{mutant.id}|{form}", (mutant.step,), impl=str(file), checks=mutant.caught_by)
                )
    found = {}
    for result in run(targets):
        found.setdefault(tuple(result.target.split("|")), []).append(result)
    return found


def test_the_lab_has_race_mutants_to_rewrite():
    assert {m.id for m in RACE_MUTANTS} >= {
        "m4-fence-read-back-after-commit",
        "m5-read-then-write",
        "m6-read-then-write",
    }


@pytest.mark.parametrize("form", FORMS)
@pytest.mark.parametrize("mutant", RACE_MUTANTS, ids=lambda m: m.id)
def test_a_race_mutant_fails_its_race_checks_whatever_form_opens_its_connections(verdicts, mutant, form):
    results = verdicts[(mutant.id, mutant.id, form)]
    assert len(results) == len(mutant.caught_by)
    failing = [r for r in results if r.status == "failed"]
    assert failing, [(r.check, r.status, r.message) for r in results]
    assert all(r.clauses == [mutant.clause] for r in failing), [(r.check, r.clauses) for r in failing]


@pytest.mark.parametrize("form", FORMS)
@pytest.mark.parametrize("mutant", RACE_MUTANTS, ids=lambda m: m.id)
def test_the_reference_passes_the_same_race_checks_in_the_same_form(verdicts, mutant, form):
    results = verdicts[("reference", mutant.id, form)]
    assert len(results) == len(mutant.caught_by)
    assert all(r.status == "passed" for r in results), [(r.check, r.status, r.message) for r in results]
