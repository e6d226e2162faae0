"""How a command ends: every command of the lab returns an ExitStatus.

How one check, mutant or prediction ended is a status of lab/model/results.py; every reporter maps
it to its own words (a mark, a JUnit element, an Exercism status) in one table of its own.
"""

from enum import IntEnum


class ExitStatus(IntEnum):
    """The exit status of every command, as docs/reference.md documents them."""

    ALL_PASS = 0  # every check passes (the mutation report: every mutant is killed)
    SOME_FAIL = 1  # some check fails, a mutant survives, a call was refused
    USAGE = 2  # what was typed cannot be run; the mutation report could not be made
    LAB_BROKEN = 3  # the lab itself is broken: the reference fails, a mutant survives, an unknown course format
    BUSY = 4  # the lease tool: another process held the database's write lock for longer than --busy-timeout
    STORE_FAULT = 5  # stress: the implementation raised or answered what no contract allows; no verdict on its promises
