"""The mutants' kill matrix: which check catches which mutant, cached between runs.

The matrix depends only on the lab's own files (checks, reference, mutants, checker) and the
versions of the tools, never on the learner's code, so a learner who runs ``make check-step N``
a hundred times pays for it once. The cache key is a digest of all of those inputs: change any
of them and the matrix is computed again.

Each mutant's results are stored on their own, keyed without the language: a verdict is which
checks fail, so ``make check`` reuses what ``make check-step N`` computed, and ``LAB_LANG=ja``
reuses what English computed. Messages are left out for the same reason (no report shows a
mutant's messages).
"""

import hashlib
import json
import os
import sys
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, replace
from importlib.metadata import version

from lab.course import LAB_ROOT
from lab.runner import Result, run
from lab.targets import Target

CACHE_DIR = LAB_ROOT / "build" / "kill-matrix"
INPUTS = ("course.toml", "checks/**/*.py", "checks/pytest.ini", "solutions/**/*.py", "mutants/*.toml", "lab/*.py", "lab/sandbox/*.py")


def fingerprint(mutants, time_limit, lang=None):
    """The lab side of a key: inputs, tools, mutant ids, time limit, and the language if given
    (for cached results whose messages are shown; the kill matrix itself leaves it out)."""
    return _key([m.id for m in mutants], time_limit, _inputs_digest() + (lang or ""))


def _key(mutant_ids, time_limit, inputs):
    digest = hashlib.sha256(inputs.encode())
    digest.update(json.dumps([mutant_ids, time_limit]).encode())
    return digest.hexdigest()[:24]


def _inputs_digest():
    digest = hashlib.sha256()
    for pattern in INPUTS:
        for path in sorted(LAB_ROOT.glob(pattern)):
            digest.update(str(path.relative_to(LAB_ROOT)).encode() + b"\0" + path.read_bytes() + b"\0")
    tools = [sys.version, version("pytest"), version("hypothesis")]
    digest.update(json.dumps(tools).encode())
    return digest.hexdigest()


def results(mutants, time_limit=10.0, lang="en", use_cache=True):
    """(results of every check against every mutant of its step, whether they all came from the cache)."""
    if not mutants:
        return [], False
    inputs = _inputs_digest()
    paths = {m.id: CACHE_DIR / f"{_key([m.id], time_limit, inputs)}.json" for m in mutants}
    stored = {m.id: _load(paths[m.id]) for m in mutants} if use_cache else {}
    missing = [m for m in mutants if stored.get(m.id) is None]
    if missing:
        CACHE_DIR.mkdir(parents=True, exist_ok=True)
        fresh = _run_in_parallel(missing, time_limit, lang)
        for mutant in missing:
            own = [replace(r, message="", duration=0.0) for r in fresh if r.target == mutant.id]
            stored[mutant.id] = own
            partial = paths[mutant.id].with_suffix(f".{os.getpid()}.tmp")
            partial.write_text(json.dumps([asdict(r) for r in own]), encoding="utf-8")
            partial.replace(paths[mutant.id])  # atomic: two runs at once never read half a file
    return [r for m in mutants for r in stored[m.id]], not missing


def _load(path):
    try:
        return [Result(**r) for r in json.loads(path.read_text(encoding="utf-8"))]
    except (OSError, ValueError, TypeError):
        return None


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
