"""``python -m lab VERB …``: every command of the lab, after a look at course.toml's format."""

import sys

from lab.model.course import CourseFormatError, load_course
from lab.learner.commands import VERBS as LEARNER_VERBS
from lab.text.language import chosen
from lab.text.messages import say
from lab.model.status import ExitStatus


def main(argv):
    try:
        load_course()
    except CourseFormatError as error:
        print(say("lab_broken", chosen(), error=error), file=sys.stderr)
        return ExitStatus.LAB_BROKEN
    if argv and argv[0] in LEARNER_VERBS:
        # The learner's commands answer fast: they skip importing the checker's command line.
        from lab.learner.commands import main as learner_main

        return learner_main(argv)
    from lab.cli import main as checker_main

    return checker_main(argv)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
