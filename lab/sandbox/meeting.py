"""Whether claim_many's claims run at the same time, counted where the learner's code cannot reach.

Each claim announces itself (``enter``) and then waits, up to `patience` seconds of the check's
clock (lab/clock.py), until some claim other than itself is running: claims in a pool of two or
more threads meet at once; claims made one after the other never do, and each of them is counted
as having run alone. When the claim
ends (``leave``) its owner, now, ttl and answer are recorded.

For the lab's own code the stand-in for ``claim`` calls the meeting directly (local.py); for a
learner's, each call of the stand-in in the learner process is a connection to a socket the
checks own (``Rendezvous``): the checks count the connections they accept and hold each one
until its go, from their side. No message the learner process sends on its channel counts, so
code under test that reaches for the stand-in or the channel finds nothing to forge; one that
opens connections of its own makes claims of its own, which the checks count as calls.
"""

from __future__ import annotations

import json
import os
import socket
import tempfile
import threading

from lab import clock
from lab.sandbox.values import decoded

MAX_LINE = 1 << 16  # bytes of what one claim says on its connection
MAX_CLAIMS = 256  # connections held at once; more are closed unanswered


class Meeting:
    def __init__(self, patience: float) -> None:
        self.patience = patience
        self.change = threading.Condition()
        self.running = self.peak = self.alone = 0
        self.calls: list[
            tuple[object, object, object, object]
        ] = []  # (owner, now, ttl, what claim returned), in the order the calls ended

    def enter(self) -> None:
        """One claim starts; returns once it met another, or waited in vain."""
        with self.change:
            self.running += 1
            self.peak = max(self.peak, self.running)
            self.change.notify_all()
            # Once one claim waited in vain, the next are counted with a short wait: one after
            # the other, forty claims would otherwise outlast the time limit.
            patience = self.patience if not self.alone else self.patience / 10
            if not clock.wait_for(self.change, lambda: self.peak >= 2, patience):
                self.alone += 1

    def leave(self, owner: object, now: object, ttl: object, answer: object) -> None:
        with self.change:
            self.running -= 1
            if not isinstance(answer, BaseException):
                self.calls.append((owner, now, ttl, answer))


class Rendezvous:
    """A socket in a folder of its own in the scratch folder: the stand-ins' claims connect to it,
    say who they are and wait for the go; each counted by the meeting, from this side."""

    def __init__(self, meeting: Meeting, scratch: str) -> None:
        self.meeting, self.folder = meeting, tempfile.mkdtemp(prefix="meet-", dir=scratch)
        self.path = os.path.join(self.folder, "claims")
        self.listening = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.listening.bind(self.path)
        self.listening.listen(MAX_CLAIMS)
        self.held = threading.BoundedSemaphore(MAX_CLAIMS)
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
            threading.Thread(target=self._claim, args=(connection,), daemon=True).start()

    def _claim(self, connection: socket.socket) -> None:
        with connection:
            try:
                connection.settimeout(self.meeting.patience + 5)
                lines = connection.makefile("rwb")
                called = json.loads(lines.readline(MAX_LINE))
                self.meeting.enter()
                lines.write(b"go\n")
                lines.flush()
                ended = json.loads(lines.readline(MAX_LINE))
                answer = RuntimeError("claim raised") if ended.get("raised") else decoded(ended["value"])
                self.meeting.leave(decoded(called["owner"]), decoded(called["now"]), decoded(called["ttl"]), answer)
                lines.write(b"counted\n")
                lines.flush()
            except (OSError, ValueError, KeyError, TypeError, AttributeError):
                pass  # a connection that says nothing a claim says is no claim
            finally:
                self.held.release()

    def close(self) -> None:
        self.listening.close()
