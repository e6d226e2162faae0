"""`python -m lab progress`: every step as not started, failing or passing, the predictions, the next step."""

from lab.commands import options

NAME = "progress"
MAKE_TARGETS = ("progress",)


def add_arguments(parser):
    options.lang(parser)


def run(arguments, settings):
    from lab.learner.progress import progress
    from lab.model.status import ExitStatus
    from lab.store import Store

    print("\n".join(progress(Store(settings.root), settings.lang)))
    return ExitStatus.ALL_PASS
