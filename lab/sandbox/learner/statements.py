"""What the learner process sees of every SQLite statement its code runs, however the connection
was opened: an audit hook, which code cannot route around, feeds the watchers the checks arm
through the server (slowed writes, a Pauser that holds one statement)."""

from __future__ import annotations

import sqlite3
import sys
import threading
import time

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (see server.py)
if TYPE_CHECKING:
    import multiprocessing.synchronize
    import types
    from collections.abc import Callable
    from typing import Any

    from lab.sandbox.shapes import Event


_watchers: list[
    Callable[[str], None]
] = []  # what each statement of every connection is shown to: slowed writes, a Pauser


def observe_connections() -> None:
    """Show every statement of every sqlite3 connection this process opens from now on to the
    watchers armed at that moment, however the connection is made: ``sqlite3.connect`` under any
    name or alias, ``sqlite3.dbapi2``, ``sqlite3.Connection(...)`` and its subclasses,
    ``factory=``, opened at import time or kept in a global. Python raises the audit event
    ``sqlite3.connect/handle`` for each of them, which code cannot route around; a replaced
    ``sqlite3.connect`` would see only the calls made through that attribute after it was
    replaced. Done once per process; an audit hook cannot be removed."""
    if not _observing:
        _observing.append(True)
        sys.addaudithook(_on_audit)


_observing: list[bool] = []


def _on_audit(event: str, args: tuple[Any, ...]) -> None:
    if event == "sqlite3.connect/handle":
        _trace(args[0])


def _trace(conn: sqlite3.Connection) -> None:
    try:
        conn.set_trace_callback(_statement)
    except sqlite3.ProgrammingError:  # Python 3.11 raises the event before the connection is ready
        _trace_when_ready(conn)


def _trace_when_ready(conn: sqlite3.Connection) -> None:
    """Set the trace callback at this thread's next profiling event, when the connection is ready.

    No statement can run before that event: a statement runs only through a call, and a call made
    from Python code raises the event first. The thread's own profiler, if any, is put back."""
    previous: Callable[..., object] | None = sys.getprofile()

    def ready(frame: types.FrameType, event: str, arg: object) -> None:
        sys.setprofile(previous)
        try:
            conn.set_trace_callback(_statement)
        except sqlite3.ProgrammingError:  # its opening failed: the connection cannot run anything
            pass
        if previous is not None:
            previous(frame, event, arg)

    sys.setprofile(ready)


def _statement(sql: str) -> None:
    for watcher in tuple(_watchers):
        watcher(sql)


def watch(watcher: Callable[[str], None]) -> Callable[[], None]:
    """Show every statement of every connection of this process to watcher from now on, those of
    connections opened before included; returns what stops it."""
    observe_connections()
    _watchers.append(watcher)
    return lambda: _watchers.remove(watcher)


def slow_down_writes() -> Callable[[], None]:
    """Make races visible: every connection pauses before each write, and before each BEGIN.

    A claim that reads outside the write lock then lets every racer read "expired" before any
    of them writes, so two claimers win on every run instead of once in a thousand; one that
    reads and writes in two transactions lets another racer read between them. Returns what
    stops it."""
    return watch(_pause_before_writes)


def _pause_before_writes(statement: str) -> None:
    if statement.lstrip().upper().startswith(("UPDATE", "INSERT", "REPLACE", "BEGIN")):
        time.sleep(0.01)


class Pauser:
    """Counts the statements that sqlite3 connections run, and holds the one numbered `at` until
    `resumed` is set, after telling so: another worker's call can then run between any two
    statements of this one, at the moment a check chooses."""

    def __init__(
        self,
        tell: Callable[[Event], None],
        resumed: threading.Event | multiprocessing.synchronize.Event | None = None,
    ) -> None:
        self.tell, self.resumed = tell, resumed or threading.Event()
        self.at: int | None = None
        self.count = 0
        watch(self._before)

    def arm(self, at: int | None) -> None:
        self.at, self.count = at, 0
        self.resumed.clear()

    def _before(self, statement: str) -> None:
        number, self.count = self.count, self.count + 1
        if number == self.at:
            self.tell({"event": "paused"})
            self.resumed.wait(600)
