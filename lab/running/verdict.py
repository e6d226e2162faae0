"""How one finished check reads: its status and its message, in the learner's language.

The recorder (lab/running/recorder.py) asks this module once per check; the exceptions are the ones
through which the checks report what the code under test did (lab/model/outcomes.py).
"""

import os
import sqlite3
import sysconfig
import traceback
from pathlib import Path

from lab.model.course import LAB_ROOT
from lab.model.outcomes import (
    CallRaised,
    CheckTimeout,
    ClauseBroken,
    LearnerProcessLost,
    LoadFailure,
    NotImplementedYet,
)
from lab.model.status import CheckStatus
from lab.text.messages import say


class StepTimedOut(Exception):
    """Not run: TIMEOUT_LIMIT checks of this step and target already ran out of time."""


def classify(excinfo, plan, alarm_fired):
    """(status, message) for one finished check; alarm_fired: the time limit struck during it,
    whatever exception came out (Hypothesis may wrap it as a flaky test)."""
    if excinfo is None:
        return CheckStatus.PASSED, ""
    error = first(excinfo.value)
    if isinstance(error, StepTimedOut):
        return CheckStatus.TIMEOUT, str(error)
    if isinstance(error, CheckTimeout) or alarm_fired:
        # Where the learner's code was when the alarm struck: the loop, or the wait.
        where = _where(error, plan.lang) if isinstance(error, CheckTimeout) else ""
        return CheckStatus.TIMEOUT, say("timeout", plan.lang, limit=plan.time_limit) + where
    if isinstance(error, LearnerProcessLost) or isinstance(getattr(error, "error", None), LearnerProcessLost):
        return CheckStatus.CRASHED, str(getattr(error, "error", error))
    cause = error.error if isinstance(error, CallRaised) else error
    if isinstance(cause, sqlite3.OperationalError) and "locked" in str(cause):
        return CheckStatus.ERROR, say("locked", plan.lang, error=cause) + _where(cause, plan.lang)
    if isinstance(error, LoadFailure):
        return CheckStatus.ERROR, str(error)
    if isinstance(error, NotImplementedYet):
        return CheckStatus.NOT_IMPLEMENTED, say("not_implemented", plan.lang, call=error)
    if isinstance(error, NotImplementedError):
        return CheckStatus.NOT_IMPLEMENTED, say("not_implemented", plan.lang, call=say("the_code_under_test", plan.lang))
    if isinstance(error, CallRaised):  # its message names the call, in the learner's language
        return CheckStatus.ERROR, str(error) + _where(error.error, plan.lang) + _notes(error)
    if isinstance(error, ClauseBroken):  # its message already shows the calls that led to it
        return CheckStatus.FAILED, str(error)
    if isinstance(error, AssertionError):
        return CheckStatus.FAILED, str(error) + _notes(error)
    return CheckStatus.ERROR, f"{type(error).__name__}: {error}" + _where(error, plan.lang) + _notes(error)


def first(error):
    """The first leaf of an exception group (Hypothesis reports several failures as one group)."""
    while isinstance(error, BaseExceptionGroup):
        error = error.exceptions[0]
    return error


# Frames in these folders belong to the lab or to Python, never to the code under test.
NOT_LEARNER_CODE = tuple(
    str(Path(folder).resolve()) + os.sep
    for folder in (LAB_ROOT / "lab", LAB_ROOT / "checks", *{sysconfig.get_paths()[k] for k in ("stdlib", "purelib", "platlib")})
)


def _where(error, lang):
    """' (at file, line N)' for the innermost frame of the code under test: as the learner
    process saw it, or as this process's traceback shows it (the lab's own code)."""
    if getattr(error, "lab_where", None):
        return say("at", lang, file=error.lab_where[0], line=error.lab_where[1])
    frames = [f for f in traceback.extract_tb(error.__traceback__) if not str(Path(f.filename).resolve()).startswith(NOT_LEARNER_CODE)]
    return say("at", lang, file=frames[-1].filename, line=frames[-1].lineno) if frames else ""


def _notes(error):
    notes = [note for note in getattr(error, "__notes__", []) if note.startswith(("Falsifying", "Draw", "state", "    "))]
    return ("\n" + "\n".join(notes)) if notes else ""
