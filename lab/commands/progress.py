"""`python -m lab progress`: every step as not started, failing or passing, the predictions, the next step."""

from lab.commands import options

NAME = "progress"
MAKE_TARGETS = ("progress",)


def add_arguments(parser):
    options.lang(parser)


def run(arguments, settings):
    from lab.learner.progress import progress
    from lab.model.status import ExitStatus

    print("\n".join(progress(settings.lang, settings.root)))
    return ExitStatus.ALL_PASS
