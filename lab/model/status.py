"""The two sets of named statuses: how a command ends, and how one check ended.

Every command of the lab returns an ExitStatus; every reporter maps a CheckStatus to its own
words (a mark, a JUnit element, an Exercism status) in one table of its own.
"""

from enum import IntEnum, StrEnum


class ExitStatus(IntEnum):
    """The exit status of every command, as README.md documents them."""

    ALL_PASS = 0  # every check passes (the mutation report: every mutant is killed)
    SOME_FAIL = 1  # some check fails, a mutant survives, a call was refused
    USAGE = 2  # what was typed cannot be run; the mutation report could not be made
    LAB_BROKEN = 3  # the lab itself is broken: the reference fails, a mutant survives, an unknown course format
    BUSY = 4  # the lease tool: another process held the database's write lock for longer than --busy-timeout


class CheckStatus(StrEnum):
    """How one check ended; its value is the word the JSON results carry."""

    PASSED = "passed"
    FAILED = "failed"  # the code under test broke the contract
    ERROR = "error"  # it raised, did not load, or the check could not run it
    NOT_IMPLEMENTED = "not_implemented"  # the stub as shipped
    TIMEOUT = "timeout"
    CRASHED = "crashed"  # the process running the code under test ended
