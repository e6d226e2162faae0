"""The exceptions through which a check reports what the code under test did."""

from __future__ import annotations

from lab.model.results import Text, Words, message_of


class CallRaised(Exception):
    """The code under test raised while a check called it; names the call (facts, worded by the reporters)."""

    def __init__(self, call: Text | str, error: BaseException) -> None:
        super().__init__(Words("call_raised", call=call, kind=type(error).__name__, error=message_of(error)))
        self.call = call
        self.error = error


class ClauseBroken(AssertionError):
    """A check's failure that names the one clause broken, where the check covers several."""

    def __init__(self, clause: str, message: object) -> None:
        super().__init__(message)
        self.clause = clause


class LoadFailure(Exception):
    """The step's file could not be loaded, or does not define the step's function."""


class CheckTimeout(BaseException):
    """A check ran past its time limit.

    A BaseException so that Hypothesis does not take it for a failing example and shrink it
    (which would run the endless code again), and so that no ``except Exception`` in the code
    under test swallows it.
    """


class NotImplementedYet(BaseException):
    """The code under test still raises NotImplementedError: the stub is not filled in.

    A BaseException so that Hypothesis stops at the first example instead of shrinking a
    failure that every example shares.
    """


class LearnerProcessLost(BaseException):
    """The learner process ended, or broke its channel, while a check called it.

    A BaseException, like CheckTimeout: every later call of the check would meet the same
    dead process, so Hypothesis must not shrink it.
    """
