"""The learner's predictions: one small pytest test per step, run against the reference and the
step's mutants, never against the learner's own code and never among the lab's own checks.

A prediction is ``def test_my_prediction(lease, db):`` in ``NN-name/prediction.py`` of the
learner's steps folder. It runs in child processes through lab/running/runner.py, exactly as the checks
do, with its own pytest plugin (lab/running/prediction_plugin.py) that gives it the checks' fixtures. It
catches a mutant when it passes on the reference and fails on the mutant; failing on the
reference is "rejects correct code"; one that never got to run a line of its test against it
(its file does not compile or import, takes no `lease`, asks for a fixture there is not, or is
refused as a step file would be) "could not run". A run that ended without the prediction's
results (lost twice, or cut short by the budget: lab/running/runner.py) is no verdict: the prediction is "not
judged", counted neither as right nor as wrong, and runs again next time. Its verdicts depend
only on its text and the lab's files, so they are kept in the lab's cache store (lab.cache),
keyed on both; the store never keeps a prediction not judged.
"""

import shutil
import tempfile
from pathlib import Path

from lab import cache
from lab.grading import kill_matrix
from lab.grading.checker_digest import checker_digest
from lab.model.course import PREDICTION_TEST, load_course
from lab.model.defaults import TIME_LIMIT
from lab.model.implementation import MAX_FILE, assemble, display_path, read, source_file
from lab.model.mutants import SOLUTIONS_DIR, load_mutants
from lab.model.prediction_file import holds_a_prediction, prediction_path
from lab.model.results import CheckStatus, Prediction, PredictionOutcome, PredictionStatus, Result, Words, replaced
from lab.model.targets import Target
from lab.running.runner import LabBroken, run

REFERENCE = "solutions"
PLUGIN = "lab.running.prediction_plugin"
HOST = "lab.running.prediction_host"  # the runner's child for predictions: it runs them with PLUGIN
NAMESPACE = "predictions"  # in the cache store
# What the prediction's run says when the test never ran a line against the reference
# (lab/running/prediction_plugin.py, _broken below): it could not run, rather than rejected it.
CANNOT_RUN_KEYS = {
    "prediction_cannot_run",
    "prediction_needs_lease",
    "prediction_too_many",
    "prediction_unknown_fixture",
}


def read_prediction(impl, step):
    """(its path, its text or None, why it was refused or None): a prediction is read with every
    protection a step file has (no link, no linked folder, regular files only, at most MAX_FILE)."""
    path = prediction_path(impl, step)
    if path is None:
        return path, None, None
    read = source_file((step.number,), path, [Path(impl), Path(impl) / step.dir])
    return path, read.text, read.refused


def run_predictions(impl, steps, time_limit=TIME_LIMIT, use_cache=True, budget=None, deadline=None):
    """One Prediction per step of `steps`: written ones run against the reference and the step's
    mutants (all uncached steps in one child run), the others are "no prediction yet".
    budget, deadline: the learner's budget in seconds, and the moment it ends (lab/clock.py: Deadline):
    predictions count in it, and one it cuts short is not judged. use_cache: False runs every
    written prediction (FRESH=1, a class's --regrade-all), and keeps what it finds."""
    course = load_course()
    every_mutant = load_mutants()
    predictions, to_run = [], {}
    for number in steps:
        step = course[number - 1]
        path, text, refused = read_prediction(impl, step)
        # Only where the lab shipped a prediction file (steps/, not solutions/ or one .py file).
        shown = display_path(path) if path and (path.is_file() or refused) else ""
        prediction = Prediction(number, shown, PredictionStatus.NO_PREDICTION)
        predictions.append(prediction)
        if refused:
            prediction.status, prediction.message = (
                PredictionStatus.CANNOT_RUN,
                Words(refused, file=shown, limit=MAX_FILE >> 20),
            )
            continue
        if not holds_a_prediction(text):
            continue
        mutants = [m for m in every_mutant if m.step == number]
        key = _key(text, mutants, time_limit)
        if not (use_cache and _settled_from_cache(prediction, key, mutants)):
            to_run[number] = (prediction, text, mutants, key)
    if to_run:
        try:
            results = _run(to_run, time_limit, budget, deadline)
        except LabBroken as error:  # whatever stopped pytest came from the learner's files
            results = [_broken(number, error) for number in to_run]
        for number, (prediction, _, mutants, key) in to_run.items():
            own = [r for r in results if r.step == number]
            _settle(prediction, own, mutants)
            cache.set(NAMESPACE, key, own)  # refused when some result is incomplete
    return predictions


