"""Shared, expensive runs of the checker, made once per test session."""

import fcntl
import os
import subprocess
import sys
from contextlib import contextmanager
from pathlib import Path

import pytest
from cache_store import entries_added_only
from cpu_top import CpuTop

from lab.dev import examples
from lab.grading.check import check, every_step
from lab.model.course import LAB_ROOT
from lab.model.pristine import write_stubs


@pytest.fixture(scope="session")
def reference_run():
    """The reference against every check, and every mutant against its step's checks."""
    with entries_added_only():
        return check(LAB_ROOT / "solutions", every_step(), every_step(), impl_label="solutions", use_cache=False)


@pytest.fixture
def cache_entries_added_only():
    """For a test that runs without the cache: tests/cache_store.py."""
    with entries_added_only():
        yield


@pytest.fixture(scope="session")
def stubs(tmp_path_factory):
    """A steps folder holding the stubs as shipped: never the learner's steps/, whatever its state."""
    return write_stubs(tmp_path_factory.mktemp("shipped") / "steps")


@pytest.fixture(scope="session")
def stub_run(stubs):
    """The stubs as shipped, against every check."""
    return check(stubs, every_step(), (), impl_label="steps")


@pytest.fixture(scope="session")
def reference_mutation_report(tmp_path_factory):
    """`python -m lab mutation` over the reference, every run on one stage (the first run makes
    it); report(lang) is (the finished process, its out folder), run once, when a test first asks
    for it; report(lang, run=2) is a second run, to compare with the first."""
    folder = tmp_path_factory.mktemp("mutation-reports")
    made = {}

    def report(lang="en", run=1):
        if (lang, run) not in made:
            out = folder / f"{lang}-{run}"
            arguments = ["mutation", "--impl", "solutions", "--lang", lang, "--out", str(out)]
            done = subprocess.run(
                [sys.executable, "-m", "lab", *arguments, "--stage", str(folder / "stage")],
                cwd=LAB_ROOT,
                capture_output=True,
                text=True,
                timeout=900,
            )
            made[lang, run] = done, out
        return made[lang, run]

    return report


