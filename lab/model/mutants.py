"""Pre-built mutants: small TOML files, each one exact text change of the reference."""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from pathlib import Path

from lab.model.course import LAB_ROOT
from lab.model.implementation import Implementation, read

MUTANTS_DIR = LAB_ROOT / "mutants"
SOLUTIONS_DIR = LAB_ROOT / "solutions"


class MutantError(Exception):
    """A mutant file that does not apply to the reference at exactly one place."""


@dataclass(frozen=True)
class Mutant:
    id: str
    step: int  # whose contract it breaks, and whose checks must catch it
    edits_step: int  # whose reference file it changes
    clause: str
    find: str
    replace: str
    worksheet: bool  # True for the broken snippet quoted in the worksheet
    caught_by: tuple[str, ...]
    why: dict[str, str]  # language -> what the change breaks
    path: Path


def load_mutants(directory: Path = MUTANTS_DIR) -> list[Mutant]:
    """Every mutant, ordered by step, then by id."""
    mutants = []
    for path in sorted(directory.glob("*.toml")):
        data = tomllib.loads(path.read_text(encoding="utf-8"))
        mutants.append(
            Mutant(
                id=path.stem,
                step=data["step"],
                edits_step=data.get("edits_step", data["step"]),
                clause=data["clause"],
                find=data["find"],
                replace=data["replace"],
                worksheet=data.get("worksheet", False),
                caught_by=tuple(data["caught_by"]),
                why=data["why"],
                path=path,
            )
        )
    return sorted(mutants, key=lambda m: (m.step, m.id))


def apply(mutant: Mutant, reference: Implementation | None = None) -> Implementation:
    """The reference implementation with the mutant's one text change made."""
    reference = reference or read(SOLUTIONS_DIR, label="solutions")
    original = reference.file_for(mutant.edits_step).text or ""  # a missing file holds the text nowhere
    count = original.count(mutant.find)
    if count != 1:
        raise MutantError(
            f"{mutant.path.name}: the text to replace occurs {count} times in step {mutant.edits_step}'s reference, not once"
        )
    return reference.with_text(mutant.edits_step, original.replace(mutant.find, mutant.replace), label=mutant.id)
