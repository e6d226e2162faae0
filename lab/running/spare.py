"""The checks' child started before its plan exists: pytest, Hypothesis and the lab's plugin
imported, blocked on reading its plan from a pipe (``python -m lab.running.child --wait EVENTS_FD``).

A run of the checks starts its child this way first, and reads and probes the learner's files
meanwhile (lab/running/runner.py); `make watch`'s next check starts them even before the save
(prestart: as many as its run may run at once, lab/commands/waiting_check.py), and its run takes
them. It is the child the runner would start, in the same sandbox with the same limits; it
differs only in when it starts and in how its plan comes: over its stdin once the run has read
the learner's files, never as a file. It is used once. A run takes only a spare of its own kind;
one that has ended is ended, and a run that finds none starts a child of its own, as it does
after a crash. The spares no run took are ended when the check is over (discard).
"""

import json
import os
import select
import shutil
import threading
from dataclasses import asdict, dataclass
from pathlib import Path

from lab.model.results import as_json
from lab.running.child_process import (
    STARTUP,
    StartedChild,
    parent_folder,
    scratch_folder,
    start_child,
    watch_child,
)
from lab.sandbox.channel import LearnerProcess

WAITING = "--wait"  # the child's first argument in this mode, before its events descriptor
WAITING_EVENT = b'{"event": "waiting"}\n'  # its first event: imported, it now reads its plan


@dataclass
class Spare:
    kind: object  # what kind of child it is (runner._Child): a run takes only a spare of its kind
    workdir: Path  # the parent's folder of the run that takes it (its stderr lives there)
    started: StartedChild | None  # None once it ran
    probing: object = None  # a private learner process started for the run's probe (lab/running/probe.py)
    ready: bool = False  # its first event, that it waits for its plan, was read

    def take_probing(self):
        """The learner process started for the probe, or None; the caller then owns it."""
        probing, self.probing = self.probing, None
        return probing

    def run(self, plan, arguments, time_limit, deadline):
        """Hand the plan and pytest's arguments over and watch the child to its end; None when it
        had already ended, or did not get ready in time (the run then starts a child of its own).
        Used once."""
        timeout = STARTUP if deadline is None else max(0.0, min(STARTUP, deadline.left()))
        if not self.wait_until_ready(timeout):
            self.end()
            return None
        started, self.started = self.started, None
        handover = json.dumps({"plan": asdict(plan), "arguments": list(arguments)}, default=as_json).encode()
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
        """End the child if it never ran, and the probe's process if nobody took it."""
        started, self.started = self.started, None
        if started:
            started.end()
        probing = self.take_probing()
        if probing:
            probing.kill()


_spares = []  # this process's spare children, until runs take them
_taking = threading.Lock()  # runs of one check start in threads of their own


def start(kind, probing=False):
    """A spare child of this kind, started now (its command: kind.waiting_command()); probing:
    with a private learner process for the probe of the learner's files."""
    workdir = parent_folder()
    started = None
    try:
        started = Spare(kind, workdir, start_child(kind.waiting_command(), workdir, handover=True))
        if probing:
            scratch = scratch_folder(workdir, kind.confined)
            started.probing = LearnerProcess(scratch, kind.confined, private=True)
        return started
    except BaseException:
        if started:
            started.end()
        shutil.rmtree(workdir, ignore_errors=True)
        raise


def prestart(kind, count=1):
    """Start this process's spare children (each with its probe's learner process), for the first
    runs of their kind to take: count of them, as many as the parts one run of the checks may be
    run in at once (lab/grading/kill_matrix.py)."""
    discard()
    for _ in range(count):
        _spares.append(start(kind, probing=True))


def wait_until_ready(timeout=STARTUP):
    """Whether this process's spare children are ready for their plans (waiting up to timeout for each)."""
    return bool(_spares) and all(spare.wait_until_ready(timeout) for spare in list(_spares))


def take(kind):
    """A spare child of this kind that still waits, or None; the caller then owns it and its
    workdir. A spare that has ended is ended here; one of another kind is left for its own run
    (discard ends it, once the check is over)."""
    with _taking:
        for spare in list(_spares):
            if spare.started.process.poll() is not None:
                _spares.remove(spare)
                _end(spare)
            elif spare.kind == kind:
                _spares.remove(spare)
                return spare
    return None


def discard():
    """End the spares nobody took (the run needed fewer children, or stopped before its checks)."""
    with _taking:
        left = _spares[:]
        _spares.clear()
    for spare in left:
        _end(spare)


def _end(spare):
    spare.end()
    shutil.rmtree(spare.workdir, ignore_errors=True)
