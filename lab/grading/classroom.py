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
import json
import os
import shutil
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from lab import reporters
from lab.grading import chart_kept, credit, feedback, gradebook, regrade, similarity, unpack
from lab.grading.check import CheckRun, mutant_verdicts
from lab.grading.submission import check_one, find_submissions
from lab.model.course import load_course
from lab.model.defaults import TIME_LIMIT
from lab.model.implementation import STEP_FILE
from lab.model.mutants import load_mutants
from lab.model.results import CheckStatus, PredictionStatus, Words, holds
from lab.model.status import ExitStatus
from lab.sandbox import integrity
from lab.text import inert
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
):
    """Check every submission under root on every step; the kill matrix once for all.

    Learner code runs only inside bubblewrap (lab/sandbox/): the caller refuses to grade
    without it. The lab's own files are fingerprinted before and after: any change is a lab
    problem, and the run fails loudly. A submission whose files and lab are unchanged since it
    was last graded is not run again (lab/grading/regrade.py). on_done(submission, done, count)
    is called as each learner is finished.
    """
    started = time.monotonic()
    before = integrity.fingerprint()
    steps = tuple(step.number for step in load_course())
    workspace = unpack.workspace()  # zips handed in are unpacked here, and removed with it at the end
    submissions = find_submissions(root, workspace.name)
    every_mutant = load_mutants() if mutants else []
    jobs = jobs or os.cpu_count() or 1
    lab = regrade.lab_digest()
    settings = (float(time_limit), budget, bool(mutants))  # not the language: verdicts are facts
    finished, lock = [], threading.Lock()

    def grade(submission):
        try:
            if submission.impl is not None:
                submission.digest = regrade.submission_digest(submission.impl)
                submission.commit = regrade.commit_of(submission.impl)
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
        similarity.of_class(submissions)
    outcome = ClassRun(Path(root), submissions, verdicts, 0.0, similar=similar)
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
    message = Words("budget", budget=budget)
    results = [*submission.results, *(r for rs in submission.credit.values() for r in rs)]
    return any(r.message == message for r in results) or any(
        holds(p.message, message) for p in submission.predictions or []
    )


def cell(results, lang="en", root=None, own_step=False):
    """One learner's verdict on one step: 'passed', 'failed at C4.5', 'error: …'.

    Paths in messages are shown relative to the class folder root: 'cho/05-renew/step.py'.
    own_step: a credit's cell, which names only clauses of its own step."""
    words = words_of("class", lang)
    if not results:
        return words("missing")
    if all(r.status == CheckStatus.PASSED for r in results):
        return words(CheckStatus.PASSED)
    first = next((r for r in results if r.status not in (CheckStatus.PASSED, CheckStatus.NOT_IMPLEMENTED)), None)
    if first is None:  # not implemented, in whole or in part (a branch still raises NotImplementedError)
        return words(CheckStatus.NOT_IMPLEMENTED)
    if (
        first.status == CheckStatus.TIMEOUT
        and first.duration == 0.0
        and getattr(first.message, "key", None) == "budget"
    ):
        return words("budget_used")  # never run: the learner's BUDGET ran out, not their code
    if first.status == CheckStatus.ERROR:
        message = first.said(lang).splitlines()[0] if first.message else ""
        message = unpack.shown(message.replace(f"{root}/", "") if root else message)
        for folder in feedback.RUNTIME:  # where Python is installed on the grading machine
            message = message.replace(folder, "…")
        return words("error", message=message[:160] + ("…" if len(message) > 160 else ""))
    clauses = credit.own_clauses(first) if own_step else first.clauses
    return words(CheckStatus(first.status), clause=" ".join(clauses) or first.check)


def credit_cell(submission, number, lang="en", root=None):
    return cell(submission.credit.get(number, []), lang, root, own_step=True)


def credit_count(submission, steps):
    return sum(credit.earned(submission.credit.get(n, [])) for n in steps)


def time_cell(submission, lang="en"):
    words = words_of("class", lang)
    text = words("seconds", seconds=submission.seconds)
    if submission.cached:
        text += words("cached")
    return text + (words("budget_note") if submission.budget_used else "")


