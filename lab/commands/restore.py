"""`python -m lab restore N`: save step N's files, then bring back the newest backup that restore did not make."""

from lab.commands import options

NAME = "restore"
MAKE_TARGETS = ("restore-step",)


def add_arguments(parser):
    options.step(parser)
    options.lang(parser)
    parser.add_argument("--at", default="")


def run(arguments, settings):
    from lab.commands.steps import one_step
    from lab.learner.reset import restore
    from lab.store import Store

    status, lines = restore(
        one_step(arguments.step, NAME, settings.lang), Store(settings.root), settings.lang, arguments.at
    )
    print("\n".join(lines))
    return status
