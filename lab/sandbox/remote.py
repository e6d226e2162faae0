"""The learner's module as the checks see it: each function a call across the channel.

Values come back as plain data (``decoded``), exceptions as exceptions of the same built-in or
sqlite3 class (``rebuilt``), so the checks read them exactly as they would read a local call.
The learner's files are loaded afresh for every check; a process that stays healthy serves the
next check of its target, and any other is ended and replaced.
"""

import builtins
import sqlite3
import threading
from contextlib import contextmanager
from functools import cache, partial

from lab.course import load_course
from lab.implementation import MAX_FILE, display_path
from lab.messages import say
from lab.outcomes import CheckTimeout, LearnerProcessLost, LoadFailure
from lab.sandbox.channel import ChannelLost, LearnerProcess, Stalled
from lab.sandbox.meeting import Meeting

GRACE = 5.0  # seconds past the time limit a wait of a thread other than the check's own may last
_idle = {}  # target id -> a learner process ready for that target's next check


class Opaque:
    """A value the learner's code returned that is not plain data: shown, never equal to anything."""

    def __init__(self, kind, text):
        self.kind, self.text = kind, text

    def __repr__(self):
        return self.text


def decoded(value):
    if isinstance(value, list):
        return [decoded(item) for item in value]
    if not isinstance(value, dict):
        return value
    if "tuple" in value:
        return tuple(decoded(item) for item in value["tuple"])
    if "list" in value:
        return [decoded(item) for item in value["list"]]
    if "dict" in value:
        return {_hashable(decoded(k)): decoded(v) for k, v in value["dict"]}
    if "bytes" in value:
        return bytes.fromhex(value["bytes"])
    return Opaque(value.get("opaque"), value.get("repr", "?"))


def _hashable(key):
    return key if getattr(key, "__hash__", None) else repr(key)


def rebuilt(raised):
    """An exception of the class the learner's code raised, or of its nearest built-in or sqlite3
    base class (a subclass of that class, named like the learner's)."""
    mro = [tuple(pair) for pair in raised["mro"]]
    base = next((found for found in map(_known, mro) if found), Exception)
    if not issubclass(base, Exception):  # SystemExit, KeyboardInterrupt: failures of the check
        base = Exception
    cls = base if _known(mro[0]) is base else _named(mro[0][1], base)
    try:
        error = cls(raised["message"])
    except TypeError:  # a class whose constructor wants more (UnicodeDecodeError)
        error = _named(mro[0][1], Exception)(raised["message"])
    error.lab_where = tuple(raised["where"]) if raised.get("where") else None
    return error


def _known(pair):
    module, name = pair
    found = getattr({"builtins": builtins, "sqlite3": sqlite3}.get(module), name, None)
    return found if isinstance(found, type) and issubclass(found, BaseException) else None


@cache
def _named(name, base):
    return type(name.rsplit(".", 1)[-1], (base,), {"__module__": "learner"})


class RemoteModule:
    def __init__(self, process, functions, loaded, settings):
        self._process, self._functions, self._loaded, self._settings = process, functions, loaded, settings
        self.clean = True  # False once the process was changed for one check only, or stalled
        self._slowed, self._racers = False, []

    def __getattr__(self, name):
        if name.startswith("_") or name not in self._functions:
            raise AttributeError(name)
        return partial(self._call, name)

    def _call(self, name, *args):
        return _answer(self._ask("call", name=name, args=list(args)))

    def _ask(self, op, **fields):
        try:
            return self._process.ask(op, self._settings.time_limit + GRACE, **fields)
        except (CheckTimeout, Stalled) as stopped:
            self.clean = False
            timeout = stopped if isinstance(stopped, CheckTimeout) else CheckTimeout()
            timeout.lab_where = self._where()
            self._process.kill()
            raise timeout from None
        except ChannelLost as lost:
            self.clean = False
            raise LearnerProcessLost(_lost_message(lost, self._settings.lang)) from None

    def _where(self):
        try:
            where = self._process.ask("where", 0.5)["where"]
        except Exception:  # noqa: BLE001 - no answer: the location is simply not shown
            return None
        return tuple(where) if where else None

    def slow_down_writes(self):
        """Every connection the learner's code opens from now on pauses before each write."""
        self.clean, self._slowed = False, True
        self._ask("slow")

    def watch_claims(self, patience):
        """Stand in for `claim` until this check ends, counted here (lab/sandbox/meeting.py)."""
        self.clean, self._meeting = False, Meeting(patience)
        self._process.on_event = self._on_claim
        self._ask("watch", patience=patience)

    def watched(self):
        """What the meeting counted: .peak, .alone and .calls."""
        return self._meeting

    def _on_claim(self, event):
        """A stand-in's message, in the channel's reader thread: never blocks it."""
        if event["event"] == "enter":
            threading.Thread(target=self._let_go, args=(int(event["call"]),), daemon=True).start()
        else:
            answer = RuntimeError("claim raised") if event.get("raised") else decoded(event["value"])
            self._meeting.leave(event["owner"], event["now"], event["ttl"], answer)

    def _let_go(self, call):
        self._meeting.enter()
        self._process.send("go", call=call)

    def race(self, name, arg_lists, timeout):
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

    def close(self):
        for racer in self._racers:
            racer.kill()


