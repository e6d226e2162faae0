"""`python -m lab watch N`: check step N again whenever a file under steps/ changes (Ctrl-C stops)."""

from lab import reporters
from lab.commands import options

NAME = "watch"
MAKE_TARGETS = ("watch",)


def add_arguments(parser):
    options.step(parser)
    options.lang(parser)
    options.no_mutants(parser)
    parser.add_argument("--verbose", action="store_true")
    options.time_limit(parser)
    reporters.add_options(parser)


def run(arguments, settings):
    from lab.commands.steps import one_step
    from lab.learner.watch import watch

    step = one_step(arguments.step, NAME, settings.lang)
    flags = (
        ["--time-limit", f"{settings.time_limit:g}"]
        + ["--no-mutants"] * arguments.no_mutants
        + ["--verbose"] * arguments.verbose
    )
    flags += reporters.forwarded(arguments)
    return watch(step, flags, settings.lang, settings.root)
