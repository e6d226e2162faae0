"""How one finished check ended: its status and its message, as facts that the reporters word.

The recorder (lab/running/recorder.py) asks this module once per check; the exceptions are the ones
through which the checks report what the code under test did (lab/model/outcomes.py).
"""

from __future__ import annotations

import os
import sqlite3
import sysconfig
import traceback
from pathlib import Path
from typing import TYPE_CHECKING

from lab.model.course import LAB_ROOT
from lab.model.outcomes import (
    CallRaised,
    CheckTimeout,
    ClauseBroken,
    LearnerProcessLost,
    LoadFailure,
    NotImplementedYet,
)
from lab.model.results import CheckStatus, Words, message_of

if TYPE_CHECKING:
    import pytest

    from lab.model.results import Text
    from lab.model.targets import Plan


class StepTimedOut(Exception):
    """Not run: TIMEOUT_LIMIT checks of this step and target already ran out of time."""


def classify(
    excinfo: pytest.ExceptionInfo[BaseException] | None, plan: Plan, alarm_fired: bool
) -> tuple[CheckStatus, Text | str]:
    """(status, message) for one finished check; alarm_fired: the time limit struck during it,
    whatever exception came out (Hypothesis may wrap it as a flaky test)."""
    if excinfo is None:
        return CheckStatus.PASSED, ""
    error = first(excinfo.value)
    if isinstance(error, StepTimedOut):
        return CheckStatus.TIMEOUT, message_of(error)
    if isinstance(error, CheckTimeout) or alarm_fired:
        # Where the learner's code was when the alarm struck: the loop, or the wait.
        where = _where(error) if isinstance(error, CheckTimeout) else ""
        return CheckStatus.TIMEOUT, Words("timeout", limit=plan.time_limit) + where
    if isinstance(error, LearnerProcessLost) or isinstance(getattr(error, "error", None), LearnerProcessLost):
        return CheckStatus.CRASHED, message_of(getattr(error, "error", error))
    cause = error.error if isinstance(error, CallRaised) else error
    if isinstance(cause, sqlite3.OperationalError) and "locked" in str(cause):
        return CheckStatus.ERROR, Words("locked", error=str(cause)) + _where(cause)
    if isinstance(error, LoadFailure):
        return CheckStatus.ERROR, message_of(error)
    if isinstance(error, NotImplementedYet):
        return CheckStatus.NOT_IMPLEMENTED, Words("not_implemented", call=message_of(error))
    if isinstance(error, NotImplementedError):
        return CheckStatus.NOT_IMPLEMENTED, Words("not_implemented", call=Words("the_code_under_test"))
    if isinstance(error, CallRaised):  # its message names the call
        return CheckStatus.ERROR, message_of(error) + _where(error.error) + _notes(error)
    if isinstance(error, ClauseBroken):  # its message already shows the calls that led to it
        return CheckStatus.FAILED, message_of(error)
    if isinstance(error, AssertionError):
        return CheckStatus.FAILED, message_of(error) + _notes(error)
    return CheckStatus.ERROR, f"{type(error).__name__}: " + message_of(error) + _where(error) + _notes(error)


def first(error: BaseException) -> BaseException:
    """The first leaf of an exception group (Hypothesis reports several failures as one group)."""
    while isinstance(error, BaseExceptionGroup):
        error = error.exceptions[0]
    return error


# Frames in these folders belong to the lab or to Python, never to the code under test.
NOT_LEARNER_CODE = tuple(
    str(Path(folder).resolve()) + os.sep
    for folder in (
        LAB_ROOT / "lab",
        LAB_ROOT / "checks",
        *{sysconfig.get_paths()[k] for k in ("stdlib", "purelib", "platlib")},
    )
)


def _where(error):
    """' (at file, line N)' for the innermost frame of the code under test: as the learner
    process saw it, or as this process's traceback shows it (the lab's own code)."""
    if getattr(error, "lab_where", None):
        return Words("at", file=error.lab_where[0], line=error.lab_where[1])
    frames = [
        f
        for f in traceback.extract_tb(error.__traceback__)
        if not str(Path(f.filename).resolve()).startswith(NOT_LEARNER_CODE)
    ]
    return Words("at", file=frames[-1].filename, line=frames[-1].lineno) if frames else ""


def _notes(error):
    notes = [
        note for note in getattr(error, "__notes__", []) if note.startswith(("Falsifying", "Draw", "state", "    "))
    ]
    return ("\n" + "\n".join(notes)) if notes else ""
