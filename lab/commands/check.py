"""`python -m lab check STEP`: check an implementation's steps 1..STEP, then step STEP's mutants."""

import sys

from lab import reporters
from lab.commands import options
from lab.model.defaults import CHECK_BUDGET

NAME = "check"
MAKE_TARGETS = ("check-step", "check")


def add_arguments(parser):
    options.step(parser)
    options.impl(parser)
    options.no_mutants(parser)
    options.lang(parser)
    reporters.add_options(parser)
    options.time_limit(parser)
    options.budget(parser, CHECK_BUDGET)
    parser.add_argument("--verbose", action="store_true")
    parser.add_argument("--credit", action="store_true")
    parser.add_argument("--strict", action="store_true")
    parser.add_argument("--fresh", action="store_true")
    parser.add_argument("--show", choices=("all", "mutants"))


def run(arguments, settings):

    from lab.commands.steps import checked_steps
    from lab.grading import check as checking
    from lab.learner.compared import Seen
    from lab.learner.completion import closing_lines
    from lab.learner.verdicts import own_steps, record_check
    from lab.reporters import terminal as report
    from lab.sandbox import confinement
    from lab.store import Store
    from lab.text.messages import say

    steps, mutant_steps = checked_steps(arguments.step.strip(), settings.lang)
    if arguments.credit:  # step N alone: its credit does not depend on the other steps
        steps = mutant_steps
    store = Store(settings.root)
    own = not arguments.credit and own_steps(settings.impl, store)  # the learner's steps/: make progress follows it
    if not confinement.available():
        print(say("unconfined", settings.lang), file=sys.stderr)
    outcome = checking.check(
        settings.impl,
        steps,
        () if arguments.no_mutants else mutant_steps,
        settings.time_limit,
        settings.lang,
        settings.impl_label,
        use_cache=not arguments.fresh,
        strict=arguments.strict,
        budget=settings.budget,
        credit_only=arguments.credit,
    )
    outcome.show_all = arguments.show == "all"
    seen = Seen(store) if own else None  # later runs fold what was seen
    closing = (
        closing_lines(outcome, settings.lang, store.root) if seen is not None else []
    )  # the course's end writes ANSWERS.md
    report.render(
        outcome,
        settings.lang,
        verbose=arguments.verbose,
        expand=arguments.show == "mutants",
        seen=seen,
        yours=settings.impl,
        closing=closing,
    )
    if own:
        record_check(store, settings.time_limit, outcome.results, outcome.steps)
    reporters.write_chosen(outcome, arguments)
    return outcome.exit_status
