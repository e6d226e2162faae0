"""One child process of the runner: start it, watch it, kill it when it hangs or the budget is
used up, and read what it sent (its events and the tail of its stderr).

The child runs pytest with the recorder plugin (``python -m lab.running.child``), which writes
one JSON line per event to an inherited pipe as it goes; bytes arriving there are how the parent
sees that the child is still making progress. The parent reads back only what it holds itself:
that pipe and an unnamed stderr file, never a path a child could have replaced by a link or a FIFO.
"""

from __future__ import annotations

import json
import os
import select
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from lab.clock import CheckClock
from lab.model.implementation import SHOWN_FROM
from lab.process import CHECKS, remove_groups_of, spawn
from lab.sandbox import confinement

if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import IO, Any

    from lab.clock import Deadline
    from lab.process import Child

STARTUP = 60.0  # seconds a child may take to start pytest and collect the checks
READ_WAITS = 0.5  # seconds between two readings of the waits a child's clock left out
HANG_GRACE = 5.0  # at most this many seconds past the time limit without an event before the parent kills a hung child
EVENTS_LIMIT = 64 << 20  # bytes of events one child may send: more is a flood, and ends it
STDERR_TAIL = 4000  # bytes of the child's stderr kept for a message
# The variables by which pytest and Hypothesis change a run: PYTEST_ADDOPTS (options: "-k …" leaves
# checks out), PYTEST_PLUGINS (plugins), Hypothesis' observability files; never a child's.
RUN_SETTINGS = ("PYTEST_", "HYPOTHESIS_")


@dataclass
class ChildOutcome:
    returncode: int
    hung: bool
    stderr: str
    events: list[dict[str, Any]]
    out_of_time: bool = False


def parent_folder() -> Path:
    """A new folder of the parent's own for a run's children (their plans and stderr), which no
    child writes; in memory-backed /dev/shm where there is one."""
    shm = Path("/dev/shm")
    fast = str(shm) if shm.is_dir() and os.access(shm, os.W_OK) else None
    return Path(tempfile.mkdtemp(prefix="lease-lab-", dir=fast)).resolve()


def scratch_folder(workdir: Path, confined: bool) -> str:
    """The folder a run's checks and learner processes share (the databases): confined, a
    size-limited memory folder inside each child's sandbox; else one made in workdir."""
    if confined:
        return confinement.SCRATCH_INSIDE
    scratch = workdir / "scratch"
    scratch.mkdir(exist_ok=True)
    return str(scratch)


def run_child(command: Sequence[str], workdir: Path, time_limit: float, deadline: Deadline | None) -> ChildOutcome:
    """Run one child until it ends, or kill it when one check runs far past the time limit.

    command: the child's command line with "{events}" standing for the events pipe's descriptor."""
    return watch_child(start_child(command, workdir), time_limit, deadline)


@dataclass
class StartedChild:
    """A child and what the parent holds of it: its process, the reading end of its events pipe
    and its unnamed stderr file."""

    process: Child
    reading: int
    stderr: IO[bytes]

    def end(self) -> None:
        """End it unwatched, and everything it started (a spare child nobody ran)."""
        try:
            self.process.end()
        finally:
            if self.process.stdin:
                self.process.stdin.close()
            os.close(self.reading)
            self.stderr.close()
        remove_groups_of(self.process.pid)


def start_child(command: Sequence[str], workdir: Path, handover: bool = False) -> StartedChild:
    """Start one child; handover: its stdin is a pipe the parent writes its plan to
    (lab/running/spare.py), else it reads nothing."""
    reading, writing = os.pipe()
    stderr = tempfile.TemporaryFile(dir=workdir)  # noqa: SIM115 (closed by watch_child or end)
    try:
        process = spawn(
            [part.replace("{events}", str(writing)) for part in command],
            CHECKS,
            cwd=workdir,
            stdin=subprocess.PIPE if handover else subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=stderr,
            env=child_environment(),
            pass_fds=(writing,),
        )
    except BaseException:
        os.close(reading)
        stderr.close()
        raise
    finally:
        os.close(writing)
    return StartedChild(process, reading, stderr)


