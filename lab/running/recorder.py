"""The pytest plugin of a child run: records every check's outcome as JSON lines.

An object handed to ``pytest.main(plugins=[Recorder(plan)])`` by lab/running/child.py, holding the plan
it was given. One line per event, flushed at once, so that the parent still knows what
finished and what was running when the child dies (a segfault, a kill after a deadlock).
"""

import json
import os
import signal
import sys
from contextlib import contextmanager

import pytest

from lab import clock
from lab.model.course import step_of_check
from lab.model.outcomes import CallRaised, CheckTimeout, ClauseBroken
from lab.model.results import CheckStatus, Words, as_json
from lab.running.verdict import StepTimedOut, classify, first

GIVEN_TIME = json.dumps({"event": "given_time"}).encode() + b"\n"
MIN_ALARM = 0.01  # seconds: the shortest alarm set again
TIMEOUT_LIMIT = 3  # checks of one step that may time out before the rest of it is not run


def recorder_of(config):
    """The run's recorder, as another plugin finds it (lab/running/prediction_plugin.py)."""
    return next(plugin for plugin in config.pluginmanager.get_plugins() if isinstance(plugin, Recorder))


class Recorder:
    def __init__(self, plan):
        self.plan = plan
        # The pipe to the parent, open for the run (not closed with the file object: the parent's end).
        self.events = open(plan.events, "w", encoding="utf-8", closefd=False) if plan.events is not None else None  # noqa: SIM115
        self.timeouts = {}  # (target, step) -> checks of that step that timed out
        self.running = False  # True while a check's own code (setup or call) runs
        self.fired = False  # the time limit struck during this check, whatever exception came out

    def emit(self, **event):
        if self.events:
            self.events.write(json.dumps(event) + "\n")
            self.events.flush()

    @pytest.hookimpl(trylast=True)
    def pytest_collection_modifyitems(self, config, items):
        settled = set(self.plan.skip)
        kept = [item for item in items if item.nodeid not in settled]
        config.hook.pytest_deselected(items=[item for item in items if item.nodeid in settled])
        items[:] = kept
        self.emit(event="collected", items=[describe(item) for item in kept])

    def pytest_runtest_logstart(self, nodeid, location):
        self.emit(event="start", nodeid=nodeid)

    def _on_alarm(self, signum, frame):
        if not self.running:
            return
        # The wall clock said the limit is up; the check's clock leaves out the time the machine
        # kept it waiting for a CPU (lab/clock.py), and may give it more.
        left = clock.this_process().left(self.plan.time_limit)
        if left > 0:
            if self.plan.events is not None:  # the parent, which watches for hung checks, waits as long again
                os.write(self.plan.events, GIVEN_TIME)  # one write under PIPE_BUF: whole
            signal.setitimer(signal.ITIMER_REAL, max(left, MIN_ALARM))
            return
        self.fired = True
        raise CheckTimeout()

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_protocol(self, item, nextitem):
        previous = signal.signal(signal.SIGALRM, self._on_alarm)
        self.fired = False
        clock.this_process().restart()
        # One alarm only: code that then blocks for good (joining deadlocked threads) is killed
        # by the parent, which reports it as a deadlock.
        signal.setitimer(signal.ITIMER_REAL, self.plan.time_limit)
        real_exit, os._exit = os._exit, self._refuse_exit
        try:
            with _silenced():
                return (yield)
        finally:
            os._exit = real_exit
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, previous)

    def _refuse_exit(self, code):
        """os._exit while a check runs (the lab's own code, a mutant): an exception of the check
        instead of the end of the run."""
        raise SystemExit(Words("os_exit", code=code))

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_setup(self, item):
        found = describe(item)
        if self.timeouts.get((found["target"], found["step"]), 0) >= TIMEOUT_LIMIT:
            raise StepTimedOut(Words("not_run_after_timeouts", count=TIMEOUT_LIMIT))
        self.running = True
        try:
            return (yield)
        finally:
            self.running = False

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_call(self, item):
        self.running = True
        try:
            return (yield)
        except KeyboardInterrupt as error:
            # Raised by the code under test (the child has no terminal): a failure of this check,
            # not the end of the whole run.
            raise CallRaised(Words("the_code_under_test"), error) from error
        finally:
            self.running = False

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_makereport(self, item, call):
        report = yield
        if call.when == "call" or (call.when == "setup" and call.excinfo is not None):
            status, message = classify(call.excinfo, self.plan, self.fired)
            found = describe(item)
            if status == CheckStatus.TIMEOUT:
                key = (found["target"], found["step"])
                self.timeouts[key] = self.timeouts.get(key, 0) + 1
            broken = first(call.excinfo.value) if call.excinfo else None
            if isinstance(broken, ClauseBroken):  # a check of several clauses names the one broken
                found["clauses"] = [broken.clause]
            self.emit(
                event="result", **found, status=status, message=as_json(message), duration=round(call.duration, 4)
            )
        return report


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
