"""A pytest plugin, loaded in the child process, that records every check's outcome as JSON lines.

One line per event, flushed at once, so that the parent still knows what finished and what
was running when the child dies (``os._exit``, a segfault, a kill after a deadlock).
"""

import json
import os
import signal
import sqlite3
import sys
import sysconfig
import traceback
from contextlib import contextmanager
from pathlib import Path

import pytest

from lab.course import LAB_ROOT, step_of_check
from lab.messages import say
from lab.outcomes import CallRaised, CheckTimeout, ClauseBroken, LearnerProcessLost, LoadFailure, NotImplementedYet
from lab.status import CheckStatus
from lab.targets import Plan

plan = Plan.from_environment()
events = open(plan.events, "a", encoding="utf-8") if plan.events else None  # noqa: SIM115 - open for the session


def emit(**event):
    if events:
        events.write(json.dumps(event) + "\n")
        events.flush()


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(config, items):
    settled = set(plan.skip)
    kept = [item for item in items if item.nodeid not in settled]
    config.hook.pytest_deselected(items=[item for item in items if item.nodeid in settled])
    items[:] = kept
    emit(event="collected", items=[describe(item) for item in kept])


def pytest_runtest_logstart(nodeid, location):
    emit(event="start", nodeid=nodeid)


class _Clock:
    running = False  # True while the check's own code (setup or call) runs
    fired = False  # the time limit struck during this check, whatever exception came out


def _on_alarm(signum, frame):
    if _Clock.running:
        _Clock.fired = True
        raise CheckTimeout()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item, nextitem):
    previous = signal.signal(signal.SIGALRM, _on_alarm)
    _Clock.fired = False
    # One alarm only: code that then blocks for good (joining deadlocked threads) is killed
    # by the parent, which reports it as a deadlock.
    signal.setitimer(signal.ITIMER_REAL, plan.time_limit)
    real_exit, os._exit = os._exit, _refuse_exit
    try:
        with _silenced():
            return (yield)
    finally:
        os._exit = real_exit
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def _refuse_exit(code):
    """os._exit while a check runs: an exception of the check instead of the end of the run."""
    raise SystemExit(say("os_exit", plan.lang, code=code))


class StepTimedOut(Exception):
    """Not run: TIMEOUT_LIMIT checks of this step and target already ran out of time."""


TIMEOUT_LIMIT = 3  # checks of one step that may time out before the rest of it is not run
timeouts = {}  # (target, step) -> checks of that step that timed out


@pytest.hookimpl(wrapper=True)
def pytest_runtest_setup(item):
    found = describe(item)
    if timeouts.get((found["target"], found["step"]), 0) >= TIMEOUT_LIMIT:
        raise StepTimedOut(say("not_run_after_timeouts", plan.lang, count=TIMEOUT_LIMIT))
    _Clock.running = True
    try:
        return (yield)
    finally:
        _Clock.running = False


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item):
    _Clock.running = True
    try:
        return (yield)
    except KeyboardInterrupt as error:
        # Raised by the code under test (the child has no terminal): a failure of this check,
        # not the end of the whole run.
        raise CallRaised(say("the_code_under_test", plan.lang), error, plan.lang) from error
    finally:
        _Clock.running = False


@contextmanager
def _silenced():
    """The learner's prints go to /dev/null: a flood costs neither memory nor disk."""
    saved = sys.stdout, sys.stderr, os.dup(1), os.dup(2)
    with open(os.devnull, "w") as devnull:
        os.dup2(devnull.fileno(), 1)
        os.dup2(devnull.fileno(), 2)
        sys.stdout = sys.stderr = devnull
        try:
            yield
        finally:
            sys.stdout, sys.stderr = saved[0], saved[1]
            os.dup2(saved[2], 1)
            os.dup2(saved[3], 2)
            os.close(saved[2])
            os.close(saved[3])


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item, call):
    report = yield
    if call.when == "call" or (call.when == "setup" and call.excinfo is not None):
        status, message = classify(call.excinfo, item)
        found = describe(item)
        if status == CheckStatus.TIMEOUT:
            key = (found["target"], found["step"])
            timeouts[key] = timeouts.get(key, 0) + 1
        broken = _first(call.excinfo.value) if call.excinfo else None
        if isinstance(broken, ClauseBroken):  # a check of several clauses names the one broken
            found["clauses"] = [broken.clause]
        emit(event="result", **found, status=status, message=message, duration=round(call.duration, 4))
    return report


