"""What `make progress` says about a step's prediction, from the prediction's cached run only.

The predictions themselves belong to lab/grading/predictions.py; this reads its cache and never runs a
prediction, so that progress stays fast. A prediction not run yet says so and names the command.
"""

from lab import cache
from lab.learner.verdicts import last_time_limit
from lab.model.mutants import load_mutants
from lab.text.language import typed
from lab.text.messages import words_of


def prediction_line(steps_dir, step, store, lang="en"):
    """One phrase, or None where the step folder has no prediction file.

    A prediction's verdicts depend on the time limit (a call that hangs is a verdict of its own),
    so they are cached under it; this reads those of the time limit the last check ran with."""
    try:
        from lab.grading import predictions
    except ImportError:  # a lab without predictions
        return None
    _, text, _ = predictions.read_prediction(steps_dir, step)
    if text is None:
        return None
    words = words_of("learner", lang)
    if not predictions.holds_a_prediction(text):
        return words("prediction_none")
    found = _cached(predictions, step, text, lang, last_time_limit(store))
    if found is None:
        return words("prediction_written") + typed(f" (`make check-step {step.number}`)", lang)
    return words("prediction_result", result=_phrase(predictions, found, lang))


def _cached(predictions, step, text, lang, time_limit):
    mutants = [m for m in load_mutants() if m.step == step.number]
    try:
        stored = cache.get(predictions.NAMESPACE, predictions._key(text, mutants, time_limit, lang))
        if stored is None:
            return None
        found = predictions.Prediction(step.number, "", predictions.NO_PREDICTION)
        predictions._settle(found, [predictions.Result(**r) for r in stored], mutants)
        return found, mutants
    except (AttributeError, OSError, TypeError, ValueError):  # their cache changed shape: say less
        return None


def _phrase(predictions, found, lang):
    prediction, mutants = found
    words = words_of("learner", lang)
    if prediction.status == predictions.REJECTS:
        return words("prediction_rejects")
    key = "prediction_catches" if prediction.catches_the_snippet(mutants) else "prediction_misses"
    return words(key, caught=prediction.caught_count, count=len(mutants))
