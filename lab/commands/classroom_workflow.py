"""`python -m lab classroom-workflow`: GitHub Classroom's autograding workflow, written from course.toml
(one test per step, with its points; lab/grading/autograding.py)."""

from lab.commands import options

NAME = "classroom-workflow"
MAKE_TARGETS = ("classroom-workflow",)


def add_arguments(parser):
    from lab.grading.autograding import WORKFLOW

    parser.add_argument("--out", default=str(WORKFLOW))
    options.lang(parser)


def run(arguments, settings):
    from lab.grading.autograding import workflow
    from lab.model.course import load_course
    from lab.model.status import ExitStatus

    settings.out.parent.mkdir(parents=True, exist_ok=True)
    settings.out.write_text(workflow(load_course()), encoding="utf-8")
    print(settings.out)
    return ExitStatus.ALL_PASS
