"""Every named status: how a command ends (every command of the lab returns an ExitStatus), and how
one check, mutant or prediction ended.

The statuses of a run are enums until the edge (Exercism's runner keeps its ``Status(Enum)`` until
it writes results.json; mutmut gives each mutant one status): their values are the words the JSON
outputs and the cache carry, so that a status read back from either is the same enum again. Every
reporter maps them to its own words (a mark, a JUnit element, an Exercism status) in one table of
its own. The result types that carry them are in lab/model/results.py.
"""

from enum import IntEnum, StrEnum


class ExitStatus(IntEnum):
    """The exit status of every command, as docs/reference.md documents them."""

    ALL_PASS = 0  # every check passes (the mutation report: every mutant is killed)
    SOME_FAIL = 1  # some check fails, a mutant survives, a call was refused
    USAGE = 2  # what was typed cannot be run; the mutation report could not be made
    LAB_BROKEN = 3  # the lab itself is broken: the reference fails, a mutant survives, an unknown course format
    BUSY = 4  # the lease tool: another process held the database's write lock for longer than --busy-timeout
    STORE_FAULT = 5  # stress: the implementation raised or answered what no contract allows; no verdict on its promises


class CheckStatus(StrEnum):
    """How one check ended; its value is the word the JSON results carry."""

    PASSED = "passed"
    FAILED = "failed"  # the code under test broke the contract
    ERROR = "error"  # it raised, did not load, or the check could not run it
    NOT_IMPLEMENTED = "not_implemented"  # the stub as shipped
    TIMEOUT = "timeout"
    CRASHED = "crashed"  # the process running the code under test ended


# A check whose process was lost: it hung or ended, and may have changed what the others report.
LOSSES = (CheckStatus.TIMEOUT, CheckStatus.CRASHED)


class StepStatus(StrEnum):
    """A step of the learner's course, as `make progress` shows it."""

    PASSED = "passed"  # every check of the step passes
    FAILING = "failing"
    NOT_STARTED = "not_started"  # the stub as shipped


class MutantStatus(StrEnum):
    """A mutant of the mutation report, in mutmut's words."""

    KILLED = "killed"
    SURVIVED = "survived"
    TIMEOUT = "timeout"
    NO_TESTS = "no tests"  # no check of the steps can call it
    EQUIVALENT = "equivalent"  # the ledger says no check can tell it from the implementation
    NOT_CHECKED = "not checked"  # not run yet

    @property
    def detected(self) -> bool:
        """The checks caught it: a failure, or a time limit."""
        return self in (MutantStatus.KILLED, MutantStatus.TIMEOUT)


class PredictionStatus(StrEnum):
    """A step's prediction: none yet, written, refused by the correct code, one that could not run
    at all (its file does not compile or import, asks for a fixture there is not, is refused), or
    not judged (its run ended without its results: lab/running/runner.py)."""

    NO_PREDICTION = "no_prediction"
    WRITTEN = "written"
    REJECTS = "rejects_correct_code"
    CANNOT_RUN = "cannot_run"
    NOT_JUDGED = "not_judged"


class PredictionOutcome(StrEnum):
    """What a written prediction did to one mutant."""

    CAUGHT = "caught"
    MISSED = "missed"
