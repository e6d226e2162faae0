"""A learner's standing in the term, beside their verdicts: whether the roster names them, when
they were due and handed in, how late, the adjustments written by hand, and the final points;
with its words for the class table and the feedback.

The final points are the credited steps' points (grades.csv's `points`) plus every adjustment,
never below 0. Lateness changes no points by itself: an instructor who takes points off for it
writes an adjustment (lab/grading/adjustments.py). With partial credit (`class --partial-credit`)
a step without credit earns its points times the share of its own checks that ran and passed,
to the hundredth; the credit column and the Classroom workflow stay a step passed or not.
"""

from dataclasses import dataclass, field
from datetime import datetime
from decimal import Decimal

from lab.grading import credit
from lab.model.course import load_course
from lab.model.results import CheckStatus
from lab.text import inert
from lab.text.messages import words_of

ON_ROSTER, MISSING, NOT_ON_ROSTER = "on_roster", "missing", "not_on_roster"
BY_COMMIT, BY_FILES = "commit", "files"
BY_WORDS = {BY_COMMIT: "by_commit", BY_FILES: "by_files"}  # how each time was found, said
HUNDREDTH = Decimal("0.01")  # what partial credit is rounded to


@dataclass
class Standing:
    status: str = ""  # ON_ROSTER, MISSING or NOT_ON_ROSTER; "" when the run has no roster
    name: str = ""  # the roster's name for the learner
    due: datetime | None = None  # aware; None: no roster, or no due date on it
    handed_in: float | None = None  # seconds since the epoch: the last commit's time, else the newest file's
    handed_in_by: str = ""  # BY_COMMIT or BY_FILES
    adjustments: list = field(default_factory=list)  # adjustments.Adjustment, in the file's order
    partial: bool = False  # a step without credit earns the share of its checks that pass

    @property
    def late_seconds(self):
        """How long after the due date it was handed in (0 or less: in time); None: not known."""
        if self.due is None or self.handed_in is None:
            return None
        return int(self.handed_in) - int(self.due.timestamp())


def points(submission):
    """(points earned, points possible): each credited step's `points` in course.toml, and with
    partial credit a share of the others'; none for a learner who could not be graded (or handed
    in nothing)."""
    course = load_course()
    possible = sum(step.points for step in course)
    if submission.problem:
        return 0, possible
    return number(sum((step_points(submission, step) for step in course), Decimal(0))), possible


def step_points(submission, step):
    """The points one step earns: all of them with its credit; without, none, or with partial
    credit its points times the share of its own checks that ran and passed."""
    results = submission.credit.get(step.number, [])
    if credit.earned(results):
        return Decimal(step.points)
    if not of(submission).partial or not results:
        return Decimal(0)
    passed = sum(r.status == CheckStatus.PASSED for r in results)
    return (Decimal(step.points) * passed / len(results)).quantize(HUNDREDTH)


def of(submission):
    return submission.standing or Standing()


def adjustment(submission):
    return sum((a.points for a in of(submission).adjustments), Decimal(0))


def final(submission):
    """The points earned plus every adjustment, never below 0."""
    return number(max(Decimal(0), Decimal(str(points(submission)[0])) + adjustment(submission)))


def number(value):
    """A Decimal as a CSV cell holds a number: 7, 7.5, -1 (an int or a float, never text)."""
    return int(value) if value == value.to_integral_value() else float(value)


def span(seconds, lang="en"):
    """A length of time as people say it: 2 d 3 h, 5 h 10 min, 42 s."""
    words = words_of("class", lang)
    days, rest = divmod(max(0, int(seconds)), 86400)
    hours, rest = divmod(rest, 3600)
    minutes, seconds = divmod(rest, 60)
    parts = [(days, "span_d"), (hours, "span_h"), (minutes, "span_min")]
    shown = [words(key, n=n) for n, key in parts if n][:2]
    return " ".join(shown) or words("span_s", n=seconds)


def note(submission, lang="en"):
    """The end of a learner's summary line: late, and by how much; not on the roster."""
    words, standing = words_of("class", lang), of(submission)
    said = ""
    if standing.status == NOT_ON_ROSTER:
        said += words("note_not_on_roster")
    late = standing.late_seconds
    if late is not None and late > 0:
        said += words("note_late", span=span(late, lang), by=words(BY_WORDS[standing.handed_in_by]))
    return said


def moment(value):
    """A moment (seconds since the epoch, or an aware datetime) as ISO 8601 in the grading
    machine's time zone (TZ=), with its offset, as grades.csv's graded_at: "" for None."""
    if value is None:
        return ""
    when = value if isinstance(value, datetime) else datetime.fromtimestamp(value)
    return when.astimezone().isoformat(timespec="seconds")


def feedback_lines(submission, lang="en"):
    """The feedback's part on the term: when it was handed in against the due date, and the
    adjustments with the final points."""
    words, standing = words_of("class", lang), of(submission)
    lines = []
    late = standing.late_seconds
    if late is not None:
        at, due, by = moment(standing.handed_in), moment(standing.due), words(BY_WORDS[standing.handed_in_by])
        tail = words("fb_late", span=span(late, lang), due=due) if late > 0 else words("fb_in_time", due=due)
        lines += [words("fb_handed_in", at=at, by=by) + tail, ""]
    shares = [step for step in load_course() if standing.partial and 0 < step_points(submission, step) < step.points]
    if shares and not submission.problem:
        lines += [f"## {words('fb_partial')}", "", words("fb_partial_rule"), ""]
        lines += [f"| {words('fb_col_step')} | {words('fb_col_checks')} | {words('fb_col_points')} |", "|---|---|---|"]
        for step in shares:
            results = submission.credit[step.number]
            passed = sum(r.status == CheckStatus.PASSED for r in results)
            lines.append(f"| {step.number} | {passed}/{len(results)} | {number(step_points(submission, step))} |")
        lines.append("")
    if standing.adjustments:
        lines += [f"## {words('fb_adjustments')}", ""]
        lines += [f"| {words('fb_col_points')} | {words('fb_col_comment')} | {words('fb_col_by')} |", "|---|---|---|"]
        for each in standing.adjustments:
            lines.append(f"| {each.points:+} | {_md(each.comment)} | {_md(each.by)} |")
        earned, possible = points(submission)
        lines += ["", words("fb_final", earned=earned, final=final(submission), possible=possible), ""]
    return lines


def _md(text):
    return inert.markdown(text.replace("\n", " "))
