"""The grader's side of the channel to one learner process: requests out, capped replies in.

Replies are read by a thread of their own and handed to whoever waits for them, so that calls
from several threads of a check (the races) are in flight at once. Only replies to requests
still awaited are kept: one to a request never made, or made and given up, is dropped, and so
is a message sent unasked that nobody listens for (a check that holds a call listens for its
"paused"; nothing a learner process says unasked is ever kept or counted). A reply
longer than MAX_REPLY bytes, one that is not JSON, or replies awaiting their reader beyond
MAX_HELD bytes end the learner process: no flood grows the grader.
"""

from __future__ import annotations

import io
import itertools
import json
import subprocess
import threading
import time
import weakref
from typing import TYPE_CHECKING

from lab import clock
from lab.sandbox import confinement

if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    from lab.process import Child

MAX_REPLY = 1 << 20  # bytes of one reply
MAX_HELD = 4 << 20  # bytes of replies received and not yet taken by the checks
# Seconds past the time limit a wait for a reply may last where the check's own alarm does not
# reach it (a thread other than the check's, the prediction host): then the process is Stalled.
REPLY_GRACE = 5.0
# Every learner process this process started, to end them all at exit.
_every: weakref.WeakSet[LearnerProcess] = weakref.WeakSet()


class ChannelLost(Exception):
    """The learner process is gone: it ended (``code``), flooded the channel or garbled it."""

    def __init__(self, reason: str, code: int | None = None) -> None:
        super().__init__(reason)
        self.reason, self.code = reason, code


class Stalled(Exception):
    """No reply within the time the caller gave."""


class LearnerProcess:
    busy: bool  # a held call runs here (lab/sandbox/remote.py: Started); unset before the first

    def __init__(self, scratch: str, confined: bool, private: bool = False) -> None:
        self.popen: Child = confinement.start(scratch, confined, private=private)
        self.replies: dict[int, tuple[dict[str, Any], int]] = {}  # id -> (reply, its size in bytes)
        self.lost: ChannelLost | None = None
        self.awaited: set[int] = set()  # ids of requests sent and not given up
        self.held = 0  # bytes in replies
        # Called, in the reader's thread, with each message the process sends unasked (a held
        # call's "paused", which only decides when a check goes on): nothing of it is kept.
        self.on_event: Callable[[dict[str, Any]], None] | None = None
        self.arrived = threading.Condition()
        self.ids, self.writing, self.ending = itertools.count(), threading.Lock(), threading.RLock()
        _every.add(self)
        threading.Thread(target=self._read, daemon=True).start()

    def ask(self, op: str, timeout: float, **fields: object) -> dict[str, Any]:
        return self.wait(self.send(op, **fields), timeout)

    def send(self, op: str, **fields: object) -> int:
        ident = next(self.ids)
        data = (json.dumps({"id": ident, "op": op, **fields}) + "\n").encode()
        with self.arrived:
            self.awaited.add(ident)
        try:
            with self.writing:
                while data:
                    data = data[self.popen.stdin.write(data) :]  # type: ignore[union-attr]  # start() made it a pipe
        except (OSError, ValueError):
            self.kill()  # the reader then reports why the process is gone
        return ident

    def wait(self, ident: int, timeout: float) -> dict[str, Any]:
        """The reply to request `ident`; Stalled if none within `timeout` seconds of the check's
        clock (lab/clock.py: the time the machine kept the processes waiting for a CPU is not counted)."""
        began, check_clock = time.monotonic(), clock.this_process()
        with self.arrived:
            while ident not in self.replies and self.lost is None:
                left = check_clock.left(timeout, since=began)
                if left <= 0:
                    self.awaited.discard(ident)  # a late reply is dropped
                    raise Stalled()
                self.arrived.wait(left)
            self.awaited.discard(ident)
            if ident in self.replies:
                reply, size = self.replies.pop(ident)
                self.held -= size
                return reply
            raise self.lost  # type: ignore[misc]  # no reply: the wait ended on the loss, never None

    @property
    def alive(self) -> bool:
        return self.lost is None and self.popen.poll() is None

    def kill(self) -> None:
        """End the learner process and everything it started."""
        with self.ending:
            if self.popen.poll() is None:
                clock.this_process().ending(self.popen.pid)
            self.popen.end()

    def _read(self) -> None:
        # start() made stdout a pipe, unbuffered: a raw file
        replies = io.BufferedReader(self.popen.stdout, MAX_REPLY)  # type: ignore[type-var]
        lost: ChannelLost | None = None
        while lost is None:
            line = replies.readline(MAX_REPLY + 1)
            if not line:
                lost = ChannelLost("ended", self._exit_code())
            elif not line.endswith(b"\n"):
                lost = ChannelLost("flood")
            else:
                try:
                    reply = json.loads(line)
                    if "event" in reply:
                        if self.on_event is not None:
                            self.on_event(reply)
                        continue
                    ident = reply["id"]
                    if type(ident) is not int:
                        raise TypeError(ident)
                except (ValueError, TypeError, KeyError, AttributeError):
                    lost = ChannelLost("garbled")
                    continue
                lost = self._hold(ident, reply, len(line))
        self.kill()
        with self.arrived:
            self.lost = lost
            self.arrived.notify_all()

    def _hold(self, ident: int, reply: dict[str, Any], size: int) -> ChannelLost | None:
        """Keep a reply for its waiter, or drop it if nobody awaits it; a flood if too much is held."""
        with self.arrived:
            if ident not in self.awaited or ident in self.replies:
                return None
            if self.held + size > MAX_HELD:
                return ChannelLost("flood")
            self.replies[ident] = (reply, size)
            self.held += size
            self.arrived.notify_all()
        return None

    def _exit_code(self) -> int | None:
        try:
            return self.popen.wait(timeout=2)
        except subprocess.TimeoutExpired:  # still running with its channel closed: end it
            self.kill()
            return self.popen.returncode


def end_all() -> None:
    """End every learner process still running (before this process ends)."""
    for process in list(_every):
        process.kill()