def table(outcome, lang="en"):
    """Rows learner × step (the header first), and the one-line summary of each learner: the
    course's verdict per step, then the credit, the time, the predictions and the summary."""
    words = words_of("class", lang)
    steps = [step.number for step in load_course()]
    header = [
        words("learner"),
        *(words("step", n=n) for n in steps),
        words("credit"),
        words("time"),
        words("similarity"),
        words("predictions"),
        words("summary"),
    ]
    rows = [header]
    for submission in outcome.submissions:
        line = summary_line(submission, steps, lang, outcome.root)
        if submission.problem:
            cells = [words("error", message=submission.problem)] * len(steps)
            earned = ""
        else:
            cells = [cell([r for r in submission.results if r.step == n], lang, outcome.root) for n in steps]
            earned = words("credit_cell", earned=credit_count(submission, steps), steps=len(steps))
        rows.append(
            [
                submission.name,
                *cells,
                earned,
                time_cell(submission, lang),
                likeness_cell(submission, outcome.similar, lang),
                prediction_cell(submission, lang),
                line,
            ]
        )
    return rows


def likeness_cell(submission, threshold, lang="en"):
    """How much of the learner's own code is found in the reference and in the closest classmate's."""
    words = words_of("class", lang)
    likeness = submission.likeness
    if likeness is None:
        return ""
    wrapped = words("sim_wrapped") if likeness.wrapped else ""
    if likeness.size < similarity.MIN_SIZE:
        return words("sim_small", size=likeness.size) + wrapped
    text = words("sim_cell", reference=likeness.reference, closest=likeness.closest, share=likeness.closest_share)
    return text + (words("sim_flag", threshold=threshold) if likeness.flagged(threshold) else "") + wrapped


def prediction_cell(submission, lang="en"):
    """What the learner's predictions catch, scored against the mutants of the steps they
    predicted (a prediction that rejects correct code catches none; one not judged counts in
    neither number): no prediction, never started, or per step k of its n mutants, with the
    broken change to review marked."""
    words = words_of("class", lang)
    if submission.predictions is None:
        return words("not_run")
    written = [p for p in submission.predictions if p.written]
    if not written:
        started = any(r.status != CheckStatus.NOT_IMPLEMENTED for r in submission.results)
        return words("no_prediction" if started else "never_started")
    every_mutant = load_mutants()
    parts, caught, count = [], 0, 0
    for prediction in written:
        own = [m for m in every_mutant if m.step == prediction.step]
        if not prediction.complete:
            parts.append(words("pred_not_judged", step=prediction.step))
            continue
        if prediction.status == PredictionStatus.REJECTS:
            parts.append(words("pred_rejects", step=prediction.step))
            count += len(own)
            continue
        hits = sum(prediction.caught(m.id) for m in own)
        caught, count = caught + hits, count + len(own)
        part = words("pred_step", step=prediction.step, caught=hits, count=len(own))
        if hits == 0:
            part += words("pred_nothing")
        elif prediction.catches_the_snippet(every_mutant):
            part += words("pred_review")
        parts.append(part)
    return words("pred_total", caught=caught, count=count, steps="; ".join(parts))


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
        name=submission.name,
        passed=len(passed),
        steps=len(steps),
        first=first,
        checks=len(submission.results),
        checks_passed=sum(r.status == CheckStatus.PASSED for r in submission.results),
    ) + words("line_credit", earned=credit_count(submission, steps), steps=len(steps))


