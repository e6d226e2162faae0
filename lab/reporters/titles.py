"""The names the file reporters give a step and a check, in the run's language: what a person reads
in a CI system's list of tests or on Exercism's page (whose spec asks of a test's ``name`` that it
be human-readable; the code it ran goes in ``test_code``). A check's own name is code and stays
beside its words, so that two checks of one clause keep two names.
"""

from lab.model.course import all_clauses
from lab.text.messages import say


def step_title(step, lang):
    """The step's heading as the terminal shows it ("Step 04 · claim: …"), with the number in two
    digits, so that a list of suites sorted by name keeps the course's order."""
    return say("report.step", lang, n=f"{step.number:02d}", function=step.function, title=step.title[lang])


def check_titles(outcome, course):
    """A function giving each result of outcome its name in outcome.lang: the clause it holds, in
    the contract's words ("C4.5: …"), or, for a check of several clauses or none, its step's title;
    then the check's name."""
    clauses = all_clauses(outcome.lang)

    def title(result):
        ids = " ".join(result.clauses)
        said = clauses.get(result.clauses[0]) if len(result.clauses) == 1 else None
        said = said or course[result.step - 1].title[outcome.lang]
        return f"{ids}: {said} ({result.check})" if ids else f"{said} ({result.check})"

    return title
