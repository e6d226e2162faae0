"""The clauses a step fails at: the failure's last line names the first, and `make hint N`
starts with it."""

from lab.model.course import step_of_clause
from lab.model.results import CheckStatus


def failing_clauses(results, number):
    """The clauses of step `number` that its failing checks name, in the checks' order (the
    report's). None when the step passes or every failure is its stub's (not implemented yet): a
    check that names an earlier step's clause too is about this step's function."""
    found = []
    for result in results:
        if result.step != number or result.passed or result.status == CheckStatus.NOT_IMPLEMENTED:
            continue
        found += [clause for clause in result.clauses if step_of_clause(clause) == number and clause not in found]
    return found
