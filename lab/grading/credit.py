"""Per-step credit: a bug counts once, at its own step.

The course verdict of step N runs step N's checks against the learner's whole code, so a bug in
`claim` also fails every later step whose checks call `claim`. A step's *credit* runs step N's
own checks against the learner's step-N function with the reference's function standing in for
every other step, so it depends on that one function only.

The module a credit check loads, in this order: the learner's files of the steps before N (their
helpers, such as a `_connect`, stay defined), the learner's step-N file, then the reference's file
of every step but N. So every function but N's is the reference's, and the learner's step-N
function calls the reference's earlier functions by their bare names. The reference's files serve
no step (they always load), so a learner file that hangs or breaks only marks its own step. It
runs in the learner process like any learner code (lab/sandbox/), in the learner's own run and
budget (lab/grading/submission.py).

Two kinds of step need no run of their own: one whose own checks all pass on the learner's code
(they pass whatever stands in for the other steps), and one whose file is still the stub as
shipped, whose checks all said "not implemented yet": its function raises NotImplementedError
whatever calls it, so with the reference standing in for every other step each of its checks says
the same (tests/test_kill_matrix.py runs the credit of every stub to hold that). A class half-way
through the course then costs no run per step not begun.
"""

from dataclasses import replace

from lab.model.course import load_course, step_of_clause
from lab.model.implementation import STEP_FILE, read
from lab.model.mutants import SOLUTIONS_DIR
from lab.model.results import CheckStatus
from lab.model.starter import untouched
from lab.model.targets import Target

PREFIX = "credit/"  # a target id no folder name can clash with


def target_id(number):
    return f"{PREFIX}{number}"


def targets(name, impl, implementation, steps):
    """One credit target per step: the step's own checks, the learner's function of that step."""
    reference = read(SOLUTIONS_DIR, label="solutions")
    found = []
    for number in steps:
        own = [
            replace(f, steps=(number,)) if number in f.steps else f
            for f in implementation.files
            if f.steps and min(f.steps) <= number
        ]
        others = [replace(f, steps=()) for f in reference.files if number not in f.steps]
        files = tuple((f.steps, str(f.path), f.text, f.refused) for f in (*own, *others))
        found.append(Target(target_id(number), (number,), impl=str(impl), files=files))
    return found


def split(results, name):
    """(the course's results, {step: the credit results of that step}) of one learner's run."""
    course = [r for r in results if not r.target.startswith(PREFIX)]
    credit = {}
    for result in results:
        if result.target.startswith(PREFIX):
            credit.setdefault(int(result.target[len(PREFIX) :]), []).append(replace(result, target=name))
    return course, credit


def settled_by_the_course_run(results, implementation, steps):
    """The steps whose credit is their results in the course run, as they are: those whose own
    checks all pass, and the stubs as shipped whose checks all said so (the module's docstring)."""
    course = load_course()
    settled = set()
    for number in steps:
        own = [r for r in results if r.step == number]
        not_begun = own and all(r.status == CheckStatus.NOT_IMPLEMENTED for r in own)
        if earned(own) or (not_begun and _still_the_stub(implementation, course[number - 1])):
            settled.add(number)
    return settled


def _still_the_stub(implementation, step):
    """The step has a file of its own, and it is the stub as shipped (in either language's order)."""
    files = [f for f in implementation.files if f.steps == (step.number,)]
    return (
        len(files) == 1
        and files[0].path.name == STEP_FILE
        and files[0].text is not None
        and untouched(files[0].text, step, STEP_FILE)
    )


def earned(results):
    """Credit for a step: every one of its own checks ran and passed."""
    return bool(results) and all(r.status == CheckStatus.PASSED for r in results)


def own_clauses(result):
    """The clauses a credit result names, of its own step only."""
    return [c for c in result.clauses if step_of_clause(c) == result.step]
