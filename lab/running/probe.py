"""Run a learner's files once, in a learner process, to find the ones that never come back.

A file whose top level loops forever, waits on a lock or ends the process (``os._exit``, a
crash) would otherwise cost every check of every later step its whole time limit or a new
learner process. The probe finds such files before the checks start; the checks' loader then
reports them once per check without running them again.

A file found so is remembered for the rest of the process, by its path, text and the time limit
(``_stopped``): the runs that follow over the same file (a class learner's credit runs, one per
failing step, each with a share of the budget) skip it at once instead of waiting out its time
limit again, so a file that hangs at its top level costs its own step only, on a busy machine too.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING

from lab.sandbox.channel import LearnerProcess
from lab.sandbox.loading import LoadStopped, load

if TYPE_CHECKING:
    from lab.model.implementation import Implementation, SourceFile
    from lab.model.results import Text
    from lab.sandbox.shapes import Settings


def find_problems(
    implementation: Implementation, settings: Settings, started: LearnerProcess | None = None
) -> tuple[tuple[int, Text], ...]:
    """(step, facts) for every file of implementation that hangs or ends the process when it runs.

    started: a private learner process started for this before the files were read (a spare's,
    lab/running/spare.py), used for the first try; it is ended here in any case."""
    known: dict[int, Text] = {
        step: _stopped[_seen(file, settings)]
        for file in implementation.files
        if _seen(file, settings) in _stopped
        for step in file.steps
    }
    try:
        for _ in implementation.files:
            process, started = started or LearnerProcess(settings.scratch, settings.confined, private=True), None
            try:
                load(process, implementation, known, settings, one_by_one=True)
                break
            except LoadStopped as stopped:
                # one_by_one: the load stopped on one file, which it names
                known.update(dict.fromkeys(stopped.file.steps, stopped.message))  # type: ignore[union-attr]
                _stopped[_seen(stopped.file, settings)] = stopped.message  # type: ignore[arg-type]
            finally:
                process.kill()
    finally:
        if started:
            started.kill()
    return tuple(known.items())


_stopped: dict[tuple[str, str, float], Text] = {}  # (path, text, time limit) -> facts: files found to stop


def _seen(file: SourceFile, settings: Settings) -> tuple[str, str, float]:
    return str(file.path), file.text or "", settings.time_limit


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
