"""What decides a check's outcome besides the code under test: the checker's own files.

Every cache of check results (lab.grading.kill_matrix, for the mutants and the learner's code
alike, and lab.grading.predictions) is keyed on checker_digest(), so that an edit to a check, to
the course or to the code that runs the checks computes them again, and an edit to a report or a
command does not. So is whether the children run inside bubblewrap: a verdict of code that ran
unconfined (a learner's machine without it, where code that reads the lab or a classmate's files
can fool only its author) is never reused where the grader confines it.
"""

import ast
import functools
import glob
import os
import sqlite3
import sys
from pathlib import Path

from lab import cache
from lab.model.course import LAB_ROOT
from lab.sandbox import confinement

RUNS_THE_CHECKS = "lab.running.runner"  # with what it imports or starts by name: the child, the recorder


def checker_digest(*runs_too):
    """What decides a check's outcome besides the code under test: the checker_files, the
    versions of Python, SQLite, pytest and Hypothesis, and whether the children run confined."""
    return _digest(tuple(_stamp(path) for path in checker_files(*runs_too)), confinement.available())


@functools.lru_cache(maxsize=16)  # by the files' stamps: a report asks for it once per kill matrix run
def _digest(stamps, confined):
    texts = (f"{path.relative_to(LAB_ROOT)}\0{path.read_text(encoding='utf-8')}" for path, *_ in stamps)
    where = "confined by bubblewrap" if confined else "unconfined"
    return cache.key(*texts, sys.version, sqlite3.sqlite_version, _version("pytest"), _version("hypothesis"), where)


def _version(name):
    """The installed version of the distribution name, read from the name of its .dist-info folder
    on sys.path, where importlib.metadata finds it first; importlib.metadata itself only for another
    layout (an egg, a zip): importing it imports the email package, 50 ms of every check's start."""
    for entry in sys.path:
        found = sorted(glob.glob(os.path.join(glob.escape(entry or "."), f"{name}-[0-9]*.dist-info")))
        if found:
            return os.path.basename(found[0])[len(name) + 1 : -len(".dist-info")]
    from importlib.metadata import version

    return version(name)


def _stamp(path):
    status = path.stat()
    return path, status.st_mtime_ns, status.st_size


def checker_files(*runs_too):
    """course.toml, the checks, and the lab modules that run them: those that lab.running.runner (and any
    module of runs_too) imports or starts, and those the checks import. Not the rest of lab/: a
    report, a command or the cache itself changes no check's outcome."""
    checks = sorted(
        p for p in (LAB_ROOT / "checks").rglob("*") if p.suffix in (".py", ".ini") and "__pycache__" not in p.parts
    )
    return [LAB_ROOT / "course.toml", *checks, *_lab_modules((RUNS_THE_CHECKS, *runs_too), checks)]


def _lab_modules(names, files):
    """The files of the named lab modules and of every lab module that they or files name:
    imported, or a string such as "lab.running.child" (``python -m lab.running.child``), with their packages."""
    todo = [*names, *(name for path in files if path.suffix == ".py" for name in _named(path))]
    found = set()
    while todo:
        path = _module_file(todo.pop())
        if path and path not in found:
            found.add(path)
            todo.extend(_named(path))
    return sorted(found)


def _named(path):
    return _named_in(*_stamp(path))


NAMES = "module-names"  # in the cache store: what a module's text names, by this module's rules
RULES = Path(__file__).read_text(encoding="utf-8")


@functools.lru_cache(maxsize=256)  # by the file's stamp: parsing every module costs 50 ms a key
def _named_in(path, mtime, size):
    """Every lab module name a file mentions: in an import or as a string. Kept in the cache store
    by the file's text: parsing the modules costs each process a quarter of a second, a re-grade
    of an unchanged class a fifth of its time."""
    text = path.read_text(encoding="utf-8")
    key = cache.key(RULES, text)
    kept = cache.get(NAMES, key)
    if kept is None:
        kept = sorted(_names(text))
        cache.set(NAMES, key, kept)
    return set(kept)


def _names(text):
    names = set()
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names.update([node.module, *(f"{node.module}.{alias.name}" for alias in node.names)])
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            names.add(node.value)
    # a module's packages run first: lab.sandbox.remote imports lab/sandbox/__init__.py
    return {
        ".".join(parts[:n])
        for name in names
        if (parts := name.split("."))[0] == "lab"
        for n in range(1, len(parts) + 1)
    }


def _module_file(name):
    path = LAB_ROOT.joinpath(*name.split("."))
    for candidate in (path.with_suffix(".py"), path / "__init__.py"):
        if candidate.is_file():
            return candidate
    return None
