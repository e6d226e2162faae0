"""The files made from course.toml: every step's prediction template, README.md's step tables, the
progress lines of the guides in docs/ and GitHub Classroom's workflow (one test per step). `dev
update` writes them (`dev new-step` too, since a new step changes them all); `dev check` holds the
tree to them (lab/dev/tree.py). A step without its rules file beside its checks gets one to fill in
(lab/dev/rules.py), never one written over.
"""

from lab.dev import readme, rules
from lab.grading import autograding
from lab.model.course import load_course
from lab.model.prediction_file import PREDICTION_FILE, holds_a_prediction
from lab.model.prediction_template import prediction_template
from lab.model.starter import swapped


def update(root):
    """Write every file made from root's course.toml that differs from it; the paths written.

    A prediction.py that holds a learner's prediction is left as it is, and so is the template led
    by the other language (`make language`, lab/model/starter.py)."""
    course = load_course(root)
    made = {root / "steps" / step.dir / PREDICTION_FILE: prediction_template(step, course) for step in course}
    for document in readme.documents(root):
        made[document] = readme.made(document.read_text(encoding="utf-8"), course)
    if workflow_file(root).is_file():  # a tree without .github/ (a learner's checkout) has none to write
        made[workflow_file(root)] = autograding.workflow(course)
    written = []
    for path, text in made.items():
        current = path.read_text(encoding="utf-8") if path.is_file() else None
        if current == text or (
            path.name == PREDICTION_FILE and (holds_a_prediction(current) or current == swapped(text))
        ):
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        written.append(path)
    return [*written, *rules.write_missing(root, course)]


def workflow_file(root):
    return root / autograding.WORKFLOW.relative_to(autograding.LAB_ROOT)
