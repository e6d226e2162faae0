"""What a run finds, in one module: the named statuses and the result types of checks, mutants
and predictions.

The statuses are enums until the edge (Exercism's runner keeps its ``Status(Enum)`` until it
writes results.json; mutmut gives each mutant one status): their values are the words the JSON
outputs and the cache carry, so that a status read back from either is the same enum again.
"""

from dataclasses import dataclass, field
from enum import StrEnum


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
    def detected(self):
        """The checks caught it: a failure, or a time limit."""
        return self in (MutantStatus.KILLED, MutantStatus.TIMEOUT)


class PredictionStatus(StrEnum):
    """A step's prediction: none yet, written, or refused by the correct code."""

    NO_PREDICTION = "no_prediction"
    WRITTEN = "written"
    REJECTS = "rejects_correct_code"


class PredictionOutcome(StrEnum):
    """What a written prediction did to one mutant."""

    CAUGHT = "caught"
    MISSED = "missed"


@dataclass
class Result:
    """One check run against one target (the learner's code, the reference, a mutant)."""

    nodeid: str
    check: str
    target: str
    step: int
    clauses: list
    status: CheckStatus
    message: str
    duration: float

    def __post_init__(self):
        # Read back from the child's events or from the cache, the status is its word: the enum again.
        self.status = CheckStatus(self.status)

    @property
    def passed(self):
        return self.status == CheckStatus.PASSED


@dataclass
class MutantVerdict:
    """A pre-built mutant against its step's checks."""

    mutant: object
    killed_by: list  # names of the checks that failed against the mutant
    passed_by: list  # names of the checks the mutant still passes

    @property
    def survived(self):
        return not self.killed_by


@dataclass
class Prediction:
    """A step's prediction (the learner's test) against the reference and the step's mutants."""

    step: int
    file: str  # as the learner would type it
    status: PredictionStatus
    message: str = ""  # why the correct code was rejected, or what is wrong with the file
    outcomes: dict = field(default_factory=dict)  # mutant id -> PredictionOutcome
    cached: bool = False

    def __post_init__(self):
        # Read back from the cache of class results: the enums again.
        self.status = PredictionStatus(self.status)
        self.outcomes = {mutant_id: PredictionOutcome(outcome) for mutant_id, outcome in self.outcomes.items()}

    @property
    def written(self):
        return self.status != PredictionStatus.NO_PREDICTION

    def caught(self, mutant_id):
        return self.outcomes.get(mutant_id) == PredictionOutcome.CAUGHT

    @property
    def caught_count(self):
        return sum(o == PredictionOutcome.CAUGHT for o in self.outcomes.values())

    def catches_the_snippet(self, mutants):
        return self.status == PredictionStatus.WRITTEN and all(self.caught(m.id) for m in mutants if m.worksheet and m.step == self.step)
