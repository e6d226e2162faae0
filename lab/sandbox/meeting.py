"""Whether the calls of a watched function run at the same time, counted where the learner's code
cannot reach. The course names the function (claim_many's checks watch claim); the engine knows
only that it is a function of the module.

Each call announces itself (``enter``) and then waits, up to `patience` seconds of the check's
clock (lab/clock.py), until some call other than itself is running: calls in a pool of two or
more threads meet at once; calls made one after the other never do, and each of them is counted
as having run alone. When the call ends (``leave``) its arguments, in the order of the function's
parameters, and its answer are recorded.

A check may name one call, by its arguments, to lead (``lead``): the calls that meet wait until the
lead has ended, and the lead's answer goes back only after every other call that came has returned
(for a learner's code, its connection closed), and a tenth of `patience` more. A race the check
cannot otherwise steer then ends as the check chose: claim_many's checks lead with the second
owner's claim, which wins and returns last, so answers placed in the order the claims returned
(as_completed), or a fence moved to the front, land away from its owner's index on every run. Every
wait is bounded: a lead that never comes is waited for `patience` once, one that never ends, or
others that never return, HOLD times `patience`; calls one after the other are never held.

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
from typing import TYPE_CHECKING

from lab import clock
from lab.sandbox.values import decoded

if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import TypeAlias

    Lead: TypeAlias = Callable[[tuple[object, ...]], bool]  # names, by its arguments, the call that leads

MAX_LINE = 1 << 16  # bytes of what one call says on its connection
MAX_CALLS = 256  # connections held at once; more are closed unanswered
HOLD = 10  # the longest the calls wait for a running lead to end, in `patience`s


class Meeting:
    def __init__(self, patience: float, lead: Lead | None = None) -> None:
        self.patience, self.lead = patience, lead
        self.change = threading.Condition()
        self.running = self.peak = self.alone = self.entered = self.returns = 0
        self.calls: list[tuple[tuple[object, ...], object]] = []  # (arguments, answer), in the order they ended
        # the lead's course: "awaited" (not yet come), "running", "ended", or "not waited for"
        self.led = "awaited" if lead is not None else "not waited for"

    def enter(self, arguments: tuple[object, ...]) -> bool:
        """One call starts; returns once it met another, or waited in vain, and, when it met
        another, once the lead has ended. True for the lead's call."""
        with self.change:
            self.running += 1
            self.entered += 1
            self.peak = max(self.peak, self.running)
            self.change.notify_all()
            # Once one call waited in vain, the next are counted with a short wait: one after
            # the other, forty calls would otherwise outlast the time limit.
            patience = self.patience if not self.alone else self.patience / 10
            met = clock.wait_for(self.change, lambda: self.peak >= 2, patience)
            if not met:
                self.alone += 1
            if self.led == "awaited" and self.lead is not None and self.lead(arguments):
                self.led = "running" if met else "not waited for"  # a lead that ran alone leads nothing
                return met
            if met and not self._lead_ended():
                self.led = "not waited for"  # a lead that never comes or never ends holds no call again
            return False

    def leave(self, arguments: tuple[object, ...], answer: object, leads: bool = False) -> None:
        """A call ended: counted, and, for the lead, held until every other call that came has
        returned, and a tenth of `patience` more."""
        with self.change:
            self.running -= 1
            if not isinstance(answer, BaseException):
                self.calls.append((arguments, answer))
            self.change.notify_all()
            if not leads:
                return
            self.led = "ended"
            # every other call that came has gone back to its caller, and had a moment to be taken
            clock.wait_for(self.change, lambda: self.returns >= max(1, self.entered - 1), self.patience * HOLD)
            clock.wait_for(self.change, lambda: False, self.patience / 10)

    def longest_wait(self) -> float:
        """Wall seconds one step of a watched call may wait on the other side of its connection:
        the meeting's longest hold (the lead to come and to end, the others to return, counted on
        a check clock that may run as slowly as clock.MIN_PACE), and a margin. The socket of each
        side gives up only after it, never before the meeting does."""
        return (HOLD + 2) * self.patience / clock.MIN_PACE + 5

    def returned(self) -> None:
        """A call other than the lead has gone back to its caller (after leave)."""
        with self.change:
            self.returns += 1
            self.change.notify_all()

    def _lead_ended(self) -> bool:
        """Waits for the lead to come (up to `patience`) and end (up to HOLD times that)."""
        if not clock.wait_for(self.change, lambda: self.led != "awaited", self.patience):
            return False
        return clock.wait_for(self.change, lambda: self.led != "running", self.patience * HOLD)


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
                connection.settimeout(self.meeting.longest_wait())
                lines = connection.makefile("rwb")
                called = decoded(json.loads(lines.readline(MAX_LINE))["arguments"])
                arguments = tuple(called) if isinstance(called, list) else ()
                leads = self.meeting.enter(arguments)
                lines.write(b"go\n")
                lines.flush()
                ended = json.loads(lines.readline(MAX_LINE))
                answer = RuntimeError("the call raised") if ended.get("raised") else decoded(ended["value"])
                self.meeting.leave(arguments, answer, leads)
                lines.write(b"counted\n")
                lines.flush()
                if not leads and not lines.read(1):  # the stand-in closes its connection as it returns
                    self.meeting.returned()
            except (OSError, ValueError, KeyError, TypeError, AttributeError):
                pass  # a connection that says nothing a call says is no call
            finally:
                self.held.release()

    def close(self) -> None:
        self.listening.close()
