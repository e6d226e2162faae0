"""`python -m lab stress`: processes, stalls, clock jumps and SIGKILLs over IMPL's artifact; every call judged against the contract."""

from lab.commands import options

NAME = "stress"
MAKE_TARGETS = ("stress",)


def add_arguments(parser):
    options.impl(parser)
    options.lang(parser)
    parser.add_argument("--seconds", type=float, default=3.0)
    parser.add_argument("--seed", type=int, default=None)
    parser.add_argument("--workers", type=int, default=4)
    parser.add_argument("--keep", metavar="DIR")


def run(arguments, settings):
    from field import stress
    from field.artifact import reported
    from lab.commands.numbers import positive

    positive(arguments.seconds, "--seconds", settings.lang)
    positive(arguments.workers, "--workers", settings.lang)
    return reported(
        lambda: stress.main(
            settings.impl,
            settings.impl_label,
            arguments.seconds,
            arguments.seed,
            arguments.workers,
            arguments.keep,
            settings.lang,
        )
    )
