"""What `make progress` says about a step's prediction, from the prediction's cached run only.

The predictions themselves belong to lab/grading/predictions.py; this reads their cache through
it and never runs a prediction, so that progress stays fast. A prediction not run yet says so and names the command.
"""

from lab.grading.predictions import cached_prediction, read_prediction
from lab.learner.verdicts import last_time_limit
from lab.model.prediction_file import holds_a_prediction
from lab.model.results import PredictionStatus
from lab.text.language import typed
from lab.text.messages import words_of


def prediction_line(steps_dir, step, store, lang="en"):
    """One phrase, or None where the step folder has no prediction file.

    A prediction's verdicts depend on the time limit (a call that hangs is a verdict of its own),
    so they are cached under it; this reads those of the time limit the last check ran with."""
    _, text, _ = read_prediction(steps_dir, step)
    if text is None:
        return None
    words = words_of("learner", lang)
    if not holds_a_prediction(text):
        return words("prediction_none")
    found = _cached(step, text, last_time_limit(store))
    if found is None:
        return words("prediction_written") + typed(f" (`make check-step {step.number}`)", lang)
    return words("prediction_result", result=_phrase(found, lang))


def _cached(step, text, time_limit):
    try:
        return cached_prediction(step.number, text, time_limit)
    except (AttributeError, OSError, TypeError, ValueError):  # the cache changed shape: say less
        return None


def _phrase(found, lang):
    prediction, mutants = found
    words = words_of("learner", lang)
    if prediction.status == PredictionStatus.REJECTS:
        return words("prediction_rejects")
    if prediction.status == PredictionStatus.CANNOT_RUN:
        return words("prediction_cannot_run")
    key = "prediction_catches" if prediction.catches_the_snippet(mutants) else "prediction_misses"
    return words(key, caught=prediction.caught_count, count=len(mutants))
