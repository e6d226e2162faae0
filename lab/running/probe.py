"""Run a learner's files once, in a learner process, to find the ones that never come back.

A file whose top level loops forever, waits on a lock or ends the process (``os._exit``, a
crash) would otherwise cost every check of every later step its whole time limit or a new
learner process. The probe finds such files before the checks start; the checks' loader then
reports them once per check without running them again.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING

from lab.sandbox.channel import LearnerProcess
from lab.sandbox.loading import LoadStopped, load

if TYPE_CHECKING:
    from lab.model.implementation import Implementation
    from lab.model.results import Text
    from lab.sandbox.shapes import Settings


def find_problems(
    implementation: Implementation, settings: Settings, started: LearnerProcess | None = None
) -> tuple[tuple[int, Text], ...]:
    """(step, facts) for every file of implementation that hangs or ends the process when it runs.

    started: a private learner process started for this before the files were read (a spare's,
    lab/running/spare.py), used for the first try; it is ended here in any case."""
    known: dict[int, Text] = {}
    try:
        for _ in implementation.files:
            process, started = started or LearnerProcess(settings.scratch, settings.confined, private=True), None
            try:
                load(process, implementation, known, settings, one_by_one=True)
                break
            except LoadStopped as stopped:
                # one_by_one: the load stopped on one file, which it names
                known.update(dict.fromkeys(stopped.file.steps, stopped.message))  # type: ignore[union-attr]
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

    def wants_a_process(self) -> bool:
        """Whether a part should start a learner process ahead for the probe: only the first to ask."""
        with self._lock:
            wanted, self._asked = not self._asked, True
        return wanted

    def find_problems(
        self, implementation: Implementation, settings: Settings, started: LearnerProcess | None = None
    ) -> tuple[tuple[int, Text], ...]:
        """find_problems, run once; started, a process no longer needed once it ran, is ended unused."""
        with self._lock:
            if self._found is None:
                self._found = find_problems(implementation, settings, started)
                return self._found
        if started:
            started.kill()
        return self._found
