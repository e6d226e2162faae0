"""Check a whole class: every learner folder under one directory, with the instructor's checks.

Each folder is a checkout of the lab or just a steps/ folder. Only its step files are read: the
checks, the mutants and the reference always come from this copy of the lab, so nothing a
learner ships (checks/, conftest.py, pytest.ini) takes part. The kill matrix does not depend on
learner code and runs once for the class. Learners run in parallel, one child process each, and
each has its own per-check time limit and time budget (lab/grading/submission.py), so one broken
submission cannot hold up the others. The results are written as class.md, class.csv and one
results JSON per learner.
"""

import csv
import os
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from lab.grading import predictions
from lab.grading.check import CheckRun, mutant_verdicts
from lab.grading.submission import check_one, find_submissions
from lab.model.course import load_course
from lab.model.mutants import load_mutants
from lab.model.status import CheckStatus, ExitStatus
from lab.reporters import results_json
from lab.sandbox import integrity
from lab.text.messages import say, words_of


@dataclass
class ClassRun:
    root: Path
    submissions: list
    verdicts: list
    seconds: float
    lab_problems: list = field(default_factory=list)

    @property
    def exit_status(self):
        if self.lab_problems or any(v.survived for v in self.verdicts):
            return ExitStatus.LAB_BROKEN
        everyone = all(s.results and all(r.status == CheckStatus.PASSED for r in s.results) for s in self.submissions)
        return ExitStatus.ALL_PASS if everyone else ExitStatus.SOME_FAIL


def check_class(root, time_limit=10.0, lang="en", budget=None, jobs=None, mutants=True):
    """Check every submission under root on every step; the kill matrix once for all.

    Learner code runs only inside bubblewrap (lab/sandbox/): the caller refuses to grade
    without it. The lab's own files are fingerprinted before and after: any change is a lab
    problem, and the run fails loudly.
    """
    started = time.monotonic()
    before = integrity.fingerprint()
    steps = tuple(step.number for step in load_course())
    submissions = find_submissions(root)
    every_mutant = load_mutants() if mutants else []
    jobs = jobs or os.cpu_count() or 1
    with ThreadPoolExecutor(jobs) as pool:
        matrix = pool.submit(mutant_verdicts, every_mutant, time_limit, lang)
        for submission in submissions:
            pool.submit(check_one, submission, steps, time_limit, lang, budget, mutants)
        verdicts, _ = matrix.result()
    outcome = ClassRun(Path(root), submissions, verdicts, 0.0)
    changed = integrity.changes(before, integrity.fingerprint())
    if changed:
        outcome.lab_problems.append(say("class.lab_changed", lang, count=len(changed), paths=", ".join(changed[:5])))
    outcome.seconds = time.monotonic() - started
    return outcome


def cell(results, lang="en", root=None):
    """One learner's verdict on one step: 'passed', 'failed at C4.5', 'error: …'.

    Paths in messages are shown relative to the class folder root: 'cho/05-renew/step.py'."""
    words = words_of("class", lang)
    if not results:
        return words("missing")
    if all(r.status == CheckStatus.PASSED for r in results):
        return words(CheckStatus.PASSED)
    if all(r.status == CheckStatus.NOT_IMPLEMENTED for r in results):
        return words(CheckStatus.NOT_IMPLEMENTED)
    first = next(r for r in results if r.status not in (CheckStatus.PASSED, CheckStatus.NOT_IMPLEMENTED))
    if first.status == CheckStatus.ERROR:
        message = first.message.splitlines()[0] if first.message else ""
        message = message.replace(f"{root}/", "") if root else message
        return words("error", message=message[:160] + ("…" if len(message) > 160 else ""))
    return words(CheckStatus(first.status), clause=" ".join(first.clauses))


def table(outcome, lang="en"):
    """Rows learner × step (the header first), and the one-line summary of each learner."""
    words = words_of("class", lang)
    steps = [step.number for step in load_course()]
    rows = [[words("learner"), *(words("step", n=n) for n in steps), words("predictions"), words("summary")]]
    for submission in outcome.submissions:
        line = summary_line(submission, steps, lang, outcome.root)
        if submission.problem:
            cells = [words("error", message=submission.problem)] * len(steps)
        else:
            cells = [cell([r for r in submission.results if r.step == n], lang, outcome.root) for n in steps]
        rows.append([submission.name, *cells, prediction_cell(submission, lang), line])
    return rows


def prediction_cell(submission, lang="en"):
    """How many of the course's mutants the learner's predictions catch (a prediction that rejects
    correct code catches none)."""
    words = words_of("class", lang)
    if submission.predictions is None:
        return words("not_run")
    written = [p for p in submission.predictions if p.written]
    caught = sum(p.caught_count for p in written)
    count = len(load_mutants())
    text = words("caught", caught=caught, count=count)
    rejects = [str(p.step) for p in written if p.status == predictions.REJECTS]
    return text + (words("rejects", steps=", ".join(rejects)) if rejects else "")


def summary_line(submission, steps, lang="en", root=None):
    words = words_of("class", lang)
    if submission.problem:
        return f"{submission.name}: {words('error', message=submission.problem)}"
    by_step = {n: [r for r in submission.results if r.step == n] for n in steps}
    passed = [n for n in steps if by_step[n] and all(r.status == CheckStatus.PASSED for r in by_step[n])]
    failing = next((n for n in steps if n not in passed), None)
    first = words("first", step=failing, cell=cell(by_step[failing], lang, root)) if failing else ""
    return words(
        "line",
        name=submission.name, passed=len(passed), steps=len(steps), first=first,
        checks=len(submission.results), checks_passed=sum(r.status == CheckStatus.PASSED for r in submission.results),
    )


def write(outcome, out_dir, lang="en"):
    """class.md, class.csv and one results JSON per learner under out_dir; returns the paths."""
    out = Path(out_dir)
    (out / "learners").mkdir(parents=True, exist_ok=True)
    rows = table(outcome, lang)
    with open(out / "class.csv", "w", newline="", encoding="utf-8") as handle:
        csv.writer(handle).writerows(rows)
    (out / "class.md").write_text(markdown(outcome, rows, lang), encoding="utf-8")
    steps = tuple(step.number for step in load_course())
    for submission in outcome.submissions:
        run_of_one = CheckRun(steps, submission.name, submission.results, predictions=submission.predictions or [])
        results_json.write(run_of_one, out / "learners" / f"{submission.name}.json")
    return out / "class.md", out / "class.csv"


def markdown(outcome, rows, lang="en"):
    words = words_of("class", lang)
    heading = words("heading", root=outcome.root.name, count=len(outcome.submissions), seconds=outcome.seconds)
    lines = [f"# {heading}", ""]
    problems = outcome.lab_problems + [say("class.survived", lang, mutant=v.mutant.id) for v in outcome.verdicts if v.survived]
    if problems:
        lines += [f"**{say('lab_broken', lang, error='; '.join(problems))}**", ""]
    header, *body = [row[:-1] for row in rows]
    lines.append("| " + " | ".join(header) + " |")
    lines.append("|" + "---|" * len(header))
    lines += ["| " + " | ".join(_md(c) for c in row) + " |" for row in body]
    lines += ["", *(f"- {_md(row[-1])}" for row in rows[1:]), ""]
    return "\n".join(lines)


def _md(text):
    return text.replace("|", "\\|").replace("\n", " ")
