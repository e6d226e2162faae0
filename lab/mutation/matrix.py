"""The mutation report's mutants through the kill matrix (lab.grading.kill_matrix), to learn which checks kill them.

Each mutmut mutant becomes a whole module file in the stage, which the checks import as a module
target (without mutmut's trampoline); the pre-built mutants are checked as ``make check`` checks
them, and share its cached results.
"""

import functools
import os
from contextlib import contextmanager
from pathlib import Path

from lab.grading.kill_matrix import Job, prebuilt, results
from lab.model.mutants import load_mutants
from lab.model.targets import Target

MATRIX_DIR = "matrix"


def module_name(variant_name):
    """lease.x_claim__mutmut_19 -> lease_x_claim__mutmut_19, a name Python can import."""
    return variant_name.replace(".", "_")


def kill_matrix(jobs, stage_dir, time_limit=10.0):
    """Results per target id, and how many ran (not cached).

    jobs: (target id, steps, module text or None, pre-built mutant id or None).
    """
    folder = Path(stage_dir) / MATRIX_DIR
    folder.mkdir(exist_ok=True)
    matrix_jobs = _jobs(jobs)
    for job in matrix_jobs:
        if job.target.module:
            path = folder / f"{job.target.module}.py"
            if not path.exists() or path.read_text(encoding="utf-8") != job.text:
                path.write_text(job.text, encoding="utf-8")
    with _importable(folder):
        found, ran = results(matrix_jobs, time_limit)
    by_target = {job.target.id: [] for job in matrix_jobs}
    for result in found:
        by_target[result.target].append(result)
    return by_target, ran


def _jobs(jobs):
    found = []
    for target_id, steps, text, mutant_id in jobs:
        if mutant_id:
            found.append(Job(Target(target_id, tuple(steps), mutant=mutant_id), _prebuilt_texts()[mutant_id]))
        else:
            found.append(Job(Target(target_id, tuple(steps), module=module_name(target_id)), text))
    return found


@functools.cache
def _prebuilt_texts():
    """The pre-built mutants' texts by id, made once per run: load_mutants() and apply() read files."""
    return {job.target.id: job.text for job in prebuilt(load_mutants())}


@contextmanager
def _importable(folder):
    """The runner's child inherits PYTHONPATH: put the mutant modules on it for this run only."""
    before = os.environ.get("PYTHONPATH")
    os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [str(folder.resolve()), before]))
    try:
        yield
    finally:
        if before is None:
            del os.environ["PYTHONPATH"]
        else:
            os.environ["PYTHONPATH"] = before
