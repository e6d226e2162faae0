"""Run the checks in this process, as the parent's plan says: ``python -m lab.running.child PLAN EVENTS_FD CHECKS…``."""

import os
import sys
from dataclasses import replace

import pytest

from lab.model.course import LAB_ROOT
from lab.model.targets import PLAN_VARIABLE, Plan
from lab.running.recorder import Recorder
from lab.sandbox.channel import end_all


def main(plan_path, events, check_files):
    """events: the descriptor of the pipe the parent reads the recorder's events from."""
    os.environ[PLAN_VARIABLE] = plan_path  # the checks' conftest.py reads the same plan
    # The lab's own configuration and rootdir, so that nothing in a learner's folder
    # (a conftest.py, a pytest.ini) takes part in the run.
    arguments = ["-c", str(LAB_ROOT / "checks" / "pytest.ini"), "--rootdir", str(LAB_ROOT)]
    # No capture: the recorder sends the learner's output to /dev/null instead of into memory.
    arguments += ["-p", "no:cacheprovider", "-q", "--capture=no", *check_files]
    plan = replace(Plan.from_environment(), events=int(events))
    if not any(target.impl for target in plan.targets):
        # Only the lab's own code (the kill matrix), whose messages nobody reads: the recorder
        # words each outcome from the exception anyway; pytest's own report of a failure, which
        # reads and parses the source of every frame, would cost a second per hundred failures.
        arguments.append("--tb=no")
    return pytest.main(arguments, plugins=[Recorder(plan)])


if __name__ == "__main__":
    status = main(sys.argv[1], sys.argv[2], sys.argv[3:])
    end_all()  # every learner process this run started ends with it
    sys.stdout.flush()
    sys.stderr.flush()
    # Not sys.exit: threads the learner's code left deadlocked would keep the process alive.
    os._exit(int(status))
