"""The clock a check's time limit is counted on: the seconds its processes could run, not the
seconds the machine kept them waiting for a CPU.

Read off the wall, a time limit is a verdict on the machine's load: beside busy neighbours (a
class graded three learners at a time, a test run on two cores) an honest check that needs a
fifth of a second of CPU takes three seconds, and runs out of time. The kernel counts, for every
thread, the nanoseconds it ran and the nanoseconds it stood ready on a run queue while other
threads held the CPUs (/proc/<pid>/task/<tid>/schedstat). A CheckClock leaves those waits of a
process, and of every process it started, out of the time it shows:

- a check is mostly a chain (the check's process asks, a learner process answers): at most one
  of its threads is active at a time, and the clock shows the time it ran plus the time it slept
  (a wait for a lock costs the same on any machine, and is counted whole);
- where several threads are active at once (a race, or code that starts threads), their waits
  overlap, and are left out divided by how many were active on average;
- however much is left out, the clock runs at least at MIN_PACE of the wall clock's pace, so that
  no code holds a check beyond 1/MIN_PACE times its limit by standing ready in many threads.

A loop that never ends still runs out of time: on a quiet machine it waits for no CPU. Without
/proc (not Linux), a CheckClock is the wall clock.
"""

from __future__ import annotations

import os
import time
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import threading
    from collections.abc import Callable
    from typing import TypeVar

    T = TypeVar("T")  # what a wait's predicate answers

MIN_PACE = 0.1  # the slowest a CheckClock runs, as a share of the wall clock
_this_process: CheckClock | None = None
# {(pid, thread id): (seconds run, seconds waited)}, as thread_times() reads them
ThreadTimes = dict[tuple[int, str], tuple[float, float]]


class CheckClock:
    def __init__(self, root: int | None = None) -> None:
        """root: the process whose threads, and those of every process it started, are watched
        (this process, when None)."""
        self.root = os.getpid() if root is None else root
        self.restart()

    def restart(self) -> None:
        self.began, self.before = time.monotonic(), thread_times(self.root)
        self.ended: tuple[float, float] = (0.0, 0.0)

    def ending(self, pid: int) -> None:
        """Process `pid` (of the watched ones) is about to be ended: what its threads, and those of
        the processes it started, ran and waited since the clock started is kept, which would
        otherwise leave with them."""
        ran, waited = self._since_start(thread_times(pid))
        self.ended = (self.ended[0] + ran, self.ended[1] + waited)

    def seconds(self, since: float | None = None) -> float:
        """Seconds since `since` (a time.monotonic(); the clock's own start when None), less the
        time the watched threads waited for a CPU since the clock started."""
        wall = time.monotonic() - (self.began if since is None else since)
        ran, waited = (a + b for a, b in zip(self.ended, self._since_start(thread_times(self.root))))
        active = (ran + waited) / wall if wall > 0 else 0.0  # threads active at once, on average
        return max(wall - waited / max(1.0, active), wall * MIN_PACE)

    def waits_left_out(self) -> float:
        """Seconds since the clock started that it does not show: the wall clock's less its own."""
        return max(0.0, time.monotonic() - self.began - self.seconds())

    def left(self, limit: float, since: float | None = None) -> float:
        """Seconds of `limit` still to run, as the wall clock will show them at the soonest (while
        the wall clock is within the limit, no reading of /proc is needed)."""
        wall_left = limit - (time.monotonic() - (self.began if since is None else since))
        return wall_left if wall_left > 0 else limit - self.seconds(since)

    def _since_start(self, threads: ThreadTimes) -> tuple[float, float]:
        """(seconds run, seconds waited) by `threads` since the clock started. Each thread is
        counted by itself: one that ended since takes its times away, never below the others'."""
        ran = waited = 0.0
        for thread, (now_ran, now_waited) in threads.items():
            then_ran, then_waited = self.before.get(thread, (0.0, 0.0))
            ran, waited = ran + max(0.0, now_ran - then_ran), waited + max(0.0, now_waited - then_waited)
        return ran, waited


class Deadline:
    """The moment a budget of several checks ends (a learner's, in a class run): `seconds` after
    `began`, moved later by the time each child process running them was kept waiting for a CPU
    (lab/running/child_process.py, by the child's CheckClock)."""

    def __init__(self, seconds: float, began: float | None = None) -> None:
        self.at = (time.monotonic() if began is None else began) + seconds
        self.left_out = 0.0  # seconds it was moved later

    def left(self, waits_left_out: float = 0.0) -> float:
        """Seconds of the budget still to run, once `waits_left_out` more seconds are left out."""
        return self.at + waits_left_out - time.monotonic()

    def extend(self, seconds: float) -> None:
        self.at += seconds
        self.left_out += seconds


def this_process() -> CheckClock:
    """The clock of this process and the processes it started: restarted by a run's recorder at
    the start of each check (lab/running/recorder.py), read by every wait for a learner process."""
    global _this_process
    if _this_process is None or _this_process.root != os.getpid():  # none yet, or a fork's
        _this_process = CheckClock()
    return _this_process


def wait_for(condition: threading.Condition, predicate: Callable[[], T], seconds: float) -> T:
    """condition.wait_for(predicate, seconds) (the caller holds the condition), the seconds
    counted on this process's clock: a wait that decides a verdict is not cut short by a busy CPU."""
    began, clock = time.monotonic(), this_process()
    while not (found := predicate()):
        left = clock.left(seconds, since=began)
        if left <= 0:
            return found
        condition.wait(left)
    return found


def thread_times(root: int) -> ThreadTimes:
    """{(pid, thread id): (seconds run, seconds stood ready for a CPU)} of the threads of process
    `root` and of every process it started that still runs, as the kernel counted them; {} where
    /proc cannot be read."""
    found: ThreadTimes = {}
    todo = [root]
    while todo:
        pid = todo.pop()
        try:
            threads = os.listdir(f"/proc/{pid}/task")
        except OSError:  # ended meanwhile, or no /proc
            continue
        for thread in threads:
            try:
                with open(f"/proc/{pid}/task/{thread}/schedstat", "rb") as stat:
                    ran, waited = stat.read().split()[:2]
                found[pid, thread] = (int(ran) / 1e9, int(waited) / 1e9)
                with open(f"/proc/{pid}/task/{thread}/children", "rb") as children:
                    todo += [int(child) for child in children.read().split()]
            except (OSError, ValueError):
                continue
    return found
