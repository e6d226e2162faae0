"""The course run, as `dev check` runs it: every stub fails, the reference passes, every mutant is caught.

The checks run in their child processes as `check` runs them; the stubs come from git
(lab/model/pristine.py), never from the learner's steps/.
"""

import tempfile
from pathlib import Path

from lab.grading.check import check, every_step
from lab.model.course import load_course
from lab.model.mutants import SOLUTIONS_DIR
from lab.model.pristine import write_stubs
from lab.model.results import CheckStatus


def problems(time_limit, lang="en"):
    """Every step whose stub passes a check, every check the reference fails, every mutant no check catches."""
    with tempfile.TemporaryDirectory(prefix="lease-lab-dev-") as scratch:
        stubs = check(write_stubs(Path(scratch) / "steps"), every_step(), (), time_limit, lang, "steps")
    found = [
        f"step {step.number}: its stub passes {r.check}"
        for step in load_course()
        for r in stubs.step_results(step.number)
        if r.status == CheckStatus.PASSED
    ]
    reference = check(SOLUTIONS_DIR, every_step(), every_step(), time_limit, lang, "solutions")
    found += [
        f"the reference fails {r.check}: {r.message}" for r in reference.results if r.status != CheckStatus.PASSED
    ]
    found += [f"{v.mutant.id}: no check catches it" for v in reference.verdicts if v.survived]
    return found + [str(problem) for problem in reference.lab_problems]