@contextmanager
def one_worker_at_a_time(tmp_path_factory, name):
    """Held by one pytest-xdist worker of this run at a time (a lock in the folder they share): the
    first to hold it makes what the others then find made."""
    folder = tmp_path_factory.getbasetemp()  # under xdist, pytest-N/popen-gwK/: its workers share pytest-N/
    if "PYTEST_XDIST_WORKER" in os.environ:
        folder = folder.parent
    with open(folder / f"{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield


@pytest.fixture(scope="session")
def guide_examples_kept(tmp_path_factory):
    """The runs behind the guides' examples (lab/dev/examples.py) in the lab's cache store, made by
    the first worker that asks. They cost about 50 CPU seconds, and a copy of the lab with the same
    files finds them there (tests/test_dev.py's _share_examples): made once, not once per module."""
    with one_worker_at_a_time(tmp_path_factory, "guide-examples"):
        for lang in sorted({lang for _, lang in examples.guides(LAB_ROOT)}):
            examples.runs(lang)


def pytest_addoption(parser):
    parser.addoption(
        "--all-attacks",
        action="store_true",
        help="tests/test_grader_attacks.py: every kind of attack, not a representative few",
    )
    parser.addoption(
        "--all-seeds",
        action="store_true",
        help="tests/test_stress_verdicts.py: every broken store under each of the three seeds, not one seed each",
    )
    parser.addoption(
        "--cpu-top",
        type=int,
        default=0,
        metavar="N",
        help="after the run, the N tests that cost the most CPU, their children's included (tests/cpu_top.py)",
    )


def pytest_configure(config):
    if config.getoption("--cpu-top"):
        config.pluginmanager.register(CpuTop(config.getoption("--cpu-top")), "cpu-top")
    # Until a language is chosen the lab speaks the locale's, and every command says so in its first
    # line (lab/text/language.py). The suite's commands, in this process and in every child, run in
    # English and under a neutral locale whatever the machine's (CI may run under LANG=ja_JP.UTF-8):
    # a test of a language names it (--lang, LAB_LANG), and a test of the locale rule sets its own
    # (tests/test_language_setting.py).
    for name in ("LC_ALL", "LC_MESSAGES"):
        os.environ.pop(name, None)
    os.environ["LANG"] = "C.UTF-8"
    os.environ["LAB_LANG"] = "en"
    # The two tiers: `pytest -m fast` in about a minute, `pytest -m e2e` for what runs the lab whole.
    config.addinivalue_line("markers", "fast: a test of the lab's parts (every test not marked e2e; marked here)")
    config.addinivalue_line(
        "markers", "e2e: runs the lab's commands end to end in child processes, some beside CPU hogs"
    )
    # `make test` leaves out the long tier (-m "not long"), to stay within its ten minutes on two
    # cores; `make test-long` runs it, and CI runs both (.ci/run).
    config.addinivalue_line(
        "markers", "long: minutes of CPU each; run by make test-long (and CI), left out of make test"
    )


# The modules whose tests run the lab's commands or its checks in child processes (seconds to
# minutes each); a test elsewhere can be marked e2e on its own.
E2E_MODULES = {
    "test_broken_learner_code",
    "test_checks_stay_in_their_scratch",
    "test_class_languages",
    "test_class_predictions",
    "test_classroom",
    "test_cli",
    "test_field",
    "test_stress_verdicts",
    "test_grader_attacks",
    "test_independent_implementations",
    "test_kill_matrix",
    "test_learner_commands",
    "test_learner_path",
    "test_learner_progress_states",
    "test_learner_texts",
    "test_mutation_language",
    "test_japanese_output",
    "test_mutation_report_of_learner_code",
    "test_mutation_stage",
    "test_partitions",
    "test_peers",
    "test_prediction_losses",
    "test_predictions",
    "test_race_clauses",
    "test_reach",
    "test_results_formats",
    "test_same_words",
    "test_tamper_proof_grading",
}


# `make test` runs the tests on two workers (pytest-xdist), a module at a time so that its module
# fixtures run once. The modules that use one session fixture share a worker, one after the other,
# so that the fixture runs once. (Runs without the cache may go beside a class run: they add
# entries to the cache store and never rewrite one, tests/cache_store.py.)
SHARED_SESSION_FIXTURES = {
    "test_kill_matrix": "reference_run",
    "test_learner_texts": "reference_run",
    "test_japanese_output": "reference_mutation_report",
    "test_mutation_language": "reference_mutation_report",
    "test_mutation_report": "reference_mutation_report",
}
# The modules (and groups) that take minutes, the longest first: a worker starts them before the
# rest, since the one that starts last bounds the wall time. Wall seconds of each alone, one after
# another, with the machine at a load of about 10 on its 2 cores.
LONGEST_FIRST = (
    "test_independent_implementations",  # 11 correct ones, 43 wrong ones at their own step (was 418 s with the earlier steps)
    "test_grader_attacks",  # 316: a class of attacks and controls
    "reference_mutation_report",  # 240: with the check-step runs of test_japanese_output
    "test_classroom",  # 166: a class, its re-grades, a used-up budget
    "test_learner_commands",  # 155
    "reference_run",  # 146
    "test_mutation_report_of_learner_code",  # 120
    "test_learner_path",  # 119
    "test_broken_learner_code",  # 106: code that hangs runs out its time limit in every check
    "test_field",  # 86
    "test_stress_verdicts",  # about 70: a 3 s stress run of each broken store and of the reference
)


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config, log):
    """pytest-xdist's --dist loadfile, with the modules of one session fixture as one file, and the
    longest modules first. (Its loadgroup cannot group on pytest 9.2: it renames a node's id through
    an attribute pytest no longer reads.)"""
    from xdist.scheduler import LoadFileScheduling

    class ModulesLongestFirst(LoadFileScheduling):
        def _split_scope(self, nodeid):
            module = Path(nodeid.split("::", 1)[0]).stem
            return SHARED_SESSION_FIXTURES.get(module, module)

        def _assign_work_unit(self, node):
            for scope in sorted(self.workqueue, key=_start_rank):
                self.workqueue.move_to_end(scope)
            super()._assign_work_unit(node)

    return ModulesLongestFirst(config, log)


def _start_rank(scope):
    """A scope's place in the queue: the longest modules by their rank, then the rest as xdist
    ordered them (by their count of tests; the sort is stable)."""
    return LONGEST_FIRST.index(scope) if scope in LONGEST_FIRST else len(LONGEST_FIRST)


def pytest_collection_modifyitems(config, items):
    """Each test is in one tier: e2e (its module's, or its own mark), else fast."""
    for item in items:
        if item.module.__name__.rpartition(".")[2] in E2E_MODULES:
            item.add_marker("e2e")
        if item.get_closest_marker("e2e") is None:
            item.add_marker("fast")
