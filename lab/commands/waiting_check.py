"""The process of `make watch`'s next check: ``python -m lab.commands.waiting_check READY_FD N ARGS…``.

Started by the watcher before the save it checks (lab/learner/next_check.py, which says what it
does); not a verb of its own: what it runs at GO is the verb check.
"""

import os
import select
import sys
import time

from lab.commands import main as command
from lab.grading import kill_matrix
from lab.grading.checker_digest import checker_digest
from lab.learner.next_check import GO, READY
from lab.running import runner, spare
from lab.running.child_process import STARTUP

LOOKS_EVERY = 0.1  # seconds between two looks at the children's readiness

# What `lab check` imports when it runs (lab/commands/check.py), imported while waiting.
CHECK_IMPORTS = (
    "lab.commands",
    "lab.commands.steps",
    "lab.grading.check",
    "lab.learner.compared",
    "lab.learner.completion",
    "lab.learner.verdicts",
    "lab.reporters.terminal",
    "lab.store",
)


def main(ready, arguments):
    """The exit status of the check, or 0 when it was not needed. ready: the descriptor to say
    READY on."""
    for name in CHECK_IMPORTS:
        __import__(name)
    # The checker's files parsed and hashed now; at the save only their stamps are looked at, and
    # any that changed is read again (lab/grading/checker_digest.py).
    checker_digest()
    try:
        runner.prestart(kill_matrix.PARTS)
        if _ready_before_told():
            os.write(ready, READY)
        os.close(ready)
        if sys.stdin.buffer.readline() != GO:
            return 0
        return command(["check", *arguments])
    finally:
        spare.discard()


def _ready_before_told():
    """Whether the children got ready before the watcher said anything (GO, or the end of stdin
    when it stops), waiting for them up to STARTUP: what it says is answered at once, however
    slowly the children start on a busy machine."""
    deadline = time.monotonic() + STARTUP
    while not spare.wait_until_ready(timeout=0):
        if time.monotonic() > deadline or select.select([sys.stdin], [], [], LOOKS_EVERY)[0]:
            return False
    return True


if __name__ == "__main__":
    sys.exit(main(int(sys.argv[1]), sys.argv[2:]))
