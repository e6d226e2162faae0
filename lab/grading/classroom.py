"""Check a whole class: every learner folder under one directory, with the instructor's checks.

Each folder is a checkout of the lab or just a steps/ folder. Only its step files are read: the
checks, the mutants and the reference always come from this copy of the lab, so nothing a
learner ships (checks/, conftest.py, pytest.ini) takes part. The kill matrix does not depend on
learner code and runs once for the class. Learners run in parallel, one child process each, and
each has its own per-check time limit and time budget (lab/grading/submission.py), so one broken
submission cannot hold up the others. The table's words are lab/grading/class_table.py's, the
instructor's view class_view.py's, and what the run writes class_outputs.py's.
"""

import os
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from lab.grading import git_checkout, regrade, similarity, unpack
from lab.grading.check import mutant_verdicts
from lab.grading.class_table import credit_count, time_cell
from lab.grading.roster import join as join_roster
from lab.grading.submission import check_one, find_submissions
from lab.model.course import load_course
from lab.model.defaults import TIME_LIMIT
from lab.model.implementation import STEP_FILE
from lab.model.mutants import load_mutants
from lab.model.results import Words, holds
from lab.model.status import ExitStatus
from lab.sandbox import integrity
from lab.text.messages import say, words_of


@dataclass
class ClassRun:
    root: Path
    submissions: list
    verdicts: list
    seconds: float
    lab_problems: list = field(default_factory=list)
    similar: float = similarity.THRESHOLD  # a likeness from here on is flagged
    changes: list | None = None  # learners whose verdicts moved since the previous run (None: no previous run)
    roster: dict | None = None  # roster.Learner by id, in the roster's order (None: the run has no roster)
    rule: similarity.Rule | None = None  # when a likeness is flagged in this class (None: similarity not run)

    @property
    def exit_status(self):
        """0 when the class was graded, whatever its verdicts (unfinished learners are normal);
        LAB_BROKEN when the grading itself cannot be trusted."""
        if self.lab_problems or any(v.survived for v in self.verdicts):
            return ExitStatus.LAB_BROKEN
        return ExitStatus.ALL_PASS


def check_class(
    root,
    time_limit=TIME_LIMIT,
    lang="en",
    budget=None,
    jobs=None,
    mutants=True,
    use_cache=True,
    on_done=None,
    similar=similarity.THRESHOLD,
    roster=None,
):
    """Check every submission under root on every step; the kill matrix once for all.

    Learner code runs only inside bubblewrap (lab/sandbox/): the caller refuses to grade
    without it. The lab's own files are fingerprinted before and after: any change is a lab
    problem, and the run fails loudly. A submission whose files and lab are unchanged since it
    was last graded is not run again (lab/grading/regrade.py). on_done(submission, done, count)
    is called as each learner is finished. roster: {id: roster.Learner}, joined to the
    submissions found (lab/grading/roster.py): a learner on it who handed in nothing is a row too.
    """
    started = time.monotonic()
    before = integrity.fingerprint()
    steps = tuple(step.number for step in load_course())
    workspace = unpack.workspace()  # zips handed in are unpacked here, and removed with it at the end
    submissions = join_roster(find_submissions(root, workspace.name), roster)
    every_mutant = load_mutants() if mutants else []
    jobs = jobs or os.cpu_count() or 1
    lab = regrade.lab_digest()
    settings = (float(time_limit), budget, bool(mutants))  # not the language: verdicts are facts
    finished, lock = [], threading.Lock()

    def grade(submission):
        try:
            if submission.impl is not None:
                submission.digest = regrade.submission_digest(submission.impl)
                submission.commit = git_checkout.commit_of(submission.impl)
                # the folder's path too: messages name the learner's files where they lie, and two
                # learners with the same files are two rows, each graded (and timed) on its own
                where = (os.path.abspath(submission.source), unpack.shown(os.path.abspath(submission.impl)))
                key = regrade.key(lab, submission.digest, (*settings, *where))
                submission.cached = use_cache and regrade.load(submission, key)
            if not submission.cached:
                check_one(submission, steps, time_limit, lang, budget, mutants, use_cache)
                if submission.impl is not None and not submission.problem:
                    regrade.keep(submission, key)  # kept only when every verdict is complete
        except Exception as error:  # noqa: BLE001 - one folder's trouble never stops the class
            submission.problem = submission.problem or (str(error).splitlines() or [type(error).__name__])[0]
        submission.budget_used = budget_used_up(submission, lang, budget)
        with lock:
            finished.append(submission)
            if on_done:
                on_done(submission, len(finished), len(submissions))

    with workspace, ThreadPoolExecutor(jobs) as pool:
        matrix = pool.submit(mutant_verdicts, every_mutant, time_limit)
        for submission in submissions:
            pool.submit(grade, submission)
        verdicts, _ = matrix.result()
        rule = similarity.of_class(submissions, similar)
    outcome = ClassRun(Path(root), submissions, verdicts, 0.0, similar=similar, roster=roster, rule=rule)
    changed = integrity.changes(before, integrity.fingerprint())
    if changed:
        outcome.lab_problems.append(say("class.lab_changed", lang, count=len(changed), paths=", ".join(changed[:5])))
    outcome.seconds = time.monotonic() - started
    return outcome


def is_one_learner(root):
    """True for a folder that is itself one learner's submission (a checkout or a steps folder)."""
    return any(
        (candidate / step.dir / STEP_FILE).is_file()
        for candidate in (Path(root), Path(root) / "steps")
        for step in load_course()
    )


def progress_line(submission, done, count, lang="en"):
    words = words_of("class", lang)
    if submission.problem:
        return words("progress_problem", done=done, count=count, name=submission.name, problem=submission.problem)
    steps = [step.number for step in load_course()]
    return words(
        "progress",
        done=done,
        count=count,
        name=submission.name,
        earned=credit_count(submission, steps),
        steps=len(steps),
        seconds=time_cell(submission, lang),
    )


def rechecked_line(outcome, lang="en"):
    """How many learners this run checked, and how many it took as kept (unchanged since last
    graded: their verdicts are facts, worded in this run's language)."""
    graded = [s for s in outcome.submissions if s.impl is not None]
    kept = sum(s.cached for s in graded)
    return words_of("class", lang)("rechecked", checked=len(graded) - kept, count=len(graded), kept=kept)


def budget_used_up(submission, lang, budget):
    """True when some check or prediction was not run because the learner's BUDGET ran out."""
    if not budget:
        return False
    results = [*submission.results, *(r for rs in submission.credit.values() for r in rs)]
    # A step's credit run has a share of the budget of its own: its message names that share.
    return any(getattr(r.message, "key", None) == "budget" for r in results) or any(
        holds(p.message, Words("budget", budget=budget)) for p in submission.predictions or []
    )
