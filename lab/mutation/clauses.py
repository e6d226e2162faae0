"""The contract clauses a mutmut mutant changes the code of, for a survivor to name only those.

A mutmut mutant says nothing of clauses; the checks do: a check that catches a mutant names the
clauses it checks (the one it found broken, when it checks several and can tell). The code a survivor changes implements the clauses that the checks name
when they catch the other mutants of the same lines (or, when no mutant there is caught, of the
nearest lines of the same function): `row[0] > now` is C4.5's code however it is written. Of
those, the clauses of the survivor's own step come first; a survivor with no caught mutant near
it in its function gets an empty list (the report then shows its step's clauses).
"""

from lab.model.course import step_of_clause
from lab.model.results import CheckStatus


def survivors_clauses(mutants, results):
    """Set .clauses on each surviving mutmut mutant, from results (mutant id -> its checks' Results)."""
    caught = [m for m in mutants if m.origin == "mutmut" and m.detected]
    for m in mutants:
        if m.origin == "mutmut" and m.scored and not m.detected:
            m.clauses = clauses_near(m, caught, results)


def clauses_near(mutant, caught, results):
    """The clauses the checks name when catching the caught mutants nearest to mutant's lines;
    of several there, the one that breaks the fewest clauses says most about the code."""
    neighbours = [
        (c, _broken(c, mutant.step, results)) for c in caught if c.file == mutant.file and c.function == mutant.function
    ]
    neighbours = [(c, clauses) for c, clauses in neighbours if clauses]
    if not neighbours:
        return []
    nearest = min(_distance(mutant, c) for c, _ in neighbours)
    broken = [clauses for c, clauses in neighbours if _distance(mutant, c) == nearest]
    fewest = min(len(clauses) for clauses in broken)
    found = set().union(*(clauses for clauses in broken if len(clauses) == fewest))
    return sorted(found, key=lambda clause: tuple(int(part) for part in clause[1:].split(".")))


def _broken(caught, step, results):
    """The clauses that the most specific of the checks catching a mutant name (a check of one
    clause says more than one of five), counting only the step's clauses when any check names one."""
    named = [set(r.clauses) for r in results.get(caught.id, []) if r.status != CheckStatus.PASSED and r.clauses]
    own = [{clause for clause in clauses if step_of_clause(clause) == step} for clauses in named]
    named = [clauses for clauses in own if clauses] or named
    if not named:
        return set()
    fewest = min(len(clauses) for clauses in named)
    return set().union(*(clauses for clauses in named if len(clauses) == fewest))


def _distance(one, other):
    """Lines between two changes; 0 when they share a line."""
    (start, _, end, _), (other_start, _, other_end, _) = one.location, other.location
    return max(0, other_start - end, start - other_end)
