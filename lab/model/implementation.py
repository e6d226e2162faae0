"""An implementation of the course's functions, and how to turn it into a module.

An implementation is either a steps-like folder (``NN-name/step.py`` for each step of the
course) or a single ``.py`` file that defines the functions. A folder's files are executed one
after the other into one shared namespace, in course order, so that a later step can call an
earlier step's function by its bare name, just as in the assembled artifact.
"""

from __future__ import annotations

import ast
import os
import types
from dataclasses import dataclass, field, replace
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING

from lab.model.course import load_course
from lab.model.results import Words
from lab.text.messages import say

if TYPE_CHECKING:
    from collections.abc import Collection, Iterator, Mapping

    from lab.model.results import Text

STEP_FILE = "step.py"
SHOWN_FROM = "LEASE_LAB_SHOWN_FROM"  # the folder paths are shown relative to, in a child process


class UsageError(Exception):
    """The command line named something that cannot be checked."""


@dataclass(frozen=True)
class SourceFile:
    """One file of an implementation: the steps it serves, where it lives, and its text."""

    steps: tuple[int, ...]
    path: Path
    text: str | None  # None: the file is missing, or refused
    refused: str | None = None  # why it was not read: a key of lab/text/messages.py


@dataclass(frozen=True)
class Implementation:
    label: str
    files: tuple[SourceFile, ...]

    def file_for(self, step_number: int) -> SourceFile:
        return next(f for f in self.files if step_number in f.steps)

    def with_text(self, step_number: int, text: str, label: str) -> Implementation:
        """A copy in which the file serving step_number reads text instead."""
        files = tuple(replace(f, text=text) if step_number in f.steps else f for f in self.files)
        return Implementation(label, files)


@dataclass
class LoadedImplementation:
    """The module built from an implementation, and what went wrong per step while building it."""

    module: types.ModuleType
    problems: dict[int, Text] = field(default_factory=dict)  # step number -> message


def display_path(path: str | os.PathLike[str]) -> str:
    """A path as the learner would type it: relative to the current folder when inside it (links
    kept: a linked file is named where the learner put it, not where it points)."""
    try:
        return str(Path(os.path.abspath(path)).relative_to(os.environ.get(SHOWN_FROM) or Path.cwd()))
    except ValueError:
        return str(path)


def read(path: str | os.PathLike[str], label: str | None = None, lang: str = "en") -> Implementation:
    """Read the implementation at path: a steps-like folder or a single .py file."""
    path = Path(path)
    course = load_course()
    label = label or display_path(path)
    if path.is_dir():
        files = [source_file((step.number,), path / step.dir / STEP_FILE, [path, path / step.dir]) for step in course]
        if all(f.text is None and not f.refused for f in files):
            raise UsageError(say("no_step_files", lang, label=label, example=f"{course[0].dir}/{STEP_FILE}"))
        return Implementation(label, tuple(files))
    if path.suffix == ".py" and (path.is_file() or path.is_symlink()):
        return Implementation(label, (source_file(tuple(s.number for s in course), path, []),))
    raise UsageError(say("no_such_impl", lang, label=label))


MAX_FILE = 1 << 20  # bytes of one step file


def source_file(steps: tuple[int, ...], file: Path, folders: list[Path]) -> SourceFile:
    """One step file, read as Python reads a source file (a UTF-8 BOM and CRLF line ends are
    fine); refused when it or a folder on its way is a symbolic link, when it is not a regular
    file (a FIFO would block the read), or when it is larger than MAX_FILE."""
    if any(part.is_symlink() for part in (*folders, file)):
        return SourceFile(steps, file, None, "refused_link")
    if not file.exists():
        return SourceFile(steps, file, None)
    if not file.is_file():
        return SourceFile(steps, file, None, "refused_not_file")
    with open(file, "rb") as handle:
        data = handle.read(MAX_FILE + 1)
    if len(data) > MAX_FILE:
        return SourceFile(steps, file, None, "refused_too_big")
    return SourceFile(steps, file, data.decode("utf-8-sig", errors="replace"))


