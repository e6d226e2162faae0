"""Run a learner's files once, in a learner process, to find the ones that never come back.

A file whose top level loops forever, waits on a lock or ends the process (``os._exit``, a
crash) would otherwise cost every check of every later step its whole time limit or a new
learner process. The probe finds such files before the checks start; the checks' loader then
reports them once per check without running them again.
"""

import threading

from lab.sandbox.channel import LearnerProcess
from lab.sandbox.loading import LoadStopped, load


def find_problems(implementation, settings, started=None):
    """(step, facts) for every file of implementation that hangs or ends the process when it runs.

    started: a private learner process started for this before the files were read (a spare's,
    lab/running/spare.py), used for the first try; it is ended here in any case."""
    known = {}
    try:
        for _ in implementation.files:
            process, started = started or LearnerProcess(settings.scratch, settings.confined, private=True), None
            try:
                load(process, implementation, known, settings, one_by_one=True)
                break
            except LoadStopped as stopped:
                known.update(dict.fromkeys(stopped.file.steps, stopped.message))
            finally:
                process.kill()
    finally:
        if started:
            started.kill()
    return tuple(known.items())


class SharedProbe:
    """One probe for the parts of one run (lab/grading/kill_matrix.py), which check the same files,
    read once before the run was split: the first part to get there runs it while the others wait,
    and each takes what it found."""

    def __init__(self):
        self._lock, self._found, self._asked = threading.Lock(), None, False

    def wants_a_process(self):
        """Whether a part should start a learner process ahead for the probe: only the first to ask."""
        with self._lock:
            wanted, self._asked = not self._asked, True
        return wanted

    def find_problems(self, implementation, settings, started=None):
        """find_problems, run once; started, a process no longer needed once it ran, is ended unused."""
        with self._lock:
            if self._found is None:
                self._found = find_problems(implementation, settings, started)
                return self._found
        if started:
            started.kill()
        return self._found
