"""The options several verbs share, each written once with its default (their help is the
catalogue's, lab/commands/parser.py)."""

from lab.model.defaults import TIME_LIMIT
from lab.text.language import LANGUAGES


def lang(parser, **keep):
    parser.add_argument(
        "--lang",
        choices=LANGUAGES,
        **keep,
    )


def impl(parser, default="steps"):
    parser.add_argument(
        "--impl",
        default=default,
    )


def time_limit(parser):
    parser.add_argument(
        "--time-limit",
        type=float,
        default=TIME_LIMIT,
        metavar="SECONDS",
    )


def budget(parser, default):
    parser.add_argument("--budget", type=float, default=default, metavar="SECONDS")


def no_mutants(parser):
    parser.add_argument("--no-mutants", action="store_true")


def step(parser):
    parser.add_argument("step", nargs="?", default="")
