"""Which steps of an implementation pass every check: only their checks run against its mutants.

Running every check of every step costs seconds, and a re-run after an edit to one function
would pay it again for checks that cannot reach it. So the implementation goes through the kill
matrix's cached runs (lab.grading.kill_matrix.results) as one more job: only the checks whose
reachable text changed run again.
"""

from lab.grading import kill_matrix
from lab.model.course import load_course
from lab.text.messages import say


def passing_steps(impl, label, progress, lang="en"):
    """Steps 1..k, the longest run from step 1 on which every check passes; progress gets its line in lang."""
    every = tuple(step.number for step in load_course())
    job = kill_matrix.learner(impl, every, label)
    if to_run := kill_matrix.pending(job):
        progress(
            say(
                "mutation.checking_first",
                lang,
                label=label,
                steps=say("learner.separator", lang).join(map(str, to_run)),
            )
        )
    results, _ = kill_matrix.results([job])
    passing = []
    for n in every:
        own = [r for r in results if r.step == n]
        if not own or not all(r.passed for r in own):
            break
        passing.append(n)
    return tuple(passing)
