"""The reviewed ledger of equivalent mutants (mutation/equivalents.toml) and how it matches a mutant."""

import ast
import copy
import re
import tomllib
from dataclasses import dataclass

from lab.course import LAB_ROOT

LEDGER = LAB_ROOT / "mutation" / "equivalents.toml"


@dataclass(frozen=True)
class Equivalence:
    id: str  # the rule's id, or "function: before -> after" for a single mutant
    reason: str


class Ledger:
    def __init__(self, path=LEDGER):
        data = tomllib.loads(path.read_text(encoding="utf-8"))
        self.rules = data.get("rule", [])
        self.mutants = data.get("mutant", [])
        for entry in self.rules + self.mutants:
            if not entry.get("reason"):
                raise ValueError(f"{path.name}: every entry needs a one-line reason: {entry}")

    def match(self, variant):
        """The Equivalence that covers this mutmut Variant, or None."""
        removed, added = _changed_lines(variant)
        for entry in self.mutants:
            if entry["function"] == variant.function and removed == [entry["before"]] and added == [entry["after"]]:
                return Equivalence(f"{entry['function']}: {entry['before']} -> {entry['after']}", entry["reason"])
        for rule in self.rules:
            if _RULE_KINDS[rule["kind"]](rule, variant.original, variant.mutated):
                return Equivalence(rule["id"], rule["reason"])
        return None

    def unused(self, variants):
        """Entries that match no mutant any more: stale, to be removed after review."""
        used = {m.id for m in (self.match(v) for v in variants) if m}
        ids = [r["id"] for r in self.rules] + [f"{m['function']}: {m['before']} -> {m['after']}" for m in self.mutants]
        return [i for i in ids if i not in used]


def _changed_lines(variant):
    original, mutated = variant.original.splitlines(), variant.mutated.splitlines()
    removed = [line.strip() for line in original if line not in mutated]
    added = [line.strip() for line in mutated if line not in original]
    return removed, added


def _same_after(normalise, original, mutated):
    """True when the two functions differ, and stop differing once normalise is applied to both."""
    trees = [ast.parse(text) for text in (original, mutated)]
    if ast.dump(trees[0]) == ast.dump(trees[1]):
        return False
    return ast.dump(normalise(trees[0])) == ast.dump(normalise(trees[1]))


def _string_case(rule, original, mutated):
    literal = re.compile(rule["literal"], re.IGNORECASE)
    words = re.compile(rule["words"], re.IGNORECASE) if "words" in rule else None

    def normalise(tree):
        tree = copy.deepcopy(tree)
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and literal.search(node.value):
                node.value = words.sub(lambda m: m[0].lower(), node.value) if words else node.value.lower()
        return tree

    return _same_after(normalise, original, mutated)


def _raise_message(rule, original, mutated):
    def normalise(tree):
        tree = copy.deepcopy(tree)
        for node in ast.walk(tree):
            call = node.exc if isinstance(node, ast.Raise) else None
            if isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and call.func.id == rule["exception"]:
                call.args, call.keywords = [], []
        return tree

    return _same_after(normalise, original, mutated)


_RULE_KINDS = {"string-case": _string_case, "raise-message": _raise_message}
