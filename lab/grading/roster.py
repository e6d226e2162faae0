"""The roster (`--roster FILE`, `make check-class ROSTER=`): who is in the class and when each is
due, joined to the submissions found in the class folder.

The file is CSV (lab/grading/instructor_csv.py reads it), with the columns id, name and due:

    id,name,due
    ada,Ada Lovelace,2026-12-06
    ben,Ben Ito,2026-12-06 18:00
    cho,Cho Sato,2026-12-08T09:00+09:00
    dan,Dan Mori,2026-12-08 09:00 Asia/Tokyo

id is the learner's id in the LMS: the exports give it to Canvas and Moodle to find the learner
(lab/grading/lms_exports.py). An optional column, folder, is what the learner's entry in the class
folder is named (a folder, or a zip without its .zip), as the class table names them (so it names
no hidden folder and holds no "/"): GitHub Classroom names each clone after the assignment and the
learner's GitHub username, which no LMS knows, so folder maps it to the id beside it:

    id,folder,name,due
    s1024,lab3-octocat,Ada Lovelace,2026-12-06

Without the column (or with its cell empty), the entry is named by the id itself. due is a date (due by the end of that day), a date and a
time, either with a UTC offset or a time zone's name; without one it is the grading machine's
local time (TZ=); empty, the learner has no due date.

The join: a learner on the roster whose entry is not there gets a row of their own, not handed
in, with no credit; an entry the roster does not name is graded all the same and marked not on
the roster; each entry's hand-in time is its HEAD commit's time when it is a git checkout whose
commit can be read, else the time its newest step or prediction file was changed.
"""

import re
import unicodedata
from dataclasses import dataclass
from datetime import datetime, time
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from lab.grading import git_checkout, standing
from lab.grading.instructor_csv import FileProblem, rows
from lab.grading.submission import Submission
from lab.text import inert

COLUMNS = ("id", "name", "due")
OPTIONAL = ("folder",)
DATE_ONLY = re.compile(r"\d{4}-\d{2}-\d{2}")
# A zone's name after the time: "Asia/Tokyo", "UTC"; an offset is ISO 8601's own (+09:00, Z).
NAMED_ZONE = re.compile(r"(?P<moment>.+?)\s+(?P<zone>[A-Za-z][A-Za-z0-9_+-]*(?:/[A-Za-z0-9_+-]+)*)")


@dataclass(frozen=True)
class Learner:
    id: str  # in the LMS
    name: str
    due: datetime | None  # aware
    line: int  # where the roster names them
    folder: str  # their entry in the class folder: the folder column's, else the id


def load(path):
    """{folder: Learner} in the roster's order, by the name of each learner's entry in the class
    folder; FileProblem for the first thing wrong in it."""
    found, lines_of_ids = {}, {}
    for line, cells in rows(path, COLUMNS, OPTIONAL):
        learner_id, folder = cells["id"], cells["folder"] or cells["id"]
        if not learner_id:
            raise FileProblem(path, line, "class.roster_no_id")
        if inert.file_name(folder) != folder or folder.startswith("."):
            key = "class.roster_bad_folder" if cells["folder"] else "class.roster_bad_id"
            raise FileProblem(path, line, key, id=inert.visible(folder))
        if learner_id in lines_of_ids:
            raise FileProblem(path, line, "class.roster_twice", id=learner_id, first=lines_of_ids[learner_id])
        if folder in found:
            raise FileProblem(path, line, "class.roster_folder_twice", folder=folder, first=found[folder].line)
        lines_of_ids[learner_id] = line
        found[folder] = Learner(learner_id, cells["name"], due_date(path, line, cells["due"]), line, folder)
    return found


def due_date(path, line, text):
    """The moment a due date names, aware: a date alone is the last second of that day."""
    if not text:
        return None
    moment, zone = text, None
    named = NAMED_ZONE.fullmatch(text)
    if named:
        moment = named["moment"]
        try:
            zone = ZoneInfo(named["zone"])
        except (ZoneInfoNotFoundError, ValueError):
            raise FileProblem(path, line, "class.roster_zone", zone=named["zone"]) from None
    try:
        when = datetime.fromisoformat(moment)
    except ValueError:
        raise FileProblem(path, line, "class.roster_due", due=text) from None
    if DATE_ONLY.fullmatch(moment):
        when = datetime.combine(when.date(), time(23, 59, 59))
    if zone is not None and when.tzinfo is not None:
        raise FileProblem(path, line, "class.roster_due", due=text)
    if zone is not None:
        return when.replace(tzinfo=zone)
    return when if when.tzinfo is not None else when.astimezone()  # the machine's local time


def join(submissions, roster):
    """Every submission with its Standing, and a row for each roster learner not handed in;
    roster None: every submission's hand-in time, no roster."""
    for submission in submissions:
        submission.standing = standing.Standing()
        if submission.impl is not None:
            _handed_in(submission)
    if roster is None:
        return submissions
    found = {unicodedata.normalize("NFC", s.name): s for s in submissions}
    for submission in submissions:
        learner = roster.get(unicodedata.normalize("NFC", submission.name))
        if learner is None:
            submission.standing.status = standing.NOT_ON_ROSTER
        else:
            submission.standing.status, submission.standing.name = standing.ON_ROSTER, learner.name
            submission.standing.due = learner.due
    missing = []
    for learner in roster.values():
        if learner.folder not in found:
            row = Submission(learner.folder, None, problem="class.roster_missing")
            row.standing = standing.Standing(standing.MISSING, learner.name, learner.due)
            missing.append(row)
    return [*submissions, *missing]


def is_missing(submission):
    return submission.standing is not None and submission.standing.status == standing.MISSING


def _handed_in(submission):
    committed = git_checkout.commit_time(submission.impl)
    if committed is not None:
        submission.standing.handed_in, submission.standing.handed_in_by = committed, standing.BY_COMMIT
    elif submission.last_change:
        submission.standing.handed_in, submission.standing.handed_in_by = submission.last_change, standing.BY_FILES
