"""`make progress` and `make next`: every step as not started, failing or passing, and what to do next.

A step whose file is still the stub is not started, with nothing to run. The others take their
verdict from their checks' results (lab/learner/verdicts.py), which reuse what `make check-step`
found for the same code (lab/grading/kill_matrix.py): only checks whose code changed since run
here (the steps' checks, no mutants), so a second call answers at once.
"""

from lab.grading.check import step_results
from lab.learner import verdicts
from lab.learner.completion import completion_lines
from lab.learner.prediction_status import prediction_line
from lab.model.course import load_course
from lab.model.defaults import TIME_LIMIT
from lab.model.implementation import STEP_FILE
from lab.model.pristine import is_stub
from lab.model.results import StepStatus
from lab.text.messages import words_of


def step_states(steps_dir, store, time_limit=TIME_LIMIT):
    """(step -> 'not_started' or its verdict dict, the steps whose checks ran now, wholly or in part)."""
    states, started = {}, []
    for step in load_course():
        file = steps_dir / step.dir / STEP_FILE
        text = file.read_text(encoding="utf-8", errors="replace") if file.is_file() else ""
        if is_stub(text, step.number):
            states[step.number] = StepStatus.NOT_STARTED
        else:
            started.append(step.number)
    results = step_results(steps_dir, started, time_limit) if started else []
    states.update((n, verdicts.summarize([r for r in results if r.step == n])) for n in started)
    return states, sorted({r.step for r in results if not r.reused})


def next_step(states):
    """The first step that does not pass yet, or None when the course is complete."""
    return next(
        (n for n in sorted(states) if states[n] == StepStatus.NOT_STARTED or states[n]["status"] != StepStatus.PASSED),
        None,
    )


def progress(store, lang="en"):
    """The lines of `make progress`."""
    steps_dir = store.root / "steps"
    states, checked = step_states(steps_dir, store, verdicts.last_time_limit(store))
    course, words = load_course(), words_of("learner", lang)
    lines = [
        words("progress_heading", count=len(course), steps=f"{sum(_passes(s) for s in states.values())}/{len(course)}")
    ]
    for step in course:
        state = states[step.number]
        mark = "·" if state == StepStatus.NOT_STARTED else ("✔" if _passes(state) else "✘")
        line = f"  {mark} {step.number} {step.function:<11} {_describe(state, lang)}"
        predicted = prediction_line(steps_dir, step, store, lang)
        lines.append(line + (f" · {predicted}" if predicted else ""))
    if checked:
        lines.append(words("computed", steps=words("separator").join(map(str, checked))))
    return lines + [""] + next_lines(states, store, lang)


def next_lines(states, store, lang="en"):
    """What to do next: the first step not passing, or the end of the course."""
    number = next_step(states)
    if number is None:
        return completion_lines(store.root / "steps", lang, store.root)
    return [words_of("learner", lang)("next_step", n=number, title=load_course()[number - 1].title[lang])]


def _passes(state):
    return state != StepStatus.NOT_STARTED and state["status"] == StepStatus.PASSED


def _describe(state, lang):
    words = words_of("learner", lang)
    if state == StepStatus.NOT_STARTED:
        return words(StepStatus.NOT_STARTED)
    if state["status"] == StepStatus.PASSED:
        return words("passing", count=state["count"])
    if state.get("clause"):
        return words("failing", clause=state["clause"], passed=state["passed"], count=state["count"])
    status = words("status_" + state.get("check_status", "failed"))
    return words("failing_other", status=status, passed=state["passed"], count=state["count"])
