"""The learner process: runs the learner's files and calls their functions on request.

Started as ``python -I -S -c BOOT FOLDER LIMITS`` (lab/sandbox/confinement.py: inside the sandbox
when there is one), it imports only the standard library and this package, so that nothing else of
the lab needs to be visible to it: the sandbox shows this folder alone, at lab/sandbox/learner
under FOLDER. The channel is
its stdin and stdout, one JSON object per line; the learner's own output goes to /dev/null.
Values cross the channel as plain data only (``plain.py``): an object of the learner's, with
an ``__eq__`` that says yes to everything, never reaches the checks.

Requests, each with an ``id`` the reply repeats:
  load     run files' texts into the module, in order (``fresh``: a new, empty module first)
  call     call one function of the module, in a thread of its own
  slow     make every sqlite3 connection pause before each write from now on
  watch    stand in for the module's function ``function`` (``stand_in.py``): each call connects to the checks'
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
import sys
import threading
import types

from lab.sandbox.learner.plain import bounded_text, plain
from lab.sandbox.learner.stand_in import StandIn, kept_copy, stand_in_for
from lab.sandbox.learner.statements import Pauser, observe_connections, slow_down_writes

# typing.TYPE_CHECKING without importing typing, which no module of this process needs: mypy reads
# a name TYPE_CHECKING as true.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping

    from lab.sandbox.shapes import Answer, Event, Problem, Raised, Ran, Request


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
                "error": bounded_text(error),
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
        return {"mro": mro, "message": bounded_text(error), "where": self._where(error.__traceback__)}

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
        self.watcher = StandIn(kept_copy(getattr(self.module, name)), request["socket"], request["wait"])
        stand_in_for(self.module, name, self.watcher)  # a process serves one watched check: no undo
        return {}

    def where(self, request: Request) -> dict[str, object]:
        frames = sys._current_frames()
        found = [self._where_in(frames[ident]) for ident in list(self.running) if ident in frames]
        return {"where": next((w for w in found if w), None)}

    def _where(self, tb: types.TracebackType | None) -> tuple[str, int] | None:
        lines = []  # traceback.walk_tb's frames, outermost first (not imported: see _where_in)
        while tb is not None:
            lines.append((tb.tb_frame.f_code.co_filename, tb.tb_lineno))
            tb = tb.tb_next
        return self._innermost(lines)

    def _where_in(self, frame: types.FrameType | None) -> tuple[str, int] | None:
        lines = []  # traceback.walk_stack's, innermost first: importing traceback would cost every start 7 ms
        while frame is not None:
            lines.append((frame.f_code.co_filename, frame.f_lineno))
            frame = frame.f_back
        return self._innermost(list(reversed(lines)))

    def _innermost(self, lines: list[tuple[str, int]]) -> tuple[str, int] | None:
        """(shown path, line) of the last frame, outermost first, that is in a learner's file."""
        mine = [(self.files[name], line) for name, line in lines if name in self.files]
        return mine[-1] if mine else None


@functools.cache
def _compiled(text: str, filename: str) -> types.CodeType:
    """Every check loads the files afresh: compiling each once per process is enough."""
    return compile(text, filename, "exec")
