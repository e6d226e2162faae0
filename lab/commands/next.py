"""`python -m lab next`: the next step to do."""

from lab.commands import options

NAME = "next"
MAKE_TARGETS = ("next",)


def add_arguments(parser):
    options.lang(parser)


def run(arguments, settings):
    from lab.learner import progress
    from lab.model.status import ExitStatus
    from lab.store import Store

    store = Store(settings.root)
    states = progress.step_states(store.root / "steps", store)[0]
    print("\n".join(progress.next_lines(states, store, settings.lang)))
    return ExitStatus.ALL_PASS
