"""The learner's checks in the shape of Exercism's test-runner ``results.json`` (version 3),
with a score that GitHub Classroom's reporters accept (``--exercism FILE``).

Version 3 gives every test a name, a status (pass, fail, error), a message and the task it
belongs to: here, the step. The name is the human-readable one, in the run's language (titles.py);
the check itself is in ``test_code``. The score is one point per passing check.
"""

from lab.model.course import load_course
from lab.model.results import CheckStatus
from lab.reporters.titles import check_titles
from lab.text import inert

OPTION = "--exercism"
CLASS_FILE = "exercism/{name}.json"  # check-class: one per learner

STATUS = {
    CheckStatus.PASSED: "pass",
    CheckStatus.FAILED: "fail",
    CheckStatus.NOT_IMPLEMENTED: "fail",
}  # anything else: error


def as_dict(outcome):
    title = check_titles(outcome, load_course())
    tests = [
        {
            "name": title(r),
            "status": STATUS.get(r.status, "error"),
            "message": r.said(outcome.lang) or None,
            "test_code": r.nodeid,
            "task_id": r.step,
        }
        for r in outcome.results
    ]
    statuses = {t["status"] for t in tests}
    overall = "error" if not tests else "pass" if statuses == {"pass"} else "fail"
    score = sum(t["status"] == "pass" for t in tests)
    return {"version": 3, "status": overall, "tests": tests, "score": score, "max_score": len(tests)}


def write(outcome, path):
    with open(path, "w", encoding="utf-8", errors="backslashreplace") as handle:
        handle.write(inert.json_text(as_dict(outcome)))
        handle.write("\n")
