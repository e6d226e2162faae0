"""One child process of the runner: start it, watch it, kill it when it hangs or the budget is
used up, and read what it left (its events and the tail of its stderr).

The child runs pytest with the recorder plugin (``python -m lab.running.child``), which appends
one JSON line per event to the events file as it goes; that file growing is how the parent
sees that the child is still making progress.
"""

import json
import os
import signal
import subprocess
import time
from contextlib import nullcontext
from dataclasses import dataclass

from lab.running.probe import child_environment
from lab.sandbox import confinement

STARTUP = 60.0  # seconds a child may take to start pytest and collect the checks
GRACE = 5.0  # at most this many seconds past the time limit before the parent kills a hung child


@dataclass
class ChildOutcome:
    returncode: int
    hung: bool
    stderr: str
    out_of_time: bool = False


def run_child(plan_path, events, workdir, time_limit, deadline, command):
    """Run one child until it ends, or kill it when one check runs far past the time limit."""
    stderr_path = workdir / "stderr.txt"
    sandboxed = command[0] == "bwrap"  # learner tests: hard limits as for a learner process
    with open(stderr_path, "w") as stderr, (confinement.limited() if sandboxed else nullcontext()) as preexec:
        # The scratch folder as working folder: nothing the code under test writes to a
        # relative path lands in the lab.
        child = subprocess.Popen(
            command,
            cwd=plan_path.parent / "scratch", stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=stderr,
            env=child_environment(plan_path.parent / "scratch"), start_new_session=True, preexec_fn=preexec,
        )
        try:
            hung, out_of_time = _watch(child, events, time_limit, deadline)
        finally:  # Ctrl-C or an error here: the child's session would outlive the parent
            if child.poll() is None:
                os.killpg(child.pid, signal.SIGKILL)
                child.wait()
    confinement.remove_groups_of(child.pid)  # left by learner processes of a child that was killed
    with open(stderr_path, "rb") as stderr:  # the tail only: learner code may have flooded it
        stderr.seek(max(0, stderr_path.stat().st_size - 4000))
        tail = stderr.read().decode(errors="replace")
    return ChildOutcome(child.returncode, hung, tail, out_of_time)


def _watch(child, events, time_limit, deadline=None):
    """Wait for the child; kill its whole process group if one check outlives limit + grace,
    or when the deadline passes. Returns (hung, out_of_time)."""
    last_progress, seen = time.monotonic(), 0
    grace = min(GRACE, max(1.0, time_limit))
    while child.poll() is None:
        time.sleep(0.05)
        size = events.stat().st_size if events.exists() else 0
        now = time.monotonic()
        if size != seen:
            last_progress, seen = now, size
        # Until the first event, pytest is starting and collecting: slow on a busy machine.
        hung = now - last_progress > (time_limit + grace if seen else max(time_limit + grace, STARTUP))
        if hung or (deadline and now > deadline):
            os.killpg(child.pid, signal.SIGKILL)
            child.wait()
            return hung, not hung
    return False, False


def read_events(events):
    """The events the child wrote, in order; a line it had not finished when it died is left out."""
    if not events.exists():
        return []
    lines = events.read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line.endswith("}")]
