"""Which steps of an implementation pass every check: mutmut needs checks that pass.

Running every check of every step costs seconds, and a re-run after an edit to one function
would pay it again for steps whose code did not change. So each step's verdict is kept in the
lab's cache store, keyed like the kill matrix's: the checker (lab.grading.kill_matrix.checker_digest)
and the part of the module that the step's checks can reach (lab.mutation.reach). Only the steps
whose key changed run again.
"""

from lab import cache
from lab.model.course import load_course
from lab.grading.kill_matrix import checker_digest
from lab.mutation.reach import relevant_text
from lab.running.runner import run
from lab.model.targets import Target

NAMESPACE = "passing-steps"


def passing_steps(impl, label, source, progress):
    """Steps 1..k, the longest run from step 1 on which every check passes."""
    every = tuple(step.number for step in load_course())
    checker = checker_digest()
    keys = {n: cache.key(checker, str(n), relevant_text(source, (n,))) for n in every}
    verdicts = {n: cache.get(NAMESPACE, keys[n]) for n in every}
    to_run = tuple(n for n in every if verdicts[n] is None)
    if to_run:
        progress(f"checking {label} first (steps {', '.join(map(str, to_run))}): mutmut needs checks that pass ...")
        results = run([Target(label, to_run, impl=str(impl))])
        for n in to_run:
            own = [r for r in results if r.step == n]
            verdicts[n] = bool(own) and all(r.status == "passed" for r in own)
            cache.set(NAMESPACE, keys[n], verdicts[n])
    passing = []
    for n in every:
        if not verdicts[n]:
            break
        passing.append(n)
    return tuple(passing)
