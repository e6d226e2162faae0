"""`python -m lab equivalent ID --why TEXT [--impl PATH]`: one mutant of the learner's code recorded
as equivalent in the learner's own ledger (lab/mutation/own_ledger.py), never in mutation/.

Exit status: ALL_PASS when the entry is in the ledger (recorded now or before), USAGE otherwise
(no WHY, no finished report of IMPL yet or one older than the code, no such mutant, a mutant that
some check catches or that did not run, IMPL the reference, a ledger that is not valid TOML).
"""

import argparse

from lab.commands import options

NAME = "equivalent"
MAKE_TARGETS = ("equivalent",)


def add_arguments(parser):
    parser.add_argument("id")
    parser.add_argument("--why", default="")
    options.impl(parser)
    options.lang(parser)
    parser.add_argument("--stage", help=argparse.SUPPRESS)  # default: the mutation report's stage of IMPL


def run(arguments, settings):
    from lab.commands.mutation import stage_of
    from lab.model.implementation import UsageError
    from lab.model.status import ExitStatus
    from lab.mutation import own_ledger
    from lab.mutation.build import is_reference
    from lab.mutation.equivalents import LedgerError
    from lab.text.messages import say

    lang = settings.lang
    if not arguments.id.strip():
        raise UsageError(say("mutation.id_required", lang))
    if is_reference(settings.impl):
        raise UsageError(say("mutation.reference_ledger", lang))
    try:
        said = own_ledger.record(
            settings.impl, arguments.id, arguments.why, stage_of(settings.impl, arguments.stage), lang
        )
    except LedgerError as error:
        raise UsageError(error.said(lang)) from None
    print(said)
    return ExitStatus.ALL_PASS
