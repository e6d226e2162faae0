"""The runner's child started before its run: pytest, Hypothesis and the lab's plugin already
imported, blocked on reading its plan from a pipe (``python -m lab.running.child --wait EVENTS_FD``).

`make watch` keeps its next check ready (lab/learner/next_check.py): that process starts this
spare while the learner edits, and the first run of the checks takes it. It is the child the
runner would start, with the same sandbox and limits; it differs only in when it starts and in
how its plan comes: over its stdin when the run begins, never as a file (the plan holds the
learner's files, read only then). It is used once; a spare that does not fit the run, or has
ended, is ended and the run starts its own child as always.
"""

import json
import os
import select
import shutil
import threading
from dataclasses import asdict, dataclass
from pathlib import Path

from lab.running.child_process import STARTUP, StartedChild, parent_folder, start_child, watch_child

WAITING = "--wait"  # the child's first argument in this mode, before its events descriptor
WAITING_EVENT = b'{"event": "waiting"}\n'  # its first event: imported, it now reads its plan


@dataclass
class Spare:
    kind: object  # what kind of child it is (runner._Child): a run takes only a spare of its kind
    workdir: Path  # the parent's folder of the run that takes it (its stderr lives there)
    started: StartedChild | None  # None once it ran
    ready: bool = False  # its first event, that it waits for its plan, was read

    def run(self, plan, arguments, time_limit, deadline):
        """Hand the plan and pytest's arguments over and watch the child to its end; None when it
        had already ended (the run then starts a child of its own). Used once."""
        if not self.wait_until_ready():
            self.end()
            return None
        started, self.started = self.started, None
        handover = json.dumps({"plan": asdict(plan), "arguments": list(arguments)}).encode()
        try:
            with started.process.stdin as stdin:
                stdin.write(handover)
        except BrokenPipeError:
            started.end()
            return None
        return watch_child(started, time_limit, deadline)

    def wait_until_ready(self, timeout=STARTUP):
        """Whether the child is ready (has imported, and reads its plan), waiting for it up to
        timeout seconds. Its first event is read here, not by the run."""
        if self.ready:
            return True
        reading = self.started.reading
        received = b""
        while len(received) < len(WAITING_EVENT) and select.select([reading], [], [], timeout)[0]:
            chunk = os.read(reading, len(WAITING_EVENT) - len(received))
            if not chunk:
                break
            received += chunk
        self.ready = received == WAITING_EVENT
        return self.ready

    def end(self):
        """End the child if it never ran."""
        started, self.started = self.started, None
        if started:
            started.end()


_spare = None  # this process's one spare child, until a run takes it
_taking = threading.Lock()  # runs of one check start in threads of their own


def prestart(kind):
    """Start a spare child of this kind (its command: kind.waiting_command())."""
    global _spare
    discard()
    workdir = parent_folder()
    try:
        _spare = Spare(kind, workdir, start_child(kind.waiting_command(), workdir, handover=True))
    except BaseException:
        shutil.rmtree(workdir, ignore_errors=True)
        raise


def wait_until_ready():
    """Whether this process's spare child is ready for its plan (waiting for it up to STARTUP)."""
    return bool(_spare) and _spare.wait_until_ready()


def take(kind):
    """The spare child, if it is of this kind and still waiting; the caller then owns it and its
    workdir. Any other spare is ended."""
    global _spare
    with _taking:
        spare, _spare = _spare, None
    if spare and spare.kind == kind and spare.started.process.poll() is None:
        return spare
    _end(spare)
    return None


def discard():
    """End the spare nobody took (the run needed no child, or stopped before its checks)."""
    global _spare
    with _taking:
        spare, _spare = _spare, None
    _end(spare)


def _end(spare):
    if spare:
        spare.end()
        shutil.rmtree(spare.workdir, ignore_errors=True)
