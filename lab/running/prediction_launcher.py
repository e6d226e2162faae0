"""The prediction child's fork server: each target's run of the predictions in a child of its own,
which holds that target's channel to the host and nothing else (``-p lab.running.prediction_launcher``).

A prediction is judged only against the target it is given: while it runs against one target,
its code must reach no other (not another target's channel, not another step's), and keep nothing
that a later run against another target could read; else it could compare the targets with each
other instead of with the contract (fail on whichever answers unlike most of them).

Why a fork server, the cheapest way there: this process (the launcher) imports pytest, Hypothesis,
the lab's plugins and the checks' fixtures once, configures pytest and stops at collection, before
any learner file is imported; then, one target after another, it forks a child that collects and
runs the prediction file of that target's step. A child costs about 20 ms of CPU (a fork, one
file collected, its test); a new sandboxed interpreter per target would cost about 0.3 s before
its first test, 60 times for a learner who predicted every step. A child starts from the launcher's
memory, never from an earlier child's: no module global outlives a target's run. Cheaper ways
fall short: one process whose host serves only the target of the test running lets a module
global carry one target's answers to the next; forking from a process that imported the files
(once per step, no collection per child) leaves the threads the learner's code started there
alive beside every child, a relay between targets.

Each child holds one channel: the host (lab/running/prediction_host.py) hands the launcher each
target's channel over a control socket, once the run before it is over there, and serves a
channel as its one target whatever label a request names; the child closes the control socket
before any learner code runs, and the launcher, not dumpable, lets no child take a descriptor
from it. Between two children the launcher ends every process the first left, receives the next
channel only once the host has ended the first target's learner process (a late write of it would
land in the next child's folder), and empties the folders a child may write (the sandbox is
read-only but for them: the scratch folder, the working folder, /dev/shm); each child has a user
and an IPC namespace of its own (lab/sandbox/apart.py). Learner code never runs in the launcher:
it only parses and compiles the files, for pytest's rewriting of their asserts, once for every
child (_rewritten_once).

A first child, with no channel at all, collects the files against every target and reports what
it collected, as the single process did: so the runner knows every run of every prediction
before the first one is lost (lab/running/runner.py). Without bubblewrap (a learner's own machine,
where a prediction can read anything anyway) the children still hold their own channels only,
and nothing else is kept apart.
"""

import gc
import importlib.machinery
import os
import signal
import socket
from dataclasses import replace
from pathlib import Path

import pytest
from _pytest.assertion import rewrite

from lab.model.course import step_of_check
from lab.running import prediction_plugin
from lab.running.prediction_host import BROKER, EMPTIED
from lab.running.recorder import recorder_of
from lab.sandbox import apart

NOT_APART = 70  # the exit status of a child that could not be kept apart (it ran nothing)
STATUS = pytest.StashKey[int]()  # the launcher's exit status
TARGET_CHILD = pytest.StashKey[bool]()  # set in a target's child


def _control():
    """The socket the host hands each target's channel over, taken out of the environment."""
    given = os.environ.pop(BROKER, None)
    return socket.socket(fileno=int(given)) if given else None


CONTROL = _control()


@pytest.hookimpl(tryfirst=True)
def pytest_collection(session):
    """In the launcher: every target's run in a child, then nothing left to collect here. In a
    child: None, and pytest goes on, collecting and running that child's target."""
    if CONTROL is None:
        return None
    launcher = Launcher(session)
    _rewritten_once(launcher.files, session.config)
    _found_once(launcher.files)
    # What the launcher holds stays where it is: a child's full collections (pytest's at its end)
    # then neither walk nor copy it, which cost each child four times its own run.
    gc.freeze()
    for target in [None, *prediction_plugin.PLAN.targets]:
        channel = launcher.channel_of(target)
        if channel is None:
            break
        pid = os.fork()
        if pid == 0:
            launcher.become(target, channel)
            return None
        if not launcher.after(pid, channel):
            break
    session.config.stash[STATUS] = launcher.status
    return True


def pytest_sessionfinish(session):
    if STATUS in session.config.stash:
        session.exitstatus = session.config.stash[STATUS]


@pytest.hookimpl(wrapper=True)
def pytest_runtestloop(session):
    """A target's child ends as soon as its tests ran and their results are sent: what pytest does
    after (its summary, its collections of garbage) decides nothing, and would cost every child."""
    ran = yield
    if TARGET_CHILD in session.config.stash:
        os._exit(1 if session.testsfailed else 0)
    return ran


