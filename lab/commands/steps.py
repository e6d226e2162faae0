"""The STEP a verb was given: a number from 1 to the course's last step (`check` also takes 'all')."""

from lab.model.course import load_course
from lab.model.implementation import UsageError
from lab.text.messages import say, words_of

# The make target a learner typed for each verb that takes a step, where the two differ.
MAKE_TARGET = {"reset": "reset-step", "restore": "restore-step"}


def checked_steps(text, lang="en"):
    """'4' or '04' -> (1, 2, 3, 4) and the mutant steps (4,); 'all' -> every step, twice."""
    course = load_course()
    last = len(course)
    if text == "all":
        every = tuple(step.number for step in course)
        return every, every
    if text and text.isdigit() and 1 <= int(text) <= last:
        return tuple(range(1, int(text) + 1)), (int(text),)
    usage = say("step_usage", lang, last=last)
    raise UsageError(say("not_a_step", lang, text=text) + usage if text else usage)


def one_step(text, verb, lang="en"):
    """The course's Step numbered text; UsageError naming the make target of verb otherwise."""
    text, course = text.strip(), load_course()
    if text.isdigit() and 1 <= int(text) <= len(course):
        return course[int(text) - 1]
    raise UsageError(words_of("learner", lang)("usage", verb=MAKE_TARGET.get(verb, verb), last=len(course)))
