"""The command line: ``python -m lab check STEP``, ``python -m lab class DIR`` and ``python -m lab artifact``.

``demo``, ``stress``, ``bench`` and ``lease`` belong to lab/field, the learner's verbs to lab/learner
and ``mutation`` to lab/mutation/command.py: each parses its own arguments.

The Makefile's targets call these; every problem with what was typed ends in a one-line
message and exit status 2, never in a traceback.
"""

import argparse
import os
import sys
from pathlib import Path

from lab.grading import check as checking
from lab.grading import classroom, similarity
from lab.reporters import exercism, junit, terminal as report, results_json
from lab.model.course import LAB_ROOT, LANGUAGES, load_course
from lab.field import commands as field
from lab.model.implementation import UsageError, assemble, read
from lab.learner import commands as learner
from lab.learner.compared import Seen
from lab.learner.verdicts import keys_before_check, record_check
from lab.text.language import chosen
from lab.text.messages import say
from lab.model.mutants import MutantError
from lab.running.runner import LabBroken
from lab.sandbox import confinement
from lab.model.status import ExitStatus

MUTATION = {"mutation": "the mutation report of an implementation: mutmut's mutants and the pre-built ones, with a kill matrix"}


def parse_steps(text, lang="en"):
    """'4' or '04' -> (1, 2, 3, 4) and the mutant steps (4,); 'all' -> every step."""
    last = len(load_course())
    if text == "all":
        return checking.every_step(), checking.every_step()
    if text and text.isdigit() and 1 <= int(text) <= last:
        return tuple(range(1, int(text) + 1)), (int(text),)
    usage = say("step_usage", lang, last=last)
    raise UsageError(say("not_a_step", lang, text=text) + usage if text else usage)


def resolve_impl(text, lang="en"):
    """IMPL as typed; 'steps' and 'solutions' name the lab's own folders from anywhere."""
    path = Path(text)
    if not path.exists() and (LAB_ROOT / text).exists():
        path = LAB_ROOT / text
    if not path.exists():
        raise UsageError(say("no_impl", lang, impl=text))
    # Absolute (the children run in a scratch folder, not in the current one), links kept: a
    # step file that is a link, or lies in a linked folder, is refused by the reader.
    return Path(os.path.abspath(path))


def build_parser():
    parser = argparse.ArgumentParser(prog="python -m lab", description="The lease and fencing-token lab's checker.")
    verbs = parser.add_subparsers(dest="verb", required=True)
    check = verbs.add_parser("check", help="check an implementation, then show which checks catch each mutant")
    check.add_argument("step", nargs="?", default="", help="a step from 1 to 8 (checks steps 1..N), or 'all'")
    check.add_argument("--impl", default="steps", help="a steps-like folder or one .py file (default: steps)")
    check.add_argument("--no-mutants", action="store_true", help="skip the mutants")
    check.add_argument("--lang", choices=LANGUAGES, default=chosen(), help="language of the report (default: $LAB_LANG, else `make language`'s choice, else en)")
    check.add_argument("--json", metavar="FILE", help="also write the results as JSON")
    check.add_argument("--junit", metavar="FILE", help="also write the learner's checks as JUnit XML")
    check.add_argument("--exercism", metavar="FILE", help="also write Exercism's results.json (version 3), with a score")
    check.add_argument("--time-limit", type=float, default=10.0, metavar="SECONDS", help="time one check may take")
    check.add_argument("--budget", type=float, default=600.0, metavar="SECONDS", help="time all the checks of your code may take")
    check.add_argument("--verbose", action="store_true", help="every check of every step, even when all pass")
    check.add_argument("--strict", action="store_true", help="fail (status 1) when a step's prediction does not catch its broken change to review")
    check.add_argument("--credit", action="store_true", help="step N's own checks only, the reference standing in for every other step (N alone, or each step with 'all'): the credit of a class run")
    check.add_argument("--show", choices=("all", "mutants"), help="'all': show every mutant's change and catching checks before the learner predicted (instructors); 'mutants': a compare phase already seen in full again")
    klass = verbs.add_parser("class", help="check every learner folder under DIR; write a table learner x step")
    klass.add_argument("dir", help="a folder with one folder per learner (a checkout of the lab, or a steps/ folder)")
    klass.add_argument("--out", default=str(LAB_ROOT / "reports" / "class"), help="where class.md, class.csv and learners/*.json go")
    klass.add_argument("--lang", choices=LANGUAGES, default=chosen(), help="language of the table (default: $LAB_LANG, else `make language`'s choice, else en)")
    klass.add_argument("--time-limit", type=float, default=10.0, metavar="SECONDS", help="time one check may take")
    klass.add_argument("--budget", type=float, default=120.0, metavar="SECONDS", help="time one learner's whole run may take")
    klass.add_argument("--jobs", type=int, default=0, help="learners checked at once (default: one per core)")
    klass.add_argument("--no-mutants", action="store_true", help="skip the kill matrix")
    klass.add_argument("--no-bom", action="store_true", help="write class.csv and grades.csv as plain UTF-8, without a byte-order mark")
    klass.add_argument("--regrade-all", action="store_true", help="grade every learner again, even those unchanged since the last run")
    klass.add_argument("--similar", type=float, default=similarity.THRESHOLD, metavar="SHARE",
                       help=f"flag a submission when this share of its own code is found in the reference or a classmate's ({similarity.THRESHOLD})")
    artifact = verbs.add_parser("artifact", help="write an implementation as one importable module")
    artifact.add_argument("--impl", default="steps")
    artifact.add_argument("--out", default=str(LAB_ROOT / "build" / "lease.py"))
    for name, text in {**field.VERBS, **learner.VERBS, **MUTATION}.items():  # listed for --help; parsed where they belong
        verbs.add_parser(name, help=text, add_help=False)
    return parser


