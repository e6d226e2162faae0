"""`python -m lab backups N`: the backups of step N, newest first: when, what made each, what each holds."""

from lab.commands import options

NAME = "backups"
MAKE_TARGETS = ("backups",)


def add_arguments(parser):
    options.step(parser)
    options.lang(parser)


def run(arguments, settings):
    from lab.commands.steps import one_step
    from lab.learner.reset import listing
    from lab.store import Store

    status, lines = listing(one_step(arguments.step, NAME, settings.lang), Store(settings.root), settings.lang)
    print("\n".join(lines))
    return status
