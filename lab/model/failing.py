"""The clauses a step fails at: the failure's last line names the first, and `make hint N`
starts with it."""

from __future__ import annotations

from typing import TYPE_CHECKING

from lab.model.course import step_of_clause
from lab.model.status import CheckStatus

if TYPE_CHECKING:
    from collections.abc import Iterable

    from lab.model.results import Result


def failing_clauses(results: Iterable[Result], number: int) -> list[str]:
    """The clauses of step `number` that its failing checks name, in the checks' order (the
    report's). None when the step passes or every failure is its stub's (not implemented yet): a
    check that names an earlier step's clause too is about this step's function."""
    found: list[str] = []
    for result in results:
        if result.step != number or result.passed or result.status == CheckStatus.NOT_IMPLEMENTED:
            continue
        found += [clause for clause in result.clauses if step_of_clause(clause) == number and clause not in found]
    return found
