"""The mutation report's mutants through the kill matrix (lab.grading.kill_matrix), to learn which checks kill them.

Each mutmut mutant becomes a whole module file in the stage, which the checks load afresh for
every check, as they load the reference (without mutmut's trampoline); the pre-built mutants are
checked as ``make check`` checks them, and share its cached results.
"""

import functools
from dataclasses import replace
from pathlib import Path

from lab.grading.kill_matrix import Job, prebuilt, results
from lab.model.defaults import TIME_LIMIT
from lab.model.mutants import load_mutants
from lab.model.targets import Target

MATRIX_DIR = "matrix"


def kill_matrix(jobs, time_limit=TIME_LIMIT):
    """Results per target id (a result kept from an earlier run says so: Result.reused). jobs: of mutant_job and
    prebuilt_job; a mutmut mutant's module file is written first, when its text changed."""
    for job in jobs:
        if job.target.module_file:
            path = Path(job.target.module_file)
            path.parent.mkdir(exist_ok=True)
            if not path.exists() or path.read_text(encoding="utf-8") != job.text:
                path.write_text(job.text, encoding="utf-8")
    found, _ = results(jobs, time_limit)
    by_target = {job.target.id: [] for job in jobs}
    for result in found:
        by_target[result.target].append(result)
    return by_target


def mutant_job(target_id, steps, text, stage_dir):
    """A mutmut mutant as a module file of the stage (lease.x_claim__mutmut_19 in
    matrix/lease_x_claim__mutmut_19.py), checked by the checks of `steps`."""
    path = Path(stage_dir).resolve() / MATRIX_DIR / f"{target_id.replace('.', '_')}.py"
    return Job(Target(target_id, tuple(steps), module_file=str(path)), text)


def prebuilt_job(mutant_id, steps):
    """A pre-built mutant, checked by the checks of `steps` (its job is make check's)."""
    job = _prebuilt_jobs()[mutant_id]
    return replace(job, target=replace(job.target, steps=tuple(steps)))


@functools.cache
def _prebuilt_jobs():
    """The pre-built mutants' jobs by id, made once per run: load_mutants() and apply() read files."""
    return {job.target.id: job for job in prebuilt(load_mutants())}
