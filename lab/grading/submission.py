"""One learner's submission in a class folder: where its step files are, and its grading within
its own per-check time limit and time budget, so that one broken submission cannot hold up the
others (lab/grading/classroom.py runs them side by side)."""

import time
from dataclasses import dataclass, field
from pathlib import Path

from lab.clock import Deadline
from lab.grading import credit, predictions, unpack
from lab.model.course import load_course
from lab.model.implementation import STEP_FILE, read
from lab.model.prediction_file import PREDICTION_FILE
from lab.model.targets import Target
from lab.running.runner import run
from lab.text import inert
from lab.text.messages import say

SHOWN = 20  # names listed per folder looked at


@dataclass
class Submission:
    name: str
    impl: Path | None  # None: the folder holds no step files
    results: list = field(default_factory=list)
    problem: str = ""  # why the folder could not be checked at all
    seconds: float = 0.0
    predictions: list | None = None  # predictions.Prediction per step; None: not run (no mutants)
    credit: dict = field(default_factory=dict)  # step -> the results of its credit (lab/grading/credit.py)
    digest: str = ""  # of the files the grader read (lab/grading/regrade.py)
    commit: str = ""  # HEAD of a git checkout
    cached: bool = False  # unchanged since it was last graded: its results were kept
    budget_used: bool = False  # its BUDGET ran out before every check and prediction ran
    waits_left_out: float = 0.0  # seconds its budgets were moved later: its checks waited for a CPU (lab/clock.py)
    source: Path | None = None  # its entry in the class folder: a folder or a zip file
    details: dict = field(default_factory=dict)  # the fields of its problem's message
    found: dict = field(default_factory=dict)  # not graded: each place looked at -> what it holds
    last_change: float = 0.0  # when its newest step or prediction file was changed (seconds since the epoch)
    likeness: object = None  # similarity.Likeness: how alike its step files are to the reference and the others
    standing: object = None  # standing.Standing: on the roster or not, due and handed in, adjustments


def find_submissions(root, workspace=None):
    """One submission per entry of root: a folder or a zip file (unpacked into workspace, a folder
    of the run's own), graded from its steps/ folder or the step files it holds, found at its top
    or down a chain of single folders ("Download ZIP" nests the checkout in one). Every other entry
    gets a row that says why it is not graded and what was found where; a hidden folder (its name
    starts with a dot) does too, and a hidden file (.DS_Store) is no entry."""
    course = load_course()
    entries = sorted(Path(root).iterdir())
    taken = {entry.name for entry in entries}
    found = []
    for entry in entries:
        try:
            submission = _entry(entry, taken, root, workspace, course)
        except Exception as error:  # noqa: BLE001 - one entry's trouble is its own row, never the class's
            submission = Submission(
                inert.file_name(entry.name),
                None,
                problem="class.entry_failed",
                source=entry,
                details={"error": str(error) or type(error).__name__},
            )
        if submission is not None:
            found.append(submission)
    return _named_apart(found)


def _named_apart(found):
    """Every learner a name of their own: `ada.zip` beside `ada.ZIP` (or a folder `ada`) would both
    be `ada`, and write each other's files; a later one takes its entry's whole name, and a number
    after it when even that is taken (the entries come in sorted order: the same names every run)."""
    taken = set()
    for submission in found:
        if submission.name in taken and submission.source is not None:
            name, number = inert.file_name(submission.source.name), 2
            while name in taken:
                name, number = f"{inert.file_name(submission.source.name, limit=190)}~{number}", number + 1
            submission.name = name
        taken.add(submission.name)
    return found


