"""`python -m lab dev check`, `dev new-step NAME`, `dev update` and `dev durations`: the course kept
whole, for its authors.

Like rustlings' `dev check`: the manifest against the tree, every stub unsolved, the reference
solved, every clause checked and broken by a mutant (or the manifest says why not). `new-step`
scaffolds the next step's folders, its rules file beside its checks and its manifest entry; the
author then writes its contract, reference, checks, rules and mutants, and `dev check` says what
is still missing. Like rustlings' `dev
update`, `update` writes again what is made from course.toml (the prediction templates, README's
step tables, the progress lines of docs/learner.md and .ja.md) once the author has changed it, and
the guides' example outputs from the lab's own runs (lab/dev/examples.py), which `check` holds. `durations` measures how long each check takes
against the reference (lab/dev/durations.py).
"""

from lab.commands import options

NAME = "dev"
MAKE_TARGETS = ("dev-check",)


def add_arguments(parser):
    actions = parser.add_subparsers(dest="action", required=True)
    check = actions.add_parser("check", help=parser.text("check.about"))
    check.add_argument("--no-run", action="store_true")
    options.time_limit(check)
    new = actions.add_parser("new-step", help=parser.text("new-step.about"))
    new.add_argument("name")
    new.add_argument("--function")
    new.add_argument("--parameters", default="path,job_id")
    update = actions.add_parser("update", help=parser.text("update.about"))
    durations = actions.add_parser("durations", help=parser.text("durations.about"))
    options.time_limit(durations)
    for action in (check, new, update, durations):
        options.lang(action)


def run(arguments, settings):
    from lab.model.status import ExitStatus

    if arguments.action == "new-step":
        from lab.dev.new_step import new_step

        function = arguments.function or arguments.name.replace("-", "_")
        for path in new_step(settings.root, arguments.name, function, tuple(arguments.parameters.split(","))):
            print(path)
        return ExitStatus.ALL_PASS
    if arguments.action == "update":
        from lab.dev import examples
        from lab.dev.generated import update

        for path in update(settings.root):  # said as soon as written: the examples' runs may stop the command
            print(path, flush=True)
        for path in examples.update(settings.root):
            print(path)
        return ExitStatus.ALL_PASS
    if arguments.action == "durations":
        from lab.dev import durations

        try:
            print(durations.write(settings.time_limit))
        except durations.ReferenceFails as failed:
            print(f"dev durations: the reference fails {failed}; the table is left as it was")
            return ExitStatus.LAB_BROKEN
        return ExitStatus.ALL_PASS
    return _check(arguments, settings)


def _check(arguments, settings):
    from lab.dev import tree
    from lab.model.status import ExitStatus

    found = [*tree.problems(settings.root), *_missing_words()]
    if not found and not arguments.no_run:
        from lab.dev import examples, runs

        found = [*runs.problems(settings.time_limit, settings.lang), *examples.problems(settings.root)]
    print(
        "\n".join(found)
        or "dev check: the course and its tree agree"
        + ("" if arguments.no_run else "; stubs fail, the reference passes, every mutant is caught")
    )
    return ExitStatus.LAB_BROKEN if found else ExitStatus.ALL_PASS


def _missing_words():
    """The first option of the command tree, in each language, that has no help in the catalogue
    (a new report format's, for one): what building the parser would stop at."""
    from lab.commands import build_parser
    from lab.commands.parser import MissingText
    from lab.text.language import LANGUAGES

    found = []
    for lang in LANGUAGES:
        try:
            build_parser(lang)
        except MissingText as missing:
            found.append(str(missing))
    return found
