"""``python -m lab mutation [--impl PATH] [--out DIR] [--lang en|ja]``: the mutation report of an implementation;
``python -m lab equivalent ID --why TEXT [--impl PATH]``: one of its mutants recorded as equivalent
in the learner's own ledger (lab/mutation/own_ledger.py).

Its sentences come from the message catalogue (lab/text/*.toml, [mutation]) in the language asked
for; mutation.json, Stryker's schema, is the same in every language.

Exit status (lab/model/status.py): ALL_PASS when every non-equivalent mutmut mutant is killed,
SOME_FAIL when some survive, USAGE when the report could not be made (a usage error, said in one
line, code whose step 1 does not pass, a ledger that is not valid TOML, or mutmut could not write
its mutants). `equivalent`: ALL_PASS when the entry is in the ledger, USAGE otherwise.
"""

import argparse
import re
import sys
import time
from pathlib import Path

from lab.model.course import LAB_ROOT, LANGUAGES
from lab.model.implementation import UsageError
from lab.text.language import chosen
from lab.text.messages import say
from lab.mutation import html, own_ledger, stryker, text
from lab.mutation.build import build, is_reference
from lab.mutation.equivalents import LedgerError
from lab.mutation.stage import STAGE_DIR, MutmutFailed
from lab.model.status import ExitStatus

OUT_DIR = LAB_ROOT / "reports" / "mutation"


class OneLineParser(argparse.ArgumentParser):
    """argparse, but a mistake is one line and a UsageError (exit status 2), not usage + exit."""

    def error(self, message):
        raise UsageError(f"{self.prog}: {message} (see {self.prog} --help)")


def main(argv=None):
    parser = OneLineParser(prog="python -m lab mutation", description=__doc__.splitlines()[0])
    parser.add_argument("--impl", default="solutions", help="a steps-like folder or one .py file (default: solutions)")
    parser.add_argument("--out", default=str(OUT_DIR), help="where report.md, mutation.json and index.html go")
    parser.add_argument("--ledger", help="your own reviewed equivalents, read for any IMPL but the reference (default: equivalents.toml in IMPL's folder)")
    parser.add_argument("--lang", choices=LANGUAGES, default=chosen(), help="language of the summary, report.md and index.html (default: $LAB_LANG, else `make language`'s choice, else en)")
    parser.add_argument("--stage", help=argparse.SUPPRESS)  # default: one folder per implementation
    try:
        args = parser.parse_args(argv)
    except UsageError as error:
        print(error, file=sys.stderr)
        return ExitStatus.USAGE
    started = time.monotonic()
    try:
        stage_dir = Path(args.stage) if args.stage else STAGE_DIR / _slug(args.impl)
        stage_dir.parent.mkdir(exist_ok=True)
        report = build(args.impl, stage_dir=stage_dir, learner_ledger=args.ledger and Path(args.ledger), lang=args.lang)
    except (MutmutFailed, LedgerError) as error:
        print(say("command.mutation_failed", args.lang, error=error.said(args.lang)), file=sys.stderr)
        return ExitStatus.USAGE
    except UsageError as error:
        print(say("command.mutation_failed", args.lang, error=error), file=sys.stderr)
        return ExitStatus.USAGE
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "report.md").write_text(text.markdown(report, args.lang), encoding="utf-8")
    stryker.write(report, out / "mutation.json")
    (out / "index.html").write_text(html.page(report, args.lang), encoding="utf-8")
    print("\n".join(text.summary_lines(report, args.lang)))
    shown = out.resolve().relative_to(Path.cwd()) if out.resolve().is_relative_to(Path.cwd()) else out
    print(say("command.mutation_written", args.lang, folder=shown, seconds=time.monotonic() - started))
    return ExitStatus.SOME_FAIL if report.survivors() else ExitStatus.ALL_PASS


def record_equivalent(argv=None):
    """``python -m lab equivalent ID --why TEXT``: see lab/mutation/own_ledger.py."""
    parser = OneLineParser(prog="python -m lab equivalent", description="record a mutant of your code as equivalent in your own ledger")
    parser.add_argument("id", help="the mutant's id, as the mutation report names it (lease.x_claim__mutmut_19)")
    parser.add_argument("--why", default="", help="one line: why no input can tell it apart from your code")
    parser.add_argument("--impl", default="steps", help="your code: a steps-like folder or one .py file (default: steps)")
    parser.add_argument("--lang", choices=LANGUAGES, default=chosen())
    parser.add_argument("--stage", help=argparse.SUPPRESS)  # default: the mutation report's stage of IMPL
    try:
        args = parser.parse_args(argv)
        if not args.id.strip():
            parser.error("name the mutant: make equivalent ID WHY=\"…\" (ID as the mutation report shows it)")
        if is_reference(args.impl):
            raise UsageError(say("mutation.reference_ledger", args.lang))
        stage_dir = Path(args.stage) if args.stage else STAGE_DIR / _slug(args.impl)
        said = own_ledger.record(args.impl, args.id, args.why, stage_dir, args.lang)
    except UsageError as error:
        print(error, file=sys.stderr)
        return ExitStatus.USAGE
    except LedgerError as error:
        print(error.said(args.lang), file=sys.stderr)
        return ExitStatus.USAGE
    print(said)
    return ExitStatus.ALL_PASS


def _slug(impl):
    """A stage folder name per implementation, so that switching IMPL keeps each one's results."""
    path = Path(impl).resolve()
    name = path.relative_to(LAB_ROOT) if path.is_relative_to(LAB_ROOT) else path
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", str(name)).strip("_") or "impl"
