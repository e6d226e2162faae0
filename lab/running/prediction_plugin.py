"""A pytest plugin, loaded only in the child that runs learners' predictions (``-p lab.running.prediction_plugin``).

It gives ``test_my_prediction`` the checks' own fixtures: ``lease`` parametrised over the plan's
targets of the prediction's step (the reference and each mutant), and ``db`` / ``new_db``, a
fresh database file with the jobs table. The prediction files are copies named
``test_prediction_NN.py`` (NN: the step) in a scratch folder, so no conftest.py of the learner
and none of the lab's checks take part.
"""

import importlib.util
import linecache
import traceback
from pathlib import Path

import pytest

from lab.model.course import LAB_ROOT, PREDICTION_TEST_NAME, step_of_check
from lab.text.messages import say
from lab.running.recorder import recorder_of
from lab.model.status import CheckStatus
from lab.model.targets import Plan


def _checks_conftest():
    """checks/conftest.py as a plain module: its fixtures and its Hypothesis profile, not its hooks."""
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


@pytest.fixture
def lease(request):
    """The reference or a mutant, loaded afresh for this run of the prediction."""
    return request.param.module_for(step_of(request.node), PLAN.lang)


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
        located = AssertionError(say("prediction_failed_at", PLAN.lang, file=item.path, line=line, source=source) + f"\n{error}")
        located.__notes__ = getattr(error, "__notes__", [])
        raise located from error


# A prediction that cannot be collected, or takes no `lease`, is the learner's problem, never the
# lab's: each target gets an error result for it instead of a run that could not start.


@pytest.hookimpl(wrapper=True)
def pytest_make_collect_report(collector):
    report = yield
    if report.failed and PREDICTION_TEST_NAME.search(collector.path.name):
        lines = [line for line in report.longreprtext.splitlines() if line.strip()]
        _fail_every_target(collector.config, collector.path, say("prediction_cannot_run", PLAN.lang, error="\n".join(lines[-6:])))
    return report


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config, items):
    unparametrised = [item for item in items if not hasattr(item, "callspec")]
    for item in unparametrised:
        _fail_every_target(config, Path(str(item.path)), say("prediction_needs_lease", PLAN.lang, test=item.name))
    if unparametrised:
        config.hook.pytest_deselected(items=unparametrised)
        items[:] = [item for item in items if item not in unparametrised]


def _fail_every_target(config, path, message):
    step = step_of_check([], path.name)
    if step is None:
        return
    settled = [
        {"nodeid": f"{path.name}::test_my_prediction[{target.id}]", "check": "test_my_prediction", "target": target.id, "step": step, "clauses": []}
        for target in PLAN.targets
        if step in target.steps
    ]
    recorder = recorder_of(config)
    recorder.emit(event="collected", items=settled)
    for item in settled:
        recorder.emit(event="result", **item, status=CheckStatus.ERROR, message=message, duration=0.0)
