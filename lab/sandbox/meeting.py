"""Whether the calls of a watched function run at the same time, counted where the learner's code
cannot reach. The course names the function (claim_many's checks watch claim); the engine knows
only that it is a function of the module.

Each call announces itself (``enter``) and then waits, up to `patience` seconds of the check's
clock (lab/clock.py), until some call other than itself is running: calls in a pool of two or
more threads meet at once; calls made one after the other never do, and each of them is counted
as having run alone. When the call ends (``leave``) its arguments, in the order of the function's
parameters, and its answer are recorded.

For the lab's own code the stand-in calls the meeting directly (local.py); for a learner's, each
call of the stand-in in the learner process is a connection to a socket the checks own
(``Rendezvous``): the checks count the connections they accept and hold each one until its go,
from their side. No message the learner process sends on its channel counts, so code under test
that reaches for the stand-in or the channel finds nothing to forge; one that opens connections
of its own makes calls of its own, which the checks count as calls.
"""

from __future__ import annotations

import json
import os
import socket
import tempfile
import threading

from lab import clock
from lab.sandbox.values import decoded

MAX_LINE = 1 << 16  # bytes of what one call says on its connection
MAX_CALLS = 256  # connections held at once; more are closed unanswered


class Meeting:
    def __init__(self, patience: float) -> None:
        self.patience = patience
        self.change = threading.Condition()
        self.running = self.peak = self.alone = 0
        self.calls: list[tuple[tuple[object, ...], object]] = []  # (arguments, answer), in the order they ended

    def enter(self) -> None:
        """One call starts; returns once it met another, or waited in vain."""
        with self.change:
            self.running += 1
            self.peak = max(self.peak, self.running)
            self.change.notify_all()
            # Once one call waited in vain, the next are counted with a short wait: one after
            # the other, forty calls would otherwise outlast the time limit.
            patience = self.patience if not self.alone else self.patience / 10
            if not clock.wait_for(self.change, lambda: self.peak >= 2, patience):
                self.alone += 1

    def leave(self, arguments: tuple[object, ...], answer: object) -> None:
        with self.change:
            self.running -= 1
            if not isinstance(answer, BaseException):
                self.calls.append((arguments, answer))


class Rendezvous:
    """A socket in a folder of its own in the scratch folder: the stand-in's calls connect to it,
    say their arguments and wait for the go; each counted by the meeting, from this side."""

    def __init__(self, meeting: Meeting, scratch: str) -> None:
        self.meeting, self.folder = meeting, tempfile.mkdtemp(prefix="meet-", dir=scratch)
        self.path = os.path.join(self.folder, "calls")
        self.listening = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.listening.bind(self.path)
        self.listening.listen(MAX_CALLS)
        self.held = threading.BoundedSemaphore(MAX_CALLS)
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                connection, _ = self.listening.accept()
            except OSError:  # closed: the check is over
                return
            if not self.held.acquire(blocking=False):
                connection.close()
                continue
            threading.Thread(target=self._call, args=(connection,), daemon=True).start()

    def _call(self, connection: socket.socket) -> None:
        with connection:
            try:
                connection.settimeout(self.meeting.patience + 5)
                lines = connection.makefile("rwb")
                called = json.loads(lines.readline(MAX_LINE))
                self.meeting.enter()
                lines.write(b"go\n")
                lines.flush()
                ended = json.loads(lines.readline(MAX_LINE))
                answer = RuntimeError("the call raised") if ended.get("raised") else decoded(ended["value"])
                arguments = decoded(called["arguments"])
                self.meeting.leave(tuple(arguments) if isinstance(arguments, list) else (), answer)
                lines.write(b"counted\n")
                lines.flush()
            except (OSError, ValueError, KeyError, TypeError, AttributeError):
                pass  # a connection that says nothing a call says is no call
            finally:
                self.held.release()

    def close(self) -> None:
        self.listening.close()
