"""`python -m lab hint N`: the next question of step N that the learner has not seen yet."""

from lab.commands import options

NAME = "hint"
MAKE_TARGETS = ("hint",)


def add_arguments(parser):
    options.step(parser)
    options.lang(parser)
    parser.add_argument("--all", action="store_true")


def run(arguments, settings):
    from lab.commands.steps import one_step
    from lab.learner.hint import hint
    from lab.model.status import ExitStatus
    from lab.store import Store

    step = one_step(arguments.step, NAME, settings.lang)
    print("\n".join(hint(step, Store(settings.root), settings.lang, arguments.all)))
    return ExitStatus.ALL_PASS
