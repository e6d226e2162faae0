"""Re-grades in seconds: a learner's results are kept in the lab's cache store (lab.cache), keyed
on the submission's own files and on everything of the lab that decides a verdict; an unchanged
submission is not run again, and one changed learner costs one learner.

The key: the text of every step file and prediction file (read with the protections of
lab/model/implementation.py), the checker (lab/grading/checker_digest.py, with the modules that
run the predictions and the credit), the reference, the mutants, and the run's settings (time
limit, budget, language, mutants on or off). Results cut short by the budget are not kept: they
depend on the machine's load, not only on the files.
"""

import hashlib
from pathlib import Path

from lab import cache
from lab.grading import predictions
from lab.grading.checker_digest import checker_digest
from lab.model.course import load_course
from lab.model.implementation import assemble, read
from lab.model.mutants import MUTANTS_DIR, SOLUTIONS_DIR
from lab.model.results import Prediction, Result

NAMESPACE = "class-results"


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
    stored = cache.get(NAMESPACE, cache_key)
    if stored is None:
        return False
    submission.results = [Result(**r) for r in stored["results"]]
    submission.credit = {int(n): [Result(**r) for r in rs] for n, rs in stored["credit"].items()}
    submission.predictions = None if stored["predictions"] is None else [Prediction(**p) for p in stored["predictions"]]
    submission.seconds, submission.problem = stored["seconds"], stored["problem"]
    return True


def keep(submission, cache_key):
    """Store a learner's results; an entry already there is left as it is (the class run's
    integrity check lets cache entries be added during a run, never changed)."""
    if cache.get(NAMESPACE, cache_key) is not None:
        return
    cache.set(
        NAMESPACE,
        cache_key,
        {
            "results": [r.as_json() for r in submission.results],
            "credit": {str(n): [r.as_json() for r in rs] for n, rs in submission.credit.items()},
            "predictions": None if submission.predictions is None else [p.as_json() for p in submission.predictions],
            "seconds": submission.seconds,
            "problem": submission.problem,
        },
    )


def commit_of(impl):
    """The commit a git checkout's HEAD names, read from its files (never by running git, whose
    configuration a learner writes); "" when the submission is no git checkout."""
    for folder in (Path(impl), Path(impl).parent):
        git = folder / ".git"
        if git.is_dir() and not git.is_symlink():
            try:
                head = (git / "HEAD").read_text(encoding="utf-8", errors="replace").strip()[:300]
                if not head.startswith("ref: "):
                    return head[:40]
                ref = head[5:].strip()
                loose = git / ref
                if loose.is_file() and not loose.is_symlink() and ".." not in ref:
                    return loose.read_text(encoding="utf-8", errors="replace").strip()[:40]
                packed = git / "packed-refs"
                for line in (
                    packed.read_text(encoding="utf-8", errors="replace").splitlines() if packed.is_file() else ()
                ):
                    if line.endswith(" " + ref):
                        return line.split(" ")[0][:40]
            except OSError:
                return ""
    return ""