def _outcome(racer, ident, timeout):
    try:
        return _answer(racer.wait(ident, timeout))
    except Stalled:
        racer.kill()
        return TimeoutError(f"no answer within {timeout:g} s")
    except ChannelLost as lost:
        return RuntimeError(f"the process ended ({lost.reason}, {lost.code})")
    except Exception as error:  # noqa: BLE001 - what the learner's code raised is the answer
        return error


def _answer(reply):
    if "raised" in reply:
        raise rebuilt(reply["raised"])
    return decoded(reply["value"])


def _lost_message(lost, lang):
    if lost.reason == "ended":
        return say("crashed", lang, code=lost.code)
    return say("channel_" + lost.reason, lang, limit=1)


@contextmanager
def opened(target, implementation, step, settings):
    """The learner's module for one check of `step`, loaded afresh; LoadFailure if that step's
    file does not load or does not define its function."""
    process = _idle.pop(target.id, None)
    if process is None or not process.alive:
        process = LearnerProcess(settings.scratch, settings.confined)
    module = None
    try:
        try:
            loaded, functions, problems = load(process, implementation, dict(target.known_problems), settings)
        except LoadStopped as stopped:  # found now, not by the runner's probe
            raise LoadFailure(str(stopped)) from None
        except CheckTimeout:  # the files ran out the check's time while loading: a failure of
            # the check's setup, which pytest records only for an Exception
            process.kill()
            raise LoadFailure(say("load_hung", settings.lang, file=implementation.label, limit=settings.time_limit)) from None
        if step in problems:
            function = load_course()[step - 1].function
            raise LoadFailure(say("cannot_check", settings.lang, step=step, problem=problems[step], function=function))
        module = RemoteModule(process, functions, loaded, settings)
        yield module
    finally:
        if module is not None:
            module.close()
        if module is not None and module.clean and process.alive:
            _idle[target.id] = process
        else:
            process.kill()


def load(process, implementation, known, settings, one_by_one=False):
    """Run the implementation's files into a fresh module of process.

    Returns (the files that ran, the callable names, step -> problem). A file with a known
    problem (it hangs or ends the process, found by the runner's probe) is not run again.
    one_by_one: a request per file, so that the one that hangs or ends the process is named
    (the probe); otherwise one request for all.
    """
    lang, problems, to_run = settings.lang, {}, []
    for file in implementation.files:
        shown = display_path(file.path)
        problem = next((known[n] for n in file.steps if n in known), None)
        if problem is None and file.text is None:
            problem = say(file.refused or "missing", lang, file=shown, limit=MAX_FILE >> 20)
        if problem:
            problems.update(dict.fromkeys(file.steps, problem))
        else:
            to_run.append((file, {"filename": str(file.path), "shown": shown, "text": file.text}))
    batches = [[item] for item in to_run] if one_by_one else [to_run]
    callables = set()
    for index, batch in enumerate(batches):
        try:
            reply = process.ask("load", settings.time_limit + (0 if one_by_one else GRACE), files=[r for _, r in batch], fresh=index == 0)
        except (Stalled, ChannelLost) as stopped:
            file, request = batch[0] if len(batch) == 1 else (None, {"shown": implementation.label})
            raise LoadStopped(file, _stopped_message(stopped, request["shown"], settings.time_limit, lang)) from None
        for (file, request), ran in zip(batch, reply["files"]):
            problem, callables = _problem(ran["problem"], request["shown"], lang), set(ran["callables"])
            for number in file.steps:
                function = load_course()[number - 1].function
                if problem:
                    problems[number] = problem
                elif function not in callables:
                    problems[number] = say("defines_no", lang, file=request["shown"], function=function)
    return [request for _, request in to_run], callables, problems


class LoadStopped(Exception):
    """Running one file hung or ended the learner process."""

    def __init__(self, file, message):
        super().__init__(message)
        self.file = file


def _stopped_message(stopped, shown, limit, lang):
    if isinstance(stopped, Stalled):
        return say("load_hung", lang, file=shown, limit=limit)
    return say("load_died", lang, file=shown, code=stopped.code)


def _problem(found, shown, lang):
    if found is None:
        return None
    if found["kind"] == "syntax":
        return say("syntax", lang, file=shown, line=found["line"], kind=found["type"], error=found["error"])
    where = say("where", lang, line=found["line"]) if found["line"] else ""
    return say("raised", lang, file=shown, where=where, kind=found["type"], error=found["error"])


def _started(settings, loaded, slow, count):
    """New learner processes with the same files loaded (and writes slowed down, if asked),
    started side by side."""
    processes = [LearnerProcess(settings.scratch, settings.confined) for _ in range(count)]
    asked = [(process, process.send("load", files=loaded, fresh=True)) for process in processes]
    for process, ident in asked:
        process.wait(ident, settings.time_limit + GRACE)
        if slow:
            process.ask("slow", settings.time_limit)
    return processes