def describe(item):
    """What identifies one check run: the node id, the check, its target, step and clauses."""
    clauses = [clause for mark in item.iter_markers("clause") for clause in mark.args]
    return {
        "nodeid": item.nodeid,
        "check": item.originalname,
        "target": item.callspec.params["lease"].id,
        "step": step_of_check(clauses, item.path.name),
        "clauses": clauses,
    }


def classify(excinfo, item):
    """(status, message) for one finished check."""
    if excinfo is None:
        return CheckStatus.PASSED, ""
    error = _first(excinfo.value)
    if isinstance(error, StepTimedOut):
        return CheckStatus.TIMEOUT, str(error)
    if isinstance(error, CheckTimeout) or _Clock.fired:  # Hypothesis may wrap it as a flaky test
        # Where the learner's code was when the alarm struck: the loop, or the wait.
        where = _where(error) if isinstance(error, CheckTimeout) else ""
        return CheckStatus.TIMEOUT, say("timeout", plan.lang, limit=plan.time_limit) + where
    if isinstance(error, LearnerProcessLost) or isinstance(getattr(error, "error", None), LearnerProcessLost):
        return CheckStatus.CRASHED, str(getattr(error, "error", error))
    cause = error.error if isinstance(error, CallRaised) else error
    if isinstance(cause, sqlite3.OperationalError) and "locked" in str(cause):
        return CheckStatus.ERROR, say("locked", plan.lang, error=cause) + _where(cause)
    if isinstance(error, LoadFailure):
        return CheckStatus.ERROR, str(error)
    if isinstance(error, NotImplementedYet):
        return CheckStatus.NOT_IMPLEMENTED, say("not_implemented", plan.lang, call=error)
    if isinstance(error, NotImplementedError):
        return CheckStatus.NOT_IMPLEMENTED, say("not_implemented", plan.lang, call=say("the_code_under_test", plan.lang))
    if isinstance(error, CallRaised):  # its message names the call, in the learner's language
        return CheckStatus.ERROR, str(error) + _where(error.error) + _notes(error)
    if isinstance(error, ClauseBroken):  # its message already shows the calls that led to it
        return CheckStatus.FAILED, str(error)
    if isinstance(error, AssertionError):
        return CheckStatus.FAILED, str(error) + _notes(error)
    return CheckStatus.ERROR, f"{type(error).__name__}: {error}" + _where(error) + _notes(error)


def _first(error):
    """The first leaf of an exception group (Hypothesis reports several failures as one group)."""
    while isinstance(error, BaseExceptionGroup):
        error = error.exceptions[0]
    return error


# Frames in these folders belong to the lab or to Python, never to the code under test.
NOT_LEARNER_CODE = tuple(
    str(Path(folder).resolve()) + os.sep
    for folder in (LAB_ROOT / "lab", LAB_ROOT / "checks", *{sysconfig.get_paths()[k] for k in ("stdlib", "purelib", "platlib")})
)


def _where(error):
    """' (at file, line N)' for the innermost frame of the code under test: as the learner
    process saw it, or as this process's traceback shows it (the lab's own code)."""
    if getattr(error, "lab_where", None):
        return say("at", plan.lang, file=error.lab_where[0], line=error.lab_where[1])
    frames = [f for f in traceback.extract_tb(error.__traceback__) if not str(Path(f.filename).resolve()).startswith(NOT_LEARNER_CODE)]
    return say("at", plan.lang, file=frames[-1].filename, line=frames[-1].lineno) if frames else ""


def _notes(error):
    notes = [note for note in getattr(error, "__notes__", []) if note.startswith(("Falsifying", "Draw", "state", "    "))]
    return ("\n" + "\n".join(notes)) if notes else ""
