"""The field verbs of `python -m lab`: demo, stress, bench and lease, each parsed here.

lab/cli.py hands every command line that starts with one of VERBS to main(). A mistake in what
was typed ends in one line on stderr and exit status 2, never in a traceback; the modules that
do the work are imported only for the verb that needs them.
"""

import argparse
import sys

from lab.model.course import LANGUAGES
from lab.field import artifact_cli
from lab.field.artifact import ArtifactBroken, resolve
from lab.model.implementation import UsageError
from lab.model.status import ExitStatus
from lab.text.language import chosen
from lab.text.messages import words_of

VERBS = {
    "demo": "play the worker A/B story with two processes over IMPL's artifact",
    "stress": "processes, stalls, clock jumps and SIGKILLs over IMPL's artifact; verify every fence and result",
    "bench": "claims/s and completes/s with 1, 2, 4, 8 processes against raw sqlite3; table and chart",
    "lease": "call one function of the artifact on a database file (play A and B from two terminals)",
}


class OneLineParser(argparse.ArgumentParser):
    """argparse, but a mistake is one line and a UsageError (exit status 2), not usage + exit."""

    def error(self, message):
        raise UsageError(f"{self.prog}: {message} (see {self.prog} --help)")


def default_lang():
    return chosen()


def _common(parser):
    parser.add_argument("--impl", default="steps", help="a steps-like folder or one .py file (default: steps; 'solutions' is the reference)")
    parser.add_argument("--lang", choices=LANGUAGES, default=default_lang(), help="language of the output (default: $LAB_LANG, else `make language`'s choice, else en)")


def build_parser():
    parser = OneLineParser(prog="python -m lab", description="The artifact at work.")
    verbs = parser.add_subparsers(dest="verb", required=True, parser_class=OneLineParser)
    demo = verbs.add_parser("demo", help=VERBS["demo"], description=VERBS["demo"])
    _common(demo)
    demo.add_argument("--unchecked", action="store_true", help="play the story even if IMPL fails its checks, to see a late write accepted")
    demo.add_argument("--peers", action="store_true", help="then the same story on litequeue and persist-queue (installed into .lab/peers-venv)")
    stress = verbs.add_parser("stress", help=VERBS["stress"], description=VERBS["stress"])
    _common(stress)
    stress.add_argument("--seconds", type=float, default=3.0, help="how long the workers run (default 3)")
    stress.add_argument("--seed", type=int, default=None, help="the schedule's seed (default: a new one, printed)")
    stress.add_argument("--workers", type=int, default=4, help="worker processes at a time (default 4)")
    stress.add_argument("--keep", metavar="DIR", help="keep the database and the logs in DIR")
    bench = verbs.add_parser("bench", help=VERBS["bench"], description=VERBS["bench"])
    _common(bench)
    bench.add_argument("--duration", type=float, default=0.05, help="seconds per measurement (default 0.05; 48 of them, a preview: use 1 for figures)")
    bench.add_argument("--workers", default="1,2,4,8", help="worker process counts (default 1,2,4,8)")
    bench.add_argument("--out", default="reports/bench", help="where bench.json, bench.svg and bench.png go")
    bench.add_argument("--peers", action="store_true", help="then take-and-finish on litequeue and persist-queue beside the artifact (installed into .lab/peers-venv)")
    artifact_cli.add_parser(verbs, VERBS["lease"], _common)
    return parser


def main(argv):
    try:
        arguments = build_parser().parse_args(argv)
        return _dispatch(arguments)
    except UsageError as error:
        print(error, file=sys.stderr)
        return ExitStatus.USAGE


def _dispatch(arguments):
    lang = arguments.lang
    impl_path, label = resolve(arguments.impl, lang)
    try:
        if arguments.verb == "lease":
            return artifact_cli.run(arguments, impl_path, label)
        if arguments.verb == "demo":
            from lab.field import demo

            return demo.main(impl_path, label, lang, arguments.unchecked, arguments.peers)
        if arguments.verb == "stress":
            from lab.field import stress

            _positive(arguments.seconds, "--seconds", lang)
            _positive(arguments.workers, "--workers", lang)
            return stress.main(impl_path, label, arguments.seconds, arguments.seed, arguments.workers, arguments.keep, lang)
        from lab.field import bench

        _positive(arguments.duration, "--duration", lang)
        return bench.main(impl_path, label, arguments.duration, _counts(arguments.workers, lang), arguments.out, lang, arguments.peers)
    except ArtifactBroken as error:
        print(error, file=sys.stderr)
        return ExitStatus.SOME_FAIL


def _positive(value, option, lang):
    if not value > 0:
        raise UsageError(words_of("field", lang)("not_positive", option=option, value=value))


def _counts(text, lang):
    try:
        counts = tuple(int(part) for part in text.split(","))
    except ValueError:
        counts = ()
    if not counts or min(counts) < 1:
        raise UsageError(words_of("field", lang)("bad_counts", text=text))
    return counts
