"""Shared, expensive runs of the checker, made once per test session."""

import pytest

from lab.check import check, every_step
from lab.course import LAB_ROOT


@pytest.fixture(scope="session")
def reference_run():
    """The reference against every check, and every mutant against its step's checks."""
    return check(LAB_ROOT / "solutions", every_step(), every_step(), impl_label="solutions", use_cache=False)


@pytest.fixture(scope="session")
def stub_run():
    """The stubs as shipped in steps/, against every check."""
    return check(LAB_ROOT / "steps", every_step(), (), impl_label="steps")
