"""Turn IMPL into an importable module file, import it in any process, and gate on the checks.

The artifact is written next to nothing the learner owns: build/field/ (named after its content,
so concurrent runs never overwrite each other's file) or a run's own temporary folder.
"""

import hashlib
import importlib.util
import os
import sys
from pathlib import Path

from lab.model.course import LAB_ROOT
from lab.model.implementation import assemble, read
from lab.model.status import ExitStatus
from lab.text.messages import words_of

BUILD = LAB_ROOT / "build" / "field"


class ArtifactBroken(Exception):
    """The assembled module does not import, or a function it needs raised unexpectedly."""


def materialize(impl_path, label, folder=None):
    """Write the implementation as one module file in folder (default build/field/); its path."""
    text = assemble(read(impl_path, label=label))
    folder = Path(folder) if folder else BUILD
    folder.mkdir(parents=True, exist_ok=True)
    digest = hashlib.sha256(text.encode("utf-8")).hexdigest()[:12]
    target = folder / f"lease_{digest}.py"
    if not target.exists() or target.read_text(encoding="utf-8") != text:
        scratch = folder / f".{target.name}.{os.getpid()}"
        scratch.write_text(text, encoding="utf-8")
        os.replace(scratch, target)  # another process reading it sees the old or the whole new file
    return target


def import_file(path, lang="en"):
    """Import the module file at path under a name of its own; ArtifactBroken if it fails."""
    path = Path(path)
    name = f"lab_field_{path.stem}"
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    try:
        spec.loader.exec_module(module)
    except BaseException as error:  # noqa: BLE001 - learner code may raise anything while it loads
        raise ArtifactBroken(
            words_of("field", lang)("import_failed", file=path.name, kind=type(error).__name__, error=error)
        ) from None
    sys.modules[name] = module
    return module


def refused(impl_path, label, lang="en"):
    """None when every check of every step passes; otherwise print the report and return SOME_FAIL.

    demo and bench show what the artifact is for, so they only run code the checks accept.
    """
    from lab.grading.check import check, every_step
    from lab.reporters import terminal as report

    outcome = check(impl_path, steps=every_step(), mutant_steps=(), lang=lang, impl_label=label)
    if outcome.exit_status == ExitStatus.ALL_PASS:
        return None
    report.render(outcome, lang)
    print(words_of("field", lang)("gate_refused", impl=label))
    return ExitStatus.SOME_FAIL


def reported(work):
    """work()'s exit status; an ArtifactBroken it raises is one line on stderr and SOME_FAIL."""
    try:
        return work()
    except ArtifactBroken as error:
        print(error, file=sys.stderr)
        return ExitStatus.SOME_FAIL
