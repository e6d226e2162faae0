"""`make hint N`: the next question of step N that the learner has not seen yet, one at a time.

course.toml gives each clause of the step's contract its own questions, more specific each; the
hint goes through the clauses in the contract's order. Reading the questions one by one leaves
room to think before the next. What was seen is remembered per step and clause in
`.lab/hints.json`.
"""

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
    seen = store.read(SEEN_FILE)
    mine = seen.get(str(step.number))
    mine = mine if isinstance(mine, dict) else {}  # a count of an older lab's one list per step starts again
    clause = _in_order(step, asked, mine, lang)
    questions = step.questions(clause, lang)
    index = min(_count(mine, clause) + 1, len(questions))
    mine[clause] = index
    seen[str(step.number)] = mine
    store.write(SEEN_FILE, seen)
    lines = [
        words("hint", n=step.number, title=step.title[lang], clause=clause, index=index, count=len(questions)),
        f"  {questions[index - 1]}",
    ]
    if index < len(questions) or clause != asked[-1]:
        return [*lines, words("hint_more", n=step.number)]
    return [*lines, words("hint_last", n=step.number)]


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
