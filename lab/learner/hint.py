"""`make hint N`: the next question of step N that the learner has not seen yet, one at a time.

The hints of course.toml are questions that get more specific; reading them one by one leaves
room to think before the next. What was seen is remembered per step in `.lab/hints.json`.
"""

from lab.text.messages import words_of

SEEN_FILE = "hints.json"


def hint(step, store, lang="en", show_all=False):
    """The lines to print for `make hint N` (`ALL=1`: every question of the step)."""
    questions = step.hints[lang]
    title, words = step.title[lang], words_of("learner", lang)
    if show_all:
        lines = [words("hint_all", n=step.number, title=title, count=len(questions))]
        return lines + [f"  {i}. {q}" for i, q in enumerate(questions, start=1)]
    seen = store.read(SEEN_FILE)
    index = min(seen.get(str(step.number), 0) + 1, len(questions))
    seen[str(step.number)] = index
    store.write(SEEN_FILE, seen)
    lines = [words("hint", n=step.number, title=title, index=index, count=len(questions)), f"  {questions[index - 1]}"]
    last = index == len(questions)
    return lines + [words("hint_last" if last else "hint_more", n=step.number)]
