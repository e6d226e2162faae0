"""Fixtures shared by the step checks: the code under test (``lease``) and a fresh database."""

import math
import os
import tempfile
from contextlib import closing

import pytest
from hypothesis import HealthCheck, Phase, settings
from hypothesis.internal.conjecture import engine, providers
from support import open_db

from lab.api import SOLUTIONS_DIR, LocalModule, Plan, Target, checks_of, load, opened, read, step_of_check

# The same examples on every run (derandomize), and no example database in the repository:
# a learner must see the same report for the same code.
settings.register_profile(
    "lab",
    derandomize=True,
    database=None,
    deadline=None,
    print_blob=False,
    # One failure is enough to report; with several, Hypothesis would go on looking for others
    # for up to ten seconds of the clock, and what it found would depend on the machine's load.
    report_multiple_bugs=False,
    # No explain phase: its notes name lines of the checks, which tell a learner nothing.
    phases=[Phase.explicit, Phase.reuse, Phase.generate, Phase.target, Phase.shrink],
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
# The kill matrix (pre-built mutants, and mutmut's as module files) needs only "does some
# example fail?": shrinking a mutant's failure to the smallest example would cost most of the
# run and show nobody anything.
settings.register_profile(
    "kill-matrix", parent=settings.get_profile("lab"), phases=[Phase.explicit, Phase.reuse, Phase.generate]
)

PLAN = Plan.from_environment()
settings.load_profile("kill-matrix" if all(target.mutant or target.module_file for target in PLAN.targets) else "lab")
# Hypothesis shrinks a failure for up to five minutes of the clock: on a loaded machine it would
# stop earlier, at another example, and the same code would be shown different words. Shrinking
# is bounded by a number of calls of the check instead, and never by time.
SHRINK_CALLS = 300
engine.MAX_SHRINKING_SECONDS = math.inf


def _shrink_within_calls(shrink):
    def bounded(runner):
        limit = runner.call_count + SHRINK_CALLS
        test_function = runner.test_function

        def counted(data):
            result = test_function(data)
            if runner.call_count >= limit:
                runner.exit_with(engine.ExitReason.max_shrinks)
            return result

        runner.test_function = counted
        try:
            return shrink(runner)
        finally:
            del runner.test_function

    return bounded


engine.ConjectureRunner.shrink_interesting_test_cases = _shrink_within_calls(
    engine.ConjectureRunner.shrink_interesting_test_cases
)

# Hypothesis (6.131 and later) now and then draws a literal found in the source of any "local"
# module imported so far: here the lab's own code, the reference and the mutants the child
# loaded. It parsed all of them anew in every child (about 0.06 s of CPU each), and it tied the
# examples to the lab's wording and to which modules an earlier check happened to import. The
# checks' strategies say which values matter; the pool of local literals stays empty.
if hasattr(providers, "_get_local_constants"):
    providers._get_local_constants = lambda: providers._local_constants

SCHEMA = (
    "CREATE TABLE jobs (id TEXT PRIMARY KEY, owner TEXT, until REAL NOT NULL DEFAULT 0, "
    "fence INTEGER NOT NULL DEFAULT 0, result TEXT, done INTEGER NOT NULL DEFAULT 0)"
)


def step_of(definition):
    clauses = [c for mark in definition.iter_markers("clause") for c in mark.args]
    if not clauses:
        raise pytest.UsageError(f"{definition.nodeid} has no @pytest.mark.clause")
    return step_of_check(clauses)


def pytest_generate_tests(metafunc):
    PLAN.parametrize(metafunc, step_of)


def pytest_collection_modifyitems(config, items):
    """Drop checks whose step no target covers (pytest would otherwise skip them noisily)."""
    unused = [item for item in items if not isinstance(_target_of(item), Target)]
    if unused:
        config.hook.pytest_deselected(items=unused)
        items[:] = [item for item in items if item not in unused]


def _target_of(item):
    return getattr(getattr(item, "callspec", None), "params", {}).get("lease")


@pytest.fixture
def lease(request):
    """The module under test, loaded afresh for this check; a clear failure if its step cannot load.

    A learner's files run in a learner process of their own; its functions are called through
    a channel (lab/sandbox/remote.py).
    """
    step, record = step_of(request.node), os.environ.get("LEASE_LAB_PARTITIONS")
    # A file the check needs that does not load stops it with what went wrong, even an earlier step's.
    needs = checks_of(step).get(request.node.originalname, frozenset())
    with opened(request.param, step, PLAN, needs) as module:
        if record:  # tests/test_partitions.py counts the kinds of input each step's checks reach
            from partitions import Recording  # only then: the predictions' plugin loads this file alone

            module = Recording(module, step, record)
        yield module


@pytest.fixture
def another_worker():
    """A worker the learner did not write: the reference, whose calls run in processes of their
    own (lab/sandbox/local.py). Racing the learner's code against it, only the database's write
    lock can keep the two apart, as the contracts say; a lock of the learner's own cannot."""
    module = LocalModule(load(read(SOLUTIONS_DIR, label="another worker")).module)
    yield module
    module.close()


@pytest.fixture
def new_db():
    """A factory of fresh database files that already hold the jobs table, made with plain sqlite3.

    Each lies in a folder of its own that the checks make in the scratch folder, the one folder
    the learner processes see: a link the learner's code planted beside an earlier database can
    never be where the next one is made (support.open_db refuses links it finds later)."""

    def make(with_table=True):
        path = os.path.join(tempfile.mkdtemp(prefix="db-", dir=PLAN.scratch), "jobs.db")
        if with_table:
            with closing(open_db(path)) as conn, conn:
                conn.execute(SCHEMA)
        return path

    return make


@pytest.fixture
def db(new_db):
    """One fresh database file with the jobs table, for checks that need just one."""
    return new_db()


@pytest.fixture
def slow_writes(lease):
    """Make races visible: every connection the code under test opens pauses before each write,
    and before each BEGIN (lab/sandbox/learner/statements.py: slow_down_writes)."""
    lease.slow_down_writes()