def _entry(entry, taken, root, workspace, course):
    """The submission an entry of the class folder is, or None for a hidden file."""
    name = inert.file_name(entry.name)
    if name.startswith("."):
        return Submission(name, None, problem="class.hidden", source=entry) if entry.is_dir() else None
    if entry.is_symlink():  # a learner folder that is a link to someone else's code
        return Submission(name, None, problem="refused_link", source=entry)
    if entry.is_dir():
        return _located(Submission(name, None, source=entry), entry, Path(root), course)
    if entry.is_file() and entry.suffix.lower() == ".zip" and workspace is not None:
        submission = Submission(
            inert.file_name(entry.stem if entry.stem not in taken else entry.name), None, source=entry
        )
        try:
            folder = unpack.unpack(entry, workspace)
        except unpack.Refused as refused:
            submission.problem, submission.details = f"class.{refused.args[0]}", refused.args[1]
            return submission
        return _located(submission, folder, Path(workspace), course)
    return Submission(name, None, problem="class.not_a_submission", source=entry, found={name: _kind(entry)})


def _located(submission, folder, base, course, depth=3):
    """Fill in where submission's step files are: folder, its steps/, or the same one single
    folder further down (at most depth times); else what each folder looked at holds."""
    for _ in range(depth + 1):
        for candidate in (folder / "steps", folder):
            if any((candidate / step.dir / STEP_FILE).is_file() for step in course):
                submission.impl = candidate
                submission.last_change = _last_change(candidate, course)
                return submission
        names = sorted(p.name + ("/" if p.is_dir() else "") for p in folder.iterdir())
        submission.found[str(folder.relative_to(base))] = names[:SHOWN] + (["…"] if len(names) > SHOWN else [])
        inner = [
            p
            for p in folder.iterdir()
            if p.is_dir() and not p.is_symlink() and not p.name.startswith(".") and p.name != "__MACOSX"
        ]
        if len(inner) != 1:
            break
        folder = inner[0]
    submission.details = {"where": ", ".join(f"{place}/" for place in submission.found)}
    return submission


def _last_change(impl, course):
    """When the newest of the step and prediction files was last changed (0: none is there)."""
    files = (impl / step.dir / name for step in course for name in (STEP_FILE, PREDICTION_FILE))
    return max((file.lstat().st_mtime for file in files if file.is_file()), default=0.0)


def _kind(entry):
    return {"bytes": entry.stat().st_size} if entry.is_file() else {"kind": "neither a file nor a folder"}


def check_one(submission, steps, time_limit, lang, budget, mutants=True, use_cache=True):
    """Fill in the submission's results (and predictions), or the problem that stopped them.
    use_cache: False runs the predictions too, however often their text ran before."""
    began = time.monotonic()
    if submission.impl is None:  # nothing to grade: no step files, or a folder that is a link
        submission.problem = say(
            submission.problem or "class.no_steps", lang, file=submission.name, **submission.details
        )
        return
    deadlines = []  # the learner's, then each credit run's share
    try:  # the budget counts from here: the first read of the files is part of it
        implementation = read(submission.impl, label=submission.name)
        target = Target(submission.name, steps, impl=str(submission.impl))
        deadline = Deadline(budget, began) if budget else None
        deadlines.append(deadline)
        submission.results = run([target], time_limit, budget, deadline=deadline)
        # A step whose own checks all pass, or whose file is still the stub, has its credit from
        # this run (lab/grading/credit.py); the others run again with the reference standing in,
        # each in a run and a share of the budget of its own: a step whose checks use up time
        # costs that step only.
        settled = credit.settled_by_the_course_run(submission.results, implementation, steps)
        submission.credit = {n: [r for r in submission.results if r.step == n] for n in settled}
        share = budget / len(steps) if budget else None
        for number in (n for n in steps if n not in settled):
            deadlines.append(Deadline(share) if share else None)
            found = run(
                credit.targets(submission.name, submission.impl, implementation, [number]),
                time_limit,
                share,
                deadline=deadlines[-1],
            )
            submission.credit.update(credit.split(found, submission.name)[1])
        if mutants:  # a Code Defenders-style score: the mutants the learner's own tests catch, in the same budget
            submission.predictions = predictions.run_predictions(
                submission.impl, steps, time_limit, use_cache, budget=budget, deadline=deadline
            )
    except Exception as error:  # noqa: BLE001 - one folder's trouble never stops the class
        submission.problem = (str(error).splitlines() or [type(error).__name__])[0]
    finally:
        submission.seconds = time.monotonic() - began
        submission.waits_left_out = sum(d.left_out for d in deadlines if d)