def main(argv=None):
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv and argv[0] in field.VERBS:
        return field.main(argv)
    if argv and argv[0] in learner.VERBS:
        return learner.main(argv)
    if argv and argv[0] in MUTATION:
        from lab.mutation.command import main as mutation_report  # the report's modules load only for this verb

        return mutation_report(argv[1:])
    arguments = build_parser().parse_args(argv)
    try:
        if arguments.verb == "artifact":
            return write_artifact(arguments)
        if arguments.verb == "class":
            return run_class(arguments)
        return run_check(arguments)
    except UsageError as error:
        print(error, file=sys.stderr)
        return ExitStatus.USAGE
    except (LabBroken, MutantError) as error:
        print(say("lab_broken", getattr(arguments, "lang", chosen()), error=error), file=sys.stderr)
        return ExitStatus.LAB_BROKEN


def run_check(arguments):
    steps, mutant_steps = parse_steps(arguments.step.strip(), arguments.lang)
    if arguments.credit:  # step N alone: its credit does not depend on the other steps
        steps = mutant_steps
    impl = resolve_impl(arguments.impl, arguments.lang)
    known = None if arguments.credit else keys_before_check(impl)  # make progress reads the course verdicts of the learner's steps/
    if not confinement.available():
        print(say("unconfined", arguments.lang), file=sys.stderr)
    outcome = checking.check(
        impl, steps, () if arguments.no_mutants else mutant_steps, arguments.time_limit, arguments.lang, arguments.impl,
        strict=arguments.strict, budget=arguments.budget, credit_only=arguments.credit,
    )
    outcome.show_all = arguments.show == "all"
    seen = Seen(LAB_ROOT) if known is not None else None  # the learner's own steps/: later runs fold what was seen
    report.render(outcome, arguments.lang, verbose=arguments.verbose, expand=arguments.show == "mutants", seen=seen, yours=impl)
    record_check(known, outcome)
    for path, writer in ((arguments.json, results_json), (arguments.junit, junit), (arguments.exercism, exercism)):
        if path:
            Path(path).parent.mkdir(parents=True, exist_ok=True)
            writer.write(outcome, path)
    return outcome.exit_status


def run_class(arguments):
    root = Path(arguments.dir)
    if not arguments.dir or not root.is_dir():
        raise UsageError(say("command.class_dir", arguments.lang, dir=arguments.dir))
    if classroom.is_one_learner(root):
        raise UsageError(say("class.is_a_learner", arguments.lang, dir=arguments.dir))
    if not confinement.available():  # a class's verdicts must hold against code that cheats
        raise UsageError(say("needs_bubblewrap", arguments.lang))
    if arguments.no_mutants:
        print(say("class.no_predictions", arguments.lang))

    def progress(submission, done, count):
        print(classroom.progress_line(submission, done, count, arguments.lang), flush=True)

    outcome = classroom.check_class(
        root.resolve(), arguments.time_limit, arguments.lang, arguments.budget, arguments.jobs or None, not arguments.no_mutants,
        use_cache=not arguments.regrade_all, on_done=progress, similar=arguments.similar,
    )
    markdown, table = classroom.write(outcome, arguments.out, arguments.lang, bom=not arguments.no_bom)
    for row in classroom.table(outcome, arguments.lang)[1:]:
        print(row[-1])
    if outcome.changes:
        print("\n".join([say("class.changes_heading", arguments.lang), *outcome.changes]))
    elif outcome.changes is not None:
        print(say("class.no_changes", arguments.lang))
    print(f"{markdown}\n{table}\n{Path(arguments.out) / 'grades.csv'}")
    return outcome.exit_status


def write_artifact(arguments):
    implementation = read(resolve_impl(arguments.impl), label=arguments.impl)
    out = Path(arguments.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    if out.resolve() in {f.path.resolve() for f in implementation.files}:
        raise UsageError(say("command.overwrite", out=arguments.out))
    out.write_text(assemble(implementation), encoding="utf-8")
    print(say("command.artifact_written", out=out, label=implementation.label))
    return ExitStatus.ALL_PASS
