"""The report's content: every mutant (mutmut's and the pre-built ones) with its status, step,
function, diff, the checks that kill it and, for an equivalent one, the ledger's reason."""

import difflib
from dataclasses import dataclass, field

from lab.model.course import load_course

DETECTED = ("killed", "timeout")  # a mutant the checks caught (lab.mutation.kill_runs.status)


@dataclass
class Mutant:
    id: str
    origin: str  # "mutmut" or "pre-built"
    step: int
    function: str
    status: str  # killed, survived, timeout; no tests (no check can call it), equivalent, not checked
    diff: str
    file: str  # the file it changes, as the report names it (lab.mutation.places)
    location: tuple  # in that file: (start line, start column, end line, end column), 1-based, end exclusive
    replacement: str
    killed_by: list = field(default_factory=list)
    equivalent: object = None  # an equivalents.Equivalence
    clause: str | None = None  # the clause a pre-built mutant breaks
    clauses: list = field(default_factory=list)  # a mutmut survivor's: the clauses of the code it changes

    @property
    def scored(self):
        return self.equivalent is None and self.status != "no tests"

    @property
    def detected(self):
        return self.status in DETECTED


@dataclass
class Report:
    impl: str
    files: dict  # name -> source text
    steps_checked: tuple  # the steps whose checks ran (the implementation passes all of them)
    mutants: list
    checks: list  # (check name, its file) for every check that ran, in step order: the matrix's rows
    unused_ledger: list
    matrix: dict = field(default_factory=dict)  # mutant id -> {check name: status}
    own_ledger: str | None = None  # the learner's ledger, as shown; None in a report on the reference

    def mutmut(self):
        return [m for m in self.mutants if m.origin == "mutmut"]

    def prebuilt(self):
        return [m for m in self.mutants if m.origin == "pre-built"]

    def score(self, step=None):
        """(detected, scored) over mutmut's mutants, of one step or all; equivalents left out."""
        scored = [m for m in self.mutmut() if m.scored and (step is None or m.step == step)]
        return sum(m.detected for m in scored), len(scored)

    def survivors(self):
        return [m for m in self.mutants if m.scored and not m.detected]

    def equivalents(self):
        return [m for m in self.mutmut() if m.equivalent]

    def steps(self):
        return [s for s in load_course() if any(m.step == s.number for m in self.mutmut())]

    def clauses_of(self, mutant):
        """The clause ids a survivor is shown with: those of the code it changes, else its step's."""
        return mutant.clauses or list(load_course()[mutant.step - 1].clauses())


def percent(detected, scored):
    return 100.0 if scored == 0 else round(100.0 * detected / scored, 1)


def change_location(original_text, mutated_text, first_line):
    """The changed lines of a function, as a location in its file and the replacement text."""
    old, new = original_text.splitlines(), mutated_text.splitlines()
    opcodes = [op for op in difflib.SequenceMatcher(None, old, new, autojunk=False).get_opcodes() if op[0] != "equal"]
    if not opcodes:
        return (first_line, 1, first_line, 1), ""
    _, i1, i2, j1, j2 = opcodes[0][0], opcodes[0][1], opcodes[-1][2], opcodes[0][3], opcodes[-1][4]
    last = max(i2, i1 + 1) - 1
    end_column = len(old[last]) + 1 if last < len(old) else 1
    return (first_line + i1, 1, first_line + last, end_column), "\n".join(new[j1:j2])


def text_location(source, find):
    """Where a pre-built mutant's find text is in source: (line, column, end line, end column)."""
    start = source.find(find)
    if start < 0:
        return (1, 1, 1, 1)
    line = source.count("\n", 0, start) + 1
    column = start - (source.rfind("\n", 0, start) + 1) + 1
    end = start + len(find)
    end_line = source.count("\n", 0, end) + 1
    end_column = end - (source.rfind("\n", 0, end) + 1) + 1
    return (line, column, end_line, end_column)
