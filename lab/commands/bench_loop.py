"""`python -m lab bench-loop`: the learner's loop timed on this machine, each figure a ratio to a
warm `make check-step 1` (lab/dev/loop_bench.py says how)."""

import sys

from lab.commands import options

NAME = "bench-loop"
MAKE_TARGETS = ("bench-loop",)
EARLIER = 4  # claim: the generated checks of steps 4-8 and the races reach it


def add_arguments(parser):
    options.lang(parser)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--no-fresh-clone", action="store_true")
    parser.add_argument("--json", metavar="FILE")
    parser.add_argument("--step", default="")
    parser.add_argument("--earlier", default=str(EARLIER))
    options.no_mutants(parser)


def run(arguments, settings):
    from pathlib import Path

    from lab.commands.numbers import positive
    from lab.commands.steps import one_step
    from lab.dev import loop_bench, loop_report
    from lab.model.course import load_course
    from lab.model.status import ExitStatus
    from lab.text.messages import words_of

    words = words_of("loop", settings.lang)
    positive(arguments.repeat, "--repeat", settings.lang)
    step = one_step(arguments.step or str(len(load_course())), NAME, settings.lang)
    earlier = one_step(arguments.earlier, NAME, settings.lang)
    plan = loop_bench.Plan(
        step=step.number,
        earlier=earlier.number,
        repetitions=arguments.repeat,
        fresh_clone=not arguments.no_fresh_clone,
        check_flags=("--no-mutants",) if arguments.no_mutants else (),
    )
    names = loop_report.row_names(plan, settings.lang)

    def progress(kind, repetition, seconds):
        print(words("measured", name=names[kind], repetition=repetition + 1, seconds=seconds), flush=True)

    try:
        figures = loop_bench.measure(plan, settings.root, progress)
    except loop_bench.BenchFailed as error:
        print(words("failed", error=error), file=sys.stderr)
        return ExitStatus.SOME_FAIL
    loop_report.render(figures, plan, settings.lang)
    if arguments.json:
        loop_report.write(figures, plan, Path(arguments.json))
        print(words("wrote", path=arguments.json))
    return ExitStatus.ALL_PASS