def write(outcome, out_dir, lang="en", bom=True):
    """Every output of the run in a dated folder out_dir/runs/<time>/, linked as out_dir/latest and
    then moved into out_dir itself whole, each file and folder at once (_publish): an earlier run's
    gradebook is never left there looking new. The outputs: class.md and class.csv (the translated table, for reading),
    grades.csv (the gradebook), class.svg and class.png (the chart), learners/<name>.json, and to hand
    back feedback/<name>.md and .html, junit/<name>.xml and exercism/<name>.json. Sets outcome.changes:
    the learners whose verdicts moved since the previous run. Returns the paths of class.md and class.csv."""
    out = Path(out_dir)
    graded_at = gradebook.timestamp()
    runs = out / "runs"
    runs.mkdir(parents=True, exist_ok=True)
    stamp = time.strftime("%Y%m%d-%H%M%S")
    run_dir = runs / stamp
    for n in range(2, 1000):
        if not run_dir.exists():
            break
        run_dir = runs / f"{stamp}-{n}"
    previous = _summary(out / "latest" / "summary.json")
    _write_run(outcome, run_dir, lang, bom, graded_at)
    graded = sum(not s.problem for s in outcome.submissions)
    chart_kept.write(mutants_caught(outcome), clauses_failed(outcome), graded, run_dir)  # published with the rest
    outcome.changes = changes(previous, _summary(run_dir / "summary.json"), lang)
    latest = out / "latest"
    if latest.is_symlink() or not latest.exists():
        partial = out / ".latest.tmp"
        partial.unlink(missing_ok=True)
        partial.symlink_to(Path("runs") / run_dir.name)
        os.replace(partial, latest)
    _publish(run_dir, out)  # the latest run, where earlier versions wrote it
    return out / "class.md", out / "class.csv"


def _publish(run_dir, out):
    """Copy each file and folder of run_dir beside it in out, then put it in place in one rename:
    a reader of out sees the previous run's file or this run's, never a mix, and a folder holds
    only this run's learners."""
    for item in sorted(run_dir.iterdir()):
        staged, target, old = out / f".{item.name}.new", out / item.name, out / f".{item.name}.old"
        for leftover in (staged, old):  # of a run that was stopped half-way
            if leftover.is_dir() and not leftover.is_symlink():
                shutil.rmtree(leftover)
            else:
                leftover.unlink(missing_ok=True)
        if item.is_dir():
            shutil.copytree(item, staged)
            if target.is_dir() and not target.is_symlink():
                os.replace(target, old)
            os.replace(staged, target)
            shutil.rmtree(old, ignore_errors=True)
        else:
            shutil.copyfile(item, staged)
            os.replace(staged, target)


def _write_run(outcome, out, lang, bom, graded_at):
    for folder in ("learners", "feedback", "junit", "exercism"):
        (out / folder).mkdir(parents=True, exist_ok=True)
    rows = table(outcome, lang)
    with open(
        out / "class.csv", "w", newline="", encoding="utf-8-sig" if bom else "utf-8", errors="backslashreplace"
    ) as handle:
        csv.writer(handle).writerows(map(inert.csv_row, rows))
    gradebook.write(outcome, out / "grades.csv", graded_at, bom)
    steps = tuple(step.number for step in load_course())
    summary = {}
    for submission, row in zip(outcome.submissions, rows[1:]):
        try:
            summary[submission.name] = _write_learner(outcome, submission, row, out, lang, graded_at, steps)
        except Exception as error:  # noqa: BLE001 - the others' files are written all the same, and the run says so
            outcome.lab_problems.append(say("class.output_failed", lang, name=submission.name, error=error))
    (out / "class.md").write_text(markdown(outcome, rows, lang), encoding="utf-8", errors="backslashreplace")
    (out / "summary.json").write_text(inert.json_text(summary, indent=1), encoding="utf-8", errors="backslashreplace")


def _write_learner(outcome, submission, row, out, lang, graded_at, steps):
    """One learner's files to hand back; returns the learner's line of summary.json."""
    if submission.impl is None:  # not graded: why, and what was found where
        _write_not_graded(submission, out / "learners" / f"{submission.name}.json")
    else:  # what `make check SHOW=all` would write, with the messages cleaned as the feedback's are
        run_of_one = CheckRun(
            steps,
            submission.name,
            feedback.cleaned(submission.results, submission, outcome.root),
            predictions=feedback.cleaned(submission.predictions or [], submission, outcome.root),
            show_all=True,  # for the instructor: the mutants' ids, whatever phase the learner is in
            lang=lang,
        )
        reporters.write_for_learner(run_of_one, out, submission.name)
    text = feedback.markdown(submission, outcome.root, row, graded_at, lang)
    (out / "feedback" / f"{submission.name}.md").write_text(text, encoding="utf-8", errors="backslashreplace")
    title = words_of("class", lang)("fb_title", name=submission.name)
    (out / "feedback" / f"{submission.name}.html").write_text(
        feedback.html(text, lang, title), encoding="utf-8", errors="backslashreplace"
    )
    return summary_of(submission, steps, outcome.root)


