"""The lab's own code (the reference, a pre-built mutant, a mutmut mutant's module file) as the checks see
it: loaded into the checks' process, with the same few extra verbs as a learner's module.

Only code the lab ships runs this way; a learner's files always run in a learner process
(``remote.py``). The extras mirror ``RemoteModule``: slowed writes, a watched function and a
race of separate processes.
"""

from __future__ import annotations

import multiprocessing
import posix
import time
from typing import TYPE_CHECKING

from lab.sandbox.learner.stand_in import in_order, kept_copy, stand_in_for
from lab.sandbox.learner.statements import Pauser, slow_down_writes
from lab.sandbox.meeting import Meeting

if TYPE_CHECKING:
    import multiprocessing.synchronize
    import types
    from collections.abc import Callable, Sequence
    from multiprocessing.connection import Connection
    from multiprocessing.context import ForkProcess
    from typing import Any

    from lab.sandbox.meeting import Lead


class LocalModule:
    def __init__(self, module: types.ModuleType) -> None:
        self._module = module
        self._undo: list[Callable[[], object]] = []

    def __getattr__(self, name: str) -> Any:
        return getattr(self._module, name)

    def slow_down_writes(self) -> None:
        self._undo.append(slow_down_writes())

    def watch(self, function: str, patience: float, lead: Lead | None = None) -> None:
        real, self._meeting = kept_copy(getattr(self._module, function)), Meeting(patience, lead)

        def stand_in(*args: object, **kwargs: object) -> object:
            arguments = tuple(in_order(real, args, kwargs))
            leads, answer = self._meeting.enter(arguments), None
            try:
                answer = real(*args, **kwargs)
                return answer
            except BaseException as error:
                answer = error
                raise
            finally:
                self._meeting.leave(arguments, answer, leads)
                if not leads:
                    self._meeting.returned()

        self._undo.append(stand_in_for(self._module, function, stand_in))

    def watched(self) -> Meeting:
        """What the meeting counted: .peak, .alone and .calls."""
        return self._meeting

    def close(self) -> None:
        while self._undo:
            self._undo.pop()()

    def race(self, name: str, arg_lists: Sequence[Sequence[object]], timeout: float) -> list[object]:
        """name(*args) for each args, each in a process of its own, all released at the same moment.

        The processes are forks of this one: they share the loaded code (and slowed writes) but
        no lock or memory, so only the database can keep them apart.
        """
        fork = multiprocessing.get_context("fork")
        start = fork.Barrier(len(arg_lists), timeout=timeout)
        channels: list[Connection] = []
        processes: list[ForkProcess] = []
        for args in arg_lists:
            receive, send = fork.Pipe(duplex=False)
            process = fork.Process(target=_answer, args=(getattr(self._module, name), args, start, send), daemon=True)
            process.start()
            send.close()
            channels.append(receive)
            processes.append(process)
        deadline = time.monotonic() + timeout
        answers: list[object] = []
        for receive in channels:
            ready = receive.poll(max(0.0, deadline - time.monotonic()))
            answers.append(receive.recv() if ready else TimeoutError(f"no answer within {timeout:g} s"))
        for process in processes:
            process.kill()
            process.join()
        return answers

    def start(self, name: str, args: Sequence[object], pause_at: int | None = None) -> Forked:
        """name(*args) in a process of its own, not waited for, held before its statement number
        `pause_at` (statements.Pauser); a Forked."""
        return Forked(getattr(self._module, name), args, pause_at)


class Forked:
    """A call running in a fork of this process, as remote.Started is for a learner's code."""

    def __init__(self, function: Callable[..., object], args: Sequence[object], pause_at: int | None) -> None:
        fork = multiprocessing.get_context("fork")
        self._messages, send = fork.Pipe(duplex=False)
        self._resumed = fork.Event()
        self._ended: dict[str, Any] | None = None  # the call's end: its answer and its count of statements
        self._process = fork.Process(
            target=_held_call, args=(function, args, pause_at, send, self._resumed), daemon=True
        )
        self._process.start()
        send.close()

    def paused(self, timeout: float) -> bool:
        """True once the call is held, False once it ended without reaching the statement."""
        if self._ended is None and self._messages.poll(timeout):
            message = self._messages.recv()
            if message.get("event") == "paused":
                return True
            self._ended = message
        return False

    def done(self) -> bool:
        return self._ended is not None or self._messages.poll(0)

    def resume(self) -> None:
        self._resumed.set()

    def answer(self, timeout: float) -> tuple[object, int | None]:
        """(what the call returned or raised, the number of statements it ran)."""
        if self._ended is None:
            self._ended = (
                self._messages.recv()
                if self._messages.poll(timeout)
                else {"answer": TimeoutError(f"no answer within {timeout:g} s"), "statements": None}
            )
        self._process.kill()
        self._process.join()
        return self._ended["answer"], self._ended["statements"]


def _held_call(
    function: Callable[..., object],
    args: Sequence[object],
    pause_at: int | None,
    send: Connection,
    resumed: multiprocessing.synchronize.Event,
) -> None:
    """In the forked process: count (and hold) the statements, call, send the answer, end at once."""
    try:
        pauser = Pauser(send.send, resumed)
        pauser.arm(pause_at)
        try:
            answer = function(*args)
        except Exception as error:  # noqa: BLE001 - sent back as the answer, in a form that pickles
            answer = (
                error if isinstance(error, NotImplementedError) else RuntimeError(f"{type(error).__name__}: {error}")
            )
        send.send({"answer": answer, "statements": pauser.count})
    finally:
        posix._exit(0)


def _answer(
    function: Callable[..., object],
    args: Sequence[object],
    start: multiprocessing.synchronize.Barrier,
    send: Connection,
) -> None:
    """In the forked process: wait for the others, call, send the answer, and end at once.

    posix._exit, never returning: this process is a copy of the one running pytest, and must
    not go on to run the rest of the checks.
    """
    try:
        start.wait()
        try:
            answer = function(*args)
        except Exception as error:  # noqa: BLE001 - sent back as the answer, in a form that pickles
            answer = (
                error if isinstance(error, NotImplementedError) else RuntimeError(f"{type(error).__name__}: {error}")
            )
        send.send(answer)
    finally:
        posix._exit(0)
