"""`make hint N`: the next question of step N that the learner has not seen yet, one at a time.

course.toml gives each clause of the step's contract its own questions, more specific each. The
hint starts with the clause that the learner's last check of the step found failing, and says
which (read from what that check recorded, lab/learner/verdicts.py: nothing runs here); with no
failure recorded it goes through the clauses in the contract's order. Reading the questions one
by one leaves room to think before the next. What was seen is remembered per step and clause in
`.lab/hints.json`.
"""

from lab.learner.verdicts import last_failing
from lab.text.messages import words_of

SEEN_FILE = "hints.json"


def hint(step, store, lang="en", show_all=False):
    """The lines to print for `make hint N` (`ALL=1`: every question of the step, clause by clause)."""
    words = words_of("learner", lang)
    asked = [clause for clause in step.hints if step.questions(clause, lang)]
    if not asked:  # a new step whose author has not written its questions yet (dev check names it)
        return [words("hint_none", n=step.number)]
    if show_all:
        return _every_question(step, asked, lang, words)
    failed, same_code = last_failing(store, step.number)
    failing = next((clause for clause in failed if clause in asked), None)
    seen = store.read(SEEN_FILE)
    mine = seen.get(str(step.number))
    mine = mine if isinstance(mine, dict) else {}  # a count of an older lab's one list per step starts again
    clause = failing or _in_order(step, asked, mine, lang)
    questions = step.questions(clause, lang)
    index = min(_count(mine, clause) + 1, len(questions))
    mine[clause] = index
    seen[str(step.number)] = mine
    store.write(SEEN_FILE, seen)
    key = "hint" if failing is None else "hint_failing" if same_code else "hint_failed"
    lines = [
        words(key, n=step.number, title=step.title[lang], clause=clause, index=index, count=len(questions)),
        f"  {questions[index - 1]}",
    ]
    if index < len(questions) or (failing is None and clause != asked[-1]):
        return [*lines, words("hint_more", n=step.number)]
    if failing is None:
        return [*lines, words("hint_last", n=step.number)]
    return [*lines, words("hint_last_clause", n=step.number, clause=clause)]


def _in_order(step, asked, mine, lang):
    """The first clause with a question not seen yet; the last clause once every one was seen."""
    return next((clause for clause in asked if _count(mine, clause) < len(step.questions(clause, lang))), asked[-1])


def _count(mine, clause):
    found = mine.get(clause, 0)
    return found if isinstance(found, int) else 0


def _every_question(step, asked, lang, words):
    count = sum(len(step.questions(clause, lang)) for clause in asked)
    lines = [words("hint_all", n=step.number, title=step.title[lang], count=count)]
    for clause in asked:
        lines.append(f"  {clause}")
        lines += [f"    {i}. {question}" for i, question in enumerate(step.questions(clause, lang), start=1)]
    return lines
