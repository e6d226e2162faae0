"""Each step's verdict on the learner's code, for `make progress`: its checks' results summed up.

The results come through the kill matrix's cache (lab.grading.kill_matrix), as those of
`make check-step` do: each check's results are kept under a key of what it can reach of the
learner's code, so `make progress` reuses what the last check-step found and runs only the checks
whose code changed since (or that run every time: a failed race, a timeout). An edit anywhere a
check reaches changes its key, so a reused verdict is never stale. The time limit is part of
every key: the learner's last check-step remembers the one it ran with, for `make progress` to
find its results and its predictions.
"""

from pathlib import Path

from lab.model.defaults import TIME_LIMIT
from lab.model.results import StepStatus

# The time limit of the learner's last check: its results and predictions are cached under it.
LAST_CHECK_FILE = "last_check.json"


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


def own_steps(impl_path, store):
    """Whether the code checked is the learner's own steps/."""
    return Path(impl_path).resolve() == (store.root / "steps").resolve()


def record_check(store, time_limit=TIME_LIMIT):
    """After `make check-step N` of the learner's own steps/: remember the time limit it ran with."""
    try:
        store.write(LAST_CHECK_FILE, {"time_limit": float(time_limit)})
    except OSError:  # a read-only checkout: progress will check again, nothing is lost
        pass


def last_time_limit(store):
    """The time limit of the learner's last check of steps/ (the default before the first)."""
    found = store.read(LAST_CHECK_FILE).get("time_limit")
    return float(found) if isinstance(found, (int, float)) and found > 0 else TIME_LIMIT
