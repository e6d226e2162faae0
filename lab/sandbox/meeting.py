"""Whether the calls of a watched function run at the same time, counted where the learner's code
cannot reach. The course names the function (claim_many's checks watch claim); the engine knows
only that it is a function of the module.

Each call announces itself (``enter``) and then waits, up to `patience` seconds of the check's
clock (lab/clock.py), until some call other than itself is running: calls in a pool of two or
more threads meet at once; calls made one after the other never do, and each of them is counted
as having run alone. When the call ends (``leave``) its arguments, in the order of the function's
parameters, and its answer are recorded.

Once met, the calls run one at a time, of those waiting the one whose arguments sort last first,
and the call that ran first returns last, once the meeting is idle. Any such order is one the
calls could have run in, so no code that keeps its contract fails for it; but the order no longer
depends on which thread the machine happened to start first. claim_many's checks need that: the
first claim to run wins, it is never the first owner of the list nor the last, and it ends last,
so results gathered in the order the claims end (not in the owners' order) put its fence at the
end of the list on every run, not at the winner's index on some.

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

MAX_LINE = 1 << 16  # bytes of what one call says on its connection
MAX_CALLS = 256  # connections held at once; more are closed unanswered


# Seconds of the check's clock a call may keep its turn, or the first call wait for the others: a
# call that hangs longer is no longer waited for, and the calls after it run as they come.
TURN_HELD = 5.0
Ticket = tuple[str, int]  # a call's place in the meeting: its arguments' repr, then its arrival


class Meeting:
    def __init__(self, patience: float) -> None:
        self.patience = patience
        self.change = threading.Condition()
        self.running = self.peak = self.alone = 0
        self.calls: list[tuple[tuple[object, ...], object]] = []  # (arguments, answer), in the order they ended
        self.waiting: list[Ticket] = []  # the calls waiting for their turn
        self.turn: Ticket | None = None  # the call that runs now
        self.first: Ticket | None = None  # the call that ran first
        self.arrivals = 0

    def enter(self, arguments: tuple[object, ...]) -> Ticket:
        """One call starts; returns once it met another, or waited in vain, and it is its turn."""
        with self.change:
            self.running += 1
            self.peak = max(self.peak, self.running)
            ticket = (repr(arguments), self.arrivals)
            self.arrivals += 1
            self.waiting.append(ticket)
            self.change.notify_all()
            # Once one call waited in vain, the next are counted with a short wait: one after
            # the other, forty calls would otherwise outlast the time limit.
            patience = self.patience if not self.alone else self.patience / 10
            if not clock.wait_for(self.change, lambda: self.peak >= 2, patience):
                self.alone += 1
            self._wait_for_the_turn_of(ticket)
            return ticket

    def _wait_for_the_turn_of(self, ticket: Ticket) -> None:
        def mine() -> bool:
            return self.turn is None and max(self.waiting) == ticket

        while not mine():
            if not clock.wait_for(self.change, self._mine_or_moved_on(mine, self.turn), TURN_HELD):
                self.turn = None  # the holder kept its turn too long: it is not waited for
        self.waiting.remove(ticket)
        self.turn = ticket
        self.first = self.first or ticket

    def _mine_or_moved_on(self, mine: Callable[[], bool], holder: Ticket | None) -> Callable[[], bool]:
        return lambda: mine() or self.turn != holder

    def _arrived_since(self, seen: int) -> Callable[[], bool]:
        return lambda: self.arrivals != seen

    def leave(self, ticket: Ticket, arguments: tuple[object, ...], answer: object) -> None:
        """The call ended (answer: what it returned, or raised); the next may run. The call that
        ran first returns only once the meeting is idle: it ends last, whatever the threads did."""
        with self.change:
            self.running -= 1
            if self.turn == ticket:
                self.turn = None
            self.change.notify_all()
            if not isinstance(answer, BaseException):
                self.calls.append((arguments, answer))
            if ticket == self.first:
                self._wait_until_idle()

    def _wait_until_idle(self) -> None:
        """Until no call runs or waits, and none arrives for `patience`: the calls a pool has yet to
        start (its threads free) come in that time."""
        while True:
            clock.wait_for(self.change, lambda: self.running == 0, TURN_HELD)
            if not clock.wait_for(self.change, self._arrived_since(self.arrivals), self.patience):
                return


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
                self._count(connection)
            finally:
                self.held.release()

    def _count(self, connection: socket.socket) -> None:
        try:
            connection.settimeout(self.meeting.patience + 5)
            lines = connection.makefile("rwb")
            listed = decoded(json.loads(lines.readline(MAX_LINE))["arguments"])
        except (OSError, ValueError, KeyError, TypeError, AttributeError):
            return  # a connection that says nothing a call says is no call
        arguments = tuple(listed) if isinstance(listed, list) else ()
        ticket = self.meeting.enter(arguments)
        answer: object = RuntimeError("the call did not say how it ended")
        try:
            lines.write(b"go\n")
            lines.flush()
            ended = json.loads(lines.readline(MAX_LINE))
            answer = RuntimeError("the call raised") if ended.get("raised") else decoded(ended["value"])
        except (OSError, ValueError, KeyError, TypeError, AttributeError):
            pass  # counted as a call that raised
        finally:
            self.meeting.leave(ticket, arguments, answer)  # its turn ends however the call did
        try:
            lines.write(b"counted\n")
            lines.flush()
        except OSError:
            pass

    def close(self) -> None:
        self.listening.close()
