"""Adjustments written by hand: adjustments.csv beside the gradebook (in CLASS_OUT, --out), read
on every run and applied to the final points; the lab never writes into it, and makes it (the
header alone) only where there is none.

    learner,points,comment,by
    ada,-1,"Late: two days, as the syllabus says",Kato (TA)
    ben,+0.5,Found a real bug in the checks,Sato

learner: the learner as the class table names them (the roster's id); points: a number, up or
down (+1, -0.5, 2); comment: why, as the learner will read it in their feedback; by: who wrote
it. A learner may have several lines: they add up. Read as the roster is
(lab/grading/instructor_csv.py): UTF-8, with or without a byte-order mark, columns in any order.
"""

import re
import unicodedata
from dataclasses import dataclass
from decimal import Decimal

from lab.grading.instructor_csv import FileProblem, rows

FILE = "adjustments.csv"
COLUMNS = ("learner", "points", "comment", "by")
POINTS = re.compile(r"[+-]?\d{1,6}(\.\d{1,4})?")


@dataclass(frozen=True)
class Adjustment:
    learner: str
    points: Decimal
    comment: str
    by: str
    line: int  # where the file holds it


def load(path):
    """Every adjustment of the file, in its order ([] when there is no file yet); FileProblem for
    the first thing wrong in it."""
    if not path.exists() and not path.is_symlink():
        return []
    found = []
    for line, cells in rows(path, COLUMNS):
        if not cells["learner"]:
            raise FileProblem(path, line, "class.adjust_no_learner")
        if not POINTS.fullmatch(cells["points"]):
            raise FileProblem(path, line, "class.adjust_points", points=cells["points"])
        for column in ("comment", "by"):
            if not cells[column]:
                raise FileProblem(path, line, "class.adjust_empty", column=column)
        found.append(Adjustment(cells["learner"], Decimal(cells["points"]), cells["comment"], cells["by"], line))
    return found


def attach(submissions, found):
    """Give each learner their adjustments (Standing.adjustments); the adjustments that name no
    learner of this run, which apply to nobody."""
    by_name = {unicodedata.normalize("NFC", s.name): s for s in submissions if s.standing is not None}
    unmatched = []
    for adjustment in found:
        submission = by_name.get(adjustment.learner)
        if submission is None:
            unmatched.append(adjustment)
        else:
            submission.standing.adjustments.append(adjustment)
    return unmatched


def start(path, bom=True):
    """The header alone, where no file is yet: the shape to fill in. Never over an existing one."""
    try:
        with open(path, "x", encoding="utf-8-sig" if bom else "utf-8", newline="") as handle:
            handle.write(",".join(COLUMNS) + "\r\n")
    except FileExistsError:
        pass
