"""The one command tree of ``python -m lab VERB …``: one module per verb, in the order `--help` lists them.

Each verb's module holds NAME, MAKE_TARGETS (the Makefile targets that run it), add_arguments(parser)
and run(arguments, settings); its help is the catalogue's ``verbs.NAME`` in the language of the
command. main() parses once, makes the command's Settings once (lab/settings.py) and hands both to the verb. Every problem with what was
typed ends in one line on stderr and exit status 2, never in a traceback. The verbs import the
modules that do their work only when they run, so the learner's verbs answer at once.
"""

import importlib
import sys

from lab.commands.parser import ROOT, OneLineParser, typed_language
from lab.model.course import LAB_ROOT, CourseFormatError, course_commands, load_course, missing_parts
from lab.model.implementation import UsageError
from lab.model.status import ExitStatus
from lab.text.language import chosen, first_note
from lab.text.messages import say

MODULES = (
    "check",
    "hint",
    "progress",
    "next",
    "reset",
    "restore",
    "backups",
    "watch",
    "language",
    "class_",
    "classroom_workflow",
    "artifact",
    "mutation",
    "equivalent",
    "bench_loop",
    "dev",
)


def _course_verbs():
    """The modules of the course's own verbs; none while course.toml cannot be read (main then
    says why, in one line)."""
    try:
        return course_commands()
    except CourseFormatError:
        return ()


# The engine's verbs, then the course's own (course.toml's `commands`: the field's demo, stress,
# bench and lease), each a module of the same shape, imported by the name the manifest gives.
VERBS = {
    module.NAME: module
    for module in map(importlib.import_module, [*(f"lab.commands.{name}" for name in MODULES), *_course_verbs()])
}
# The first command whose language is the locale's, for want of a choice, says so in its first
# line (on stderr: its output stays what it was), once, with the commands that settle it; the verb
# that settles it says so itself whenever it is asked.
CHOOSING = ("language",)
# The verbs that read neither the checks, nor the reference, nor the mutants: they work in a lab
# that misses one of its folders (every other verb says which, and why it is needed).
WITHOUT_PARTS = ("language", "hint", "backups", "reset", "restore")


def build_parser(lang="en", only=None):
    """The parser of every verb; with only, the options of that verb alone (the others are listed,
    and their modules' imports are spared: a learner's verb answers at once)."""
    parser = OneLineParser(prog=ROOT, description=say("verbs.description", lang), lang=lang)
    verbs = parser.add_subparsers(dest="verb", required=True)
    for name, module in VERBS.items():
        text = say(f"verbs.{name}", lang)
        sub = verbs.add_parser(name, help=text, description=text)
        if only in (None, name):
            module.add_arguments(sub)
    return parser


def main(argv=None, root=LAB_ROOT):
    """The exit status of one command line."""
    argv = sys.argv[1:] if argv is None else list(argv)
    lang = typed_language(argv) or chosen(root)  # until the command's Settings are made
    try:
        load_course()
    except CourseFormatError as error:
        print(say("lab_broken", lang, error=error), file=sys.stderr)
        return ExitStatus.LAB_BROKEN
    if argv and argv[0] not in WITHOUT_PARTS and (missing := missing_parts()):
        for part in missing:
            error = say("missing_part", lang, folder=part, why=say(f"part_{part}", lang))
            print(say("lab_broken", lang, error=error), file=sys.stderr)
        return ExitStatus.LAB_BROKEN
    from lab.settings import Settings

    try:
        arguments = build_parser(lang, argv[0] if argv and argv[0] in VERBS else None).parse_args(argv)
        settings = Settings.of(arguments, root)
        lang = settings.lang
        if settings.guessed and arguments.verb not in CHOOSING and first_note(settings.root):
            print(say("learner.language_from_locale", lang), file=sys.stderr)
        return VERBS[arguments.verb].run(arguments, settings)
    except UsageError as error:
        print(error, file=sys.stderr)
        return ExitStatus.USAGE
    except Exception as error:
        if not _lab_broken(error):
            raise
        print(say("lab_broken", lang, error=error), file=sys.stderr)
        return ExitStatus.LAB_BROKEN


# The errors that say the lab itself is broken, by module; only the verbs that run checks or read
# mutants import those modules, so an error of a module not imported cannot be one of them.
LAB_BROKEN = {
    "lab.running.runner": "LabBroken",
    "lab.model.mutants": "MutantError",
    "lab.commands.parser": "MissingText",
    "lab.model.pristine": "NoPristineStub",
}


def _lab_broken(error):
    kinds = [getattr(sys.modules[module], name) for module, name in LAB_BROKEN.items() if module in sys.modules]
    return isinstance(error, tuple(kinds))
