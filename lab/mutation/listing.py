"""The report's mutants as listed before anything runs: mutmut's, each with the step whose checks
run against it, where it changes the code and the ledger's equivalence (if any); and the pre-built ones."""

import ast
import difflib

from lab.grading import reach
from lab.model.course import load_course
from lab.model.mutants import load_mutants
from lab.model.results import MutantStatus
from lab.mutation.model import Mutant, change_location, text_location


def mutmut_mutants(variants, source, places, steps, ledger):
    """mutmut's Variants of source, the module made of the files in places (lab.mutation.places),
    as Mutants in those files: not checked yet; equivalent when the ledger says so; "no tests"
    when no check of the steps can call it."""
    step_of, first_lines = _step_of_function(source, steps), _first_lines(source)
    reached = reach.reachable(steps, ast.parse(source))
    mutants = []
    for v in variants:
        file, first_line = places.where(first_lines[v.function])
        location, replacement = change_location(v.original, v.mutated, first_line)
        equivalence, step = ledger.match(v), step_of(v.function)
        status = (
            MutantStatus.EQUIVALENT
            if equivalence
            else MutantStatus.NOT_CHECKED
            if step in steps and v.function in reached
            else MutantStatus.NO_TESTS
        )
        mutants.append(
            Mutant(
                id=v.name,
                origin="mutmut",
                step=step,
                function=v.function,
                status=status,
                diff=v.diff(first_line),
                file=file,
                location=location,
                replacement=replacement,
                equivalent=equivalence,
            )
        )
    return mutants


def prebuilt_mutants(reference, places):
    """The pre-built mutants as Mutants, located in the reference's files (places), whose text
    (reference, the module made of them) they change."""
    course = load_course()
    mutants = []
    for m in load_mutants():
        line, column, end_line, end_column = text_location(reference, m.find)
        file, first = places.where(line)
        mutants.append(
            Mutant(
                id=m.id,
                origin="pre-built",
                step=m.step,
                function=course[m.edits_step - 1].function,
                status=MutantStatus.NOT_CHECKED,
                diff=_prebuilt_diff(m),
                file=file,
                location=(first, column, first + end_line - line, end_column),
                replacement=m.replace,
                clause=m.clause,
            )
        )
    return mutants


def _step_of_function(source, steps):
    """The step a function's mutants belong to: its own for a course function; for a helper
    (a `_connect(path)` that several functions share), the first step whose checks reach it,
    whose checks then run against its mutants (and the later steps' too, as for claim)."""
    function_step = {s.function: s.number for s in load_course()}
    tree = ast.parse(source)
    reached = {n: reach.reachable((n,), tree) for n in steps}

    def step_of(function):
        if function in function_step:
            return function_step[function]
        return next((n for n in steps if function in reached[n]), steps[-1])

    return step_of


def _first_lines(source):
    tree = ast.parse(source)
    return {
        node.name: reach.first_line(node)
        for node in tree.body
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
    }


def _prebuilt_diff(mutant):
    old, new = mutant.find.splitlines() or [""], mutant.replace.splitlines() or [""]
    return "\n".join(list(difflib.unified_diff(old, new, lineterm="", n=0))[2:])
