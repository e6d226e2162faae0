"""The learner's verbs of `python -m lab`: hint, progress, next, reset, restore, backups and watch.

lab/cli.py hands every command line that starts with one of VERBS to main(). A mistyped step
is one line on stderr and exit status 2, never a traceback; each verb's module does the work.
"""

import argparse
import sys

from lab import reporters
from lab.model.course import LAB_ROOT, LANGUAGES, load_course
from lab.model.implementation import UsageError
from lab.model.status import ExitStatus
from lab.text.language import chosen
from lab.text.messages import words_of

VERBS = {
    "hint": "the next question of step N that you have not seen yet (--all: every question)",
    "progress": "every step as not started, failing or passing, your predictions, and the next step",
    "next": "the next step to do",
    "reset": "save step N's files to .lab/backups/ and put the stub as shipped back",
    "restore": "save step N's files, then bring back the newest backup that restore did not make (--at: another one)",
    "backups": "list the backups of step N, newest first: when, what made each, what each holds",
    "watch": "check step N again whenever a file under steps/ changes (Ctrl-C stops)",
    "language": "remember the language of every command for this checkout: language ja (or en); LAB_LANG overrides it once",
}
WITH_STEP = {"hint", "reset", "restore", "watch", "backups"}


class OneLineParser(argparse.ArgumentParser):
    def error(self, message):
        raise UsageError(f"{self.prog}: {message}")


def build_parser():
    parser = OneLineParser(prog="python -m lab")
    verbs = parser.add_subparsers(dest="verb", required=True, parser_class=OneLineParser)
    for verb, text in VERBS.items():
        sub = verbs.add_parser(verb, help=text, description=text)
        if verb in WITH_STEP:
            sub.add_argument("step", nargs="?", default="")
        if verb == "language":
            sub.add_argument("choice", nargs="?", default="")
        sub.add_argument("--lang", choices=LANGUAGES, default=chosen())
    verbs.choices["hint"].add_argument("--all", action="store_true", help="every question of the step")
    verbs.choices["restore"].add_argument("--at", default="", help="the backup to bring back: its folder name or its number in `make backups N`")
    watch = verbs.choices["watch"]
    watch.add_argument("--no-mutants", action="store_true")
    watch.add_argument("--verbose", action="store_true")
    watch.add_argument("--time-limit", default="10")
    reporters.add_options(watch)
    return parser


def main(argv, root=LAB_ROOT):
    try:
        arguments = build_parser().parse_args(argv)
        step = _step(arguments) if arguments.verb in WITH_STEP else None
        if arguments.verb == "language":
            return _language(arguments.choice.strip(), arguments.lang, root)
    except UsageError as error:
        print(error, file=sys.stderr)
        return ExitStatus.USAGE
    status, lines = _dispatch(arguments, step, root)
    for line in lines:
        print(line)
    return status


def _dispatch(arguments, step, root):
    lang = arguments.lang
    if arguments.verb == "hint":
        from lab.learner.hint import hint

        return ExitStatus.ALL_PASS, hint(step, lang, arguments.all, root)
    if arguments.verb in ("progress", "next"):
        from lab.learner import progress

        if arguments.verb == "progress":
            return ExitStatus.ALL_PASS, progress.progress(lang, root)
        return ExitStatus.ALL_PASS, progress.next_lines(progress.step_states(root / "steps", lang, root)[0], lang, root)
    if arguments.verb in ("reset", "restore", "backups"):
        from lab.learner import reset

        if arguments.verb == "restore":
            return reset.restore(step, lang, root, arguments.at)
        return (reset.reset if arguments.verb == "reset" else reset.listing)(step, lang, root)
    from lab.learner.watch import watch

    flags = ["--time-limit", arguments.time_limit] + ["--no-mutants"] * arguments.no_mutants + ["--verbose"] * arguments.verbose
    flags += reporters.forwarded(arguments)
    return watch(step, flags, lang, root), []


def _language(choice, lang, root):
    """`make language ja`: remember the choice in .lab/language, and say so in the chosen language."""
    from lab.text.language import remember

    if choice not in LANGUAGES:
        if choice:
            raise UsageError(words_of("learner", lang)("language_usage", choice=choice))
        print(words_of("learner", lang)("language_now"))
        return ExitStatus.ALL_PASS
    remember(choice, root)
    print(words_of("learner", choice)("language_set"))
    return ExitStatus.ALL_PASS


def _step(arguments):
    text, course = arguments.step.strip(), load_course()
    if text.isdigit() and 1 <= int(text) <= len(course):
        return course[int(text) - 1]
    verb = {"reset": "reset-step", "restore": "restore-step"}.get(arguments.verb, arguments.verb)
    raise UsageError(words_of("learner", arguments.lang)("usage", verb=verb, last=len(course)))
