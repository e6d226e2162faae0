"""Re-grades in seconds: a learner's results are kept in the lab's cache store (lab.cache), keyed
on the submission's own files and on everything of the lab that decides a verdict; an unchanged
submission is not run again, and one changed learner costs one learner.

The key: the text of every step file and prediction file (read with the protections of
lab/model/implementation.py), the checker (lab/grading/checker_digest.py, with the modules that
run the predictions and the credit), the reference, the mutants, and the run's settings (time
limit, budget, mutants on or off). Not the language: every verdict is facts
(lab/model/results.py), worded by the reporters, so a run in another language words the kept
results anew and checks nothing.

A learner whose run the budget cut short is kept too, under a namespace of its own that only
class runs read (CUT_SHORT): the cache store refuses such results for everything else, for which
checks ran before the cut is the machine's, not only the files'. For a class that is the verdict
the grading gave, and the instructor's table should not change, nor a re-grade re-run the
learner's endless loop, while nothing they handed in changed; `--regrade-all` checks them again.
A run that lost a child (a prediction's run ended without its results) is never kept: it is
looked for again on the next run.
"""

import hashlib
import json

from lab import cache
from lab.grading import predictions
from lab.grading.checker_digest import checker_digest
from lab.model.course import load_course
from lab.model.implementation import assemble, read
from lab.model.mutants import MUTANTS_DIR, SOLUTIONS_DIR
from lab.model.results import Prediction, Result

NAMESPACE = "class-results"
CUT_SHORT = "class-results-cut-short"  # a learner whose run the budget cut short: class runs only


def submission_digest(impl):
    """A digest of what the grader reads of a submission: its step files and its predictions."""
    hashed = hashlib.sha256()
    for file in read(impl).files:
        hashed.update(f"{file.path.name}\0{file.text}\0{file.refused}\1".encode("utf-8", "surrogatepass"))
    for step in load_course():
        _, text, refused = predictions.read_prediction(impl, step)
        hashed.update(f"{step.dir}\0{text}\0{refused}\1".encode("utf-8", "surrogatepass"))
    return hashed.hexdigest()[:16]


def lab_digest():
    """What decides a verdict besides the submission: the checker, the reference, the mutants."""
    mutants = sorted(MUTANTS_DIR.glob("*.toml"))
    return cache.key(
        checker_digest("lab.running.prediction_plugin", "lab.grading.predictions", "lab.grading.credit"),
        assemble(read(SOLUTIONS_DIR, label="solutions")),
        *(f"{path.name}\0{path.read_text(encoding='utf-8')}" for path in mutants),
    )


def key(lab, digest, settings):
    return cache.key(lab, digest, *map(str, settings))


def load(submission, cache_key):
    """Fill in a submission from the store; False when it was never graded with this key."""
    stored = cache.get(NAMESPACE, cache_key) or cache.get(CUT_SHORT, cache_key)
    if stored is None:
        return False
    submission.results = [Result(**r) for r in stored["results"]]
    submission.credit = {int(n): [Result(**r) for r in rs] for n, rs in stored["credit"].items()}
    submission.predictions = None if stored["predictions"] is None else [Prediction(**p) for p in stored["predictions"]]
    submission.seconds, submission.problem = stored["seconds"], stored["problem"]
    return True


def keep(submission, cache_key):
    """Store a learner's results; an entry already there is left as it is (the class run's
    integrity check lets cache entries be added during a run, never changed). The store refuses
    results some of which a run ended without; those the budget alone cut short are kept under
    CUT_SHORT, as facts, and a run that lost a child is not kept at all."""
    if cache.get(NAMESPACE, cache_key) is not None or cache.get(CUT_SHORT, cache_key) is not None:
        return
    value = {
        "results": submission.results,
        "credit": {str(n): rs for n, rs in submission.credit.items()},
        "predictions": submission.predictions,
        "seconds": submission.seconds,
        "problem": submission.problem,
    }
    if not cache.set(NAMESPACE, cache_key, value) and cut_short_by_the_budget_alone(submission):
        cache.set(CUT_SHORT, cache_key, json.loads(json.dumps(value, default=lambda result: result.as_json())))


def cut_short_by_the_budget_alone(submission):
    """Every verdict the learner's run ended without, of a check or a prediction, was cut short by
    the budget (its message says so), not lost with a child."""
    ended_without = [
        r
        for r in (
            *submission.results,
            *(r for rs in submission.credit.values() for r in rs),
            *(submission.predictions or []),
        )
        if not r.complete
    ]
    return bool(ended_without) and all(getattr(r.message, "key", None) == "budget" for r in ended_without)
