"""The learner's module as the checks see it: each function a call across the channel.

Values and exceptions come back rebuilt (lab/sandbox/values.py). The learner's files are loaded
afresh for every check (lab/sandbox/loading.py); a process that stays healthy serves the next
check of its target, and any other is ended and replaced.
"""

from __future__ import annotations

import threading
from contextlib import contextmanager
from functools import partial
from typing import TYPE_CHECKING

from lab import clock
from lab.model.outcomes import CheckTimeout, LearnerProcessLost, LoadFailure
from lab.model.results import Words
from lab.model.targets import stop_if_blocked
from lab.sandbox.channel import REPLY_GRACE, ChannelLost, LearnerProcess, Stalled
from lab.sandbox.loading import LoadStopped, load
from lab.sandbox.meeting import Meeting, Rendezvous
from lab.sandbox.values import decoded, rebuilt

if TYPE_CHECKING:
    from collections.abc import Collection, Iterator, Sequence
    from typing import Any

    from lab.model.implementation import Implementation
    from lab.model.targets import Target
    from lab.sandbox.meeting import Lead
    from lab.sandbox.shapes import FileToRun, Settings

_idle: dict[str, LearnerProcess] = {}  # target id -> a learner process ready for that target's next check


class RemoteModule:
    def __init__(
        self,
        process: LearnerProcess,
        functions: Collection[str],
        loaded: list[FileToRun],
        settings: Settings,
        target_id: str | None = None,
    ) -> None:
        self._process, self._functions, self._loaded, self._settings = process, functions, loaded, settings
        self._target_id, self._soiling = target_id, threading.Lock()
        self.clean = True  # False once the process was changed for one check only, or stalled
        self._slowed = False
        self._racers: list[LearnerProcess] = []
        self._spares: list[LearnerProcess] = []
        self._rendezvous: Rendezvous | None = None

    def __getattr__(self, name: str) -> partial[object]:
        if name.startswith("_") or name not in self._functions:
            raise AttributeError(name)
        return partial(self._call, name)

    def _call(self, name: str, *args: object) -> object:
        return answer(self._ask("call", name=name, args=list(args)))

    def _ask(self, op: str, **fields: object) -> dict[str, Any]:
        try:
            return self._process.ask(op, self._settings.time_limit + REPLY_GRACE, **fields)
        except (CheckTimeout, Stalled) as stopped:
            timeout = stopped if isinstance(stopped, CheckTimeout) else CheckTimeout()
            timeout.lab_where = self._where()  # type: ignore[attr-defined]  # as values.rebuilt sets it
            self._process.kill()
            self._serves_this_check_only()
            raise timeout from None
        except ChannelLost as lost:
            self._serves_this_check_only()
            raise LearnerProcessLost(_lost_message(lost)) from None

    def _serves_this_check_only(self) -> None:
        """The process is changed for this check, or lost: it is ended with the check, and the
        process of the target's next check (when the module has a target) starts now, while this
        check runs, not after it. One that cannot start leaves the next check to start its own."""
        with self._soiling:
            if not self.clean:
                return
            self.clean = False
        if self._target_id is None or self._target_id in _idle:
            return
        try:
            _idle[self._target_id] = LearnerProcess(self._settings.scratch, self._settings.confined)
        except Exception:  # noqa: BLE001 - this check's verdict stands; the next one starts its own
            pass

    def _where(self) -> tuple[str | int, ...] | None:
        try:
            where = self._process.ask("where", 0.5)["where"]
        except Exception:  # noqa: BLE001 - no answer: the location is simply not shown
            return None
        return tuple(where) if where else None

    def slow_down_writes(self) -> None:
        """Every connection the learner's code opens from now on pauses before each write."""
        self._serves_this_check_only()
        self._slowed = True
        self._ask("slow")

    def watch(self, function: str, patience: float, lead: Lead | None = None) -> None:
        """Stand in for the module's function until this check ends, its calls counted here
        (lab/sandbox/meeting.py); `lead` names a call by its arguments: the calls it meets wait
        until it has ended, and it returns after every other call that came."""
        self._serves_this_check_only()
        self._meeting = Meeting(patience, lead)
        self._rendezvous = Rendezvous(self._meeting, self._settings.scratch)
        self._ask("watch", function=function, wait=self._meeting.longest_wait(), socket=self._rendezvous.path)

    def watched(self) -> Meeting:
        """What the meeting counted: .peak, .alone and .calls."""
        return self._meeting

    def race(self, name: str, arg_lists: Sequence[Sequence[object]], timeout: float) -> list[object]:
        """name(*args) for each args, each in a learner process of its own, sent at the same moment.

        Returns what each returned, or the exception it raised; TimeoutError for one that does
        not answer within timeout seconds. The racers serve every race of this check.
        """
        missing = len(arg_lists) - len(self._racers)
        if missing > 0:
            self._racers += _started(self._settings, self._loaded, self._slowed, missing)
        racers = self._racers[: len(arg_lists)]
        sent = [racer.send("call", name=name, args=list(args)) for racer, args in zip(racers, arg_lists)]
        return [_outcome(racer, ident, timeout) for racer, ident in zip(racers, sent)]

    def start(self, name: str, args: Sequence[object], pause_at: int | None = None) -> Started:
        """name(*args) in a learner process of its own, not waited for, held before its statement
        number `pause_at` (lab/sandbox/learner/statements.py: Pauser); a Started."""
        spares = [racer for racer in self._spares if racer.alive and not getattr(racer, "busy", False)]
        if not spares:
            spares = _started(self._settings, self._loaded, self._slowed, 1)
            self._spares += spares
        return Started(spares[0], name, args, pause_at, self._settings.time_limit + REPLY_GRACE)

    def close(self) -> None:
        for racer in self._racers + self._spares:
            racer.kill()
        if self._rendezvous:
            self._rendezvous.close()