def summary_of(submission, steps, root=None):
    """A learner's verdicts as the next run compares them (changes), in no language: the steps
    credited, each step's course cell in English, each written prediction's step, state and
    mutants caught (None: predictions not run)."""
    graded = not submission.problem
    return {
        "digest": submission.digest,
        "credit": [n for n in steps if credit.earned(submission.credit.get(n, []))],
        "cells": [
            cell([r for r in submission.results if r.step == n], "en", root) if graded else "error" for n in steps
        ],
        "predictions": None
        if submission.predictions is None
        else [[p.step, p.status, p.caught_count] for p in submission.predictions if p.written],
    }


def _write_not_graded(submission, path):
    entry = submission.source.name if submission.source else submission.name
    record = {
        "learner": submission.name,
        "graded": False,
        "entry": entry,
        "problem": submission.problem,
        "found": submission.found,
        "checks": [],
    }  # as a graded learner's file has them
    path.write_text(inert.json_text(record, indent=1), encoding="utf-8", errors="backslashreplace")


def _summary(path):
    try:
        return json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def changes(before, after, lang="en"):
    """One line per learner whose credit or verdicts moved between two runs' summaries, and one
    per learner whose predictions did (a summary written before predictions were in it says
    nothing of them)."""
    words = words_of("class", lang)
    if before is None:  # the first run into this folder
        return None
    lines = []
    for name, now in after.items():
        then = before.get(name)
        if then is None:
            lines.append(words("change_new", name=name))
            continue
        if then.get("credit") != now["credit"] or then.get("cells") != now["cells"]:
            lines.append(
                words(
                    "change_moved",
                    name=name,
                    before=len(then.get("credit", [])),
                    after=len(now["credit"]),
                    steps=len(now["cells"]),
                )
            )
        predicted = then.get("predictions", now.get("predictions"))
        if predicted != now.get("predictions"):
            caught = [sum(p[2] for p in found or []) for found in (predicted, now.get("predictions"))]
            lines.append(words("change_predictions", name=name, before=caught[0], after=caught[1]))
    lines += [words("change_gone", name=name) for name in before if name not in after]
    return lines


def markdown(outcome, rows, lang="en"):
    words = words_of("class", lang)
    steps = [step.number for step in load_course()]
    heading = words("heading", root=outcome.root.name, count=len(outcome.submissions), seconds=outcome.seconds)
    lines = [f"# {heading}", ""]
    problems = outcome.lab_problems + [
        say("class.survived", lang, mutant=v.mutant.id) for v in outcome.verdicts if v.survived
    ]
    if problems:
        lines += [f"**{say('lab_broken', lang, error='; '.join(problems))}**", ""]
    lines += [words("legend"), "", words("sim_legend", threshold=outcome.similar), ""]
    header = [
        words("learner"),
        words("credit"),
        *(words("step", n=n) for n in steps),
        words("time"),
        words("similarity"),
        words("predictions"),
    ]
    lines.append("| " + " | ".join(header) + " |")
    lines.append("|" + "---|" * len(header))
    for submission, row in zip(outcome.submissions, rows[1:]):
        name, cells, earned, seconds, alike, predicted = (
            row[0],
            row[1 : 1 + len(steps)],
            *row[1 + len(steps) : 5 + len(steps)],
        )
        if not submission.problem:
            cells = [f"{credit_cell(submission, n, lang, outcome.root)} · {course}" for n, course in zip(steps, cells)]
        lines.append("| " + " | ".join(_md(c) for c in (name, earned, *cells, seconds, alike, predicted)) + " |")
    lines += ["", *(f"- {_md(row[-1])}" for row in rows[1:]), ""]
    lines += glance(outcome, lang)
    return "\n".join(lines)