def load(
    implementation: Implementation, module_name: str = "lease", known: Mapping[int, Text] | None = None
) -> LoadedImplementation:
    """Execute the implementation's files into one fresh module, collecting per-step problems
    (facts, lab/model/results.py: worded by whoever reports them).

    A file that does not compile or raises while it runs marks the steps it serves; the files
    after it still load, so that a broken step 5 does not hide a working step 4. `known` maps a
    step to a problem found beforehand (a file that hangs or ends the process when it runs, see
    lab/running/probe.py): such a file is not run again. A file that serves no step stands in for
    the steps that went wrong before it (standing_in).
    """
    known = known or {}
    module = types.ModuleType(module_name)
    loaded, stood_in = LoadedImplementation(module), set()
    for file in implementation.files:
        shown = display_path(file.path)
        problem = next((known[n] for n in file.steps if n in known), None)
        if problem is None and file.text is not None:
            problem = execute(file.text, str(file.path), shown, module)
        elif problem is None:
            problem = Words(file.refused or "missing", file=shown, limit=MAX_FILE >> 20)
        for number in file.steps:
            function = load_course()[number - 1].function
            if problem:
                loaded.problems[number] = problem
            elif not callable(getattr(module, function, None)):
                loaded.problems[number] = Words("defines_no", file=shown, function=function)
        if not file.steps and not problem and file.text is not None:
            stood_in |= standing_in(loaded.problems, defined_by(file.text))
    for number in stood_in:
        loaded.problems.pop(number, None)
    return loaded


def standing_in(problems: Collection[int], defined: Collection[str]) -> set[int]:
    """The steps of problems whose functions a file that serves no step defines: the reference's,
    standing in for them in a credit target (lab/grading/credit.py). Such a step has no problem:
    its file went wrong, but a check of another step that calls its function runs. A function
    the learner's broken file defined before it went wrong stands in for nothing: a credit
    target's own step has no reference file, and its broken file costs it its credit."""
    return {number for number in problems if load_course()[number - 1].function in defined}


def defined_by(text: str) -> set[str]:
    """The functions a file of the lab's own reference defines at its top level."""
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return set()
    return {node.name for node in tree.body if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)}


def execute(text: str, filename: str, shown: str, module: types.ModuleType) -> Words | None:
    """Run one file's text into module; a message naming the file and line if that fails."""
    try:
        code = _compiled(text, filename)
    except SyntaxError as error:
        return Words("syntax", file=shown, line=error.lineno, kind=type(error).__name__, error=error.msg)
    try:
        exec(code, module.__dict__)
    except BaseException as error:
        if type(error).__name__ == "CheckTimeout":
            raise
        line = _line_in(error, filename)
        where = Words("where", line=line) if line else ""
        return Words("raised", file=shown, where=where, kind=type(error).__name__, error=error)
    return None


@cache
def _compiled(text: str, filename: str) -> types.CodeType:
    """Every check loads its module afresh; compiling each file once per process is enough."""
    return compile(text, filename, "exec")


def _line_in(error: BaseException, filename: str) -> int | None:
    lines = [frame.tb_lineno for frame in _frames(error.__traceback__) if frame.tb_frame.f_code.co_filename == filename]
    return lines[-1] if lines else None


def _frames(traceback: types.TracebackType | None) -> Iterator[types.TracebackType]:
    while traceback is not None:
        yield traceback
        traceback = traceback.tb_next


def assemble(implementation: Implementation) -> str:
    """The implementation as the text of one importable module (the artifact)."""
    return "".join(header + body for _, header, body in _pieces(implementation))


def placed_files(implementation: Implementation) -> list[tuple[SourceFile, int]]:
    """Where each file that was read lies in assemble()'s module: (SourceFile, the module's line
    that holds the file's line 1), so that a report on the module can name the file's own lines."""
    placed: list[tuple[SourceFile, int]] = []
    line = 1
    for file, header, body in _pieces(implementation):
        line += header.count("\n")
        if file is not None and file.text is not None:
            placed.append((file, line))
        line += body.count("\n")
    return placed


def _pieces(implementation: Implementation) -> list[tuple[SourceFile | None, str, str]]:
    """(the file or None, the lines the module puts before it, its text) in the module's order."""
    if len(implementation.files) == 1:  # one file, whose text stands alone (a comment when it was not read)
        only = implementation.files[0]
        return [(only, "", only.text if only.text is not None else f"# {only.path.name} is missing\n")]
    course = load_course()
    pieces: list[tuple[SourceFile | None, str, str]]
    pieces = [(None, f'"""The lease and fencing-token artifact, assembled from {implementation.label}."""\n', "")]
    for file in implementation.files:
        step = course[file.steps[0] - 1]
        body = file.text if file.text is not None else f"# {step.dir}/{STEP_FILE} is missing\n"
        pieces.append((file, f"\n# ---- step {step.number}: {step.function} ({step.dir}/{STEP_FILE}) ----\n", body))
    return pieces
