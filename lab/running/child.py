"""Run the checks in this process, as the parent's plan says: ``python -m lab.running.child PLAN EVENTS_FD CHECKS…``.

Or, started before its run (lab/running/spare.py): ``python -m lab.running.child --wait EVENTS_FD``
imports what every run needs, then waits for its plan and pytest's arguments on stdin.
"""

import json
import os
import sys
from dataclasses import replace

import pytest
from _pytest.config import default_plugins

from lab.model.course import LAB_ROOT
from lab.model.targets import PLAN_VARIABLE, Plan
from lab.running.recorder import Recorder
from lab.running.spare import WAITING, WAITING_EVENT
from lab.sandbox.channel import end_all

# What a run imports before its first check, beyond this module's own imports: the checks'
# conftest.py and helpers, and pytest's own plugins. The checks themselves are not among them:
# they are imported after conftest.py, which reads the plan, as pytest imports them.
RUN_IMPORTS = ("hypothesis", "hypothesis.strategies", "hypothesis.internal.conjecture.engine", "lab.sandbox.local")
RUN_IMPORTS += tuple(f"_pytest.{name}" for name in default_plugins)


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


def wait_for_plan(events):
    """Import what the run needs, then run the plan the parent hands over on stdin; status 0
    without running anything when stdin closes first (the spare was not needed)."""
    for name in RUN_IMPORTS:
        __import__(name)
    os.write(int(events), WAITING_EVENT)
    handover = sys.stdin.buffer.read()
    if not handover:
        return 0
    given = json.loads(handover)
    # In its own working folder: the sandbox's private memory folder, which no learner process sees.
    plan_path = os.path.abspath("plan.json")
    with open(plan_path, "w", encoding="utf-8") as plan:
        json.dump(given["plan"], plan)
    return main(plan_path, events, given["arguments"])


if __name__ == "__main__":
    waiting = sys.argv[1] == WAITING
    status = wait_for_plan(sys.argv[2]) if waiting else main(sys.argv[1], sys.argv[2], sys.argv[3:])
    end_all()  # every learner process this run started ends with it
    sys.stdout.flush()
    sys.stderr.flush()
    # Not sys.exit: threads the learner's code left deadlocked would keep the process alive.
    os._exit(int(status))
