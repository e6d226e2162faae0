"""What a class run writes: class.md, class.csv, the gradebook, the feedback and one results JSON
per learner, made in a new folder and moved into place whole, and what moved since the last run."""

import csv
import json
import os
import shutil
import time
from pathlib import Path

from lab import reporters
from lab.grading import adjustments, chart_kept, credit, feedback, gradebook, lms_exports
from lab.grading.check import CheckRun
from lab.grading.class_table import cell, table
from lab.grading.class_view import clauses_failed, markdown, mutants_caught
from lab.model.course import load_course
from lab.model.defaults import ASSIGNMENT
from lab.text import inert
from lab.text.messages import say, words_of


def write(outcome, out_dir, lang="en", bom=True, assignment=ASSIGNMENT):
    """Every output of the run in a dated folder out_dir/runs/<time>/, linked as out_dir/latest and
    then moved into out_dir itself whole, each file and folder at once (_publish): an earlier run's
    gradebook is never left there looking new. The outputs: class.md and class.csv (the translated table, for reading),
    grades.csv (the gradebook), canvas.csv and moodle.csv (the final points to import, in a column
    named assignment), class.svg and class.png (the chart), learners/<name>.json, and to hand
    back feedback/<name>.md and .html, junit/<name>.xml and exercism/<name>.json. adjustments.csv
    beside them is the instructor's: made (the header alone) where there is none, never written
    over. Sets outcome.changes: the learners whose verdicts moved since the previous run. Returns
    the paths of class.md and class.csv."""
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
    lms_exports.write(outcome, run_dir, assignment)
    graded = sum(not s.problem for s in outcome.submissions)
    chart_kept.write(mutants_caught(outcome), clauses_failed(outcome), graded, run_dir, lang)  # published with the rest
    outcome.changes = changes(previous, _summary(run_dir / "summary.json"), lang)
    latest = out / "latest"
    if latest.is_symlink() or not latest.exists():
        partial = out / ".latest.tmp"
        partial.unlink(missing_ok=True)
        partial.symlink_to(Path("runs") / run_dir.name)
        os.replace(partial, latest)
    _publish(run_dir, out)  # the latest run, where earlier versions wrote it
    adjustments.start(out / adjustments.FILE, bom)
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
    mutants caught (None: predictions not run), and the likeness as the table shows it (None:
    none measured)."""
    graded = not submission.problem
    likeness = submission.likeness
    return {
        "digest": submission.digest,
        "credit": [n for n in steps if credit.earned(submission.credit.get(n, []))],
        "cells": [
            cell([r for r in submission.results if r.step == n], "en", root) if graded else "error" for n in steps
        ],
        "predictions": None
        if submission.predictions is None
        else [[p.step, p.status, p.caught_count] for p in submission.predictions if p.written],
        "similarity": None
        if likeness is None
        else [round(likeness.reference, 2), likeness.closest, round(likeness.closest_share, 2), likeness.flagged()],
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
        alike = then.get("similarity", now.get("similarity"))
        if alike != now.get("similarity"):
            lines.append(
                _similarity_moved(name, alike, now.get("similarity"), then.get("digest") == now["digest"], words)
            )
    lines += [words("change_gone", name=name) for name in before if name not in after]
    return lines


def _similarity_moved(name, before, after, own_unchanged, words):
    """A likeness is weighed against the class (its closest classmate, its idioms), so it moves
    when classmates are added or change, with the learner's own files the same: say which."""

    def shown(alike):
        if alike is None:
            return words("change_similarity_none")
        reference, closest, share, flagged = alike
        return words("sim_cell", reference=reference, closest=closest, share=share) + (
            words("change_similarity_flagged") if flagged else ""
        )

    key = "change_similarity_classmates" if own_unchanged else "change_similarity_own"
    return words(key, name=name, before=shown(before), after=shown(after))