def glance(outcome, lang="en", now=None):
    """The class at a glance: who needs help first, the clauses failed most, the mutants caught
    (the chart, class.png and class.svg, draws the last two: lab/grading/class_chart.py)."""
    words = words_of("class", lang)
    steps = [step.number for step in load_course()]
    now = time.time() if now is None else now
    lines = [f"## {words('glance')}", "", f"![{words('glance')}](class.svg)", "", f"### {words('help_first')}", ""]
    graded = [s for s in outcome.submissions if not s.problem]
    for submission in sorted(graded, key=lambda s: (credit_count(s, steps), -(now - s.last_change))):
        last = words("last_change", ago=ago(now - submission.last_change, lang)) if submission.last_change else ""
        if all(r.status == CheckStatus.NOT_IMPLEMENTED for r in submission.results):
            lines.append(f"- {_md(submission.name)}: {words('never_started')}{last}")
            continue
        stuck = next((n for n in steps if not credit.earned(submission.credit.get(n, []))), None)
        if stuck is not None:
            lines.append(
                f"- {_md(submission.name)}: {words('stuck', step=stuck, cell=_md(credit_cell(submission, stuck, lang, outcome.root)))}{last}"
            )
    lines += ["", f"### {words('clauses_failed')}", ""]
    lines += [f"- {clause}: {words('learners', count=len(names))}" for clause, names in clauses_failed(outcome)] or [
        "-"
    ]
    caught = mutants_caught(outcome)
    if caught is not None:
        lines += [
            "",
            f"### {words('class_mutants')}",
            "",
            f"| {words('mutant')} | {words('step_col')} | {words('caught_by')} |",
            "|---|---|---|",
        ]
        for mutant, hits, wrote in caught:
            review = words("review_mark") if mutant.worksheet else ""
            lines.append(f"| {mutant.id}{review} | {mutant.step} | {words('k_of_n', k=hits, n=wrote)} |")
        lines += ["", words("class_caught", caught=sum(hits > 0 for _, hits, _ in caught), count=len(caught))]
    return [*lines, ""]


def clauses_failed(outcome):
    """(clause, names of the learners whose credit check fails it), the most failed first."""
    steps = [step.number for step in load_course()]
    failing = {}
    for submission in (s for s in outcome.submissions if not s.problem):
        for n in steps:
            bad = next(
                (
                    r
                    for r in submission.credit.get(n, [])
                    if r.status not in (CheckStatus.PASSED, CheckStatus.NOT_IMPLEMENTED)
                ),
                None,
            )
            for clause in credit.own_clauses(bad) if bad else []:
                failing.setdefault(clause, set()).add(submission.name)
    return sorted(failing.items(), key=lambda item: (-len(item[1]), item[0]))


def mutants_caught(outcome):
    """(mutant, learners whose prediction for its step catches it, learners with a prediction for
    its step) for every mutant; None when predictions were not run."""
    graded = [s for s in outcome.submissions if not s.problem]
    if not any(s.predictions is not None for s in graded):
        return None
    found = []
    for mutant in load_mutants():
        wrote = [
            p
            for s in graded
            for p in s.predictions or []
            if p.step == mutant.step and p.status == PredictionStatus.WRITTEN
        ]
        found.append((mutant, sum(p.caught(mutant.id) for p in wrote), len(wrote)))
    return found


def ago(seconds, lang="en"):
    """A time span as people say it: 5 min, 3 h, 2 days."""
    words = words_of("class", lang)
    if seconds < 3600:
        return words("ago_minutes", n=max(0, round(seconds / 60)))
    if seconds < 2 * 86400:
        return words("ago_hours", n=round(seconds / 3600))
    return words("ago_days", n=round(seconds / 86400))


def _md(text):
    return inert.markdown(text.replace("\n", " "))
