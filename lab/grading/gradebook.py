"""grades.csv: the class as numbers, one learner a row, for a spreadsheet or another program.

Its headers and values are the same in every language (a machine format: the translated table
for reading is class.csv). UTF-8 with a byte-order mark by default, so that Excel on a Japanese
Windows reads it as UTF-8; plain UTF-8 on request. Points: each credited step's `points` in
course.toml (1 unless it says otherwise).

The term, from the roster (lab/grading/roster.py) and the adjustments written by hand
(lab/grading/adjustments.py): roster (on_roster, missing, not_on_roster; empty without a
roster), the roster's name, the due date, when it was handed in and how that was found (commit:
the HEAD commit's time; files: the newest step or prediction file's), late (yes, no; empty when
either time is unknown) and by how many seconds; after the points, the adjustments' sum and the
final points (the points plus the adjustments, never below 0: what canvas.csv and moodle.csv
hold).

cpu_waits_left_out: the seconds the learner's budgets were moved later because the machine kept
its checks waiting for a CPU (lab/clock.py); a busy machine, not the learner's code.

Predictions, per step: its state (none, written, rejects_correct_code, cannot_run, not_judged, or
not_run with MUTANTS=0), the step's mutants it caught of how many, whether it caught the change to
review; then their totals. A prediction that rejects correct code, or could not run (it does not
compile or import, asks for a fixture there is not), catches none of its step's mutants; one not judged (its run ended without its results) counts in no total but its own.
"""

import csv
import hashlib
import unicodedata
from datetime import datetime

from lab.grading import credit, standing
from lab.model.course import load_course
from lab.model.mutants import load_mutants
from lab.model.results import CheckStatus
from lab.text import inert


def learner_id(name):
    """A stable id: the same name gives the same id in every run and on every machine, however it
    was typed (composed, NFC: a macOS folder name holds "が" as "か" and a combining mark)."""
    return "L" + hashlib.sha256(unicodedata.normalize("NFC", name).encode("utf-8")).hexdigest()[:8]


def timestamp(moment=None, zone=None):
    """A moment (seconds since the epoch; now by default) as ISO 8601 in the instructor's time
    zone, with its offset: 2026-12-06T15:04:05+09:00. zone: a tzinfo; by default the machine's
    local one (TZ)."""
    when = datetime.now() if moment is None else datetime.fromtimestamp(moment)
    return (when.astimezone(zone) if zone else when.astimezone()).isoformat(timespec="seconds")


def header(steps):
    columns = [
        "learner_id",
        "learner",
        "digest",
        "commit",
        "graded_at",
        "seconds",
        "cpu_waits_left_out",
        "cached",
        "budget_used_up",
        "problem",
        "furthest_step",
    ]
    for n in steps:
        columns += [f"step{n}_credit", f"step{n}_checks_passed", f"step{n}_checks", f"step{n}_course"]
    for n in steps:
        columns += [
            f"step{n}_prediction",
            f"step{n}_prediction_caught",
            f"step{n}_prediction_mutants",
            f"step{n}_prediction_review_caught",
        ]
    columns += [
        "predictions_written",
        "predictions_not_judged",
        "predictions_caught",
        "predictions_mutants",
        "predictions_review_caught",
        "similarity_fingerprints",
        "similarity_reference",
        "similarity_closest_learner",
        "similarity_closest",
        "similarity_flag",
        "similarity_wrapped",
        "roster",
        "roster_name",
        "due",
        "handed_in",
        "handed_in_by",
        "late",
        "late_seconds",
    ]
    return [*columns, "points", "max_points", "adjustment", "final"]


def row(submission, steps, graded_at):
    every_mutant = load_mutants()
    by_step = {n: [r for r in submission.results if r.step == n] for n in steps}
    passing = [bool(by_step[n]) and all(r.status == CheckStatus.PASSED for r in by_step[n]) for n in steps]
    furthest = next((i for i, ok in enumerate(passing) if not ok), len(steps))
    values = [
        learner_id(submission.name),
        submission.name,
        submission.digest,
        submission.commit,
        graded_at,
        f"{submission.seconds:.1f}",
        f"{submission.waits_left_out:.1f}",
        _yes(submission.cached),
        _yes(submission.budget_used),
        submission.problem,
        furthest,
    ]
    for n, ok in zip(steps, passing):
        own = submission.credit.get(n, [])
        values += [int(credit.earned(own)), sum(r.status == CheckStatus.PASSED for r in own), len(own), int(ok)]
    values += _predictions(submission, steps, every_mutant)
    alike = submission.likeness
    values += (
        [alike.size, alike.reference, alike.closest, alike.closest_share, _yes(alike.flagged())] + [_yes(alike.wrapped)]
        if alike
        else ["", "", "", "", "", ""]
    )
    values += _term(standing.of(submission))
    points, possible = standing.points(submission)
    return [*values, points, possible, standing.number(standing.adjustment(submission)), standing.final(submission)]


def _term(held):
    late = held.late_seconds
    return [
        held.status,
        held.name,
        standing.moment(held.due),
        standing.moment(held.handed_in),
        held.handed_in_by,
        "" if late is None else _yes(late > 0),
        "" if late is None else max(late, 0),
    ]


def _predictions(submission, steps, every_mutant):
    """The prediction columns: four per step, then the totals."""
    if submission.predictions is None:
        return ["not_run", "", "", ""] * len(steps) + [""] * 5
    by_step = {p.step: p for p in submission.predictions}
    values, written, not_judged, caught, count, review = [], 0, 0, 0, 0, 0
    for n in steps:
        found, mutants = by_step.get(n), [m for m in every_mutant if m.step == n]
        if found is None or not found.written:
            values += ["none", "", len(mutants), ""]
            continue
        written += 1
        if not found.complete:
            not_judged += 1
            values += [found.status, "", len(mutants), ""]
            continue
        hits = sum(found.caught(m.id) for m in mutants)
        snippet = found.catches_the_snippet(every_mutant)
        caught, count, review = caught + hits, count + len(mutants), review + snippet
        values += [found.status, hits, len(mutants), _yes(snippet)]
    return [*values, written, not_judged, caught, count, review]


def write(outcome, path, graded_at, bom=True):
    steps = [step.number for step in load_course()]
    with open(path, "w", newline="", encoding="utf-8-sig" if bom else "utf-8", errors="backslashreplace") as handle:
        out = csv.writer(handle)
        out.writerow(header(steps))
        out.writerows(inert.csv_row(row(s, steps, graded_at)) for s in outcome.submissions)
    return path


def _yes(flag):
    return "yes" if flag else "no"
