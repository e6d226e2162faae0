"""mutmut's mutants as plain code: the mutated function, its diff, and a whole mutated module.

mutmut's copy of the module (``mutants/lease.py`` in the stage) holds every variant as a
function of its own, ``x_claim__mutmut_19`` beside ``x_claim__mutmut_orig``. Reading those
with ``ast`` gives each mutant's exact text without mutmut's trampoline, so that the checker
can load it like any other implementation.
"""

import ast
import difflib
import re
from dataclasses import dataclass

from lab.grading.reach import first_line

VARIANT = re.compile(r"^x_(?P<function>\w+?)__mutmut_(?P<number>\d+|orig)$")
HUNK = re.compile(r"-(\d+)(,\d+)? \+(\d+)")  # the line numbers of a hunk's header: @@ -13,3 +13,3 @@


@dataclass(frozen=True)
class Variant:
    name: str  # mutmut's name: lease.x_claim__mutmut_19
    function: str  # claim
    number: int
    original: str  # the function's text in the code under test
    mutated: str  # the same function as this mutant has it

    def diff(self, first_line=1):
        """The unified diff, its hunks numbered by the lines of the file whose line first_line the
        function starts on."""
        lines = difflib.unified_diff(
            self.original.splitlines(), self.mutated.splitlines(), "original", self.name, n=1, lineterm=""
        )
        shift = first_line - 1

        def renumbered(hunk):
            return f"-{int(hunk[1]) + shift}{hunk[2] or ''} +{int(hunk[3]) + shift}"

        # the ---/+++ header goes: the report names both sides
        return "\n".join(
            HUNK.sub(renumbered, line, count=1) if line.startswith("@@") else line for line in list(lines)[2:]
        )

    def module(self, source):
        """The whole module text with this mutant's function in place of the original one."""
        lines = source.splitlines(keepends=True)
        node = _functions(source)[self.function]
        start = first_line(node) - 1
        return "".join(lines[:start]) + self.mutated + "\n" + "".join(lines[node.end_lineno :])


def read_variants(mutated_module, module_name, source):
    """Every mutant in mutmut's copy, ordered by function (as in the source), then by number."""
    functions = _functions(mutated_module)
    original_defs = _functions(source)
    variants = []
    for name, node in functions.items():
        match = VARIANT.match(name)
        if not match or match["number"] == "orig" or match["function"] not in original_defs:
            continue
        function = match["function"]
        variants.append(
            Variant(
                name=f"{module_name}.{name}",
                function=function,
                number=int(match["number"]),
                original=_text(source, original_defs[function]),
                mutated=_renamed(_text(mutated_module, node), name, function),
            )
        )
    order = list(original_defs)
    return sorted(variants, key=lambda v: (order.index(v.function), v.number))


def _functions(text):
    tree = ast.parse(text)
    return {node.name: node for node in tree.body if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)}


def _text(source, node):
    lines = source.splitlines(keepends=True)
    return "".join(lines[first_line(node) - 1 : node.end_lineno]).rstrip("\n")


def _renamed(text, variant_name, function):
    return re.sub(rf"\bdef {re.escape(variant_name)}\(", f"def {function}(", text, count=1)
