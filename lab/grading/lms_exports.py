"""canvas.csv and moodle.csv: each learner's final points (the credit plus the adjustments,
lab/grading/standing.py), in the shapes Canvas and Moodle import as they are.

Canvas, as its guide "How do I import grades in the Gradebook?" (Instructure Community, Instructor
Guide) describes the file and canvas-lms' app/models/gradebook_importer.rb reads it: a header
`Student, ID, SIS User ID, SIS Login ID, Section`, then one column per assignment, named by its
title (a title Canvas does not know makes a new assignment; "Title (123)" names assignment 123);
an optional row starting "Points Possible" gives each assignment's points; each other row is a
student, found by the Canvas ID, else the SIS User ID, else the SIS Login ID, else the name as
Canvas shows it. The lab does not know Canvas's own numbers: ID stays empty, both SIS columns hold
the roster's id and Student its name. Section is read and ignored.

Moodle, as MoodleDocs' "Grade import" (CSV grade import, grade mapping) describes it and
grade/import/csv/classes/load_data.php reads it: any header; on import the instructor maps one
column to a user field ("Map from" this file's `ID number` column, "Map to" the field the roster's
ids are in Moodle: ID number, username or email address) and each other column to a grade item,
or to a new one named by the column's header. A row whose user Moodle cannot find fails the
whole import, so with a roster only its learners are written.

Both files list the roster's learners in its order, each by the id the roster gives (its folder
column maps the name of the learner's entry to it), those who handed in nothing with 0 plus their
adjustments; without a roster, every entry of the class folder, named as the class table names
it. An entry the roster does not name has no id to give: it is left out, and the run says so
(left_out). Plain UTF-8 without a byte-order mark (what both read), every cell made inert for a
spreadsheet as grades.csv's are (lab/text/inert.py).
"""

import csv
import unicodedata

from lab.grading import standing
from lab.model.course import load_course
from lab.text import inert

CANVAS, MOODLE = "canvas.csv", "moodle.csv"


def learners(outcome):
    """(id, name, submission) of each learner the exports hold, in order."""
    if outcome.roster is None:
        return [(s.name, s.name, s) for s in outcome.submissions]
    by_name = {unicodedata.normalize("NFC", s.name): s for s in outcome.submissions}  # as the roster's join
    return [(learner.id, learner.name or learner.id, by_name[learner.folder]) for learner in outcome.roster.values()]


def left_out(outcome):
    """The names of the entries graded but not in the exports: those the roster does not name."""
    if outcome.roster is None:
        return []
    return [s.name for s in outcome.submissions if s.standing.status == standing.NOT_ON_ROSTER]


def canvas_rows(outcome, title):
    possible = sum(step.points for step in load_course())
    rows = [["Student", "ID", "SIS User ID", "SIS Login ID", "Section", title]]
    rows.append(["Points Possible", "", "", "", "", possible])
    rows += [[name, "", id_, id_, "", standing.final(s)] for id_, name, s in learners(outcome)]
    return rows


def moodle_rows(outcome, title):
    rows = [["ID number", "Full name", title]]
    return rows + [[id_, name, standing.final(s)] for id_, name, s in learners(outcome)]


def write(outcome, folder, title):
    for name, rows in ((CANVAS, canvas_rows(outcome, title)), (MOODLE, moodle_rows(outcome, title))):
        with open(folder / name, "w", newline="", encoding="utf-8", errors="backslashreplace") as handle:
            csv.writer(handle).writerows(map(inert.csv_row, rows))
