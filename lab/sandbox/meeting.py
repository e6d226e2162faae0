"""Whether the calls of a watched function run at the same time, counted where the learner's code
cannot reach. The course names the function (claim_many's checks watch claim); the engine knows
only that it is a function of the module.

Each call announces itself (``enter``) and then waits, up to `patience` seconds of the check's
clock (lab/clock.py), until some call other than itself is running: calls in a pool of two or
more threads meet at once; calls made one after the other never do, and each of them is counted
as having run alone. When the call ends (``leave``) its arguments, in the order of the function's
parameters, and its answer are recorded.

Once met, one call runs first, alone: the call naming the check's lead (waited for up to
TURN_HELD), or without one the call that sorts first of those that came within `patience`; the
others run, at the same time, once it has ended; and it returns last, once every call the check
makes has ended (or, when it does not say how many, once the meeting is idle). Any such order is
one the calls could have run in, so no code that keeps its contract fails for it; but which call
wins no longer depends on which thread the machine happened to start first. claim_many's checks need that: the first owner's claim runs first and wins, and it ends
last, so results gathered in the order the claims end (not in the owners' order) put its fence at
the end of the list on every run, not at index 0 on some. (A list that moved the fence to the front
whatever the order would not be told apart here: no code gathers results that way by mistake.)

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


# Seconds of the check's clock the others wait for the first call (to come, when it is the lead,
# or to end), and the first for the others to end: a call that hangs is not waited for longer.
TURN_HELD = 2.0
Ticket = tuple[str, int]  # a call's place in the meeting: its arguments' repr, then its arrival


class Meeting:
    def __init__(self, patience: float, calls: int | None = None, lead: object = None) -> None:
        """calls: how many calls the check will make, when it knows: the first call returns once
        that many have ended (or TURN_HELD passed), however slowly the machine starts the others.
        lead: a value among the arguments of the call that is to run first (it is waited for, up to
        TURN_HELD); without one, the first call is the one that sorts first of those that came
        within `patience`."""
        self.patience, self.expected, self.lead = patience, calls, lead
        self.change = threading.Condition()
        self.running = self.peak = self.alone = self.ended = 0
        self.calls: list[tuple[tuple[object, ...], object]] = []  # (arguments, answer), in the order they ended
        self.waiting: dict[Ticket, tuple[object, ...]] = {}  # the calls not yet let go, and their arguments
        self.first: Ticket | None = None  # the call that runs first, alone
        self.first_done = False
        self.arrivals = 0

    def enter(self, arguments: tuple[object, ...]) -> Ticket:
        """One call starts; returns once it met another, or waited in vain, and it may run: the
        first call at once, the others once the first has ended."""
        with self.change:
            self.running += 1
            self.peak = max(self.peak, self.running)
            ticket = (repr(arguments), self.arrivals)
            self.arrivals += 1
            self.waiting[ticket] = arguments
            self.change.notify_all()
            # Once one call waited in vain, the next are counted with a short wait: one after
            # the other, forty calls would otherwise outlast the time limit.
            patience = self.patience if not self.alone else self.patience / 10
            if not clock.wait_for(self.change, lambda: self.peak >= 2, patience):
                self.alone += 1
            self._wait_for_the_first(ticket)
            del self.waiting[ticket]
            return ticket

    def _wait_for_the_first(self, ticket: Ticket) -> None:
        while self.first is None:
            if self._next() != ticket:  # another is to run first: wait until it is chosen
                clock.wait_for(self.change, self._chosen_or_next(ticket), TURN_HELD)
                continue
            if self.lead is not None and not self._led():  # the lead's, once it comes; it may never come
                if clock.wait_for(self.change, self._led, TURN_HELD):
                    continue
            elif self.lead is None and not self._settled():
                continue
            self.first = ticket
            self.change.notify_all()
            return
        if ticket != self.first:  # the first runs alone; a first that hangs is not waited for
            clock.wait_for(self.change, self._first_ended, TURN_HELD)

    def _next(self) -> Ticket:
        """The waiting call that is to run first: the lead, when it is waiting."""
        led = self._led()
        return min(led) if led else min(self.waiting)

    def _led(self) -> list[Ticket]:
        if self.lead is None:
            return []
        return [ticket for ticket, arguments in self.waiting.items() if self.lead in arguments]

    def _settled(self) -> bool:
        """Whether no call arrived for `patience`: the calls a pool starts at once have all come."""
        return not clock.wait_for(self.change, self._arrived_since(self.arrivals), self.patience)

    def _chosen_or_next(self, ticket: Ticket) -> Callable[[], bool]:
        return lambda: self.first is not None or self._next() == ticket

    def _first_ended(self) -> bool:
        return self.first_done

    @staticmethod
    def _never() -> bool:
        return False

    def _all_ended(self) -> bool:
        return self.expected is not None and self.ended >= self.expected

    def _arrived_since(self, seen: int) -> Callable[[], bool]:
        return lambda: self.arrivals != seen

    def leave(self, ticket: Ticket, arguments: tuple[object, ...], answer: object) -> None:
        """The call ended (answer: what it returned, or raised). The first call returns last: once
        every call the check makes has ended, whatever the threads did."""
        with self.change:
            self.running -= 1
            self.ended += 1
            if not isinstance(answer, BaseException):
                self.calls.append((arguments, answer))
            if ticket == self.first:
                self.first_done = True
                self.change.notify_all()
                self._wait_until_the_others_ended()
            else:
                self.change.notify_all()

    def _wait_until_the_others_ended(self) -> None:
        """Until every call the check makes has ended, when it said how many, and `patience` more
        (the others' threads hand their answers back first); else until no call runs or waits, and
        none arrives for `patience`: the calls a pool has yet to start come in that time."""
        if self.expected is not None:
            clock.wait_for(self.change, self._all_ended, TURN_HELD)
            clock.wait_for(self.change, self._never, self.patience)
            return
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