class Launcher:
    def __init__(self, session):
        self.session, self.plan = session, prediction_plugin.PLAN
        self.recorder = recorder_of(session.config)
        self.files = list(session.config.args)
        self.status = 0
        self.emptied = []  # the folders a child may write, emptied before the next
        if self.plan.confined:
            apart.keep_to_myself()
            self.emptied = [apart.Folder(path) for path in (self.plan.scratch, *EMPTIED)]
            for folder in self.emptied:
                folder.wipe()  # nothing in them but what a child left, whatever pytest put there

    def channel_of(self, target):
        """The descriptors the child for target holds: the events pipe of the first child's
        collection (target None), or the target's channel, (calls, events), which the host hands
        over once the run before it is over there; then the folders a child may write are emptied
        of that run. None when the predictions cannot go on (the host is gone or said something else)."""
        if target is None:
            return (self.recorder.plan.events,)
        try:
            label, fds, _, _ = socket.recv_fds(CONTROL, 64, 2)
        except OSError:
            return None
        if label.decode(errors="replace") != target.id or len(fds) != 2:
            for fd in fds:
                os.close(fd)
            return None
        try:
            for folder in self.emptied:
                folder.wipe()
        except OSError:
            self.status = 1
            return None
        return tuple(fds)

    def become(self, target, channel):
        """In the child just forked: keep its channel only, be kept apart, and go on as pytest's
        run of this target; or, target None, collect against every target and end."""
        try:
            CONTROL.close()
            if self.plan.confined:
                apart.separate()
            else:
                os.setpgid(0, 0)  # so that the launcher ends what this child starts, when it can
        except BaseException:  # noqa: BLE001 - whatever stopped it, the child runs nothing
            os._exit(NOT_APART)
        if target is None:
            try:
                self.session.perform_collect(self.files)
            finally:
                os._exit(0)
        calls, events = channel
        self.session.config.stash[TARGET_CHILD] = True
        prediction_plugin.PLAN = replace(self.plan, targets=[target])
        prediction_plugin.connect(calls)
        _record_to(self.recorder, events)
        self.session.config.args = [f for f in self.files if step_of_check([], Path(f).name) in target.steps]

    def after(self, pid, channel):
        """In the launcher, once a child is forked: wait for it and end every process it left.
        False when the predictions cannot go on (a child could not be kept apart, or outlived)."""
        for fd in channel:
            os.close(fd)
        _record_to(self.recorder, None)  # the launcher itself records nothing
        try:
            code = self._wait(pid)
        except (OSError, apart.NotApart):
            code = NOT_APART
        if code not in (0, 1, 5):  # pytest's own: passed, failed, nothing to run
            self.status = 1
        return code != NOT_APART

    def _wait(self, pid):
        """The child's exit code, once it and every process it left have ended."""
        if not self.plan.confined:  # its group, while its pid is not reaped and cannot be reused
            os.waitid(os.P_PID, pid, os.WEXITED | os.WNOWAIT)
            try:
                os.killpg(pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
        _, status = os.waitpid(pid, 0)
        if self.plan.confined:
            apart.end_the_others()
        return os.waitstatus_to_exitcode(status)


def _found_once(files):
    """How Python finds modules in the files' folder, looked up here once for every child."""
    for folder in {os.path.dirname(file) for file in files}:
        importlib.machinery.PathFinder.find_spec("lease_lab_nothing", [folder])


def _rewritten_once(files, config):
    """pytest's rewriting of the asserts of each prediction file, here, once for every child (a
    third of a child's own time): the files are parsed and compiled, never run. A file that does
    not compile is left to each child, which reports why, as pytest does."""
    real = getattr(rewrite, "_rewrite_test", None)
    if real is None:  # another pytest: each child rewrites as usual
        return
    done = {}
    for file in map(Path, files):
        try:
            done[file] = real(file, config)
        except Exception:  # noqa: BLE001 - the child meets the same error, and reports it
            pass
    rewrite._rewrite_test = lambda fn, config: done.get(Path(fn)) or real(fn, config)


def _record_to(recorder, events):
    """The recorder sends its events to another pipe from now on, or nowhere (None). Here and
    not in the recorder: a change there would be a change of every check's verdicts' key."""
    recorder.plan = replace(recorder.plan, events=events)
    recorder.events = open(events, "w", encoding="utf-8", closefd=False) if events is not None else None  # noqa: SIM115
