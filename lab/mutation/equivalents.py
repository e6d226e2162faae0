"""The reviewed ledgers of equivalent mutants and how they match a mutant: the lab's own
(mutation/equivalents.toml) and the learner's, kept in the learner's folder (see learner_ledger).

A mutant matches an entry by its text, before anything runs (it is then not run); a mutant that
ran and survived also matches an entry by its kind (lab.mutation.kinds): the same change to the
same construct in code laid out another way.
"""

import ast
import re
import tomllib
from dataclasses import dataclass
from pathlib import Path

from lab.model.course import LAB_ROOT
from lab.model.results import Said
from lab.mutation.kinds import kind_of

LEDGER = LAB_ROOT / "mutation" / "equivalents.toml"
LEARNER_LEDGER = "equivalents.toml"  # in the learner's folder: steps/equivalents.toml


def learner_ledger(impl):
    """The learner's own reviewed equivalents for the code at impl, in the lab's format, read beside
    the lab's: equivalents.toml in a steps-like folder, NAME.equivalents.toml beside a NAME.py file."""
    impl = Path(impl)
    return impl / LEARNER_LEDGER if impl.is_dir() else impl.with_name(f"{impl.stem}.{LEARNER_LEDGER}")


class LedgerError(Said, ValueError):
    """A ledger file that cannot be read: the message names the file and what is wrong."""


@dataclass(frozen=True)
class Equivalence:
    id: str  # the rule's id, or "function: before -> after" for a single mutant
    reason: str  # in English: mutation.json's statusReason
    by_kind: bool = False  # matched a ledger entry by its kind, after it ran and survived
    reason_ja: str | None = None  # the entry's Japanese reason; a learner's ledger may have none

    def reason_in(self, lang):
        """The reason in the report's language, the English one where the entry has no other."""
        return self.reason_ja if lang == "ja" and self.reason_ja else self.reason


class Ledger:
    def __init__(self, *paths):
        self.rules, self.mutants = [], []
        for path in paths or (LEDGER,):
            if path.exists():
                self._read(path)
        # A report asks about each mutant several times, and every mutant of a function shares
        # its original: parsing and normalising once each keeps this off the critical path.
        self._matches, self._dumps = {}, {}

    def _read(self, path):
        try:
            data = tomllib.loads(path.read_text(encoding="utf-8"))
        except (tomllib.TOMLDecodeError, UnicodeDecodeError) as error:
            raise LedgerError("mutation.ledger_not_toml", file=path.name, error=error) from None
        for entry in data.get("rule", []) + data.get("mutant", []):
            if not isinstance(entry, dict) or not entry.get("reason"):
                raise LedgerError("mutation.ledger_no_reason", file=path.name, entry=entry)
        for entry in data.get("mutant", []):
            if not all(isinstance(entry.get(k), str) for k in ("function", "before", "after")):
                raise LedgerError("mutation.ledger_incomplete_mutant", file=path.name, entry=entry)
        self.rules += data.get("rule", [])
        self.mutants += data.get("mutant", [])

    def match(self, variant):
        """The Equivalence that covers this mutmut Variant, or None."""
        key = (variant.function, variant.original, variant.mutated)
        if key not in self._matches:
            self._matches[key] = self._match(variant)
        return self._matches[key]

    def _match(self, variant):
        removed, added = changed_lines(variant)
        for entry in self.mutants:
            if (
                entry["function"] == variant.function
                and removed == entry["before"].splitlines()
                and added == entry["after"].splitlines()
            ):
                return Equivalence(_entry_id(entry), entry["reason"], reason_ja=entry.get("reason_ja"))
        if self._dump(None, variant.original) == self._dump(None, variant.mutated):
            return None  # the same code, only laid out differently: not a mutant any rule covers
        for rule in self.rules:
            if self._dump(rule, variant.original) == self._dump(rule, variant.mutated):
                return Equivalence(rule["id"], rule["reason"], reason_ja=rule.get("reason_ja"))
        return None

    def _dump(self, rule, text):
        """The function's syntax tree as text, normalised by the rule (if any)."""
        key = (id(rule), text)  # the rule itself, which lives as long as the ledger
        if key not in self._dumps:
            tree = ast.parse(text)
            self._dumps[key] = ast.dump(_NORMALISERS[rule["kind"]](rule, tree) if rule else tree)
        return self._dumps[key]

    def by_kind(self, variant):
        """The Equivalence of the first [[mutant]] entry whose change is of the same kind as this
        Variant's, in any function; None if none is. Only for a mutant that ran and survived: a
        kind is looser than a text, and the checks have had their say first."""
        kind = kind_of(variant.original, variant.mutated)
        for entry in self.mutants:
            if kind is not None and kind_of(entry["before"], entry["after"]) == kind:
                return Equivalence(_entry_id(entry), entry["reason"], by_kind=True, reason_ja=entry.get("reason_ja"))
        return None

    def unused(self, variants):
        """Entries that match no mutant any more: stale, to be removed after review."""
        used = {m.id for m in (self.match(v) for v in variants) if m}
        ids = [r["id"] for r in self.rules] + [_entry_id(m) for m in self.mutants]
        return [i for i in ids if i not in used]


def _entry_id(entry):
    return f"{entry['function']}: {entry['before']} -> {entry['after']}"


def changed_lines(variant):
    """(the function's lines the mutant removes, those it adds), stripped: a [[mutant]] entry's
    before and after."""
    original, mutated = variant.original.splitlines(), variant.mutated.splitlines()
    removed = [line.strip() for line in original if line not in mutated]
    added = [line.strip() for line in mutated if line not in original]
    return removed, added


def _string_case(rule, tree):
    """String literals matching the rule's pattern in lower case (or just the rule's words)."""
    literal = re.compile(rule["literal"], re.IGNORECASE)
    words = re.compile(rule["words"], re.IGNORECASE) if "words" in rule else None
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and literal.search(node.value):
            node.value = words.sub(lambda m: m[0].lower(), node.value) if words else node.value.lower()
    return tree


def _raise_message(rule, tree):
    """Raises of the rule's exception without their arguments."""
    for node in ast.walk(tree):
        call = node.exc if isinstance(node, ast.Raise) else None
        if isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and call.func.id == rule["exception"]:
            call.args, call.keywords = [], []
    return tree


_NORMALISERS = {"string-case": _string_case, "raise-message": _raise_message}
