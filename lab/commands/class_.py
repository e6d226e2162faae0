"""`python -m lab class DIR`: check every learner folder under DIR; a table learner x step."""

from lab.commands import options
from lab.model.course import LAB_ROOT
from lab.model.defaults import ASSIGNMENT, CLASS_BUDGET, SIMILAR

NAME = "class"
MAKE_TARGETS = ("check-class",)


def add_arguments(parser):
    parser.add_argument("dir")
    parser.add_argument("--out", default=str(LAB_ROOT / "reports" / "class"))
    options.lang(parser)
    options.time_limit(parser)
    options.budget(parser, CLASS_BUDGET)
    parser.add_argument("--jobs", type=int, default=0)
    options.no_mutants(parser)
    parser.add_argument("--no-bom", action="store_true")
    parser.add_argument("--regrade-all", action="store_true")
    parser.add_argument("--similar", type=float, default=SIMILAR, metavar="SHARE")
    parser.add_argument("--roster", metavar="FILE")
    parser.add_argument("--assignment", default=ASSIGNMENT, metavar="TITLE")
    parser.add_argument("--partial-credit", action="store_true")


def run(arguments, settings):
    import sys
    from pathlib import Path

    from lab.grading import adjustments, class_outputs, class_table, class_view, classroom, lms_exports, roster
    from lab.grading.instructor_csv import FileProblem
    from lab.model.implementation import UsageError
    from lab.process import CHECKS, tree_memory_bounded
    from lab.sandbox import confinement
    from lab.text import inert
    from lab.text.messages import say

    lang, root = settings.lang, Path(arguments.dir)
    if not arguments.dir or not root.is_dir():
        raise UsageError(say("command.class_dir", lang, dir=arguments.dir))
    if classroom.is_one_learner(root):
        raise UsageError(say("class.is_a_learner", lang, dir=arguments.dir))
    try:  # the instructor's own files, read before anyone is graded: a mistake in them costs no run
        learners = roster.load(Path(arguments.roster)) if arguments.roster else None
        adjusted = adjustments.load(settings.out / adjustments.FILE)
    except FileProblem as problem:
        raise UsageError(problem.said(lang)) from None
    if not confinement.available():  # a class's verdicts must hold against code that cheats
        raise UsageError(say("needs_bubblewrap", lang))
    if arguments.no_mutants:
        print(say("class.no_predictions", lang))
    if tree_memory_bounded():
        print(say("class.memory_bounded", lang, gib=CHECKS.tree_memory >> 30))
    else:
        print(say("class.memory_per_process", lang))

    def progress(submission, done, count):
        print(inert.terminal(classroom.progress_line(submission, done, count, lang)), flush=True)

    outcome = classroom.check_class(
        root.resolve(),
        settings.time_limit,
        lang,
        settings.budget,
        arguments.jobs or None,
        not arguments.no_mutants,
        use_cache=not arguments.regrade_all,
        on_done=progress,
        similar=arguments.similar,
        roster=learners,
    )
    for submission in outcome.submissions if arguments.partial_credit else ():
        submission.standing.partial = True
    for nobody in adjustments.attach(outcome.submissions, adjusted):  # a typo in a name, or one who left
        where = {"file": settings.out / adjustments.FILE, "line": nobody.line}
        print(inert.terminal(say("class.adjust_nobody", lang, learner=nobody.learner, **where)))
    markdown, table = class_outputs.write(outcome, settings.out, lang, not arguments.no_bom, arguments.assignment)
    for row in class_table.table(outcome, lang)[1:]:
        print(inert.terminal(row[-1]))
    print(classroom.rechecked_line(outcome, lang))
    if outcome.changes:
        print("\n".join([say("class.changes_heading", lang), *map(inert.terminal, outcome.changes)]))
    elif outcome.changes is not None:
        print(say("class.no_changes", lang))
    left_out = lms_exports.left_out(outcome)
    if left_out:
        print(inert.terminal(say("class.lms_left_out", lang, learners=", ".join(left_out))))
    written = ("grades.csv", "canvas.csv", "moodle.csv", adjustments.FILE)
    print("\n".join(map(str, [markdown, table, *(settings.out / name for name in written)])))
    broken = class_view.lab_broken(outcome, lang)
    if broken:  # the last line the instructor sees: why the exit status says the lab is broken
        print(inert.terminal(broken), file=sys.stderr)
    return outcome.exit_status
