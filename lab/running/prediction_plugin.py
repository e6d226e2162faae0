"""A pytest plugin, loaded only in the child that runs learners' predictions (``-p lab.running.prediction_plugin``).

It gives ``test_my_prediction`` the checks' own fixtures: ``lease`` parametrised over the plan's
targets of the prediction's step (the reference and each mutant, known here only by labels
drawn at random: lab/running/prediction_host.py), and ``db`` / ``new_db``, a fresh database file
with the jobs table. Each target's run is a process of its own, forked for it
(lab/running/prediction_launcher.py), and each function of ``lease`` a call through that
target's own channel to the host, which alone knows which target it serves. The prediction
files are copies named ``test_prediction_NN.py`` (NN: the step) in a folder of their own, so no
conftest.py of the learner and none of the lab's checks take part.
"""

import importlib.util
import itertools
import json
import linecache
import socket
import sys
import threading
import traceback
from pathlib import Path

import pytest

from lab.model.course import LAB_ROOT, PREDICTION_TEST_NAME, load_course, step_of_check
from lab.model.outcomes import LoadFailure
from lab.model.prediction_file import tidy
from lab.model.results import CheckStatus, Words, as_json
from lab.model.targets import Plan
from lab.running.recorder import recorder_of
from lab.sandbox.remote import answer


def _checks_conftest():
    """checks/conftest.py as a plain module: its fixtures and its Hypothesis profile, not its hooks."""
    sys.path.insert(0, str(LAB_ROOT / "checks"))  # its helpers, as pytest finds them for the checks
    spec = importlib.util.spec_from_file_location("lease_lab_checks_conftest", LAB_ROOT / "checks" / "conftest.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


_conftest = _checks_conftest()
new_db, db = _conftest.new_db, _conftest.db
PLAN = Plan.from_environment()


def step_of(node):
    step = step_of_check([], Path(str(node.path)).name)
    if step is None:
        raise pytest.UsageError(f"{node.nodeid}: not a prediction file (test_prediction_NN.py)")
    return step


def pytest_generate_tests(metafunc):
    PLAN.parametrize(metafunc, step_of)


class Link:
    """This process's end of its target's channel to the prediction host (a socket): calls out,
    their answers back. The channel serves that one target, whatever a request names."""

    def __init__(self, fd):
        self.channel = socket.socket(fileno=fd)
        self.answers = self.channel.makefile("rb")
        self.ids, self.writing, self.arrived, self.replies = (
            itertools.count(),
            threading.Lock(),
            threading.Condition(),
            {},
        )
        threading.Thread(target=self._read, daemon=True).start()

    def call(self, name, *args, **kwargs):
        ident = next(self.ids)
        request = {"id": ident, "name": name, "args": list(args), "kwargs": kwargs}
        with self.writing:
            self.channel.sendall((json.dumps(request) + "\n").encode())
        with self.arrived:
            self.arrived.wait_for(lambda: ident in self.replies)
            return answer(self.replies.pop(ident))

    def _read(self):
        for line in self.answers:
            reply = json.loads(line)
            with self.arrived:
                self.replies[reply["id"]] = reply
                self.arrived.notify_all()


class Target:
    """The target of the prediction: its functions, each a call through the host. Shown as the
    learner wrote it (`lease`, `lease.claim`): pytest's explanation of a failed assert names both
    by their reprs, which would otherwise be the lab's objects and their addresses."""

    def __init__(self, link):
        self._link = link

    def __getattr__(self, name):
        if name not in FUNCTIONS:
            raise AttributeError(name)
        return Call(self._link, name)

    def __repr__(self):
        return "lease"


class Call:
    """One function of the target: calling it is a call through the host."""

    def __init__(self, link, name):
        self._link, self._name = link, name

    def __call__(self, *args, **kwargs):
        return self._link.call(self._name, *args, **kwargs)

    def __repr__(self):
        return f"lease.{self._name}"


FUNCTIONS = {step.function for step in load_course()}
_link = None  # this process's channel, once the launcher forked it for a target (connect)


def connect(fd):
    """The channel of the one target this process runs the predictions against."""
    global _link
    _link = Link(fd)


@pytest.fixture
def lease(request):
    """The target this run of the prediction is for: the reference or a mutant, it cannot tell."""
    step_of(request.node)
    return Target(_link)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item):
    """A failed assert of a prediction reads like a failed check: the line of prediction.py that
    failed, then pytest's rewritten assertion with the values on both sides."""
    try:
        return (yield)
    except AssertionError as error:
        frames = [f for f in traceback.extract_tb(error.__traceback__) if f.filename == str(item.path)]
        if not frames:
            raise
        line = frames[-1].lineno
        source = (linecache.getline(frames[-1].filename, line) or frames[-1].line or "").strip()
        located = AssertionError(
            Words("prediction_failed_at", file=str(item.path), line=line, source=source) + f"\n{tidy(str(error))}"
        )
        located.__notes__ = getattr(error, "__notes__", [])
        raise located from error


@pytest.hookimpl(wrapper=True)
def pytest_runtest_setup(item):
    """A fixture the prediction asks for that there is not: one line naming it (pytest's own error
    shows its request object), and the prediction could not run (lab/grading/predictions.py)."""
    try:
        return (yield)
    except pytest.FixtureLookupError as error:
        raise LoadFailure(Words("prediction_unknown_fixture", name=error.argname)) from None


# A prediction that cannot be collected, or takes no `lease`, is the learner's problem, never the
# lab's: each target gets an error result for it instead of a run that could not start.


@pytest.hookimpl(wrapper=True)
def pytest_make_collect_report(collector):
    report = yield
    if report.failed and PREDICTION_TEST_NAME.search(collector.path.name):
        lines = [line for line in report.longreprtext.splitlines() if line.strip()]
        _fail_every_target(
            collector.config, collector.path, Words("prediction_cannot_run", error="\n".join(lines[-6:]))
        )
    return report


MAX_TESTS = 5  # test functions one prediction file may hold (docs/instructor.md): each runs against every mutant


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config, items):
    refused = [item for item in items if not hasattr(item, "callspec")]
    for item in refused:
        _fail_every_target(config, Path(str(item.path)), Words("prediction_needs_lease", test=item.name))
    tests = {}
    for item in items:
        tests.setdefault(Path(str(item.path)), set()).add(item.originalname)
    for path, names in tests.items():
        if len(names) > MAX_TESTS:
            refused += [item for item in items if Path(str(item.path)) == path and item not in refused]
            message = Words("prediction_too_many", file=path.name, count=len(names), limit=MAX_TESTS)
            _fail_every_target(config, path, message)
    if refused:
        config.hook.pytest_deselected(items=refused)
        items[:] = [item for item in items if item not in refused]


def _fail_every_target(config, path, message):
    step = step_of_check([], path.name)
    if step is None:
        return
    settled = [
        {
            "nodeid": f"{path.name}::test_my_prediction[{target.id}]",
            "check": "test_my_prediction",
            "target": target.id,
            "step": step,
            "clauses": [],
        }
        for target in PLAN.targets
        if step in target.steps
    ]
    recorder = recorder_of(config)
    recorder.emit(event="collected", items=settled)
    for item in settled:
        recorder.emit(event="result", **item, status=CheckStatus.ERROR, message=as_json(message), duration=0.0)
