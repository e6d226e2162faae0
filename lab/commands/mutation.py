"""`python -m lab mutation [--impl PATH] [--out DIR]`: the mutation report of an implementation.

Its sentences come from the message catalogue ([mutation]) in the language asked for;
mutation.json, Stryker's schema, is the same in every language.

Exit status (lab/model/status.py): ALL_PASS when every non-equivalent mutmut mutant is killed,
SOME_FAIL when some survive, USAGE when the report could not be made (a usage error, said in one
line, code whose step 1 does not pass, a ledger that is not valid TOML, or mutmut could not write
its mutants).
"""

import argparse

from lab.commands import options
from lab.model.course import LAB_ROOT

NAME = "mutation"
MAKE_TARGETS = ("mutation-report",)
OUT_DIR = LAB_ROOT / "reports" / "mutation"


def add_arguments(parser):
    options.impl(parser, default="solutions")
    parser.add_argument("--out", default=str(OUT_DIR))
    parser.add_argument("--ledger")
    options.lang(parser)
    parser.add_argument("--stage", help=argparse.SUPPRESS)  # default: one folder per implementation


def run(arguments, settings):
    import time
    from pathlib import Path

    from lab.model.implementation import UsageError
    from lab.model.status import ExitStatus
    from lab.mutation import html, stryker, text
    from lab.mutation.build import build
    from lab.mutation.equivalents import LedgerError
    from lab.mutation.stage import MutmutFailed
    from lab.text.messages import say

    lang, started = settings.lang, time.monotonic()
    try:
        stage_dir = stage_of(settings.impl, arguments.stage)
        stage_dir.parent.mkdir(exist_ok=True)
        report = build(
            settings.impl, stage_dir=stage_dir, learner_ledger=arguments.ledger and Path(arguments.ledger), lang=lang
        )
    except (MutmutFailed, LedgerError) as error:
        raise UsageError(say("command.mutation_failed", lang, error=error.said(lang))) from None
    except UsageError as error:
        raise UsageError(say("command.mutation_failed", lang, error=error)) from None
    out = settings.out
    out.mkdir(parents=True, exist_ok=True)
    (out / "report.md").write_text(text.markdown(report, lang), encoding="utf-8")
    stryker.write(report, out / "mutation.json")
    (out / "index.html").write_text(html.page(report, lang), encoding="utf-8")
    print("\n".join(text.summary_lines(report, lang)))
    shown = out.resolve().relative_to(Path.cwd()) if out.resolve().is_relative_to(Path.cwd()) else out
    print(say("command.mutation_written", lang, folder=shown, seconds=time.monotonic() - started))
    return ExitStatus.SOME_FAIL if report.survivors() else ExitStatus.ALL_PASS


def stage_of(impl, stage=None):
    """The stage folder of impl's report (stage: one given by hand): one folder per implementation,
    so that switching IMPL keeps each one's results, and `equivalent` finds the last report's."""
    import re
    from pathlib import Path

    from lab.mutation.stage import STAGE_DIR

    if stage:
        return Path(stage)
    name = impl.relative_to(LAB_ROOT) if impl.is_relative_to(LAB_ROOT) else impl
    return STAGE_DIR / (re.sub(r"[^A-Za-z0-9_.-]+", "_", str(name)).strip("_") or "impl")
