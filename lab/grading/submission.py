"""One learner's submission in a class folder: where its step files are, and its grading within
its own per-check time limit and time budget, so that one broken submission cannot hold up the
others (lab/grading/classroom.py runs them side by side)."""

import time
from dataclasses import dataclass, field
from pathlib import Path

from lab.grading import credit, predictions
from lab.model.course import load_course
from lab.model.implementation import STEP_FILE, read
from lab.model.targets import Target
from lab.running.runner import run
from lab.text.messages import say


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


def find_submissions(root):
    """One submission per folder under root: its steps/ folder, or the folder itself. A hidden
    folder (its name starts with a dot) gets a row that says why it is not graded."""
    course = load_course()
    found = []
    for folder in sorted(p for p in Path(root).iterdir() if p.is_dir()):
        if folder.name.startswith("."):
            found.append(Submission(folder.name, None, problem="class.hidden"))
            continue
        if folder.is_symlink():  # a learner folder that is a link to someone else's code
            found.append(Submission(folder.name, None, problem="refused_link"))
            continue
        for candidate in (folder / "steps", folder):
            if any((candidate / step.dir / STEP_FILE).is_file() for step in course):
                found.append(Submission(folder.name, candidate))
                break
        else:
            found.append(Submission(folder.name, None))
    return found


def check_one(submission, steps, time_limit, lang, budget, mutants=True):
    """Fill in the submission's results (and predictions), or the problem that stopped them."""
    began = time.monotonic()
    if submission.impl is None:  # nothing to grade: no step files, or a folder that is a link
        submission.problem = say(submission.problem or "class.no_steps", lang, file=submission.name)
        return
    try:  # the budget counts from here: the first read of the files is part of it
        implementation = read(submission.impl, label=submission.name)
        target = Target(submission.name, steps, impl=str(submission.impl))
        deadline = began + budget if budget else None
        submission.results = run([target], time_limit, lang, budget, deadline=deadline)
        # A step whose own checks all pass on the learner's code earns its credit as it is; only
        # the others run again with the reference standing in, in the same budget.
        passing = {n for n in steps if credit.earned([r for r in submission.results if r.step == n])}
        submission.credit = {n: [r for r in submission.results if r.step == n] for n in passing}
        again = [n for n in steps if n not in passing]
        if again:
            found = run(credit.targets(submission.name, submission.impl, implementation, again), time_limit, lang, budget, deadline=deadline)
            submission.credit.update(credit.split(found, submission.name)[1])
        if mutants:  # a Code Defenders-style score: the mutants the learner's own tests catch, in the same budget
            submission.predictions = predictions.run_predictions(submission.impl, steps, time_limit, lang, budget=budget, deadline=deadline)
    except Exception as error:  # noqa: BLE001 - one folder's trouble never stops the class
        submission.problem = (str(error).splitlines() or [type(error).__name__])[0]
    finally:
        submission.seconds = time.monotonic() - began
