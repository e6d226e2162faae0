"""The mutation report's mutants through the kill matrix (lab.grading.kill_matrix), to learn which checks kill them.

Each mutmut mutant becomes a whole module file in the stage, which the checks load afresh for
every check, as they load the reference (without mutmut's trampoline); the pre-built mutants are
checked as ``make check`` checks them, and share its cached results.
"""

import functools
from pathlib import Path

from lab.grading.kill_matrix import Job, prebuilt, results
from lab.model.mutants import load_mutants
from lab.model.targets import Target

MATRIX_DIR = "matrix"


def module_name(variant_name):
    """lease.x_claim__mutmut_19 -> lease_x_claim__mutmut_19, the name of its file."""
    return variant_name.replace(".", "_")


def kill_matrix(jobs, stage_dir, time_limit=10.0):
    """Results per target id, and how many ran (not cached).

    jobs: (target id, steps, module text or None, pre-built mutant id or None).
    """
    folder = Path(stage_dir).resolve() / MATRIX_DIR
    folder.mkdir(exist_ok=True)
    matrix_jobs = _jobs(jobs, folder)
    for job in matrix_jobs:
        if job.target.module_file:
            path = Path(job.target.module_file)
            if not path.exists() or path.read_text(encoding="utf-8") != job.text:
                path.write_text(job.text, encoding="utf-8")
    found, ran = results(matrix_jobs, time_limit)
    by_target = {job.target.id: [] for job in matrix_jobs}
    for result in found:
        by_target[result.target].append(result)
    return by_target, ran


def _jobs(jobs, folder):
    found = []
    for target_id, steps, text, mutant_id in jobs:
        if mutant_id:
            found.append(Job(Target(target_id, tuple(steps), mutant=mutant_id), _prebuilt_texts()[mutant_id]))
        else:
            found.append(Job(Target(target_id, tuple(steps), module_file=str(folder / f"{module_name(target_id)}.py")), text))
    return found


@functools.cache
def _prebuilt_texts():
    """The pre-built mutants' texts by id, made once per run: load_mutants() and apply() read files."""
    return {job.target.id: job.text for job in prebuilt(load_mutants())}
