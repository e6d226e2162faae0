"""The kill matrix: every mutant through the checker's own runner, to learn which checks kill it.

mutmut records only whether a mutant was killed. Here each mutmut mutant becomes a whole
module file in the stage, imported by the checks as a module target; all of them and the
pre-built mutants run in one child process per core (lab.runner.run). Results are cached in the
stage by the text of the checks, the checker and the part of the mutant that its checks can reach
(lab.mutation.reach), so a re-run only runs the mutants whose reachable code changed.
"""

import functools
import hashlib
import json
import os
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import asdict
from pathlib import Path

from lab.course import LAB_ROOT
from lab.implementation import assemble
from lab.mutants import apply, load_mutants
from lab.mutation.reach import relevant_text
from lab.runner import Result, run
from lab.targets import Target

CACHE_FILE = "matrix-cache.json"
CHILDREN = max(1, min(4, os.cpu_count() or 1))
MATRIX_DIR = "matrix"


def module_name(variant_name):
    """lease.x_claim__mutmut_19 -> lease_x_claim__mutmut_19, a name Python can import."""
    return variant_name.replace(".", "_")


def kill_matrix(jobs, stage_dir, time_limit=10.0, forget_others=True):
    """Results per target id, and how many ran (not cached).

    jobs: (target id, steps, module text or None, pre-built mutant id or None). With
    forget_others, cached results of mutants whose id is not among the jobs are dropped (they no
    longer exist).
    """
    stage_dir = Path(stage_dir)
    folder = stage_dir / MATRIX_DIR
    folder.mkdir(exist_ok=True)
    cache_path = stage_dir / CACHE_FILE
    cache = json.loads(cache_path.read_text(encoding="utf-8")) if cache_path.exists() else {}
    before = len(cache) if cache_path.exists() else -1
    checker = checker_digest()
    keys, targets = {}, []
    for target_id, steps, text, prebuilt in jobs:
        keys[target_id] = _key(checker, target_id, steps, text, prebuilt)
        if keys[target_id] in cache:
            continue
        if prebuilt:
            targets.append(Target(target_id, tuple(steps), mutant=prebuilt))
        else:
            name = module_name(target_id)
            path = folder / f"{name}.py"
            if not path.exists() or path.read_text(encoding="utf-8") != text:
                path.write_text(text, encoding="utf-8")
            targets.append(Target(target_id, tuple(steps), module=name))
    if targets:
        # One child process per core, each with every n-th target.
        chunks = [targets[i::CHILDREN] for i in range(CHILDREN) if targets[i::CHILDREN]]
        with _importable(folder), ThreadPoolExecutor(max_workers=len(chunks)) as pool:
            parts = pool.map(lambda chunk: run(chunk, time_limit=time_limit), chunks)
            fresh = [result for part in parts for result in part]
        by_target = {}
        for result in fresh:
            by_target.setdefault(result.target, []).append(asdict(result))
        for target in targets:
            cache[keys[target.id]] = {"target": target.id, "results": by_target.get(target.id, [])}
    if forget_others:
        cache = {key: entry for key, entry in cache.items() if entry["target"] in keys}
    if targets or len(cache) != before:  # unchanged otherwise: writing it costs a quarter second
        cache_path.write_text(json.dumps(cache, sort_keys=True, indent=0), encoding="utf-8")
    return {target_id: [Result(**r) for r in cache[key]["results"]] for target_id, key in keys.items()}, len(targets)


def peek(jobs, stage_dir):
    """The cached results of those jobs that would not run (see kill_matrix), per target id."""
    cache_path = Path(stage_dir) / CACHE_FILE
    cache = json.loads(cache_path.read_text(encoding="utf-8")) if cache_path.exists() else {}
    checker = checker_digest()
    found = {}
    for target_id, steps, text, prebuilt in jobs:
        entry = cache.get(_key(checker, target_id, steps, text, prebuilt))
        if entry is not None:
            found[target_id] = [Result(**r) for r in entry["results"]]
    return found


def _key(checker, target_id, steps, text, prebuilt):
    steps = tuple(steps)
    return digest(checker, target_id, repr(steps), relevant_text(text, steps), _prebuilt_text(prebuilt, steps))


@contextmanager
def _importable(folder):
    """The runner's child inherits PYTHONPATH: put the mutant modules on it for this run only."""
    before = os.environ.get("PYTHONPATH")
    os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [str(folder.resolve()), before]))
    try:
        yield
    finally:
        if before is None:
            del os.environ["PYTHONPATH"]
        else:
            os.environ["PYTHONPATH"] = before


@functools.cache
def _prebuilt_text(mutant_id, steps):
    """A pre-built mutant's whole text (the reference with its change), as far as its checks reach."""
    if not mutant_id:
        return ""
    return relevant_text(assemble(apply(_prebuilt()[mutant_id])), steps)


@functools.cache
def _prebuilt():
    """The pre-built mutants by id: load_mutants() reads and parses every file on each call."""
    return {m.id: m for m in load_mutants()}


def checker_digest():
    """What decides a check's outcome besides the code under test: the checks and the checker."""
    files = sorted((LAB_ROOT / "checks").glob("*.py")) + sorted((LAB_ROOT / "checks").glob("*.ini"))
    files += sorted((LAB_ROOT / "lab").glob("*.py")) + sorted((LAB_ROOT / "lab" / "sandbox").glob("*.py")) + [LAB_ROOT / "course.toml"]
    return digest(*(f"{p.name}\0{p.read_text(encoding='utf-8')}" for p in files))


def digest(*parts):
    hashed = hashlib.sha256()
    for part in parts:
        hashed.update(part.encode("utf-8") + b"\0\1")
    return hashed.hexdigest()


def killed_by(results):
    """The names of the checks that fail against a mutant, sorted: the ones that kill it."""
    return sorted({r.check for r in results if r.status != "passed"})
