"""How long `make watch N` takes from a save to the last line of its report (`make bench-loop`)."""

import subprocess
import sys
import time

from lab.learner.next_check import NextCheck
from lab.model.course import LAB_ROOT


def save_to_verdict(step, save, root=LAB_ROOT, arguments=(), warm=True):
    """Seconds from the end of save() (a callable that writes the learner's files) to the end
    of the check `make watch step` runs for it, its report written to /dev/null.

    warm: as the watcher runs it, its next check ready before the save; else as it ran before
    (issue #23): `python -m lab check` started at the save. Not counted: the moment watchfiles
    takes to see the save."""
    check = [str(step), *arguments]
    if warm:
        upcoming = NextCheck(check, root, stdout=subprocess.DEVNULL)
        if not upcoming.wait_until_ready():
            upcoming.end()
            raise RuntimeError(f"the next check of step {step} did not get ready")
    save()
    began = time.monotonic()
    if warm:
        upcoming.run()
    else:
        command = [sys.executable, "-m", "lab", "check", *check]
        subprocess.run(command, cwd=root, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    return time.monotonic() - began