def cached_prediction(step, text, time_limit):
    """(the prediction text of step settled as its last run left it, the step's mutants), or None
    when text never ran under time_limit: what `make progress` shows without running anything."""
    mutants = [m for m in load_mutants() if m.step == step]
    prediction = Prediction(step, "", PredictionStatus.NO_PREDICTION)
    return (prediction, mutants) if _settled_from_cache(prediction, _key(text, mutants, time_limit), mutants) else None


def _settled_from_cache(prediction, key, mutants):
    stored = cache.get(NAMESPACE, key)
    if stored is None:
        return False
    _settle(prediction, [Result(**r) for r in stored], mutants)
    prediction.cached = True
    return True


def _key(text, mutants, time_limit):
    """What a prediction's verdicts depend on: its text, the checker with the predictions' own
    plugin, the reference and the step's mutants (whole: a prediction may call any function) and
    the time limit (TIME_LIMIT=10 and 10.0 are one key); not the language: its messages are facts."""
    reference = assemble(read(SOLUTIONS_DIR, label=REFERENCE))
    tried = [f"{job.target.id}\0{job.text}" for job in kill_matrix.prebuilt(mutants)]
    return cache.key(checker_digest(HOST, PLUGIN, __name__), text, reference, *tried, str(float(time_limit)))


def _run(to_run, time_limit, budget, deadline):
    """Every prediction against the reference and its step's mutants, in one protected run."""
    scratch = Path(tempfile.mkdtemp(prefix="lease-lab-predictions-"))
    try:
        files, targets, shown = [], [], {}
        reference = _reference_files()
        for number, (prediction, text, mutants, _) in to_run.items():
            file = scratch / PREDICTION_TEST.format(number)
            file.write_text(text, encoding="utf-8")
            files.append(str(file))
            shown[str(file)] = prediction.file
            targets.append(Target(f"{REFERENCE}-{number}", (number,), files=reference))
            targets += [Target(m.id, (number,), mutant=m.id) for m in mutants]
        # The prediction host (lab/running/prediction_host.py) runs the files with their plugin.
        results = run(
            targets, time_limit, arguments=files, readable=[scratch], budget=budget, deadline=deadline, child=HOST
        )
        for result in results:  # the learner's file, not its copy, in every message
            for copy, original in shown.items():
                result.message = replaced(result.message, copy, original)
        return results
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def _reference_files():
    """The reference's files, read here and handed to the run whole: the runner probes a target
    only when it reads the target's folder itself (lab/running/runner.py), and probing the lab's
    own reference, which never hangs, cost each predicted step a learner process for nothing."""
    return tuple((f.steps, str(f.path), f.text, f.refused) for f in read(SOLUTIONS_DIR, label=REFERENCE).files)


def _broken(number, error):
    message = Words("prediction_cannot_run", error=str(error).strip()[-800:])
    return Result("", "test_my_prediction", f"{REFERENCE}-{number}", number, [], CheckStatus.ERROR, message, 0.0)


def _settle(prediction, results, mutants):
    by_target = {r.target: r for r in results}
    reference = by_target.get(f"{REFERENCE}-{prediction.step}")
    if reference is None or reference.status == CheckStatus.NOT_IMPLEMENTED:
        prediction.status = PredictionStatus.NO_PREDICTION
        return
    lost = next((r for r in results if not r.complete), None)
    if lost is not None:  # a verdict against some target is missing: none is given
        prediction.status, prediction.message = PredictionStatus.NOT_JUDGED, lost.message
        return
    if not reference.passed:
        cannot_run = isinstance(reference.message, Words) and reference.message.key in CANNOT_RUN_KEYS
        prediction.status = PredictionStatus.CANNOT_RUN if cannot_run else PredictionStatus.REJECTS
        prediction.message = reference.message or reference.status
        return
    prediction.status = PredictionStatus.WRITTEN
    for mutant in mutants:
        result = by_target.get(mutant.id)
        caught = result and result.status not in (CheckStatus.PASSED, CheckStatus.NOT_IMPLEMENTED)
        prediction.outcomes[mutant.id] = PredictionOutcome.CAUGHT if caught else PredictionOutcome.MISSED
