"""The options several verbs share, each written once with its default, and the parser that
turns a mistake in what was typed into one line and exit status 2."""

import argparse

from lab.model.defaults import TIME_LIMIT
from lab.model.implementation import UsageError
from lab.text.language import LANGUAGES


class OneLineParser(argparse.ArgumentParser):
    """argparse, but a mistake is one line and a UsageError (exit status 2), not usage + exit."""

    def error(self, message):
        raise UsageError(f"{self.prog}: {message} (see {self.prog} --help)")


def lang(parser, **keep):
    parser.add_argument(
        "--lang",
        choices=LANGUAGES,
        **keep,
        help="language of the output (default: $LAB_LANG, else `make language`'s choice, else en)",
    )


def impl(parser, default="steps"):
    parser.add_argument(
        "--impl",
        default=default,
        help=f"a steps-like folder or one .py file (default: {default}; 'solutions' is the reference)",
    )


def time_limit(parser):
    parser.add_argument(
        "--time-limit",
        type=float,
        default=TIME_LIMIT,
        metavar="SECONDS",
        help=f"time one check may take (default {TIME_LIMIT:g})",
    )


def budget(parser, default, what):
    parser.add_argument(
        "--budget", type=float, default=default, metavar="SECONDS", help=f"time {what} may take (default {default:g})"
    )


def no_mutants(parser, what="skip the mutants"):
    parser.add_argument("--no-mutants", action="store_true", help=what)


def step(parser, what="a step from 1 to the last"):
    parser.add_argument("step", nargs="?", default="", help=what)
