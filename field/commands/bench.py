"""`python -m lab bench`: claims/s and completes/s with 1, 2, 4, 8 processes against raw sqlite3; a table and a chart."""

from lab.commands import options

NAME = "bench"
MAKE_TARGETS = ("bench",)


def add_arguments(parser):
    options.impl(parser)
    options.lang(parser)
    parser.add_argument("--duration", type=float, default=0.05)
    parser.add_argument("--workers", default="1,2,4,8")
    parser.add_argument("--out", default="reports/bench")
    parser.add_argument("--peers", action="store_true")


def run(arguments, settings):
    from field import bench
    from field.artifact import reported
    from lab.commands.numbers import counts, positive

    positive(arguments.duration, "--duration", settings.lang)
    workers = counts(arguments.workers, settings.lang)
    return reported(
        lambda: bench.main(
            settings.impl,
            settings.impl_label,
            arguments.duration,
            workers,
            arguments.out,
            settings.lang,
            arguments.peers,
        )
    )
