"""`python -m lab dev durations`: checks/durations.toml written again from one run of every check
against the reference, one check after another in one child, as `check` runs them.

The table only weighs the checks when one run of the learner's code is shared out over two child
processes (lab/grading/kill_matrix.py): measured once and kept, the weights are the same on every
run and machine. No verdict and no time limit depends on them. Its authors run it on a quiet
machine after adding or changing checks; a check the table does not list weighs as a typical one
of its kind.
"""

from lab.model.checks import DURATIONS
from lab.model.course import load_course
from lab.model.mutants import SOLUTIONS_DIR
from lab.model.targets import Target
from lab.running.runner import run

HEADER = """\
# Seconds each check took against the reference, in one run of `python -m lab dev durations`.
# They weigh the checks when one run of the learner's code is shared out over two child processes
# (lab/grading/kill_matrix.py), the same way on every run and machine: no verdict depends on them.
"""


class ReferenceFails(Exception):
    """The reference failed checks: their times would weigh what the reference does not do."""


def write(time_limit):
    """Measure, then write the table; the path written."""
    results = run([Target("solutions", tuple(s.number for s in load_course()), impl=str(SOLUTIONS_DIR))], time_limit)
    failed = [r.check for r in results if not r.passed]
    if failed:
        raise ReferenceFails(", ".join(failed))
    DURATIONS.write_text(table(results), encoding="utf-8")
    return DURATIONS


def table(results):
    """The TOML text: one table per step, each check's seconds to the millisecond (at least one)."""
    lines = [HEADER]
    for step in sorted({r.step for r in results}):
        lines.append(f"\n[{step}]\n")
        lines += [f"{r.check} = {max(round(r.duration, 3), 0.001)}\n" for r in results if r.step == step]
    return "".join(lines)
