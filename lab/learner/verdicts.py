"""Each step's verdict on the learner's code, for `make progress`: its checks' results summed up.

The results come through the kill matrix's cache (lab.grading.kill_matrix), as those of
`make check-step` do: each check's results are kept under a key of what it can reach of the
learner's code, so `make progress` reuses what the last check-step found and runs only the checks
whose code changed since (or that run every time: a failed race, a timeout). An edit anywhere a
check reaches changes its key, so a reused verdict is never stale. The time limit is part of
every key: the learner's last check-step remembers the one it ran with, for `make progress` to
find its results and its predictions.

The last check also remembers, for each step it checked, the clauses its failing checks name and a
digest of the code they failed on: `make hint N` starts with the first of them, without running
anything, and knows whether the code has changed since.
"""

from pathlib import Path

from lab import cache
from lab.model.course import load_course
from lab.model.defaults import TIME_LIMIT
from lab.model.failing import failing_clauses
from lab.model.implementation import STEP_FILE
from lab.model.results import StepStatus

# The learner's last check: the time limit its results and predictions are cached under, and the
# clauses each step it checked fails at.
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


def record_check(store, time_limit=TIME_LIMIT, results=(), steps=()):
    """After `make check-step N` of the learner's own steps/: remember the time limit it ran with,
    and the clauses each of `steps` fails at in `results` (the steps it did not check keep theirs)."""
    failing = _failing(store)
    for number in steps:
        failing[str(number)] = {"clauses": failing_clauses(results, number), "code": _code(store, number)}
    try:
        store.write(LAST_CHECK_FILE, {"time_limit": float(time_limit), "failing": failing})
    except OSError:  # a read-only checkout: progress will check again, nothing is lost
        pass


def last_failing(store, number):
    """(the clauses step `number` failed at in the last check of steps/, whether the code is still
    the code they failed on); no clauses when that check found none, or no check took the step."""
    found = _failing(store).get(str(number))
    if not isinstance(found, dict) or not isinstance(found.get("clauses"), list):
        return [], True
    return [c for c in found["clauses"] if isinstance(c, str)], found.get("code") == _code(store, number)


def _failing(store):
    found = store.read(LAST_CHECK_FILE).get("failing")
    return found if isinstance(found, dict) else {}


def _code(store, number):
    """A digest of the learner's files of steps 1..number: what that step's checks can reach."""
    texts = []
    for step in load_course()[:number]:
        try:
            texts.append((store.root / "steps" / step.dir / STEP_FILE).read_text(encoding="utf-8", errors="replace"))
        except OSError:
            texts.append("")
    return cache.key("failing", *texts)


def last_time_limit(store):
    """The time limit of the learner's last check of steps/ (the default before the first)."""
    found = store.read(LAST_CHECK_FILE).get("time_limit")
    return float(found) if isinstance(found, (int, float)) and found > 0 else TIME_LIMIT
