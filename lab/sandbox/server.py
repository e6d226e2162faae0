"""The learner process: runs the learner's files and calls their functions on request.

Started as ``python -I -S server.py LIMITS`` (inside the sandbox when there is one), it imports
only the standard library, so that nothing of the lab needs to be visible to it. The channel is
its stdin and stdout, one JSON object per line; the learner's own output goes to /dev/null.
Values cross the channel as plain data only (see ``plain``): an object of the learner's, with
an ``__eq__`` that says yes to everything, never reaches the checks.

Requests, each with an ``id`` the reply repeats:
  load     run files' texts into the module, in order (``fresh``: a new, empty module first)
  call     call one function of the module, in a thread of its own
  slow     make every sqlite3 connection pause before each write from now on
  watch    stand in for the module's function ``function``: each call connects to the checks'
           socket ``socket`` in the scratch folder, says its arguments and waits there for the
           checks' go, then tells them its answer (the checks count the calls: meeting.py)
  where    the innermost line of the learner's files that each running call is at
  pause    count the statements that sqlite3 connections run from now on, and hold the one
           numbered ``at`` (0 is the first; none: only count) until ``resume``, after sending
           ``paused``: the interleaving checks run another worker's claim there
  resume   let the held statement go on; ``statements`` answers how many ran since ``pause``
"""

from __future__ import annotations

import functools
import json
import os
import queue
import resource
import socket
import sqlite3
import sys
import threading
import time
import traceback
import types

# typing.TYPE_CHECKING without importing typing, which no module of this process needs: mypy reads
# a name TYPE_CHECKING as true.
TYPE_CHECKING = False
if TYPE_CHECKING:
    import multiprocessing.synchronize
    from collections.abc import Callable, Mapping
    from io import BufferedRWPair
    from typing import Any

    from lab.sandbox.shapes import Answer, Event, Plain, Problem, Raised, Ran, Request

MAX_TEXT = 2000  # characters of an error message or a repr sent back


def main(limits: dict[str, int]) -> None:
    channel_in, channel_out = os.fdopen(os.dup(0), "rb"), os.dup(1)
    devnull = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(devnull, fd)
    sys.stdout = sys.stderr = open(os.devnull, "w")  # noqa: SIM115 - the learner's prints go nowhere
    _limit(limits)
    observe_connections()
    lock = threading.Lock()

    def reply(message: Mapping[str, object]) -> None:
        data = (json.dumps(message) + "\n").encode()
        with lock:
            while data:
                data = data[os.write(channel_out, data) :]

    server = Server(reply)
    workers = Workers(lambda request: reply(server.call(request)))
    for line in channel_in:
        request = json.loads(line)
        if request["op"] == "call":
            workers.run(request)
        else:
            reply({"id": request["id"], **getattr(server, request["op"])(request)})
    os._exit(0)  # the grader closed the channel; threads the learner started end with the process


class Workers:
    """Threads that run calls, each call in a thread of its own: an idle one when there is one
    (handing a call over costs far less than starting a thread), a new one when all are busy,
    so that calls from racing threads of a check really run at the same time."""

    def __init__(self, work: Callable[[Request], None]) -> None:
        self.work, self.lock = work, threading.Lock()
        self.idle: list[queue.SimpleQueue[Request]] = []

    def run(self, request: Request) -> None:
        with self.lock:
            inbox = self.idle.pop() if self.idle else None
        if inbox is None:
            inbox = queue.SimpleQueue()
            threading.Thread(target=self._serve, args=(inbox,), daemon=True).start()
        inbox.put(request)

    def _serve(self, inbox: queue.SimpleQueue[Request]) -> None:
        while True:
            self.work(inbox.get())
            with self.lock:
                self.idle.append(inbox)


def _limit(limits: Mapping[str, int]) -> None:
    """Hard limits, soft and hard alike, set before any learner code runs: it cannot raise them."""
    for name, value in limits.items():
        kind = getattr(resource, name)
        resource.setrlimit(kind, (value, value))