def watch_child(started: StartedChild, time_limit: float, deadline: Deadline | None) -> ChildOutcome:
    """Watch a started child until it ends (or kill it), and read what it sent."""
    child, stderr = started.process, started.stderr
    with stderr:
        try:
            received, hung, out_of_time = _watch(child, started.reading, time_limit, deadline)
        finally:  # Ctrl-C or an error here: the child's session would outlive the parent
            os.close(started.reading)
            child.end()
        remove_groups_of(child.pid)  # left by learner processes of a child that was killed
        stderr.seek(max(0, os.fstat(stderr.fileno()).st_size - STDERR_TAIL))  # a flood shows its tail only
        tail = stderr.read().decode(errors="replace")
    return ChildOutcome(child.returncode, hung, tail, _events(received), out_of_time)


def child_environment() -> dict[str, str]:
    """A child's environment: paths shown as the learner typed them (the child's working folder
    is not theirs), and no pytest plugins from the environment's entry points: only the lab's own
    take part (and the start is a tenth of a second faster). The child runs with -I: no PYTHON*
    variable, no working folder on sys.path; and none of RUN_SETTINGS, so that the checks run as
    the lab sets them up whatever the environment of the command that started them."""
    kept = {name: value for name, value in os.environ.items() if not name.startswith(RUN_SETTINGS)}
    return {**kept, SHOWN_FROM: os.getcwd(), "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"}


def _watch(child, reading, time_limit, deadline=None):
    """Read the child's events until it ends; kill its whole process group if one check outlives
    limit + grace, when the deadline passes or when it sends more than EVENTS_LIMIT bytes.
    Returns (the bytes received, hung, out_of_time). Both limits are read on the clock of the
    child's checks (lab/clock.py); the waits it left out move the deadline later for the next child."""
    # Since the child's last event: a check that the machine keeps waiting is given more time by
    # the child, which then says so (an event).
    received, since_progress, closed = bytearray(), CheckClock(child.pid), False
    in_budget = _BudgetWatch(child.pid, deadline)
    grace = min(HANG_GRACE, max(1.0, time_limit))
    try:
        while child.poll() is None:
            if closed:  # the child closed its end: only its exit is still to come, waited for as it comes
                try:
                    child.wait(0.05)
                except subprocess.TimeoutExpired:
                    pass
            elif select.select([reading], [], [], 0.05)[0]:
                chunk = os.read(reading, 1 << 16)
                received += chunk
                closed = not chunk
                if chunk:
                    since_progress.restart()
            # Until the first event, pytest is starting and collecting: slow on a busy machine.
            hung = since_progress.left(time_limit + grace if received else max(time_limit + grace, STARTUP)) <= 0
            flooded = len(received) > EVENTS_LIMIT
            if hung or flooded or in_budget.used_up():
                child.end()
                return bytes(received[:EVENTS_LIMIT]), hung or flooded, not (hung or flooded)
    finally:
        in_budget.settle()
    while not closed and len(received) <= EVENTS_LIMIT and select.select([reading], [], [], 0)[0]:
        chunk = os.read(reading, 1 << 16)  # what it sent just before it ended
        received += chunk
        closed = not chunk
    return bytes(received[:EVENTS_LIMIT]), False, False


class _BudgetWatch:
    """A child's part of a deadline (lab/clock.py: Deadline): the waits its clock left out are read
    every READ_WAITS seconds (its threads take their times with them when it ends), and whenever
    the deadline seems passed; at the end, they move the deadline later."""

    def __init__(self, pid, deadline):
        self.deadline, self.clock = deadline, CheckClock(pid) if deadline else None
        self.waits, self.read_at = 0.0, time.monotonic()

    def used_up(self):
        if not self.deadline:
            return False
        if time.monotonic() - self.read_at >= READ_WAITS or self.deadline.left(self.waits) <= 0:
            self.waits, self.read_at = self.clock.waits_left_out(), time.monotonic()
        return self.deadline.left(self.waits) <= 0

    def settle(self):
        if self.deadline:
            self.deadline.extend(self.waits)


def _events(received):
    """The events the child sent, in order; a line it had not finished when it died is left out,
    and so is anything that is not one JSON object per line."""
    events = []
    for line in received.decode("utf-8", errors="replace").splitlines():
        try:
            event = json.loads(line)
        except ValueError:
            continue
        if isinstance(event, dict):
            events.append(event)
    return events
