"""`python -m lab reset N`: save step N's files to .lab/backups/ and put the stub as shipped back."""

from lab.commands import options

NAME = "reset"
MAKE_TARGETS = ("reset-step",)


def add_arguments(parser):
    options.step(parser)
    options.lang(parser)


def run(arguments, settings):
    from lab.commands.steps import one_step
    from lab.learner.reset import reset
    from lab.store import Store

    status, lines = reset(one_step(arguments.step, NAME, settings.lang), Store(settings.root), settings.lang)
    print("\n".join(lines))
    return status
