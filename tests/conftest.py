"""Shared, expensive runs of the checker, made once per test session."""

import pytest

from lab.grading.check import check, every_step
from lab.model.course import LAB_ROOT
from lab.model.pristine import write_stubs


@pytest.fixture(scope="session")
def reference_run():
    """The reference against every check, and every mutant against its step's checks."""
    return check(LAB_ROOT / "solutions", every_step(), every_step(), impl_label="solutions", use_cache=False)


@pytest.fixture(scope="session")
def stubs(tmp_path_factory):
    """A steps folder holding the stubs as shipped: never the learner's steps/, whatever its state."""
    return write_stubs(tmp_path_factory.mktemp("shipped") / "steps")


@pytest.fixture(scope="session")
def stub_run(stubs):
    """The stubs as shipped, against every check."""
    return check(stubs, every_step(), (), impl_label="steps")


def pytest_addoption(parser):
    parser.addoption("--all-attacks", action="store_true", help="tests/test_grader_attacks.py: every kind of attack, not a representative few")
