"""The mutants' kill matrix: which check catches which mutant, cached between runs.

The matrix depends only on the lab's own files (checks, reference, mutants, checker) and the
versions of the tools, never on the learner's code, so a learner who runs ``make check-step N``
a hundred times pays for it once. The cache key is a digest of all of those inputs: change any
of them and the matrix is computed again.
"""

import hashlib
import json
import os
import sys
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict
from importlib.metadata import version

from lab.course import LAB_ROOT
from lab.runner import Result, run
from lab.targets import Target

CACHE_DIR = LAB_ROOT / "build" / "kill-matrix"
INPUTS = ("course.toml", "checks/**/*.py", "checks/pytest.ini", "solutions/**/*.py", "mutants/*.toml", "lab/*.py")


def fingerprint(mutants, time_limit, lang):
    digest = hashlib.sha256()
    for pattern in INPUTS:
        for path in sorted(LAB_ROOT.glob(pattern)):
            digest.update(str(path.relative_to(LAB_ROOT)).encode() + b"\0" + path.read_bytes() + b"\0")
    tools = [sys.version, version("pytest"), version("hypothesis")]
    digest.update(json.dumps([[m.id for m in mutants], time_limit, lang, tools]).encode())
    return digest.hexdigest()[:24]


def results(mutants, time_limit=10.0, lang="en", use_cache=True):
    """(results of every check against every mutant of its step, whether they came from the cache)."""
    if not mutants:
        return [], False
    cached = CACHE_DIR / f"{fingerprint(mutants, time_limit, lang)}.json"
    if use_cache and cached.exists():
        return [Result(**r) for r in json.loads(cached.read_text(encoding="utf-8"))], True
    fresh = _run_in_parallel(mutants, time_limit, lang)
    CACHE_DIR.mkdir(parents=True, exist_ok=True)
    partial = cached.with_suffix(".tmp")
    partial.write_text(json.dumps([asdict(r) for r in fresh]), encoding="utf-8")
    partial.replace(cached)  # atomic: two runs at once never read half a file
    return fresh, False


def _run_in_parallel(mutants, time_limit, lang):
    """Split the mutants over one child process per core; keep the mutants' order in the result."""
    shares = max(1, min(os.cpu_count() or 1, len(mutants)))
    chunks = [mutants[i::shares] for i in range(shares)]
    with ThreadPoolExecutor(shares) as pool:
        runs = pool.map(lambda chunk: run([Target(m.id, (m.step,), mutant=m.id) for m in chunk], time_limit, lang), chunks)
        by_target = {}
        for result in (r for chunk in runs for r in chunk):
            by_target.setdefault(result.target, []).append(result)
    return [r for m in mutants for r in by_target.get(m.id, [])]
