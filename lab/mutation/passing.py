"""Which steps of an implementation pass every check: mutmut needs checks that pass.

Running every check of every step costs seconds, and a re-run after an edit to one function
would pay it again for steps whose code did not change. So each step's verdict is cached in the
stage, keyed like the kill matrix's: the checks, the checker, and the part of the module that the
step's checks can reach (lab.mutation.reach). Only the steps whose key changed run again.
"""

import json

from lab.course import load_course
from lab.mutation import matrix
from lab.mutation.reach import relevant_text
from lab.runner import run
from lab.targets import Target

CACHE_FILE = "passing-cache.json"


def passing_steps(impl, label, source, stage_dir, progress):
    """Steps 1..k, the longest run from step 1 on which every check passes."""
    every = tuple(step.number for step in load_course())
    checker = matrix.checker_digest()
    keys = {n: matrix.digest(checker, "passing", str(n), relevant_text(source, (n,))) for n in every}
    cache_path = stage_dir / CACHE_FILE
    cache = json.loads(cache_path.read_text(encoding="utf-8")) if cache_path.exists() else {}
    to_run = tuple(n for n in every if keys[n] not in cache)
    if to_run:
        progress(f"checking {label} first (steps {', '.join(map(str, to_run))}): mutmut needs checks that pass ...")
        results = run([Target(label, to_run, impl=str(impl))])
        for n in to_run:
            own = [r for r in results if r.step == n]
            cache[keys[n]] = bool(own) and all(r.status == "passed" for r in own)
    stage_dir.mkdir(parents=True, exist_ok=True)
    # only the current steps' verdicts: the file stays one entry per step
    cache_path.write_text(json.dumps({keys[n]: cache[keys[n]] for n in every}, sort_keys=True, indent=0), encoding="utf-8")
    passing = []
    for n in every:
        if not cache[keys[n]]:
            break
        passing.append(n)
    return tuple(passing)
