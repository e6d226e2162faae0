"""`python -m lab artifact`: write an implementation as one importable module."""

from lab.commands import options
from lab.model.course import LAB_ROOT

NAME = "artifact"
MAKE_TARGETS = ("artifact",)


def add_arguments(parser):
    options.impl(parser)
    parser.add_argument("--out", default=str(LAB_ROOT / "build" / "lease.py"))
    options.lang(parser)


def run(arguments, settings):
    from lab.model.implementation import UsageError, assemble, read
    from lab.model.status import ExitStatus
    from lab.text.messages import say

    implementation = read(settings.impl, label=settings.impl_label)
    out = settings.out
    out.parent.mkdir(parents=True, exist_ok=True)
    if out.resolve() in {f.path.resolve() for f in implementation.files}:
        raise UsageError(say("command.overwrite", settings.lang, out=arguments.out))
    out.write_text(assemble(implementation), encoding="utf-8")
    print(say("command.artifact_written", settings.lang, out=out, label=implementation.label))
    return ExitStatus.ALL_PASS
