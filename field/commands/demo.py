"""`python -m lab demo`: the worker A/B story, played by two processes over IMPL's artifact."""

from lab.commands import options

NAME = "demo"
MAKE_TARGETS = ("demo",)


def add_arguments(parser):
    options.impl(parser)
    options.lang(parser)
    parser.add_argument("--unchecked", action="store_true")
    parser.add_argument("--peers", action="store_true")


def run(arguments, settings):
    from field import demo
    from field.artifact import reported

    return reported(
        lambda: demo.main(settings.impl, settings.impl_label, settings.lang, arguments.unchecked, arguments.peers)
    )