class Server:
    def __init__(self, tell: Callable[[Event], None]) -> None:
        self.tell = tell  # sends a message of the learner process's own: a held call's "paused"
        self.module = types.ModuleType("lease")
        self.files: dict[str, str] = {}  # filename -> the path shown to the learner
        self.running: dict[int, bool] = {}  # thread id -> True while a call runs there
        self.watcher: StandIn | None = None
        self.pauser: Pauser | None = None

    def load(self, request: Request) -> dict[str, list[Ran]]:
        """Run files in order into the module; for each, its problem and the names then callable."""
        if request.get("fresh"):
            self.module, self.files, self.watcher = types.ModuleType("lease"), {}, None
        ran: list[Ran] = []
        for file in request["files"]:
            self.files[file["filename"]] = file["shown"]
            problem = self._run(file["text"], file["filename"])
            ran.append(
                {
                    "problem": problem,
                    "callables": [name for name, value in list(self.module.__dict__.items()) if callable(value)],
                }
            )
        return {"files": ran}

    def _run(self, text: str, filename: str) -> Problem | None:
        """None, or what went wrong running one file."""
        try:
            code = _compiled(text, filename)
        except SyntaxError as error:
            return {"kind": "syntax", "line": error.lineno, "type": type(error).__name__, "error": error.msg}
        try:
            exec(code, self.module.__dict__)
        except BaseException as error:  # noqa: BLE001 - learner code may raise anything, SystemExit too
            where = self._where(error.__traceback__)
            return {
                "kind": "raised",
                "line": where[1] if where else None,
                "type": type(error).__name__,
                "error": _text(error),
            }
        return None

    def call(self, request: Request) -> Answer:
        self.running[threading.get_ident()] = True
        try:
            value = getattr(self.module, request["name"])(*request["args"], **request.get("kwargs", {}))
            return {"id": request["id"], "value": plain(value)}
        except BaseException as error:  # noqa: BLE001 - sent back, to be judged by the checks
            return {"id": request["id"], "raised": self.described(error)}
        finally:
            self.running.pop(threading.get_ident(), None)

    def described(self, error: BaseException) -> Raised:
        mro = [[cls.__module__, cls.__qualname__] for cls in type(error).__mro__]
        return {"mro": mro, "message": _text(error), "where": self._where(error.__traceback__)}

    def slow(self, request: Request) -> dict[str, object]:
        slow_down_writes()
        return {}

    def pause(self, request: Request) -> dict[str, object]:
        if self.pauser is None:
            self.pauser = Pauser(self.tell)
        self.pauser.arm(request.get("at"))
        return {}

    # resume and statements: the grader asks them of a call it held with pause, which made the Pauser.
    def resume(self, request: Request) -> dict[str, object]:
        self.pauser.resumed.set()  # type: ignore[union-attr]
        return {}

    def statements(self, request: Request) -> dict[str, object]:
        return {"statements": self.pauser.count}  # type: ignore[union-attr]

    def watch(self, request: Request) -> dict[str, object]:
        name = request["function"]
        self.watcher = StandIn(getattr(self.module, name), request["socket"], request["patience"])
        setattr(self.module, name, self.watcher)
        return {}

    def where(self, request: Request) -> dict[str, object]:
        frames = sys._current_frames()
        found = [self._where_in(frames[ident]) for ident in list(self.running) if ident in frames]
        return {"where": next((w for w in found if w), None)}

    def _where(self, tb: types.TracebackType | None) -> tuple[str, int] | None:
        lines = [(frame.f_code.co_filename, line) for frame, line in traceback.walk_tb(tb)]
        return self._innermost(lines)

    def _where_in(self, frame: types.FrameType) -> tuple[str, int] | None:
        lines = [(f.f_code.co_filename, line) for f, line in traceback.walk_stack(frame)]
        return self._innermost(list(reversed(lines)))

    def _innermost(self, lines: list[tuple[str, int]]) -> tuple[str, int] | None:
        """(shown path, line) of the last frame, outermost first, that is in a learner's file."""
        mine = [(self.files[name], line) for name, line in lines if name in self.files]
        return mine[-1] if mine else None


@functools.cache
def _compiled(text: str, filename: str) -> types.CodeType:
    """Every check loads the files afresh: compiling each once per process is enough."""
    return compile(text, filename, "exec")


def plain(value: Any, depth: int = 0) -> Plain:
    """A value as JSON: None, bools, ints, floats and strs as they are; tuples, lists, dicts and
    bytes tagged; anything else (a Row, a subclass of int, an object of the learner's) as an
    opaque repr that equals nothing on the other side. value: Any, for it is told apart by its exact
    type, which mypy does not follow."""
    kind = type(value)
    if value is None or kind in (bool, int, float, str):
        return value  # type: ignore[no-any-return]  # a JSON scalar, by its exact type
    if depth < 20 and kind in (tuple, list):
        return {"tuple" if kind is tuple else "list": [plain(item, depth + 1) for item in value]}
    if depth < 20 and kind is dict:
        return {"dict": [[plain(k, depth + 1), plain(v, depth + 1)] for k, v in value.items()]}
    if kind is bytes:
        return {"bytes": value.hex()}
    return {"opaque": f"{kind.__module__}.{kind.__qualname__}", "repr": _text(value, repr)}


def _text(value: object, how: Callable[[object], str] = str) -> str:
    try:
        return how(value)[:MAX_TEXT]
    except BaseException:  # noqa: BLE001 - a learner's __str__ may raise anything
        return f"<{type(value).__name__}>"


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


class StandIn:
    """Stands in for a function of the module while a check watches it (the course says which:
    claim_many's checks watch claim): each call connects to the checks' socket, says its
    arguments, waits there for their go, runs the real function and tells them what it returned.
    The counting is theirs (lab/sandbox/meeting.py): they see the connections."""

    def __init__(self, real: Callable[..., object], socket_path: str, patience: float) -> None:
        self.real, self.socket_path, self.patience = real, socket_path, patience

    def __call__(self, *args: object, **kwargs: object) -> object:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as meeting:
            meeting.settimeout(self.patience + 5)
            meeting.connect(self.socket_path)
            lines = meeting.makefile("rwb")
            called = {"arguments": plain(in_order(self.real, args, kwargs))}
            lines.write((json.dumps(called) + "\n").encode())
            lines.flush()
            lines.readline()  # the checks' go
            try:
                answer = self.real(*args, **kwargs)
            except BaseException:
                self._ended(lines, {"raised": True})
                raise
            self._ended(lines, {"value": plain(answer)})
            return answer

    @staticmethod
    def _ended(lines: BufferedRWPair, said: dict[str, object]) -> None:
        """Tell the checks how the call ended, and wait until they have counted it: the next
        call of a loop must not connect before this one is counted out."""
        lines.write((json.dumps(said) + "\n").encode())
        lines.flush()
        lines.readline()


def in_order(function: Callable[..., object], args: tuple[object, ...], kwargs: dict[str, object]) -> list[object]:
    """A call's arguments in the order of the function's parameters, defaults filled in, however
    they were passed (by position or by name); as passed where they do not fit its signature."""
    import inspect  # only where a check watches a function: the server starts without it

    try:
        bound = inspect.signature(function).bind(*args, **kwargs)
    except (TypeError, ValueError):
        return [*args, *kwargs.values()]
    bound.apply_defaults()
    return list(bound.arguments.values())


if __name__ == "__main__":
    main(json.loads(sys.argv[1]))
