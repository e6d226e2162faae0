"""When a step's mutants may be shown in full: the rule of the three phases (docs/learner.md,
"Predict, implement, compare") for the screen and for every file a learner's run writes.

Before the compare phase a mutant is a neutral label (`4-a`, `4-b`, ...) with the clause it breaks,
and a prediction's verdicts are by label; its id, which names the change, and the checks that catch
it wait for the compare phase. The class grader's files are written for the instructor, as SHOW=all
shows the screen: everything at once.
"""


def labels(mutants):
    """mutant id -> its neutral label: the step and a letter, in the course's order (4-a, 4-b, ...)."""
    found, count = {}, {}
    for mutant in mutants:
        found[mutant.id] = f"{mutant.step}-{chr(ord('a') + count.get(mutant.step, 0))}"
        count[mutant.step] = count.get(mutant.step, 0) + 1
    return found


def prediction_of(outcome, number):
    """The learner's prediction of step `number` in this run, or None."""
    return next((p for p in outcome.predictions if p.step == number), None)


def compare_phase(outcome, number):
    """True once step `number`'s mutants may be shown in full: its checks pass and its prediction is
    written (where the implementation has prediction files), or SHOW=all (instructors)."""
    if outcome.show_all:
        return True
    prediction = prediction_of(outcome, number)
    has_file = bool(prediction and prediction.file)
    return outcome.step_passes(number) and (not has_file or prediction.written)
