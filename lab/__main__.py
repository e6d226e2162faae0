import sys

from lab.learner.commands import VERBS as LEARNER_VERBS

if len(sys.argv) > 1 and sys.argv[1] in LEARNER_VERBS:
    # The learner's commands answer fast: they skip importing the checker's command line.
    from lab.learner.commands import main

    sys.exit(main(sys.argv[1:]))

from lab.cli import main  # noqa: E402

sys.exit(main())
