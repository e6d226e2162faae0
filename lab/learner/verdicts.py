"""Each step's verdict on the learner's code, cached so that `make progress` answers at once.

A verdict is recorded by every `make check-step` of the learner's steps/ and by `make progress`
when it had to check. Its key is what decides it: the checks and the checker
(lab.grading.checker_digest) and the part of the learner's module that the step's checks
can reach (lab.grading.reach). An edit anywhere the
checks reach changes the key, so a cached verdict is never stale.
"""

from pathlib import Path

from lab import cache
from lab.grading.checker_digest import checker_digest
from lab.grading.reach import relevant_text
from lab.model.course import load_course
from lab.model.defaults import TIME_LIMIT
from lab.model.implementation import assemble, read
from lab.model.results import StepStatus

CACHE_FILE = "verdicts.json"
# The time limit of the learner's last check: the predictions it ran are cached under it.
LAST_CHECK_FILE = "last_check.json"


def keys(steps_dir):
    """step number -> the key of its verdict for the code now in steps_dir."""
    source = assemble(read(steps_dir))
    checker = checker_digest()
    return {
        s.number: cache.key(checker, "verdict", str(s.number), relevant_text(source, (s.number,)))
        for s in load_course()
    }


def summarize(results):
    """A step's verdict from its checks' results: status, counts, the first failing clause."""
    failing = [r for r in results if not r.passed]
    verdict = {
        "count": len(results),
        "passed": len(results) - len(failing),
        "status": StepStatus.PASSED if results and not failing else StepStatus.FAILING,
    }
    if failing:
        first = failing[0]
        verdict.update(clause=(first.clauses or [""])[0], check=first.check, check_status=first.status)
    return verdict


def record(results, steps, steps_dir, store, known=None):
    """Remember the verdicts of `steps` from a run's results (only the current keys are kept)."""
    known = known or keys(steps_dir)
    cache = store.read(CACHE_FILE)
    for number in steps:
        own = [r for r in results if r.step == number]
        if own:
            cache[known[number]] = summarize(own)
    store.write(CACHE_FILE, {k: cache[k] for k in known.values() if k in cache})


def cached(steps_dir, store):
    """(step -> verdict or None, the keys) for the code now in steps_dir."""
    known = keys(steps_dir)
    cache = store.read(CACHE_FILE)
    return {n: cache.get(k) for n, k in known.items()}, known


def keys_before_check(impl_path, store):
    """The keys of the code about to be checked, when it is the learner's own steps/ (else None):
    taken before the run, so that an edit saved during it is never credited with its verdict."""
    steps_dir = store.root / "steps"
    return keys(steps_dir) if Path(impl_path).resolve() == steps_dir.resolve() else None


def record_check(known, outcome, store, time_limit=TIME_LIMIT):
    """After `make check-step N` of the learner's own steps/: remember its steps' verdicts, and the
    time limit it ran with (make progress reads the predictions cached under it)."""
    if known is None:
        return
    try:
        record(outcome.results, outcome.steps, store.root / "steps", store, known)
        store.write(LAST_CHECK_FILE, {"time_limit": float(time_limit)})
    except OSError:  # a read-only checkout: progress will check again, nothing is lost
        pass


def last_time_limit(store):
    """The time limit of the learner's last check of steps/ (the default before the first)."""
    found = store.read(LAST_CHECK_FILE).get("time_limit")
    return float(found) if isinstance(found, (int, float)) and found > 0 else TIME_LIMIT
