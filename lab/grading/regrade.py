"""Re-grades in seconds: a learner's results are kept in the lab's cache store (lab.cache), keyed
on the submission's own files and on everything of the lab that decides a verdict; an unchanged
submission is not run again, and one changed learner costs one learner.

The key: the text of every step file and prediction file (read with the protections of
lab/model/implementation.py), the checker (lab/grading/checker_digest.py, with the modules that
run the predictions and the credit), the reference, the mutants, and the run's settings (time
limit, budget, mutants on or off). Not the language: every verdict is facts
(lab/model/results.py), worded by the reporters, so a run in another language words the kept
results anew and checks nothing. Results cut short by the budget, and predictions not judged,
are not kept (lab/cache.py refuses them): they depend on the machine's load, not only on the
files.
"""

import hashlib
import os
import re
import stat
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
    integrity check lets cache entries be added during a run, never changed). The store refuses
    results some of which a run ended without (the budget ran out, a prediction's run was lost):
    they depend on the machine's load, not only on the files."""
    if cache.get(NAMESPACE, cache_key) is not None:
        return
    cache.set(
        NAMESPACE,
        cache_key,
        {
            "results": submission.results,
            "credit": {str(n): rs for n, rs in submission.credit.items()},
            "predictions": submission.predictions,
            "seconds": submission.seconds,
            "problem": submission.problem,
        },
    )


def commit_of(impl):
    """The commit a git checkout's HEAD names, read from its files (never by running git, whose
    configuration a learner writes); "" when the submission is no git checkout, or when what its
    files say is no commit id. Every file is read as a learner's must be: a regular file, no link,
    a few kilobytes at most, inside the checkout's own .git folder; so a FIFO, a link or a ref
    naming a file of the grading machine gives "", and the column only ever shows a commit id."""
    for folder in (Path(impl), Path(impl).parent):
        git = folder / ".git"
        if git.is_dir() and not git.is_symlink():
            head = _small_file(git, "HEAD").strip()
            if not head.startswith("ref: "):
                return _commit_id(head)
            ref = head[5:].strip()
            if not REF.fullmatch(ref) or ".." in ref.split("/"):
                return ""
            loose = _small_file(git, ref).strip()
            if loose:
                return _commit_id(loose)
            for line in _small_file(git, "packed-refs", limit=1 << 20).splitlines():
                if line.endswith(" " + ref):
                    return _commit_id(line.split(" ")[0])
            return ""
    return ""


REF = re.compile(r"refs/[A-Za-z0-9._/-]{1,200}")
COMMIT_ID = re.compile(r"[0-9a-f]{40}|[0-9a-f]{64}")


def _commit_id(text):
    return text if COMMIT_ID.fullmatch(text) else ""


def _small_file(git, relative, limit=4096):
    """The text of git/relative when every folder on the way and the file itself is no link and
    the file is a regular one (opened without waiting, so a FIFO is refused, not waited for); ""
    otherwise."""
    place = git
    try:
        for part in relative.split("/")[:-1]:
            place = place / part
            if not stat.S_ISDIR(os.lstat(place).st_mode):
                return ""
        descriptor = os.open(place / relative.split("/")[-1], os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError:
        return ""
    with os.fdopen(descriptor, "rb") as handle:
        if not stat.S_ISREG(os.fstat(handle.fileno()).st_mode):
            return ""
        return handle.read(limit).decode("utf-8", "replace")
    return ""
