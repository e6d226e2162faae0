"""The kill matrix: which check kills which mutant, for the pre-built mutants and mutmut's alike.

A mutant is a Job: a target of the runner and the text of the module its checks import. A
pre-built mutant is the reference with its one change, checked by its step
(``Target(id, (step,), mutant=id)``); a mutmut mutant is a module that lab/mutation/matrix.py
stages (``Target(id, steps, module=name)``). Both run through lab.running.runner.run, in one child process
per core.

Each mutant's results are kept in the lab's cache store (lab.cache), keyed on what decides them:
the part of its text that its steps' checks can reach (lab.mutation.reach), the checker
(checker_digest), its id, steps and the time limit. Not the language, and no messages are kept
(no report shows a mutant's): ``make check`` reuses what ``make check-step N`` computed,
``LAB_LANG=ja`` what English did, the mutation report what ``make check`` did, and an edit to one
function of the reference recomputes only the mutants whose checks reach it.
"""

import ast
import functools
import os
import sys
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, replace
from importlib.metadata import version

from lab import cache
from lab.model.course import LAB_ROOT
from lab.model.implementation import assemble, read
from lab.model.mutants import SOLUTIONS_DIR, apply
from lab.mutation.reach import relevant_text
from lab.running.runner import Result, run
from lab.model.targets import Target

NAMESPACE = "kill-matrix"
RUNS_THE_CHECKS = "lab.running.runner"  # with what it imports or starts by name: the child, the recorder


@dataclass(frozen=True)
class Job:
    target: Target
    text: str  # the module under test as one file: what the target's checks import


def prebuilt(mutants):
    """The jobs of pre-built mutants, each checked by its own step. A mutant that does not apply
    at exactly one place raises MutantError, naming its file."""
    reference = read(SOLUTIONS_DIR, label="solutions")
    return [Job(Target(m.id, (m.step,), mutant=m.id), assemble(apply(m, reference))) for m in mutants]


def results(jobs, time_limit=10.0, lang="en", use_cache=True):
    """(every job's results, in the jobs' order; how many jobs ran): the others came from the cache."""
    keys = _keys(jobs, time_limit)
    found = cached(jobs, time_limit, keys) if use_cache else {}
    missing = [job.target for job in jobs if job.target.id not in found]
    for target_id, own in _run_in_parallel(missing, time_limit, lang).items():
        found[target_id] = own
        cache.set(NAMESPACE, keys[target_id], [asdict(r) for r in own])
    return [r for job in jobs for r in found[job.target.id]], len(missing)


def cached(jobs, time_limit=10.0, keys=None):
    """{target id: its results} of the jobs that would not run (see results)."""
    keys = keys or _keys(jobs, time_limit)
    found = {}
    for target_id, key in keys.items():
        stored = cache.get(NAMESPACE, key)
        try:
            found[target_id] = [Result(**r) for r in stored]
        except TypeError:  # not there, or written by another version of Result
            continue
    return found


def killed_by(results):
    """The names of the checks that fail against a mutant, each once, in the order they ran."""
    return list(dict.fromkeys(r.check for r in results if r.status != "passed"))


def _keys(jobs, time_limit):
    checker = checker_digest()
    return {
        job.target.id: cache.key(checker, job.target.id, repr(job.target.steps), str(float(time_limit)), relevant_text(job.text, job.target.steps))
        for job in jobs
    }


def _run_in_parallel(targets, time_limit, lang):
    """{target id: its results}, every target split over one child process per core. The
    messages and durations are left out: they vary with the language and the machine."""
    shares = max(1, min(os.cpu_count() or 1, len(targets)))
    chunks = [targets[i::shares] for i in range(shares) if targets[i::shares]]
    found = {target.id: [] for target in targets}
    with ThreadPoolExecutor(max(1, len(chunks))) as pool:
        for part in pool.map(lambda chunk: run(chunk, time_limit, lang), chunks):
            for result in part:
                found[result.target].append(replace(result, message="", duration=0.0))
    return found


def checker_digest(*runs_too):
    """What decides a check's outcome besides the code under test: the checker_files and the
    versions of Python, pytest and Hypothesis."""
    texts = (f"{p.relative_to(LAB_ROOT)}\0{p.read_text(encoding='utf-8')}" for p in checker_files(*runs_too))
    return cache.key(*texts, sys.version, version("pytest"), version("hypothesis"))


def checker_files(*runs_too):
    """course.toml, the checks, and the lab modules that run them: those that lab.running.runner (and any
    module of runs_too) imports or starts, and those the checks import. Not the rest of lab/: a
    report, a command or the cache itself changes no check's outcome."""
    checks = sorted(p for p in (LAB_ROOT / "checks").rglob("*") if p.suffix in (".py", ".ini") and "__pycache__" not in p.parts)
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
    status = path.stat()
    return _named_in(path, status.st_mtime_ns, status.st_size)


@functools.lru_cache(maxsize=256)  # by the file's stamp: parsing every module costs 50 ms a key
def _named_in(path, mtime, size):
    """Every lab module name a file mentions: in an import or as a string."""
    names = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names.update([node.module, *(f"{node.module}.{alias.name}" for alias in node.names)])
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            names.add(node.value)
    # a module's packages run first: lab.sandbox.remote imports lab/sandbox/__init__.py
    return {".".join(parts[:n]) for name in names if (parts := name.split("."))[0] == "lab" for n in range(1, len(parts) + 1)}


def _module_file(name):
    path = LAB_ROOT.joinpath(*name.split("."))
    for candidate in (path.with_suffix(".py"), path / "__init__.py"):
        if candidate.is_file():
            return candidate
    return None
