"""`python -m lab next`: the next step to do."""

from lab.commands import options

NAME = "next"
MAKE_TARGETS = ("next",)


def add_arguments(parser):
    options.lang(parser)


def run(arguments, settings):
    from lab.learner import progress
    from lab.model.status import ExitStatus

    states = progress.step_states(settings.root / "steps", settings.lang, settings.root)[0]
    print("\n".join(progress.next_lines(states, settings.lang, settings.root)))
    return ExitStatus.ALL_PASS