class Started:
    """A call running in a learner process of its own, as local.Forked is for the lab's code."""

    def __init__(
        self, racer: LearnerProcess, name: str, args: Sequence[object], pause_at: int | None, patience: float
    ) -> None:
        self._racer, self._held = racer, False
        racer.busy, racer.on_event = True, self._on_event
        racer.ask("pause", patience, at=pause_at)
        self._ident = racer.send("call", name=name, args=list(args))

    def _on_event(self, event: dict[str, Any]) -> None:
        with self._racer.arrived:
            self._held = event["event"] == "paused"
            self._racer.arrived.notify_all()

    def paused(self, timeout: float) -> bool:
        """True once the call is held, False once it ended without reaching the statement."""
        with self._racer.arrived:
            clock.wait_for(
                self._racer.arrived,
                lambda: self._held or self._ident in self._racer.replies or self._racer.lost,
                timeout,
            )
            return self._held

    def done(self) -> bool:
        return self._ident in self._racer.replies or not self._racer.alive

    def resume(self) -> None:
        self._held = False
        self._racer.send("resume")

    def answer(self, timeout: float) -> tuple[object, int | None]:
        """(what the call returned or raised, the number of statements it ran)."""
        answer = _outcome(self._racer, self._ident, timeout)
        statements = self._racer.ask("statements", timeout)["statements"] if self._racer.alive else None
        self._racer.busy = False
        return answer, statements


def _outcome(racer: LearnerProcess, ident: int, timeout: float) -> object:
    try:
        return answer(racer.wait(ident, timeout))
    except Stalled:
        racer.kill()
        return TimeoutError(f"no answer within {timeout:g} s")
    except ChannelLost as lost:
        return RuntimeError(f"the process ended ({lost.reason}, {lost.code})")
    except Exception as error:  # noqa: BLE001 - what the learner's code raised is the answer
        return error


def answer(reply: dict[str, Any]) -> object:
    """What a call's reply means: its value rebuilt, or its exception raised."""
    if "raised" in reply:
        raise rebuilt(reply["raised"])
    return decoded(reply["value"])


def _lost_message(lost: ChannelLost) -> Words:
    """Facts (lab/model/results.py): a prediction's run against the reference is cached in no language."""
    if lost.reason == "ended":
        return Words("crashed", code=lost.code)
    return Words("channel_" + lost.reason, limit=1)


@contextmanager
def opened(
    target: Target, implementation: Implementation, step: int, settings: Settings, needs: Collection[str] = frozenset()
) -> Iterator[RemoteModule]:
    """The learner's module for one check of `step` that calls the functions `needs`, loaded
    afresh; LoadFailure if a file it needs does not load (lab.model.targets.stop_if_blocked)."""
    process = _idle.pop(target.id, None)
    if process is None or not process.alive:
        process = LearnerProcess(settings.scratch, settings.confined)
    module, loaded_cleanly = None, False
    try:
        try:
            loaded, functions, problems = load(process, implementation, dict(target.known_problems), settings)
            loaded_cleanly = True  # a step that cannot be checked leaves the process fit for the next
        except LoadStopped as stopped:  # found now, not by the runner's probe
            raise LoadFailure(stopped.message) from None
        except CheckTimeout:  # the files ran out the check's time while loading: a failure of
            # the check's setup, which pytest records only for an Exception
            process.kill()
            raise LoadFailure(Words("load_hung", file=implementation.label, limit=settings.time_limit)) from None
        stop_if_blocked(step, problems, needs)
        module = RemoteModule(process, functions, loaded, settings, target.id)
        yield module
    finally:
        if module is not None:
            module.close()
        if loaded_cleanly and (module is None or module.clean) and process.alive:
            _idle[target.id] = process
        else:
            process.kill()


def _started(settings: Settings, loaded: list[FileToRun], slow: bool, count: int) -> list[LearnerProcess]:
    """New learner processes with the same files loaded (and writes slowed down, if asked),
    started side by side."""
    processes = [LearnerProcess(settings.scratch, settings.confined) for _ in range(count)]
    asked = [(process, process.send("load", files=loaded, fresh=True)) for process in processes]
    for process, ident in asked:
        process.wait(ident, settings.time_limit + REPLY_GRACE)
        if slow:
            process.ask("slow", settings.time_limit)
    return processes
